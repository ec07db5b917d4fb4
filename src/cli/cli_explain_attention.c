/* cli_explain_attention.c: `lanescope explain` of an attention op -- its
 * dims and tiles, the K2 loop, and the nested layout IREE anchors on each
 * of its two matmuls, with the per-thread vectors of Q, K and V
 * (attention.h; docs/attention-lowering.md). */
#include <string.h>

#include "cli_explain.h"
#include "lanescope/attention.h"

static const char *role_of(const ls_attention_dims *ad, int d)
{
    const struct {
        const char *name;
        const int *dims;
        int n;
    } roles[] = {{"B", ad->batch, ad->n_batch}, {"M", ad->m, ad->n_m}, {"K1", ad->k1, ad->n_k1},
                 {"K2", ad->k2, ad->n_k2}};
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
        if (ls_att_dim_in(roles[r].dims, roles[r].n, d))
            return roles[r].name;
    return "N";
}

/* Q, K (QK) and V (PV) through their maps: the op's operands 0, 1, 2. */
static const char *operand_names[3] = {"Q", "K", "V"};

static void operand_vector(const ls_module *m, const ls_module_attention *ma, const ls_attention *a,
                           int k, char *buf, size_t size)
{
    const ls_dop_operand *od = &m->dispatches[ma->dispatch].ops[ma->op].operand[k];
    const char *elem = k == 0 ? a->q_elem : k == 1 ? a->k_elem : a->v_elem;
    ls_att_vector_type(k == 2 ? &a->pv : &a->qk, od->map, od->map_n, elem, buf, size);
}

static void loops_text(const ls_attention *a, const ls_att_matmul *mm, char *buf, size_t size)
{
    size_t u = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < mm->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%sd%d", i ? ", " : "", mm->dim[i]);
    if (u < size)
        u += (size_t)snprintf(buf + u, size - u, ") = ");
    for (int i = 0; i < mm->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%s%s", i ? ", " : "",
                              role_of(&a->dims, mm->dim[i]));
    if (u < size)
        u += (size_t)snprintf(buf + u, size - u, " of ");
    for (int i = 0; i < mm->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%s%lld", i ? " x " : "", (long long)mm->bound[i]);
}

static void text_matmul(FILE *f, const ls_module *m, const ls_module_attention *ma,
                        const ls_attention *a, bool is_qk, const char *li)
{
    const ls_att_matmul *mm = is_qk ? &a->qk : &a->pv;
    char buf[1024];
    loops_text(a, mm, buf, sizeof buf);
    fprintf(f, "%s%s matmul: loops %s, %s\n", li, is_qk ? "QK" : "PV", buf,
            is_qk ? "contracting K1 (S = Q' K^T, f32)"
            : a->partial ? "no contraction inside the loop: each K2 slot multiplies and adds "
                           "its own P row into its own accumulator (the partial tile's slots "
                           "are merged after the loop)"
                         : "contracting K2 (acc += P V)");
    ls_lowering_config_format(&mm->config, buf, sizeof buf);
    fprintf(f, "%s  %s_attrs: %s\n", li, is_qk ? "qk" : "pv", buf);
    ls_nested_layout_format(&mm->layout, buf, sizeof buf);
    fprintf(f, "%s  layout: %s\n", li, buf);
    for (int k = is_qk ? 0 : 2; k < (is_qk ? 2 : 3); k++) {
        operand_vector(m, ma, a, k, buf, sizeof buf);
        fprintf(f, "%s  per thread, %s: %s\n", li, operand_names[k], buf);
    }
    if (mm->lanes_used < a->subgroup_size || mm->subgroups_used * a->subgroup_size < a->workgroup_size)
        fprintf(f, "%s  replication: the layout uses %lld of %lld lanes and %lld of %lld subgroups; "
                   "the others (basis entries no loop maps to) compute the same values\n",
                li, (long long)mm->lanes_used, (long long)a->subgroup_size,
                (long long)mm->subgroups_used, (long long)(a->workgroup_size / a->subgroup_size));
    bool cross;
    int64_t n = ls_att_contract_reduces(mm, &cross);
    if ((is_qk || !a->partial) && n == 0)
        fprintf(f, "%s  per K2 iteration: no gpu.subgroup_reduce (no contracted dim has lanes)%s\n",
                li, cross ? "; subgroups split a contracted dim: a workgroup-memory round" : "");
    else if (is_qk || !a->partial)
        fprintf(f, "%s  per K2 iteration: %lld gpu.subgroup_reduce add per thread (one per result "
                   "element and contracted dim with lanes)%s\n",
                li, (long long)n,
                cross ? "; subgroups split a contracted dim: a workgroup-memory round" : "");
}

/* Positions as runs: "8..15, 24..31" (the first 8 runs, then how many more). */
static void runs_text(const int64_t *x, int64_t n, char *buf, size_t size)
{
    size_t u = 0;
    int runs = 0;
    buf[0] = 0;
    for (int64_t i = 0; i < n && u < size;) {
        int64_t j = i;
        while (j + 1 < n && x[j + 1] == x[j] + 1)
            j++;
        if (runs == 8) {
            int64_t left = 0;
            for (int64_t k = i; k < n; k++)
                left += k == i || x[k] != x[k - 1] + 1;
            snprintf(buf + u, size - u, ", ... %lld more run%s", (long long)left,
                     left == 1 ? "" : "s");
            return;
        }
        if (j > i)
            u += (size_t)snprintf(buf + u, size - u, "%s%lld..%lld", runs ? ", " : "",
                                  (long long)x[i], (long long)x[j]);
        else
            u += (size_t)snprintf(buf + u, size - u, "%s%lld", runs ? ", " : "", (long long)x[i]);
        runs++;
        i = j + 1;
    }
}

/* --thread: the positions of each loop thread `tid` holds in each matmul. */
static void text_thread(FILE *f, const ls_attention *a, int64_t tid, const char *li)
{
    fprintf(f, "%sthread %lld (subgroup %lld, lane %lld) holds, per workgroup tile and K2 "
               "iteration:\n",
            li, (long long)tid, (long long)(tid / a->subgroup_size),
            (long long)(tid % a->subgroup_size));
    for (int q = 0; q < 2; q++) {
        const ls_att_matmul *mm = q == 0 ? &a->qk : &a->pv;
        fprintf(f, "%s  %s:", li, q == 0 ? "QK" : "PV");
        for (int i = 0; i < mm->rank; i++) {
            int64_t x[512];
            int64_t n = ls_att_thread_positions(mm, tid, a->subgroup_size, i, x, 512);
            char buf[512];
            if (n > 512)
                snprintf(buf, sizeof buf, "%lld positions", (long long)n);
            else
                runs_text(x, n, buf, sizeof buf);
            fprintf(f, "%s d%d (%s) %s", i ? ";" : "", mm->dim[i], role_of(&a->dims, mm->dim[i]),
                    n ? buf : "none");
        }
        fprintf(f, "\n");
    }
}

/* A gathered operand's rows: how many the source has, their bytes. */
static void gather_rows(const ls_module_gather *g, int64_t *rows, int64_t *row_bytes)
{
    *rows = g->source_rank > 0 ? g->source_shape[0] : 0;
    int64_t e = 1;
    for (int j = g->depth; j < g->source_rank; j++)
        e *= g->source_shape[j];
    *row_bytes = e * ls_elem_type_bits(g->source_elem) / 8;
}

/* Paged attention: the key and value a gather makes, a computed mask
 * (docs/attention-lowering.md §10.3). */
static void text_inputs(FILE *f, const ls_module *m, const ls_module_attention *ma,
                        const ls_attention *a, const char *li)
{
    static const char *role[3] = {"", "key", "value"};
    for (int k = 1; k < 3; k++) {
        const ls_module_gather *g = &ma->gather[k];
        if (!g->on)
            continue;
        int64_t rows, row_bytes;
        gather_rows(g, &rows, &row_bytes);
        fprintf(f, "%s%s: gathered (iree_linalg_ext.gather at line %d): rows of %s (%lld rows of "
                   "%lld bytes) named by %s (%s); IREE fuses the gather into the K2 loop "
                   "(transfer_gather), so each thread loads the index of each row it reads, "
                   "then the row's elements as the layout gives them\n",
                li, role[k], g->line, g->source, (long long)rows, (long long)row_bytes,
                g->indices, ls_elem_type_name(g->index_elem));
    }
    const ls_module_elementwise *e = a->has_mask ? ls_att_mask_op(m, ma) : NULL;
    if (e)
        fprintf(f, "%smask: computed (linalg.generic at line %d, %d ops per element%s); IREE "
                   "fuses it into the K2 loop, so each thread computes its elements in "
                   "registers, no load\n",
                li, e->line, e->compiled ? ls_body_alu_ops(&e->body) : 0,
                e->compiled && e->n_inputs == 0 ? " from linalg.index and constants" : "");
}

static json_object *json_inputs(const ls_module *m, const ls_module_attention *ma,
                                const ls_attention *a)
{
    json_object *j = json_object_new_object();
    json_object *gs = json_object_new_array();
    for (int k = 1; k < 3; k++) {
        const ls_module_gather *g = &ma->gather[k];
        if (!g->on)
            continue;
        int64_t rows, row_bytes;
        gather_rows(g, &rows, &row_bytes);
        json_object *x = json_object_new_object();
        jset(x, "operand", json_object_new_string(k == 1 ? "K" : "V"));
        jset(x, "line", json_object_new_int(g->line));
        jset(x, "source", json_object_new_string(g->source));
        jset(x, "indices", json_object_new_string(g->indices));
        jset(x, "index_type", json_object_new_string(ls_elem_type_name(g->index_elem)));
        jset(x, "source_rows", json_object_new_int64(rows));
        jset(x, "row_bytes", json_object_new_int64(row_bytes));
        json_object_array_add(gs, x);
    }
    jset(j, "gathers", gs);
    const ls_module_elementwise *e = a->has_mask ? ls_att_mask_op(m, ma) : NULL;
    jset(j, "mask", json_object_new_string(!a->has_mask ? "none" : e ? "computed" : "loaded"));
    if (e && e->compiled)
        jset(j, "mask_ops_per_element", json_object_new_int(ls_body_alu_ops(&e->body)));
    return j;
}

void explain_text_attention(FILE *f, const ls_module *m, const ls_module_attention *ma,
                            const ls_attention *a, const opts *o)
{
    bool md = o->fmt == FMT_MD;
    const char *li = md ? "- " : "  ";
    const ls_attention_dims *ad = &a->dims;
    if (md)
        fprintf(f, "## %s\n\n", a->name);
    fprintf(f, "%s%s (%s:%d:%d): attention; loops", md ? "" : "", a->name, a->file, a->line,
            a->col);
    for (int d = 0; d < a->rank; d++)
        fprintf(f, "%s d%d = %s (%lld)", d ? "," : "", d, role_of(ad, d), (long long)a->size[d]);
    fprintf(f, "; Q %s, K %s, V %s%s\n", a->q_elem, a->k_elem, a->v_elem,
            a->has_mask ? ", with a mask" : "");
    if (md)
        fprintf(f, "\n");
    char buf[1024];
    ls_lowering_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.workgroup.n = cfg.partial_reduction.n = cfg.reduction.n = a->rank;
    for (int d = 0; d < a->rank; d++) {
        cfg.workgroup.v[d] = a->workgroup[d];
        (a->partial ? &cfg.partial_reduction : &cfg.reduction)->v[d] = a->k2_tile[d];
    }
    cfg.workgroup.present = true;
    (a->partial ? &cfg.partial_reduction : &cfg.reduction)->present = true;
    ls_lowering_config_format(&cfg, buf, sizeof buf);
    fprintf(f, "%slowering_config: %s%s\n", li, buf,
            a->suggested ? " (IREE's default: setAttentionReductionConfig)" : "");
    if (a->op_promote)
        fprintf(f, "%s  its promote_operands changes nothing: GPUPromoteMatmulOperands skips "
                   "attention's inputs; the qk_attrs / pv_attrs promote_operands promote K and "
                   "V\n",
                li);
    int64_t nsg = a->workgroup_size / a->subgroup_size;
    fprintf(f, "%sworkgroup: %lld threads = %lld subgroup%s of %lld; %lld workgroup%s (the B, M "
               "and N tiles)\n",
            li, (long long)a->workgroup_size, (long long)nsg, nsg == 1 ? "" : "s",
            (long long)a->subgroup_size, (long long)a->workgroups, a->workgroups == 1 ? "" : "s");
    int64_t tile = ls_att_step_keys(a);
    if (a->partial)
        fprintf(f, "%sK2 loop: %lld iteration%s over tiles of %lld keys (partial_reduction): each "
                   "key slot keeps its own max, sum and accumulator row across the iterations, "
                   "and mergeReductions combines the slots after the loop\n",
                li, (long long)a->iterations, a->iterations == 1 ? "" : "s", (long long)tile);
    else
        fprintf(f, "%sK2 loop: %lld iteration%s over tiles of %lld keys (reduction level): each "
                   "iteration is a whole online-softmax step (new max, rescale, sum, P V)\n",
                li, (long long)a->iterations, a->iterations == 1 ? "" : "s", (long long)tile);
    text_matmul(f, m, ma, a, true, li);
    text_matmul(f, m, ma, a, false, li);
    text_inputs(f, m, ma, a, li);
    if (o->has_thread)
        text_thread(f, a, o->thread, li);
    if (md)
        fprintf(f, "\n");
}

static json_object *json_matmul(const ls_module *m, const ls_module_attention *ma,
                                const ls_attention *a, bool is_qk)
{
    const ls_att_matmul *mm = is_qk ? &a->qk : &a->pv;
    json_object *j = json_object_new_object();
    int64_t dims[LS_MAX_RANK];
    json_object *roles = json_object_new_array();
    for (int i = 0; i < mm->rank; i++) {
        dims[i] = mm->dim[i];
        json_object_array_add(roles, json_object_new_string(role_of(&a->dims, mm->dim[i])));
    }
    jset(j, "loops", jlist(dims, mm->rank));
    jset(j, "roles", roles);
    jset(j, "bounds", jlist(mm->bound, mm->rank));
    char buf[1024];
    ls_lowering_config_format(&mm->config, buf, sizeof buf);
    jset(j, "lowering_config", json_object_new_string(buf));
    ls_nested_layout_format(&mm->layout, buf, sizeof buf);
    jset(j, "layout", json_object_new_string(buf));
    json_object *vec = json_object_new_object();
    for (int k = is_qk ? 0 : 2; k < (is_qk ? 2 : 3); k++) {
        operand_vector(m, ma, a, k, buf, sizeof buf);
        jset(vec, operand_names[k], json_object_new_string(buf));
    }
    jset(j, "vectors", vec);
    jset(j, "lanes_used", json_object_new_int64(mm->lanes_used));
    jset(j, "subgroups_used", json_object_new_int64(mm->subgroups_used));
    bool cross;
    int64_t n = ls_att_contract_reduces(mm, &cross);
    jset(j, "subgroup_reduces_per_iteration", json_object_new_int64(is_qk || !a->partial ? n : 0));
    return j;
}

json_object *explain_json_attention(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a)
{
    json_object *r = json_object_new_object();
    jset(r, "kind", json_object_new_string("attention"));
    jset(r, "name", json_object_new_string(a->name));
    char loc[320];
    snprintf(loc, sizeof loc, "%s:%d:%d", a->file, a->line, a->col);
    jset(r, "location", json_object_new_string(loc));
    json_object *at = json_object_new_object();
    json_object *roles = json_object_new_array();
    for (int d = 0; d < a->rank; d++)
        json_object_array_add(roles, json_object_new_string(role_of(&a->dims, d)));
    jset(at, "roles", roles);
    jset(at, "sizes", jlist(a->size, a->rank));
    jset(at, "workgroup", jlist(a->workgroup, a->rank));
    jset(at, "k2_tile", jlist(a->k2_tile, a->rank));
    jset(at, "k2_level", json_object_new_string(a->partial ? "partial_reduction" : "reduction"));
    jset(at, "config_source", json_object_new_string(a->suggested ? "iree-default" : "input"));
    jset(at, "workgroup_size", json_object_new_int64(a->workgroup_size));
    jset(at, "subgroup_size", json_object_new_int64(a->subgroup_size));
    jset(at, "workgroups", json_object_new_int64(a->workgroups));
    jset(at, "iterations", json_object_new_int64(a->iterations));
    jset(at, "qk", json_matmul(m, ma, a, true));
    jset(at, "pv", json_matmul(m, ma, a, false));
    jset(at, "inputs", json_inputs(m, ma, a));
    jset(r, "attention", at);
    return r;
}
