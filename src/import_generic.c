/* import_generic.c: linalg.generic and linalg.reduce, the ops most of
 * IREE's reductions arrive as -- their operands, indexing maps, iterator
 * types, body (compiled to the interpreter's program) and element types,
 * into an ls_problem. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

/* The input may differ from the reduced type only through an extension the
 * body (or a producer op) spells out: f16/bf16 -> wider float, iN -> wider
 * int.  Anything else (i32 into an f32 addf, say) is not valid IR. */
static bool check_types(importer *im, ls_problem *p, int line, int col)
{
    ls_elem_type a = p->inputs[0].type, b = p->acc_type;
    bool ok = p->body.n > 0 || a == b || (p->extended && ls_elem_type_is_float(a) == ls_elem_type_is_float(b) &&
                         ls_elem_type_bits(a) < ls_elem_type_bits(b));
    if (!ok)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, line, col,
                           "the input is %s but the reduction is in %s, and no arith.extf / "
                           "arith.extsi widens it",
                           ls_elem_type_name(a), ls_elem_type_name(b)) == LS_OK;
    bool fl = ls_elem_type_is_float(b);
    if ((fl && ls_combiner_is_int_only(p->combiner)) ||
        (!fl && ls_combiner_is_float_only(p->combiner)))
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, line, col,
                           "%s does not apply to %s values", ls_combiner_op(p->combiner, fl),
                           ls_elem_type_name(b)) == LS_OK;
    return true;
}

static bool set_types(importer *im, ls_problem *p, const operand_list *ins,
                      const operand_list *outs, int line, int col)
{
    if (ins->n < 1 || outs->n != 1)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, line, col,
                           "reduction has %d inputs and %d inits; lanescope models one init",
                           ins->n, outs->n) == LS_OK;
    p->inputs[0].type = ins->types[0].elem;
    p->acc_type = outs->types[0].elem;
    return ls_imp_init_type_ok(im, outs);
}

/* What one result of a multi-result generic needs of its op. */
typedef struct {
    const ls_token *op;
    const region *r;
    const operand_list *ins, *outs;
    const ls_attr *maps;
    const bool *red;
    int rank;
} generic_shape;

/* Result res of a linalg.generic with a reduction as the next problem of
 * the module (not yet linked): its maps, loops, body and init.  false when
 * the simulator cannot model it (the reason recorded as unsupported). */
static bool generic_result(importer *im, const generic_shape *g, int res,
                           int opmap[][LS_MAX_RANK], int *opmap_n,
                           int64_t opscale[][LS_MAX_RANK], int64_t opshape[][LS_MAX_RANK])
{
    const operand_list *ins = g->ins, *outs = g->outs;
    const ls_attr *maps = g->maps;
    int line = g->op->line, col = g->op->col;
    ls_problem *p = ls_imp_new_problem(im, line, col, "linalg.generic");
    if (p == NULL)
        return false;
    if (outs->n > 1) {
        size_t n = strlen(p->name);
        snprintf(p->name + n, sizeof p->name - n, ".result%d", res);
        p->result = res;
        p->n_results = outs->n;
    }
    ls_diag local, *saved;
    ls_imp_begin_problem_checks(im, &local, &saved);
    bool ok = false;
    p->rank = g->rank;
    memcpy(p->is_reduction, g->red, sizeof(bool) * LS_MAX_RANK);
    if (maps->n != (size_t)(ins->n + outs->n)) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, maps->line, maps->col,
                    "indexing_maps has %zu maps for %d operands", maps->n, ins->n + outs->n);
        goto checked;
    }
    for (size_t i = 0; i < maps->n; i++)
        if (maps->items[i]->kind != LS_AV_AFFINE_MAP) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, maps->items[i]->line,
                        maps->items[i]->col, "expected an affine_map in indexing_maps, found %s",
                        ls_attr_kind_name(maps->items[i]->kind));
            goto checked;
        }
    /* this result's init seen as the op's only one */
    operand_list one = *outs;
    one.n = 1;
    memcpy(one.names[0], outs->names[res], sizeof one.names[0]);
    one.types[0] = outs->types[res];
    one.type_text[0] = outs->type_text[res];
    one.name_line[0] = outs->name_line[res];
    one.name_col[0] = outs->name_col[res];
    if (!set_types(im, p, ins, &one, line, col))
        goto checked;
    for (int k = 0; k < ins->n; k++) {
        char what[32];
        snprintf(what, sizeof what, ins->n == 1 ? "input" : "input %d", k);
        if (!ls_imp_bind_map(im, p, maps->items[k]->map, maps->items[k]->line, maps->items[k]->col,
                             &ins->types[k], opmap[k], &opmap_n[k], opscale[k], opshape[k], what))
            goto checked;
    }
    const ls_attr *om = maps->items[ins->n + res];
    if (!ls_imp_bind_map(im, p, om->map, om->line, om->col, &outs->types[res], p->out_map,
                         &p->out_map_n, NULL, NULL, outs->n > 1 ? "this result's init" : "init"))
        goto checked;
    bool used[LS_MAX_RANK] = {false};
    for (int k = 0; k < ins->n; k++)
        for (int j = 0; j < opmap_n[k]; j++)
            used[opmap[k][j]] = true;
    if (!ls_imp_check_loops(im, p, used, line, col, maps->line, maps->col))
        goto checked;
    ok = ls_imp_compile_reduction(im, g->r, ins, opmap, opmap_n, opscale, opshape, res, outs->n,
                                  p, line, col) &&
         check_types(im, p, line, col);
    if (ok)
        ls_imp_set_init(im, p, outs->names[res]);
checked:
    ls_imp_end_problem_checks(im, &local, saved);
    return ok;
}

/* Shapes through projected-permutation maps give the loop sizes. */
/* An elementwise op of the current dispatch, for its one kernel
 * (import.h: ls_module_elementwise): its compiled body from the fused
 * record just made, its loops, and the lowering_config written on it --
 * read here, so that a config on an elementwise op is never dropped. */
static void record_elementwise(importer *im, const ls_dop *dop, const char *result,
                               const operand_list *outs, const ls_attr *dict,
                               const ls_attr *attrs)
{
    if (im->cur == NULL || im->m->n_elementwise >= LS_IMPORT_MAX_ITEMS)
        return;
    ls_problem *tmp = ls_xcalloc(1, sizeof *tmp);
    /* a config lanescope cannot read (IREE's legacy tile_sizes, say) is not
     * the file's error: the op is then not run in a fused kernel, and the
     * reason says why */
    ls_diag local, *saved = im->diag;
    ls_diag_clear(&local);
    im->diag = &local;
    bool read = ls_imp_take_op_attrs(im, dict, tmp) && ls_imp_take_op_attrs(im, attrs, tmp);
    im->diag = saved;
    {
        ls_module_elementwise *e = &im->m->elementwise[im->m->n_elementwise++];
        memset(e, 0, sizeof *e);
        e->dispatch = (int)(im->cur - im->m->dispatches);
        e->op = (int)(dop - im->cur->ops);
        e->line = dop->line;
        e->col = dop->col;
        e->rank = dop->rank;
        memcpy(e->size, dop->size, sizeof e->size);
        e->has_config = tmp->has_config;
        e->config = tmp->config;
        e->out_type = outs->n == 1 ? outs->types[0].elem : LS_ET_UNKNOWN;
        const fused_producer *f = ls_imp_fused_of(im, result);
        if (!read) {
            snprintf(e->why, sizeof e->why, "%d:%d: %s", local.line, local.col, local.msg);
        } else if (f == NULL || f->failed) {
            snprintf(e->why, sizeof e->why, "%s", f ? f->why : "its body is not one lanescope reads");
        } else {
            e->compiled = true;
            e->n_inputs = f->n_inputs;
            memcpy(e->inputs, f->inputs, sizeof e->inputs);
            e->body = f->body;
            memcpy(e->out_map, f->out_map, sizeof e->out_map);
        }
    }
    free(tmp);
}

/* The op's iterator_types and indexing_maps, checked: red[i] for each
 * loop that reduces, any_red if one does. */
static bool read_iterators(importer *im, const ls_attr *dict, const ls_attr **its_out,
                           const ls_attr **maps_out, bool *red, bool *any_red)
{
    const ls_attr *its = *its_out = ls_attr_get(dict, "iterator_types");
    const ls_attr *maps = *maps_out = ls_attr_get(dict, "indexing_maps");
    if (its == NULL || its->kind != LS_AV_ARRAY || maps == NULL || maps->kind != LS_AV_ARRAY) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dict->line, dict->col,
                    "linalg.generic needs indexing_maps = [...] and iterator_types = [...]");
        return false;
    }
    if (its->n > LS_MAX_RANK) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, its->line, its->col,
                    "linalg.generic has %zu loops; the rank limit is %d", its->n, LS_MAX_RANK);
        return false;
    }
    for (size_t i = 0; i < its->n; i++) {
        const ls_attr *it = its->items[i];
        const char *s = NULL;
        if (it->kind == LS_AV_STRING)
            s = it->s;
        else if (it->kind == LS_AV_DIALECT && it->n == 1 && it->items[0]->kind == LS_AV_IDENT)
            s = it->items[0]->s;
        if (s == NULL || (strcmp(s, "parallel") != 0 && strcmp(s, "reduction") != 0)) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, it->line, it->col,
                        "expected \"parallel\" or \"reduction\" in iterator_types");
            return false;
        }
        red[i] = strcmp(s, "reduction") == 0;
        *any_red |= red[i];
    }
    return true;
}

/* A reduction generic's results, each the next problem of the module and
 * linked to dop; none if one cannot be modelled. */
static void import_results(importer *im, const generic_shape *g, int opmap[][LS_MAX_RANK],
                           int *opmap_n, ls_dop *dop, const ls_attr *dict, const ls_attr *attrs)
{
    /* Several results (a min and a max of one input): one problem each, in
     * result order, sharing the op's number; each must fold only its own
     * init.  A result that cannot be modelled drops them all. */
    size_t first = im->m->n_problems;
    int index = im->op_index;
    bool ok = true;
    int64_t opscale[MAX_OPERANDS][LS_MAX_RANK] = {{0}}, opshape[MAX_OPERANDS][LS_MAX_RANK] = {{0}};
    for (int res = 0; ok && res < g->outs->n; res++) {
        im->op_index = index;
        ok = generic_result(im, g, res, opmap, opmap_n, opscale, opshape);
        if (ok)
            ls_imp_link_problem(im, dop);
    }
    /* MLIR's type rules after lanescope's own checks: where those stop
     * first (say at an i32 operand fed to a float op), their message is
     * the one that names the fault in lanescope's terms */
    if ((ok || (im->flags & LS_IMPORT_KEEP_UNSUPPORTED)) &&
        !ls_imp_verify_region(im, g->r, g->ins, g->outs, "linalg.generic"))
        ok = false;
    for (size_t i = first; ok && i < im->m->n_problems; i++)
        ok = ls_imp_take_op_attrs(im, dict, &im->m->problems[i]) &&
             ls_imp_take_op_attrs(im, attrs, &im->m->problems[i]);
    if (!ok) {
        im->m->n_problems = first;
        if (dop)
            dop->problem = -1;
    } else if (dop) {
        dop->problem = (int)first;
    }
}

void ls_imp_generic_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    next(im);
    if (!ls_tok_is(tok(im), '{')) {
        syntax(im, "'{' with indexing_maps and iterator_types");
        return;
    }
    ls_attr *dict = ls_parse_attr(&im->p);
    if (dict == NULL)
        return;
    operand_list ins, outs;
    memset(&ins, 0, sizeof ins);
    ins.line = tok(im)->line;
    ins.col = tok(im)->col;
    /* ins(...) may be absent: a generic that only writes its init */
    if ((!ls_tok_ident(tok(im), "outs") && !ls_imp_operands(im, "ins", &ins)) ||
        !ls_imp_operands(im, "outs", &outs))
        return;
    ls_attr *attrs = NULL;
    if (ls_tok_ident(tok(im), "attrs")) {
        next(im);
        if (!expect(im, '='))
            return;
        attrs = ls_parse_attr(&im->p);
        if (attrs == NULL)
            return;
    }
    region r;
    memset(&r, 0, sizeof r);
    if (!ls_imp_parse_region(im, &r))
        return;

    const ls_attr *its, *maps;
    bool red[LS_MAX_RANK] = {false}, any_red = false;
    if (!read_iterators(im, dict, &its, &maps, red, &any_red))
        return;
    ls_dop *dop = NULL;
    if (maps->n == (size_t)(ins.n + outs.n)) {
        const ls_affine_map *am[LS_DISPATCH_MAX_OPERANDS] = {NULL};
        for (size_t i = 0; i < maps->n && i < LS_DISPATCH_MAX_OPERANDS; i++)
            am[i] = maps->items[i]->kind == LS_AV_AFFINE_MAP ? maps->items[i]->map : NULL;
        dop = ls_imp_add_dop(im, "linalg.generic", op.line, op.col, (int)its->n, red, am, &ins, &outs,
                      &r, result_name, op.text);
        if (failed(im))
            return;
    }
    /* Loop dims of every operand's map (-1: not a plain dim). */
    int opmap[MAX_OPERANDS][LS_MAX_RANK], opmap_n[MAX_OPERANDS] = {0};
    bool maps_ok = maps->n == (size_t)(ins.n + outs.n) && outs.n == 1;
    for (size_t k = 0; maps_ok && k < maps->n; k++) {
        const ls_attr *m = maps->items[k];
        if (m->kind != LS_AV_AFFINE_MAP || m->map->num_dims != (int)its->n ||
            m->map->num_results > LS_MAX_RANK) {
            maps_ok = false;
            break;
        }
        opmap_n[k] = m->map->num_results;
        for (int j = 0; j < opmap_n[k]; j++)
            opmap[k][j] = m->map->results[j].kind == LS_AFF_DIM ? (int)m->map->results[j].value
                                                                 : -1;
    }
    if (!any_red) {
        if (!ls_imp_verify_region(im, &r, &ins, &outs, "linalg.generic"))
            return;
        /* Elementwise: a consumer reduction in the dispatch inlines it. */
        if (maps_ok)
            ls_imp_record_fused(im, result_name, op.line, op.col, &r, &ins, (int)its->n, opmap,
                                opmap_n);
        else
            ls_imp_record_unfusable(im, result_name, op.line, op.col,
                                    outs.n != 1 ? "it has several results"
                                                : "its indexing maps do not match its operands "
                                                  "and loops");
        /* and the dispatch's kernel may run it as a loop of its own */
        if (dop && result_name)
            record_elementwise(im, dop, result_name, &outs, dict, attrs);
        return;
    }
    if (ins.n < 1 || outs.n < 1) {
        ls_diag local, *saved;
        ls_imp_begin_problem_checks(im, &local, &saved);
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, op.line, op.col,
                    "the reduction has %d inputs and %d inits; lanescope simulates reductions "
                    "of at least one input into at least one init",
                    ins.n, outs.n);
        ls_imp_end_problem_checks(im, &local, saved);
        if (im->flags & LS_IMPORT_KEEP_UNSUPPORTED)
            ls_imp_verify_region(im, &r, &ins, &outs, "linalg.generic");
        return;
    }
    const generic_shape g = {&op, &r, &ins, &outs, maps, red, (int)its->n};
    import_results(im, &g, opmap, opmap_n, dop, dict, attrs);
}

/* linalg.reduce's op in the dispatch view: its inputs read whole, its
 * inits through the kept dims (NULL where its dimensions are not an
 * array of the input's dims, refused as a problem below). */
static ls_dop *reduce_dispatch_op(importer *im, const ls_token *op, const operand_list *ins,
                                  const operand_list *outs, const region *r, const ls_attr *dims,
                                  const char *result_name)
{
    ls_dop *dop = NULL;
    int in_rank = ins->n > 0 ? ins->types[0].rank : 0;
    if (in_rank >= 1 && in_rank <= LS_MAX_RANK) {
        bool red[LS_MAX_RANK] = {false};
        bool dims_ok = true;
        for (size_t i = 0; i < dims->n; i++) {
            const ls_attr *d = dims->items[i];
            if (d->kind != LS_AV_INT || d->i < 0 || d->i >= in_rank)
                dims_ok = false;
            else
                red[d->i] = true;
        }
        if (dims_ok) {
            ls_aff_expr in_res[LS_MAX_RANK], out_res[LS_MAX_RANK];
            int n_out = 0;
            for (int d = 0; d < in_rank; d++) {
                in_res[d] = (ls_aff_expr){LS_AFF_DIM, d, 1};
                if (!red[d])
                    out_res[n_out++] = (ls_aff_expr){LS_AFF_DIM, d, 1};
            }
            ls_affine_map in_map = {in_rank, 0, in_rank, in_res};
            ls_affine_map out_map = {in_rank, 0, n_out, out_res};
            const ls_affine_map *am[LS_DISPATCH_MAX_OPERANDS] = {NULL};
            for (int k = 0; k < ins->n + outs->n && k < LS_DISPATCH_MAX_OPERANDS; k++)
                am[k] = k < ins->n ? &in_map : &out_map;
            dop = ls_imp_add_dop(im, "linalg.reduce", op->line, op->col, in_rank, red, am, ins,
                                 outs, r, result_name, op->text);
        }
    }
    return dop;
}

/* linalg.reduce's loops: rank, reduced dims, sizes (a dynamic one from
 * --dim or the init) and the maps, checked against the init's shape. */
static bool reduce_loops(importer *im, ls_problem *p, const ls_token *op, const operand_list *ins,
                         const operand_list *outs, const ls_attr *dims)
{
    const ls_type_info *it = &ins->types[0];
    if (it->rank > LS_MAX_RANK) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, ins->line, ins->col,
                    "input has rank %d; the rank limit is %d", it->rank, LS_MAX_RANK);
        return false;
    }
    p->rank = it->rank;
    for (size_t i = 0; i < dims->n; i++) {
        const ls_attr *d = dims->items[i];
        if (d->kind != LS_AV_INT || d->i < 0 || d->i >= p->rank || p->is_reduction[d->i]) {
            ls_diag_set(im->diag, LS_ERR_INVALID, im->file, d->line, d->col,
                        "dimensions[%zu] must be a distinct dimension index below %d", i, p->rank);
            return false;
        }
        p->is_reduction[d->i] = true;
    }
    for (int d = 0; d < p->rank; d++) {
        int64_t size = it->dims[d];
        if (size < 0 && dim_binding(im, d) > 0)
            size = dim_binding(im, d);
        if (size < 0 && !p->is_reduction[d]) {
            /* the init may spell the parallel size out */
            int j = 0;
            for (int e = 0; e < d; e++)
                j += !p->is_reduction[e];
            if (j < outs->types[0].rank && outs->types[0].dims[j] > 0)
                size = outs->types[0].dims[j];
        }
        if (size < 0) {
            ls_diag_set(im->diag, LS_ERR_INVALID, im->file, op->line, op->col,
                        "loop dimension d%d (input dimension %d) is dynamic ('?'); give its "
                        "size with --dim %d=N",
                        d, d, d);
            return false;
        }
        p->size[d] = size;
        p->inputs[0].map[d] = d;
        if (!p->is_reduction[d])
            p->out_map[p->out_map_n++] = d;
    }
    p->inputs[0].map_n = p->rank;
    if (outs->types[0].rank != p->out_map_n) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                    "init has rank %d; reducing %zu of %d dimensions leaves %d",
                    outs->types[0].rank, dims->n, p->rank, p->out_map_n);
        return false;
    }
    for (int j = 0; j < p->out_map_n; j++)
        if (outs->types[0].dims[j] >= 0 && outs->types[0].dims[j] != p->size[p->out_map[j]]) {
            ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                        "init dimension %d is %lld but the input's dimension %d is %lld", j,
                        (long long)outs->types[0].dims[j], p->out_map[j],
                        (long long)p->size[p->out_map[j]]);
            return false;
        }
    return true;
}

void ls_imp_reduce_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    next(im);
    region r;
    memset(&r, 0, sizeof r);
    if (ls_tok_is(tok(im), '{')) {
        if (!ls_imp_parse_region(im, &r))
            return;
    }
    operand_list ins, outs;
    if (!ls_imp_operands(im, "ins", &ins) || !ls_imp_operands(im, "outs", &outs))
        return;
    if (!ls_tok_ident(tok(im), "dimensions")) {
        syntax(im, "'dimensions = [...]'");
        return;
    }
    next(im);
    if (!expect(im, '='))
        return;
    ls_attr *dims = ls_parse_attr(&im->p);
    if (dims == NULL)
        return;
    ls_attr *attrs = NULL;
    if (ls_tok_is(tok(im), '{')) {
        /* An attribute dictionary starts with `key =`; a region does not. */
        ls_lexer save = im->lx;
        next(im);
        bool is_dict = tok(im)->kind == LS_TOK_IDENT || ls_tok_is(tok(im), '}');
        if (is_dict) {
            next(im);
            is_dict = ls_tok_is(tok(im), '=') || ls_tok_is(tok(im), ',') ||
                      ls_tok_is(tok(im), '}');
        }
        im->lx = save;
        if (is_dict && (attrs = ls_parse_attr(&im->p)) == NULL)
            return;
    }
    if (r.short_op[0] == 0) {
        if (ls_tok_is(tok(im), '(') && !ls_imp_block_args(im, &r))
            return;
        if (!ls_imp_parse_region(im, &r))
            return;
    }
    if (dims->kind != LS_AV_ARRAY) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dims->line, dims->col,
                    "expected an array for dimensions, found %s", ls_attr_kind_name(dims->kind));
        return;
    }
    ls_dop *dop = reduce_dispatch_op(im, &op, &ins, &outs, &r, dims, result_name);
    if (failed(im))
        return;
    ls_problem *p = ls_imp_new_problem(im, op.line, op.col, "linalg.reduce");
    if (p == NULL)
        return;
    ls_diag local, *saved;
    ls_imp_begin_problem_checks(im, &local, &saved);
    bool ok = false;
    if (!set_types(im, p, &ins, &outs, op.line, op.col))
        goto checked;
    if (ins.n != 1) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins.line, ins.col,
                    "linalg.reduce with %d inputs and inits (a variadic reduce such as an "
                    "argmax); lanescope models one of each",
                    ins.n);
        goto checked;
    }
    if (!ls_elem_type_is_data(p->inputs[0].type)) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins.line, ins.col,
                    "the input holds %s: lanescope reads " LS_ELEM_TYPES_TEXT,
                    ins.types[0].elem_text ? ins.types[0].elem_text : "?");
        goto checked;
    }
    if (!reduce_loops(im, p, &op, &ins, &outs, dims))
        goto checked;
    /* The same body compiler as linalg.generic's, through the input's
     * identity map: fused producers (an extf) and body ops alike. */
    int in_map[MAX_OPERANDS][LS_MAX_RANK], in_map_n[MAX_OPERANDS] = {p->rank};
    for (int d = 0; d < p->rank; d++)
        in_map[0][d] = d;
    ok = ls_imp_compile_reduction(im, &r, &ins, in_map, in_map_n, NULL, NULL, 0, 1, p, op.line,
                                  op.col) &&
         check_types(im, p, op.line, op.col);
    if (ok)
        ls_imp_set_init(im, p, outs.names[0]);
checked:
    ls_imp_end_problem_checks(im, &local, saved);
    if ((ok || (im->flags & LS_IMPORT_KEEP_UNSUPPORTED)) &&
        !ls_imp_verify_region(im, &r, &ins, &outs, "linalg.reduce"))
        return;
    if (!ok)
        return;
    if (!ls_imp_take_op_attrs(im, attrs, p))
        return;
    ls_imp_link_problem(im, dop);
}
/* iree_tensor_ext.dispatch.tensor.store %v, ...  (and its relatives) */
