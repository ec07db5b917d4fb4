/* suggest_apply.c: a suggestion in IREE's printed syntax
 * (#iree_gpu.lowering_config, #iree_codegen.translation_info), applied to a
 * problem as if the user had written it, and a problem seen as a one-op
 * dispatch so the heuristic can run on inputs given without IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/suggest.h"
#include "suggest_internal.h"

const ls_op_config *ls_suggest_config_of(const ls_suggestion *s, int op)
{
    for (int k = 0; k < s->n_configs; k++)
        if (s->configs[k].op == op)
            return &s->configs[k];
    return NULL;
}

static size_t put_list(char *buf, size_t size, size_t u, const int64_t *v, int n)
{
    return u + ls_format_list(buf + (u < size ? u : size), u < size ? size - u : 0, v, n);
}

static size_t put_basis(char *buf, size_t size, size_t u, const int64_t *counts, int n)
{
    int64_t map[LS_MAX_RANK];
    for (int i = 0; i < n; i++)
        map[i] = i;
    u += (size_t)snprintf(buf + (u < size ? u : size), u < size ? size - u : 0, "[");
    u = put_list(buf, size, u, counts, n);
    u += (size_t)snprintf(buf + (u < size ? u : size), u < size ? size - u : 0, ", ");
    u = put_list(buf, size, u, map, n);
    u += (size_t)snprintf(buf + (u < size ? u : size), u < size ? size - u : 0, "]");
    return u;
}

#define PUT(...) u += (size_t)snprintf(buf + (u < size ? u : size), u < size ? size - u : 0, __VA_ARGS__)

void ls_op_config_format(const ls_op_config *c, char *buf, size_t size)
{
    size_t u = 0;
    /* DictionaryAttr prints its keys sorted. */
    PUT("#iree_gpu.lowering_config<{lane_basis = ");
    u = put_basis(buf, size, u, c->lanes, c->rank);
    PUT(", %s = ", c->is_reduction ? "partial_reduction" : "serial");
    u = put_list(buf, size, u, c->tile, c->rank);
    PUT(", subgroup_basis = ");
    u = put_basis(buf, size, u, c->subgroups, c->rank);
    PUT(", thread = ");
    u = put_list(buf, size, u, c->thread, c->rank);
    if (c->has_workgroup) {
        PUT(", workgroup = ");
        u = put_list(buf, size, u, c->workgroup, c->rank);
    }
    PUT("}>");
}

/* [[counts], [mapping]] with the mapping as given */
static size_t put_basis_mapped(char *buf, size_t size, size_t u, const int64_t *counts, int n,
                               const int64_t *mapping, int m)
{
    PUT("[");
    u = put_list(buf, size, u, counts, n);
    PUT(", ");
    u = put_list(buf, size, u, mapping, m);
    PUT("]");
    return u;
}

static size_t put_part(char *buf, size_t size, size_t u, const ls_attention_part *p, int rank)
{
    PUT("{lowering_config = #iree_gpu.lowering_config<{lane_basis = ");
    u = put_basis_mapped(buf, size, u, p->lane_counts, rank, p->lane_mapping, p->n_thread);
    PUT(", subgroup_basis = ");
    u = put_basis_mapped(buf, size, u, p->subgroup_counts, rank, p->subgroup_mapping,
                         p->n_thread);
    PUT(", thread = ");
    u = put_list(buf, size, u, p->thread, p->n_thread);
    PUT("}>}");
    return u;
}

void ls_attention_format(const ls_suggestion *s, char *lowering, size_t lsize, char *decomposition,
                         size_t dsize)
{
    char *buf = lowering;
    size_t size = lsize, u = 0;
    PUT("#iree_gpu.lowering_config<{partial_reduction = ");
    u = put_list(buf, size, u, s->att_partial, s->att_rank);
    PUT(", workgroup = ");
    u = put_list(buf, size, u, s->att_workgroup, s->att_rank);
    PUT("}>");
    buf = decomposition;
    size = dsize;
    u = 0;
    PUT("{pv_attrs = ");
    u = put_part(buf, size, u, &s->pv, s->att_rank);
    PUT(", qk_attrs = ");
    u = put_part(buf, size, u, &s->qk, s->att_rank);
    PUT("}");
}

void ls_suggest_format_translation(const ls_suggestion *s, char *buf, size_t size)
{
    /* setAttentionPipelineAttributes: attention's pipeline config is the
     * f32 denormal mode, not pipeline options */
    if (s->attention) {
        snprintf(buf, size,
                 "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> "
                 "workgroup_size = [%lld, 1, 1] subgroup_size = %lld, "
                 "{iree_codegen.denormal_fp_math_f32 = "
                 "#iree_codegen.denormal_fp_math<\"preserve-sign\">}>",
                 (long long)s->workgroup_size, (long long)s->subgroup_size);
        return;
    }
    snprintf(buf, size,
             "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> "
             "workgroup_size = [%lld, 1, 1] subgroup_size = %lld, {gpu_pipeline_options = "
             "#iree_gpu.pipeline_options<>}>",
             (long long)s->workgroup_size, (long long)s->subgroup_size);
}

static void set_list(ls_i64_list *l, const int64_t *v, int n)
{
    memset(l, 0, sizeof *l);
    l->present = true;
    l->n = n;
    memcpy(l->v, v, (size_t)n * sizeof *v);
}

static void set_basis(ls_basis *b, const int64_t *counts, int n)
{
    int64_t map[LS_MAX_RANK];
    for (int i = 0; i < n; i++)
        map[i] = i;
    memset(b, 0, sizeof *b);
    b->present = true;
    set_list(&b->counts, counts, n);
    set_list(&b->mapping, map, n);
}

void ls_config_set(ls_lowering_config *c, int rank, const int64_t *workgroup,
                   const int64_t *partial, const int64_t *thread, const int64_t *lanes,
                   const int64_t *subgroups, int line, int col)
{
    memset(c, 0, sizeof *c);
    c->line = line;
    c->col = col;
    set_list(&c->workgroup, workgroup, rank);
    set_list(&c->partial_reduction, partial, rank);
    set_list(&c->thread, thread, rank);
    set_basis(&c->lane_basis, lanes, rank);
    set_basis(&c->subgroup_basis, subgroups, rank);
}

void ls_translation_set(ls_translation_info *ti, int64_t wg, int64_t sg, int line, int col)
{
    memset(ti, 0, sizeof *ti);
    snprintf(ti->pipeline, sizeof ti->pipeline, "VectorDistribute");
    ti->has_workgroup_size = ti->has_subgroup_size = true;
    ti->wg_rank = 3;
    ti->workgroup_size[0] = wg;
    ti->workgroup_size[1] = ti->workgroup_size[2] = 1;
    ti->subgroup_size = sg;
    ti->line = line;
    ti->col = col;
}

void ls_suggest_apply(const ls_suggestion *s, int op, ls_problem *p)
{
    const ls_op_config *c = ls_suggest_config_of(s, op);
    if (c == NULL)
        return;
    ls_config_set(&p->config, c->rank, c->wg_tile, c->tile, c->thread, c->lanes, c->subgroups,
                  p->line, p->col);
    p->has_config = true;
    ls_translation_set(&p->ti, s->workgroup_size, s->subgroup_size, p->line, p->col);
    p->has_ti = true;
}

static void operand_from_map(ls_dop_operand *od, const ls_problem *p, const int *map, int n,
                             ls_elem_type et, int bits, const char *name)
{
    memset(od, 0, sizeof *od);
    snprintf(od->value, sizeof od->value, "%s", name);
    od->producer = -1;
    od->rank = n;
    od->map_n = n;
    for (int j = 0; j < n; j++) {
        od->map[j] = map[j];
        od->dims[j] = p->size[map[j]] < 1 ? LS_DYN : p->size[map[j]];
    }
    od->elem_bits = bits ? bits : ls_elem_type_bits(et);
    od->is_index = et == LS_ET_INDEX;
}

void ls_dispatch_from_problem(const ls_problem *p, int in_bits, int out_bits, ls_dispatch *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%s", p->file);
    snprintf(d->func, sizeof d->func, "%.95s", p->name);
    d->line = p->line;
    d->col = p->col;
    ls_dop *o = &d->ops[0];
    d->n_ops = 1;
    snprintf(o->kind, sizeof o->kind, "linalg.generic");
    o->line = p->line;
    o->col = p->col;
    o->rank = p->rank;
    for (int i = 0; i < p->rank; i++) {
        o->size[i] = p->size[i] < 1 ? LS_DYN : p->size[i];
        o->is_reduction[i] = p->is_reduction[i];
    }
    o->n_inputs = p->n_inputs;
    o->n_inits = 1;
    for (int k = 0; k < p->n_inputs; k++) {
        char name[32];
        snprintf(name, sizeof name, k ? "%%input%d" : "%%input", k);
        operand_from_map(&o->operand[k], p, p->inputs[k].map, p->inputs[k].map_n,
                         p->inputs[k].type, k ? ls_elem_type_bits(p->inputs[k].type) : in_bits,
                         name);
    }
    operand_from_map(&o->operand[p->n_inputs], p, p->out_map, p->out_map_n, p->acc_type, out_bits,
                     "%init");
    snprintf(o->result, sizeof o->result, "%%result");
    o->reduced_inits = 1;
    o->combiner_ok = true;
    o->problem = 0;
    d->n_stores = 1;
    snprintf(d->stored[0], sizeof d->stored[0], "%%result");
}
