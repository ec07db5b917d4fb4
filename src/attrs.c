/* attrs.c: shape checks and typed copies of IREE attributes (see attrs.h). */
#include <stdio.h>
#include <string.h>

#include "lanescope/attrs.h"
#include "lanescope/problem.h"

static ls_status bad(ls_diag *diag, const char *file, const ls_attr *at, const char *what,
                     const char *key)
{
    return ls_diag_set(diag, LS_ERR_SYNTAX, file, at->line, at->col,
                       "expected %s for '%s', found %s", what, key, ls_attr_kind_name(at->kind));
}

static ls_status int_list(const ls_attr *a, const char *file, const char *key, ls_i64_list *out,
                          bool nonneg, ls_diag *diag)
{
    if (a->kind != LS_AV_ARRAY)
        return bad(diag, file, a, "an array of integers", key);
    if (a->n > LS_MAX_RANK)
        return ls_diag_set(diag, LS_ERR_LIMIT, file, a->line, a->col,
                           "'%s' has %zu entries; the rank limit is %d", key, a->n, LS_MAX_RANK);
    out->present = true;
    out->n = (int)a->n;
    out->line = a->line;
    out->col = a->col;
    for (size_t i = 0; i < a->n; i++) {
        const ls_attr *it = a->items[i];
        if (it->kind != LS_AV_INT)
            return bad(diag, file, it, "an integer", key);
        if (nonneg && it->i < 0)
            return ls_diag_set(diag, LS_ERR_INVALID, file, it->line, it->col,
                               "'%s'[%zu] is %lld; sizes must not be negative", key, i,
                               (long long)it->i);
        out->v[i] = it->i;
    }
    return LS_OK;
}

static ls_status basis(const ls_attr *a, const char *file, const char *key, ls_basis *out,
                       ls_diag *diag)
{
    if (a->kind != LS_AV_ARRAY || a->n != 2)
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected [[counts], [mapping]] for '%s'", key);
    out->present = true;
    out->line = a->line;
    out->col = a->col;
    char k[64];
    snprintf(k, sizeof k, "%s counts", key);
    if (int_list(a->items[0], file, k, &out->counts, true, diag))
        return diag->status;
    snprintf(k, sizeof k, "%s mapping", key);
    return int_list(a->items[1], file, k, &out->mapping, true, diag);
}

static const ls_attr *dialect_params(const ls_attr *a, const char *name)
{
    if (a == NULL || a->kind != LS_AV_DIALECT || strcmp(a->s, name) != 0)
        return NULL;
    return a;
}

ls_status ls_lowering_config_from_attr(const ls_attr *a, const char *file,
                                       ls_lowering_config *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->line = a->line;
    out->col = a->col;
    const ls_attr *d = NULL;
    if (dialect_params(a, "iree_gpu.lowering_config")) {
        /* #iree_gpu.lowering_config<{...}>: one positional dictionary. */
        if (a->n == 1 && a->keys[0] == NULL && a->items[0]->kind == LS_AV_DICT)
            d = a->items[0];
        else
            d = a; /* tolerate keyed parameters without the braces */
    } else if (a->kind == LS_AV_DICT) {
        d = a;
    } else if (dialect_params(a, "iree_codegen.lowering_config")) {
        /* IREE's legacy config, tile_sizes = [[...], ...]: its warp-reduction
         * pass (GPUTileReduction) and the older pipelines read it, not the
         * VectorDistribute reduction pipeline lanescope lowers. */
        return ls_diag_set(diag, LS_ERR_INVALID, file, a->line, a->col,
                           "#iree_codegen.lowering_config<tile_sizes = ...> is IREE's legacy "
                           "config (its GPUTileReduction pass reads it); the VectorDistribute "
                           "reduction pipeline lanescope lowers reads "
                           "#iree_gpu.lowering_config<{...}>: drop the attribute to get IREE's "
                           "default (`lanescope suggest` prints it)");
    } else {
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected #iree_gpu.lowering_config<{...}>, found %s%s%s",
                           ls_attr_kind_name(a->kind), a->s ? " " : "", a->s ? a->s : "");
    }
    for (size_t i = 0; i < d->n; i++) {
        const char *key = d->keys ? d->keys[i] : NULL;
        const ls_attr *v = d->items[i];
        if (key == NULL)
            return ls_diag_set(diag, LS_ERR_SYNTAX, file, v->line, v->col,
                               "expected 'key = value' in lowering_config, found %s",
                               ls_attr_kind_name(v->kind));
        ls_status st = LS_OK;
        if (strcmp(key, "workgroup") == 0)
            st = int_list(v, file, key, &out->workgroup, true, diag);
        else if (strcmp(key, "thread") == 0)
            st = int_list(v, file, key, &out->thread, true, diag);
        else if (strcmp(key, "partial_reduction") == 0)
            st = int_list(v, file, key, &out->partial_reduction, true, diag);
        else if (strcmp(key, "reduction") == 0)
            st = int_list(v, file, key, &out->reduction, true, diag);
        else if (strcmp(key, "lane_basis") == 0)
            st = basis(v, file, key, &out->lane_basis, diag);
        else if (strcmp(key, "subgroup_basis") == 0)
            st = basis(v, file, key, &out->subgroup_basis, diag);
        else if (strcmp(key, "promote_operands") == 0)
            st = int_list(v, file, key, &out->promote_operands, true, diag);
        else if (out->n_ignored < LS_MAX_IGNORED) {
            int k = out->n_ignored++;
            snprintf(out->ignored[k], sizeof out->ignored[0], "%s", key);
            out->ignored_line[k] = v->line;
            out->ignored_col[k] = v->col;
            /* `serial` is an elementwise op's tiling level (its loop over
             * the tiles): kept for it, and listed here because a reduction's
             * lowering never reads it */
            if (strcmp(key, "serial") == 0 && int_list(v, file, key, &out->serial, true, diag))
                return diag->status;
            /* an all-zero tiling level tiles nothing */
            bool inert = strcmp(key, "serial") == 0 && v->kind == LS_AV_ARRAY;
            for (size_t j = 0; inert && j < v->n; j++)
                inert = v->items[j]->kind == LS_AV_INT && v->items[j]->i == 0;
            out->ignored_inert[k] = inert;
        } else {
            return ls_diag_set(diag, LS_ERR_LIMIT, file, v->line, v->col,
                               "more than %d lowering_config keys lanescope does not read",
                               LS_MAX_IGNORED);
        }
        if (st)
            return st;
    }
    return LS_OK;
}

ls_status ls_translation_info_from_attr(const ls_attr *a, const char *file,
                                        ls_translation_info *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->line = a->line;
    out->col = a->col;
    if (!dialect_params(a, "iree_codegen.translation_info"))
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected #iree_codegen.translation_info<...>, found %s",
                           ls_attr_kind_name(a->kind));
    for (size_t i = 0; i < a->n; i++) {
        const char *key = a->keys[i];
        const ls_attr *v = a->items[i];
        bool pipeline_slot = key ? strcmp(key, "pipeline") == 0 : (i == 0);
        if (pipeline_slot) {
            /* LLVMGPUVectorDistribute (IREE's older spelling), or
             * #iree_gpu.pipeline<VectorDistribute>: kept without the
             * prefix, so both spellings are one pipeline downstream. */
            const char *name = NULL;
            if (v->kind == LS_AV_IDENT)
                name = v->s;
            else if (v->kind == LS_AV_DIALECT && v->n == 1 && v->items[0]->kind == LS_AV_IDENT)
                name = v->items[0]->s;
            else if (key)
                return bad(diag, file, v, "a pipeline name", "pipeline");
            if (name) {
                if (strncmp(name, "LLVMGPU", 7) == 0 && name[7])
                    name += 7;
                snprintf(out->pipeline, sizeof out->pipeline, "%s", name);
                out->pipeline_line = v->line;
                out->pipeline_col = v->col;
            }
        } else if (key && strcmp(key, "workgroup_size") == 0) {
            ls_i64_list l = {0};
            if (int_list(v, file, key, &l, true, diag))
                return diag->status;
            if (l.n < 1 || l.n > 3)
                return ls_diag_set(diag, LS_ERR_INVALID, file, v->line, v->col,
                                   "workgroup_size has %d entries; it takes 1 to 3", l.n);
            out->has_workgroup_size = true;
            out->wg_rank = l.n;
            for (int k = 0; k < 3; k++)
                out->workgroup_size[k] = k < l.n ? l.v[k] : 1;
        } else if (key && strcmp(key, "subgroup_size") == 0) {
            if (v->kind != LS_AV_INT)
                return bad(diag, file, v, "a positive integer", key);
            if (v->i <= 0) /* never silently replaced by a default */
                return ls_diag_set(diag, LS_ERR_INVALID, file, v->line, v->col,
                                   "subgroup_size = %lld: expected a positive integer",
                                   (long long)v->i);
            out->has_subgroup_size = true;
            out->subgroup_size = v->i;
        }
    }
    if (!out->pipeline[0]) /* IREE's translation_info always names one */
        return ls_diag_set(diag, LS_ERR_INVALID, file, a->line, a->col,
                           "translation_info names no pipeline (pipeline = "
                           "#iree_gpu.pipeline<VectorDistribute>, or TileAndFuse)");
    return LS_OK;
}

static ls_status get_int(const ls_attr *d, const char *key, const char *file, int64_t *out,
                         ls_diag *diag)
{
    const ls_attr *v = ls_attr_get(d, key);
    if (v == NULL)
        return LS_OK;
    if (v->kind != LS_AV_INT)
        return bad(diag, file, v, "an integer", key);
    *out = v->i;
    return LS_OK;
}

static ls_status get_str(const ls_attr *d, const char *key, const char *file, char *out,
                         size_t size, ls_diag *diag)
{
    const ls_attr *v = ls_attr_get(d, key);
    if (v == NULL)
        return LS_OK;
    if (v->kind != LS_AV_STRING)
        return bad(diag, file, v, "a string", key);
    snprintf(out, size, "%s", v->s);
    return LS_OK;
}

ls_status ls_target_from_attr(const ls_attr *a, const char *file, ls_target *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->line = a->line;
    out->col = a->col;
    if (!dialect_params(a, "iree_gpu.target"))
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected #iree_gpu.target<...>, found %s", ls_attr_kind_name(a->kind));
    if (get_str(a, "arch", file, out->arch, sizeof out->arch, diag))
        return diag->status;
    const ls_attr *wgp = ls_attr_get(a, "wgp");
    if (wgp == NULL || (wgp->kind != LS_AV_PARAMS && wgp->kind != LS_AV_DIALECT))
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "#iree_gpu.target has no wgp = <...> description");
    const ls_attr *ch = ls_attr_get(wgp, "subgroup_size_choices");
    if (ch == NULL)
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, wgp->line, wgp->col,
                           "target wgp has no subgroup_size_choices");
    if (ch->kind != LS_AV_ARRAY || ch->n == 0)
        return bad(diag, file, ch, "a non-empty array of integers", "subgroup_size_choices");
    if (ch->n > LS_MAX_SG_CHOICES)
        return ls_diag_set(diag, LS_ERR_LIMIT, file, ch->line, ch->col,
                           "subgroup_size_choices has %zu entries; the limit is %d", ch->n,
                           LS_MAX_SG_CHOICES);
    for (size_t i = 0; i < ch->n; i++) {
        if (ch->items[i]->kind != LS_AV_INT || ch->items[i]->i <= 0)
            return bad(diag, file, ch->items[i], "a positive integer", "subgroup_size_choices");
        /* bounded here, not where a config is validated: the heuristics
         * (suggest, sweep) multiply it before any config exists */
        if (ch->items[i]->i > LS_MAX_SUBGROUP_SIZE)
            return ls_diag_set(diag, LS_ERR_LIMIT, file, ch->items[i]->line, ch->items[i]->col,
                               "subgroup_size_choices[%zu] = %lld is past lanescope's limit of "
                               "%d lanes",
                               i, (long long)ch->items[i]->i, LS_MAX_SUBGROUP_SIZE);
        out->subgroup_choices[out->n_subgroup_choices++] = ch->items[i]->i;
    }
    const ls_attr *mws = ls_attr_get(wgp, "max_workgroup_sizes");
    if (mws) {
        if (mws->kind != LS_AV_ARRAY || mws->n < 1 || mws->n > 3)
            return bad(diag, file, mws, "an array of 1 to 3 integers", "max_workgroup_sizes");
        for (size_t i = 0; i < mws->n; i++) {
            if (mws->items[i]->kind != LS_AV_INT)
                return bad(diag, file, mws->items[i], "an integer", "max_workgroup_sizes");
            out->max_workgroup_sizes[i] = mws->items[i]->i;
        }
    }
    if (get_int(wgp, "max_thread_count_per_workgroup", file, &out->max_thread_count, diag) ||
        get_int(wgp, "max_workgroup_memory_bytes", file, &out->max_workgroup_memory_bytes, diag) ||
        get_int(wgp, "max_load_instruction_bits", file, &out->max_load_instruction_bits, diag) ||
        get_int(wgp, "simds_per_wgp", file, &out->simds_per_wgp, diag))
        return diag->status;
    const ls_attr *mma = ls_attr_get(wgp, "mma");
    if (mma && mma->kind != LS_AV_ARRAY)
        return bad(diag, file, mma, "an array of MMA intrinsics", "mma");
    out->mma = mma && mma->n > 0 ? 1 : -1;
    const ls_attr *chip = ls_attr_get(a, "chip");
    if (chip && (chip->kind == LS_AV_PARAMS || chip->kind == LS_AV_DIALECT)) {
        if (get_int(chip, "wgp_count", file, &out->wgp_count, diag) ||
            get_str(chip, "sku", file, out->sku, sizeof out->sku, diag))
            return diag->status;
    }
    return LS_OK;
}

ls_status ls_nested_layout_from_attr(const ls_attr *a, const char *file, ls_nested_layout *out,
                                     ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->line = a->line;
    out->col = a->col;
    if (!dialect_params(a, "iree_vector_ext.nested_layout"))
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected #iree_vector_ext.nested_layout<...>, found %s",
                           ls_attr_kind_name(a->kind));
    static const char *keys[] = {"subgroup_tile", "batch_tile",       "outer_tile",
                                 "thread_tile",   "element_tile",     "subgroup_strides",
                                 "thread_strides"};
    int64_t *dst[] = {out->subgroup_tile, out->batch_tile,       out->outer_tile,
                      out->thread_tile,   out->element_tile,     out->subgroup_strides,
                      out->thread_strides};
    int rank = -1;
    for (int k = 0; k < 7; k++) {
        const ls_attr *v = ls_attr_get(a, keys[k]);
        if (v == NULL)
            return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                               "nested_layout is missing '%s'", keys[k]);
        ls_i64_list l = {0};
        if (int_list(v, file, keys[k], &l, true, diag))
            return diag->status;
        if (rank < 0)
            rank = l.n;
        else if (l.n != rank)
            return ls_diag_set(diag, LS_ERR_INVALID, file, v->line, v->col,
                               "'%s' has %d entries but '%s' has %d; all must have the rank",
                               keys[k], l.n, keys[0], rank);
        for (int i = 0; i < l.n; i++) {
            if (k < 5 && l.v[i] < 1)
                return ls_diag_set(diag, LS_ERR_INVALID, file, v->line, v->col,
                                   "'%s'[%d] is %lld; tiles must be at least 1", keys[k], i,
                                   (long long)l.v[i]);
            dst[k][i] = l.v[i];
        }
    }
    out->rank = rank;
    /* The layout queries multiply tiles (extents, registers, threads,
     * subgroups: each at most the vector's element count, the product of
     * every tile) and add strides x ids (ls_nl_lane_of, at most the sum of
     * stride x tile): both bounds must fit int64. */
    int64_t elems = 1, tids = 0, sids = 0;
    for (int i = 0; i < rank; i++) {
        bool ok = true;
        for (int k = 0; k < 5; k++)
            ok &= !__builtin_mul_overflow(elems, dst[k][i], &elems);
        if (!ok)
            return ls_diag_set(diag, LS_ERR_LIMIT, file, a->line, a->col,
                               "nested_layout: its tiles multiply past int64 (at dim %d)", i);
        int64_t t, s;
        if (__builtin_mul_overflow(out->thread_strides[i], out->thread_tile[i], &t) ||
            __builtin_mul_overflow(out->subgroup_strides[i], out->subgroup_tile[i], &s) ||
            __builtin_add_overflow(tids, t, &tids) || __builtin_add_overflow(sids, s, &sids))
            return ls_diag_set(diag, LS_ERR_LIMIT, file, a->line, a->col,
                               "nested_layout: its strides x tiles add up past int64 (at dim "
                               "%d)",
                               i);
    }
    return LS_OK;
}

ls_status ls_swizzle_from_attr(const ls_attr *a, const char *file, ls_swizzle *out,
                               ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->line = a->line;
    out->col = a->col;
    const char *names[4] = {"row_width", "access_width", "row_stride", "per_phase"};
    int nparams;
    if (dialect_params(a, "iree_codegen.xor_shuffle")) {
        out->kind = LS_SWIZZLE_XOR_SHUFFLE;
        nparams = 4;
    } else if (dialect_params(a, "iree_codegen.rotate_rows")) {
        out->kind = LS_SWIZZLE_ROTATE_ROWS;
        nparams = 2;
    } else {
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "expected #iree_codegen.xor_shuffle or rotate_rows, found %s",
                           ls_attr_kind_name(a->kind));
    }
    int64_t vals[4] = {0, 0, 0, 0};
    bool seen[4] = {false, false, false, false};
    for (size_t i = 0; i < a->n; i++) {
        int slot = -1;
        if (a->keys[i]) {
            for (int k = 0; k < nparams; k++)
                if (strcmp(a->keys[i], names[k]) == 0)
                    slot = k;
            if (slot < 0)
                return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->items[i]->line,
                                   a->items[i]->col, "unknown parameter '%s' for %s", a->keys[i],
                                   a->s);
        } else {
            slot = (int)i;
            if (slot >= nparams)
                return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->items[i]->line,
                                   a->items[i]->col, "%s takes at most %d parameters", a->s,
                                   nparams);
        }
        if (a->items[i]->kind != LS_AV_INT)
            return bad(diag, file, a->items[i], "an integer", names[slot]);
        vals[slot] = a->items[i]->i;
        seen[slot] = true;
    }
    if (!seen[0] || !seen[1])
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, a->line, a->col,
                           "%s needs row_width and access_width", a->s);
    for (int k = 0; k < nparams; k++) {
        if (vals[k] < 0 || (k < 2 && vals[k] == 0))
            return ls_diag_set(diag, LS_ERR_INVALID, file, a->line, a->col,
                               "%s: %s = %lld must be positive", a->s, names[k],
                               (long long)vals[k]);
        /* bounded so a period (blocks per row x per_phase) stays exact */
        if (vals[k] > LS_SWIZZLE_MAX_PARAM)
            return ls_diag_set(diag, LS_ERR_LIMIT, file, a->line, a->col,
                               "%s: %s = %lld is past lanescope's limit of %lld", a->s, names[k],
                               (long long)vals[k], (long long)LS_SWIZZLE_MAX_PARAM);
    }
    if (vals[0] % vals[1] != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, a->line, a->col,
                           "%s: access_width %lld does not divide row_width %lld", a->s,
                           (long long)vals[1], (long long)vals[0]);
    out->row_width = vals[0];
    out->access_width = vals[1];
    out->row_stride = vals[2] ? vals[2] : vals[0];
    out->per_phase = vals[3] ? vals[3] : 1;
    if (out->kind == LS_SWIZZLE_XOR_SHUFFLE && out->row_stride < out->row_width)
        return ls_diag_set(diag, LS_ERR_INVALID, file, a->line, a->col,
                           "%s: row_stride %lld is smaller than row_width %lld", a->s,
                           (long long)out->row_stride, (long long)out->row_width);
    return LS_OK;
}

size_t ls_format_list(char *buf, size_t size, const int64_t *v, int n)
{
    size_t used = 0;
    used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "[");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%lld",
                                 i ? ", " : "", (long long)v[i]);
    used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "]");
    return used;
}

void ls_lowering_config_format(const ls_lowering_config *c, char *buf, size_t size)
{
    size_t u = 0;
#define APPEND(...) u += (size_t)snprintf(buf + u, u < size ? size - u : 0, __VA_ARGS__)
    APPEND("#iree_gpu.lowering_config<{");
    const char *sep = "";
    const struct {
        const char *k;
        const ls_i64_list *l;
    } lists[] = {{"workgroup", &c->workgroup},
                 {"thread", &c->thread},
                 {"partial_reduction", &c->partial_reduction},
                 {"serial", &c->serial},
                 {"reduction", &c->reduction}};
    for (int i = 0; i < 5; i++) {
        if (!lists[i].l->present)
            continue;
        APPEND("%s%s = ", sep, lists[i].k);
        u += ls_format_list(buf + u, u < size ? size - u : 0, lists[i].l->v, lists[i].l->n);
        sep = ", ";
    }
    const struct {
        const char *k;
        const ls_basis *b;
    } bases[] = {{"lane_basis", &c->lane_basis}, {"subgroup_basis", &c->subgroup_basis}};
    for (int i = 0; i < 2; i++) {
        if (!bases[i].b->present)
            continue;
        APPEND("%s%s = [", sep, bases[i].k);
        u += ls_format_list(buf + u, u < size ? size - u : 0, bases[i].b->counts.v,
                      bases[i].b->counts.n);
        APPEND(", ");
        u += ls_format_list(buf + u, u < size ? size - u : 0, bases[i].b->mapping.v,
                      bases[i].b->mapping.n);
        APPEND("]");
        sep = ", ";
    }
    if (c->promote_operands.present) {
        APPEND("%spromote_operands = ", sep);
        u += ls_format_list(buf + u, u < size ? size - u : 0, c->promote_operands.v,
                            c->promote_operands.n);
    }
    APPEND("}>");
#undef APPEND
}

void ls_nested_layout_format(const ls_nested_layout *l, char *buf, size_t size)
{
    size_t u = 0;
    const char *keys[] = {"subgroup_tile", "batch_tile", "outer_tile", "thread_tile",
                          "element_tile", "subgroup_strides", "thread_strides"};
    const int64_t *src[] = {l->subgroup_tile, l->batch_tile,       l->outer_tile,
                            l->thread_tile,   l->element_tile,     l->subgroup_strides,
                            l->thread_strides};
    u += (size_t)snprintf(buf, size, "#iree_vector_ext.nested_layout<");
    for (int k = 0; k < 7; k++) {
        u += (size_t)snprintf(buf + u, u < size ? size - u : 0, "%s%s = ", k ? ", " : "",
                              keys[k]);
        u += ls_format_list(buf + u, u < size ? size - u : 0, src[k], l->rank);
    }
    snprintf(buf + u, u < size ? size - u : 0, ">");
}
