/* cli_explain_layouts.c: `lanescope explain` on an
 * #iree_vector_ext.nested_layout (each thread's elements, subgroups in
 * order) and on a swizzle (the table before and after, with its period),
 * as text, Markdown or JSON. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_explain.h"
#include "lanescope/layout.h"
#include "lanescope/swizzle.h"

/* ------------------------------------------------------------ nested layouts */

static int64_t layout_threads(const ls_nested_layout *l, const opts *o)
{
    return o->subgroup_size ? o->subgroup_size : ls_nl_threads(l);
}

static void subgroup_order(const ls_nested_layout *l, int64_t *ids, int64_t *n)
{
    /* Virtual subgroup ids in row-major order -> physical id. */
    int64_t total = ls_nl_subgroups(l);
    *n = total;
    for (int64_t v = 0; v < total; v++) {
        int64_t vs[LS_MAX_BODY], rem = v;
        for (int i = l->rank - 1; i >= 0; i--) {
            vs[i] = rem % l->subgroup_tile[i];
            rem /= l->subgroup_tile[i];
        }
        ids[v] = ls_nl_subgroup_of(l, vs);
    }
}

static void layout_thread_elements(const ls_nested_layout *l, int64_t sg, int64_t lane,
                                   int64_t reg, int64_t *idx)
{
    ls_nl_coord c;
    ls_nl_register_coord(l, reg, &c);
    ls_nl_virtual_subgroup(l, sg, c.subgroup);
    ls_nl_virtual_thread(l, lane, c.thread);
    ls_nl_compose(l, &c, idx);
}

/* Thread N of a standalone layout: its subgroup, lane and virtual ids. */
static void layout_thread(const ls_nested_layout *l, const opts *o, int64_t *sg, int64_t *lane,
                          int64_t *vt, int64_t *vs)
{
    int64_t threads = layout_threads(l, o);
    *sg = o->thread / threads;
    *lane = o->thread % threads;
    ls_nl_virtual_thread(l, *lane, vt);
    ls_nl_virtual_subgroup(l, *sg, vs);
}

bool explain_layout_check(const ls_module_layout *ml, const char *file, const opts *o,
                         ls_diag *diag)
{
    const ls_nested_layout *l = &ml->layout;
    int64_t threads = layout_threads(l, o);
    if (ml->vector_rank) {
        if (ml->vector_rank != l->rank)
            return ls_diag_set(diag, LS_ERR_INVALID, file, l->line, l->col,
                               "nested_layout has rank %d but the vector has rank %d", l->rank,
                               ml->vector_rank) == LS_OK;
        for (int i = 0; i < l->rank; i++)
            if (ml->vector_shape[i] != ls_nl_extent(l, i))
                return ls_diag_set(diag, LS_ERR_INVALID, file, l->line, l->col,
                                   "nested_layout tiles multiply to %lld along dim %d but the "
                                   "vector is %lld long",
                                   (long long)ls_nl_extent(l, i), i,
                                   (long long)ml->vector_shape[i]) == LS_OK;
    }
    if (threads % ls_nl_threads(l) != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, l->line, l->col,
                           "thread tiles multiply to %lld, which does not divide the subgroup "
                           "size %lld",
                           (long long)ls_nl_threads(l), (long long)threads) == LS_OK;
    if (o->has_thread) {
        /* --subgroup-size (<= 2^16) x the layout's subgroups may pass int64:
         * then every --thread (<= 2^20) is inside */
        int64_t sgs = o->hw_subgroups ? o->hw_subgroups : ls_nl_subgroups(l), all;
        if (ls_mul_ok(threads, sgs, &all) && o->thread >= all)
            return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                               "%lld is outside the %lld threads of this layout",
                               (long long)o->thread, (long long)all) == LS_OK;
    }
    return true;
}

void explain_text_layout(FILE *f, const ls_module_layout *ml, const char *file, const opts *o)
{
    const ls_nested_layout *l = &ml->layout;
    bool md = o->fmt == FMT_MD;
    char buf[1024], a[256];
    const char *li = md ? "- " : "  ";
    if (md)
        fprintf(f, "## Nested layout %s%s (%s:%d:%d)\n\n", ml->name[0] ? "#" : "", ml->name, file,
                l->line, l->col);
    else
        fprintf(f, "nested_layout %s%s at %s:%d:%d\n", ml->name[0] ? "#" : "",
                ml->name[0] ? ml->name : "(inline)", file, l->line, l->col);
    ls_nested_layout_format(l, buf, sizeof buf);
    fprintf(f, "%s%s%s%s\n", li, md ? "`" : "", buf, md ? "`" : "");
    int64_t ext[LS_MAX_BODY];
    for (int i = 0; i < l->rank; i++)
        ext[i] = ls_nl_extent(l, i);
    size_t u = 0;
    for (int i = 0; i < l->rank; i++)
        u += (size_t)snprintf(a + u, sizeof a - u, "%s%lld", i ? "x" : "", (long long)ext[i]);
    fprintf(f, "%svector: %s%s\n", li, a,
            ml->vector_rank ? " (the to_layout operand)" : " (implied by the tiles)");
    fprintf(f, "%sviewed as vector<", li);
    const char *names[5] = {"subgroup", "batch", "outer", "thread", "element"};
    const int64_t *tiles[5] = {l->subgroup_tile, l->batch_tile, l->outer_tile, l->thread_tile,
                               l->element_tile};
    for (int k = 0; k < 5; k++) {
        fprintf(f, "%s[", k ? "x" : "");
        for (int i = 0; i < l->rank; i++)
            fprintf(f, "%s%lld", i ? "x" : "", (long long)tiles[k][i]);
        fprintf(f, "]");
    }
    fprintf(f, "> (%s)\n", "subgroup x batch x outer x thread x element");
    (void)names;
    int64_t shape[LS_MAX_BODY];
    ls_nl_distributed_shape(l, shape);
    u = 0;
    for (int i = 0; i < l->rank; i++)
        u += (size_t)snprintf(a + u, sizeof a - u, "%lldx", (long long)shape[i]);
    fprintf(f, "%sper-thread (distributed) vector: vector<%s> with %lld elements\n", li,
            a[0] ? (a[u - 1] = 0, a) : "", (long long)ls_nl_registers(l));
    fprintf(f, "%ssubgroups used: %lld; threads per subgroup: %lld (thread tiles use %lld)\n", li,
            (long long)ls_nl_subgroups(l), (long long)layout_threads(l, o),
            (long long)ls_nl_threads(l));
    int64_t ids[4096], n;
    if (ls_nl_subgroups(l) <= 4096) {
        subgroup_order(l, ids, &n);
        fprintf(f, "%ssubgroup order (virtual subgroup ids in row-major order -> subgroup id): ",
                li);
        for (int64_t v = 0; v < n && v < 64; v++)
            fprintf(f, "%s%lld", v ? ", " : "", (long long)ids[v]);
        fprintf(f, n > 64 ? ", ...\n" : "\n");
        if (o->hw_subgroups) {
            fprintf(f, "%s  taken mod %lld hardware subgroups: ", li, (long long)o->hw_subgroups);
            for (int64_t v = 0; v < n && v < 64; v++)
                fprintf(f, "%s%lld", v ? ", " : "", (long long)(ids[v] % o->hw_subgroups));
            fputc('\n', f);
            fprintf(f, "%s  hardware subgroups 0..%lld hold virtual subgroup ids:", li,
                    (long long)o->hw_subgroups - 1);
            for (int64_t s = 0; s < o->hw_subgroups && s < 64; s++) {
                int64_t vs[LS_MAX_BODY];
                ls_nl_virtual_subgroup(l, s, vs);
                ls_format_list(a, sizeof a, vs, l->rank);
                fprintf(f, " %s", a);
            }
            fputc('\n', f);
        }
    }
    if (o->has_thread) {
        int64_t sg, lane, vt[LS_MAX_BODY], vs[LS_MAX_BODY];
        layout_thread(l, o, &sg, &lane, vt, vs);
        ls_format_list(a, sizeof a, vt, l->rank);
        ls_format_list(buf, sizeof buf, vs, l->rank);
        fprintf(f, "\n%sthread %lld (subgroup %lld, lane %lld): virtual thread ids %s, virtual "
                   "subgroup ids %s; holds:\n",
                md ? "" : "  ", (long long)o->thread, (long long)sg, (long long)lane, a, buf);
        int64_t regs = ls_nl_registers(l);
        fprintf(f, md ? "\n```\n" : "");
        for (int64_t r = 0; r < regs && r < 256; r++) {
            int64_t idx[LS_MAX_BODY];
            layout_thread_elements(l, sg, lane, r, idx);
            ls_format_list(a, sizeof a, idx, l->rank);
            fprintf(f, "%s%s%s", r % 8 == 0 ? (md ? "" : "      ") : " ", a,
                    (r % 8 == 7 || r == regs - 1) ? "\n" : "");
        }
        fprintf(f, md ? "```\n" : "");
    }
    fputc('\n', f);
}

json_object *explain_json_layout(const ls_module_layout *ml, const char *file, const opts *o)
{
    const ls_nested_layout *l = &ml->layout;
    json_object *r = json_object_new_object();
    char buf[1024];
    jset(r, "kind", json_object_new_string("nested_layout"));
    jset(r, "name", json_object_new_string(ml->name));
    snprintf(buf, sizeof buf, "%.900s:%d:%d", file, l->line, l->col);
    jset(r, "location", json_object_new_string(buf));
    ls_nested_layout_format(l, buf, sizeof buf);
    jset(r, "text", json_object_new_string(buf));
    int64_t ext[LS_MAX_BODY], shape[LS_MAX_BODY];
    for (int i = 0; i < l->rank; i++)
        ext[i] = ls_nl_extent(l, i);
    ls_nl_distributed_shape(l, shape);
    jset(r, "vector_shape", jlist(ext, l->rank));
    jset(r, "per_thread_shape", jlist(shape, l->rank));
    jset(r, "subgroups", json_object_new_int64(ls_nl_subgroups(l)));
    jset(r, "threads_per_subgroup", json_object_new_int64(layout_threads(l, o)));
    if (ls_nl_subgroups(l) <= 4096) {
        int64_t ids[4096], n;
        subgroup_order(l, ids, &n);
        jset(r, "subgroup_order", jlist(ids, (int)n));
        if (o->hw_subgroups) {
            for (int64_t v = 0; v < n; v++)
                ids[v] %= o->hw_subgroups;
            jset(r, "subgroup_order_mod_hardware", jlist(ids, (int)n));
        }
    }
    if (o->has_thread) {
        int64_t sg, lane, vt[LS_MAX_BODY], vs[LS_MAX_BODY];
        layout_thread(l, o, &sg, &lane, vt, vs);
        json_object *tj = json_object_new_object();
        jset(tj, "thread", json_object_new_int64(o->thread));
        jset(tj, "virtual_thread", jlist(vt, l->rank));
        jset(tj, "virtual_subgroup", jlist(vs, l->rank));
        json_object *els = json_object_new_array();
        for (int64_t reg = 0; reg < ls_nl_registers(l) && reg < 4096; reg++) {
            int64_t idx[LS_MAX_BODY];
            layout_thread_elements(l, sg, lane, reg, idx);
            json_object_array_add(els, jlist(idx, l->rank));
        }
        jset(tj, "elements", els);
        jset(r, "thread", tj);
    }
    return r;
}

/* ------------------------------------------------------------ swizzles */

static char block_char(int64_t id)
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    return id < 36 ? digits[id] : '*';
}

static int64_t swizzle_rows(const ls_swizzle *s, const opts *o)
{
    int64_t r = o->rows ? o->rows : ls_swizzle_period_rows(s);
    return r > 256 ? 256 : r;
}

static void swizzle_table(FILE *f, const ls_swizzle *s, int64_t rows, bool after)
{
    int64_t n = ls_swizzle_blocks_per_row(s);
    bool chars = rows * n <= 36;
    for (int64_t i = 0; i < rows; i++) {
        fprintf(f, "  ");
        for (int64_t p = 0; p < n; p++) {
            int64_t j = after ? ls_swizzle_block_inverse(s, i, p) : p;
            int64_t id = i * n + j;
            if (p)
                fputc(' ', f);
            if (chars)
                for (int64_t e = 0; e < s->access_width; e++)
                    fputc(block_char(id), f);
            else
                fprintf(f, "%4lld", (long long)id);
        }
        fprintf(f, " ///");
        for (int64_t p = 0; p < n; p++)
            fprintf(f, " %lld", (long long)(after ? ls_swizzle_block_inverse(s, i, p) : p));
        fputc('\n', f);
    }
}

void explain_text_swizzle(FILE *f, const ls_module_swizzle *ms, const char *file, const opts *o)
{
    const ls_swizzle *s = &ms->swizzle;
    bool md = o->fmt == FMT_MD;
    char buf[512];
    ls_swizzle_format(s, buf, sizeof buf);
    if (md)
        fprintf(f, "## Swizzle %s%s (%s:%d:%d)\n\n- `%s`\n", ms->name[0] ? "#" : "", ms->name,
                file, s->line, s->col, buf);
    else
        fprintf(f, "swizzle %s%s at %s:%d:%d\n  %s\n", ms->name[0] ? "#" : "",
                ms->name[0] ? ms->name : "(inline)", file, s->line, s->col, buf);
    int64_t rows = swizzle_rows(s, o);
    fprintf(f, "%s%lld blocks of %lld elements per row; the pattern repeats every %lld rows; "
               "block j of row i moves to %s\n",
            md ? "- " : "  ", (long long)ls_swizzle_blocks_per_row(s), (long long)s->access_width,
            (long long)ls_swizzle_period_rows(s),
            s->kind == LS_SWIZZLE_XOR_SHUFFLE ? "((i / per_phase) % N) XOR j" : "(i + j) % N");
    fprintf(f, md ? "\n```\n" : "\n");
    fprintf(f, "  before:\n");
    swizzle_table(f, s, rows, false);
    fprintf(f, "  after:\n");
    swizzle_table(f, s, rows, true);
    fprintf(f, md ? "```\n\n" : "\n");
}

json_object *explain_json_swizzle(const ls_module_swizzle *ms, const char *file, const opts *o)
{
    const ls_swizzle *s = &ms->swizzle;
    json_object *r = json_object_new_object();
    char buf[1024];
    jset(r, "kind", json_object_new_string(s->kind == LS_SWIZZLE_XOR_SHUFFLE ? "xor_shuffle"
                                                                               : "rotate_rows"));
    jset(r, "name", json_object_new_string(ms->name));
    snprintf(buf, sizeof buf, "%.900s:%d:%d", file, s->line, s->col);
    jset(r, "location", json_object_new_string(buf));
    jset(r, "row_width", json_object_new_int64(s->row_width));
    jset(r, "access_width", json_object_new_int64(s->access_width));
    if (s->kind == LS_SWIZZLE_XOR_SHUFFLE) {
        jset(r, "row_stride", json_object_new_int64(s->row_stride));
        jset(r, "per_phase", json_object_new_int64(s->per_phase));
    }
    int64_t n = ls_swizzle_blocks_per_row(s), rows = swizzle_rows(s, o);
    json_object *after = json_object_new_array();
    for (int64_t i = 0; i < rows; i++) {
        int64_t row[4096];
        for (int64_t p = 0; p < n && p < 4096; p++)
            row[p] = ls_swizzle_block_inverse(s, i, p);
        json_object_array_add(after, jlist(row, (int)(n < 4096 ? n : 4096)));
    }
    jset(r, "after_blocks", after);
    return r;
}

