/* import_argcmp.c: iree_linalg_ext.arg_compare (argmax / argmin) read into
 * a problem and into the dispatch view.
 *
 * The op (IREE's Dialect/LinalgExt/IR/LinalgExtOps.td, assembly format
 * `attr-dict dimension(D) ins(%v[, %i] : T[, T]) outs(%ov, %oi : T, T)
 * [index_base(%b : index)] region [-> T, T]`) reduces one dimension of its
 * value input to the best value and its index, the comparator region
 * deciding "candidate beats best".  Its lowering on the VectorDistribute
 * pipeline is in docs/arg-compare-lowering.md; what the importer settles:
 *
 *   - the comparator is compiled into an ls_body (INPUT 0 = candidate,
 *     INPUT 1 = best) that the lanes and the reference both run;
 *   - the lane combine is classified as IREE's
 *     analyzeComparatorForThreadReduction does
 *     (Common/GPU/GPUNestedLayoutDistributionPatterns.cpp): `cmp(a, b)` or
 *     `cmp(U(a), U(b))` with a predicate that maps to a max/min kind takes
 *     the ballot path, anything else the butterfly;
 *   - the inits come from linalg.fill of constants; a tensor.empty init (as
 *     in IREE's own tests) is undefined, and the simulation starts from the
 *     comparator's identity (said in a note), or is refused when the
 *     comparator has none;
 *   - a non-constant index_base only shifts the indices: they are simulated
 *     relative to it.
 */
#include <math.h>

#include "import_internal.h"
#include "lanescope/value.h"

typedef struct {
    int dimension;
    operand_list ins, outs;
    char base[64];        /* index_base operand, "" when absent */
    region r;
    ls_attr *attrs;
    int dim_line, dim_col;
} argcmp_syntax;

/* Everything between the op name and the end of its region. */
static bool parse(importer *im, argcmp_syntax *a)
{
    memset(a, 0, sizeof *a);
    if (ls_tok_is(tok(im), '{') && (a->attrs = ls_parse_attr(&im->p)) == NULL)
        return false;
    a->dim_line = tok(im)->line;
    a->dim_col = tok(im)->col;
    if (!ls_tok_ident(tok(im), "dimension")) {
        syntax(im, "'dimension(N)'");
        return false;
    }
    next(im);
    if (!expect(im, '('))
        return false;
    if (tok(im)->kind != LS_TOK_INT) {
        syntax(im, "a dimension number");
        return false;
    }
    a->dimension = (int)strtol(tok(im)->text, NULL, 10);
    next(im);
    if (!expect(im, ')') || !ls_imp_operands(im, "ins", &a->ins) ||
        !ls_imp_operands_ex(im, "outs", true, &a->outs))
        return false;
    if (ls_tok_ident(tok(im), "index_base")) {
        next(im);
        if (!expect(im, '('))
            return false;
        if (tok(im)->kind != LS_TOK_PERCENT) {
            syntax(im, "the index_base value");
            return false;
        }
        copy_tok(a->base, sizeof a->base, tok(im));
        next(im);
        if (!expect(im, ':') || ls_parse_type(&im->p) == NULL || !expect(im, ')'))
            return false;
    }
    return ls_imp_parse_region(im, &a->r);
}

/* The dispatch view: inputs through the identity, outputs without the
 * dimension.  No region is passed: IREE's checkSingleCombiner applies to
 * linalg ops only. */
static ls_dop *add_dop(importer *im, const argcmp_syntax *a, const ls_token *op,
                       const char *result_name)
{
    int rank = a->ins.n > 0 ? a->ins.types[0].rank : 0;
    if (rank < 1 || rank > LS_MAX_RANK || a->dimension < 0 || a->dimension >= rank)
        return NULL;
    bool red[LS_MAX_RANK] = {false};
    red[a->dimension] = true;
    ls_aff_expr in_res[LS_MAX_RANK], out_res[LS_MAX_RANK];
    int n_out = 0;
    for (int d = 0; d < rank; d++) {
        in_res[d] = (ls_aff_expr){LS_AFF_DIM, d, 1};
        if (!red[d])
            out_res[n_out++] = (ls_aff_expr){LS_AFF_DIM, d, 1};
    }
    ls_affine_map in_map = {rank, 0, rank, in_res};
    ls_affine_map out_map = {rank, 0, n_out, out_res};
    const ls_affine_map *am[LS_DISPATCH_MAX_OPERANDS] = {NULL};
    for (int k = 0; k < a->ins.n + a->outs.n && k < LS_DISPATCH_MAX_OPERANDS; k++)
        am[k] = k < a->ins.n ? &in_map : &out_map;
    return ls_imp_add_dop(im, "iree_linalg_ext.arg_compare", op->line, op->col, rank, red, am,
                          &a->ins, &a->outs, NULL, result_name, op->text);
}

static bool is_index_type(ls_elem_type t)
{
    return t == LS_ET_I8 || t == LS_ET_I16 || t == LS_ET_I32 || t == LS_ET_I64 ||
           t == LS_ET_INDEX;
}

/* Operand types and shapes, as ArgCompareOp::verify wants them. */
static bool check_operands(importer *im, const argcmp_syntax *a, ls_problem *p)
{
    const operand_list *ins = &a->ins, *outs = &a->outs;
    if (ins->n < 1 || ins->n > 2 || outs->n != 2)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                           "arg_compare takes 1 or 2 inputs (values[, indices]) and 2 inits "
                           "(value, index); found %d and %d",
                           ins->n, outs->n) == LS_OK;
    const ls_type_info *v = &ins->types[0];
    if (v->rank > LS_MAX_RANK)
        return ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, ins->line, ins->col,
                           "the input has rank %d; the rank limit is %d", v->rank,
                           LS_MAX_RANK) == LS_OK;
    if (a->dimension < 0 || a->dimension >= v->rank)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, a->dim_line, a->dim_col,
                           "dimension(%d) is not a dimension of the rank-%d input", a->dimension,
                           v->rank) == LS_OK;
    int bits = ls_elem_type_bits(v->elem);
    if (!ls_elem_type_is_data(v->elem) || bits < 8)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                           "the input holds %s: lanescope reads " LS_ELEM_TYPES_TEXT,
                           v->elem_text ? v->elem_text : "?") == LS_OK;
    for (int k = 0; k < 2; k++) {
        const ls_type_info *o = &outs->types[k];
        if (o->rank != v->rank - 1)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                               "init %s has rank %d; reducing dimension %d of a rank-%d input "
                               "leaves %d",
                               outs->names[k], o->rank, a->dimension, v->rank,
                               v->rank - 1) == LS_OK;
    }
    if (outs->types[0].elem != v->elem)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                           "the value init is %s but the input is %s; arg_compare keeps the "
                           "input's type",
                           ls_elem_type_name(outs->types[0].elem),
                           ls_elem_type_name(v->elem)) == LS_OK;
    ls_elem_type it = outs->types[1].elem;
    if (!is_index_type(it))
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                           "the index init holds %s: an integer or index type is expected",
                           outs->types[1].elem_text ? outs->types[1].elem_text : "?") == LS_OK;
    if (ins->n == 2) {
        const ls_type_info *ix = &ins->types[1];
        if (a->base[0])
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                               "index_base and an index input cannot be used together") ==
                   LS_OK;
        if (ix->elem != it)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                               "the index input holds %s but the index init %s; they must "
                               "match",
                               ls_elem_type_name(ix->elem), ls_elem_type_name(it)) == LS_OK;
        if (ix->rank != v->rank)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                               "the index input has rank %d but the values rank %d", ix->rank,
                               v->rank) == LS_OK;
        if (it == LS_ET_INDEX)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                               "an index input of element type index: lanescope loads i8..i64 "
                               "indices") == LS_OK;
    }
    /* Loop sizes: the input's, a dynamic one bound by --dim or by the inits. */
    p->rank = v->rank;
    for (int d = 0; d < p->rank; d++) {
        int64_t size = v->dims[d];
        for (int k = 1; size < 0 && k < ins->n; k++)
            size = ins->types[k].dims[d];
        if (size < 0 && dim_binding(im, d) > 0)
            size = dim_binding(im, d);
        int j = d - (d > a->dimension);
        for (int k = 0; size < 0 && d != a->dimension && k < 2; k++)
            size = outs->types[k].dims[j];
        if (size < 0)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, p->line, p->col,
                               "loop dimension d%d (input dimension %d) is dynamic ('?'); give "
                               "its size with --dim %d=N",
                               d, d, d) == LS_OK;
        p->size[d] = size;
        for (int k = 0; k < ins->n; k++)
            if (ins->types[k].dims[d] >= 0 && ins->types[k].dims[d] != size)
                return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                                   "input %s dimension %d is %lld but the loop is %lld",
                                   ins->names[k], d, (long long)ins->types[k].dims[d],
                                   (long long)size) == LS_OK;
        for (int k = 0; d != a->dimension && k < 2; k++)
            if (outs->types[k].dims[j] >= 0 && outs->types[k].dims[j] != size)
                return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                                   "init %s dimension %d is %lld but the input's dimension %d "
                                   "is %lld",
                                   outs->names[k], j, (long long)outs->types[k].dims[j], d,
                                   (long long)size) == LS_OK;
    }
    return true;
}

/* IREE's mapFCmpPredicateToReduceOp / mapICmpPredicateToReduceOp. */
static bool ballot_kind(const ls_body_inst *c, ls_combiner *k)
{
    switch ((ls_body_pred)c->pred) {
    case LS_PRED_OGT: case LS_PRED_OGE: case LS_PRED_UGT: case LS_PRED_UGE:
        *k = LS_COMB_MAXNUMF;
        return c->op == LS_BOP_CMPF;
    case LS_PRED_OLT: case LS_PRED_OLE: case LS_PRED_ULT: case LS_PRED_ULE:
        *k = LS_COMB_MINNUMF;
        return c->op == LS_BOP_CMPF;
    case LS_PRED_SGT: case LS_PRED_SGE: *k = LS_COMB_MAXSI; return true;
    case LS_PRED_SLT: case LS_PRED_SLE: *k = LS_COMB_MINSI; return true;
    case LS_PRED_UGT_I: case LS_PRED_UGE_I: *k = LS_COMB_MAXUI; return true;
    case LS_PRED_ULT_I: case LS_PRED_ULE_I: *k = LS_COMB_MINUI; return true;
    default: return false;
    }
}

/* analyzeComparatorForThreadReduction: sets ballot, transform, combiner. */
static void classify(ls_problem *p)
{
    ls_argcmp *a = &p->argcmp;
    const ls_body *b = &a->cmp;
    const ls_body_inst *c = &b->inst[b->n - 1];
    bool is_float = ls_elem_type_is_float(p->acc_type);
    p->combiner = is_float ? LS_COMB_MAXNUMF : LS_COMB_MAXSI;
    a->ballot = false;
    a->transform = -1;
    ls_combiner k;
    if ((c->op != LS_BOP_CMPF && c->op != LS_BOP_CMPI) || !ballot_kind(c, &k))
        return;
    const ls_body_inst *l = &b->inst[c->a], *r = &b->inst[c->b];
    bool direct = l->op == LS_BOP_INPUT && l->index == 0 && r->op == LS_BOP_INPUT && r->index == 1;
    bool unary = ls_body_opcode_arity((ls_body_opcode)l->op) == 1 && l->op == r->op &&
                 l->op != LS_BOP_INPUT && l->a == 0 && r->a == 1;
    if (!direct && !unary)
        return;
    a->ballot = true;
    a->transform = direct ? -1 : c->a;
    p->combiner = k;
}

/* The value init's identity for the ballot kind: what no data beats. */
static bool identity_init(const ls_problem *p, uint64_t *bits)
{
    if (!p->argcmp.ballot || p->argcmp.transform >= 0)
        return false;
    switch (p->combiner) {
    case LS_COMB_MAXNUMF: *bits = ls_value_from_double(-INFINITY, p->acc_type); return true;
    case LS_COMB_MINNUMF: *bits = ls_value_from_double(INFINITY, p->acc_type); return true;
    default: *bits = ls_identity(p->combiner, p->acc_type); return true;
    }
}

static bool build_problem(importer *im, const argcmp_syntax *a, ls_problem *p)
{
    if (!check_operands(im, a, p))
        return false;
    ls_argcmp *ac = &p->argcmp;
    ac->on = true;
    p->is_reduction[a->dimension] = true;
    p->acc_type = a->ins.types[0].elem;
    ac->index_type = a->outs.types[1].elem;
    ac->explicit_index = a->ins.n == 2;
    p->n_inputs = a->ins.n;
    for (int k = 0; k < a->ins.n; k++) {
        ls_operand *o = &p->inputs[k];
        memset(o, 0, sizeof *o);
        o->type = a->ins.types[k].elem;
        o->map_n = p->rank;
        for (int d = 0; d < p->rank; d++)
            o->map[d] = d;
        snprintf(o->name, sizeof o->name, "%s", a->ins.names[k]);
    }
    for (int d = 0; d < p->rank; d++)
        if (d != a->dimension)
            p->out_map[p->out_map_n++] = d;
    if (!ls_imp_compile_comparator(im, &a->r, p->acc_type, &ac->cmp, p->line, p->col))
        return false;
    classify(p);
    if (a->base[0]) {
        ls_elem_type bt;
        uint64_t bits;
        ac->has_base = ls_imp_constant_of(im, a->base, &bt, &bits) && bt == LS_ET_INDEX;
        ac->base = ac->has_base ? (int64_t)bits : 0;
        ac->base_unknown = !ac->has_base;
    }
    p->has_init = ls_imp_fill_of(im, a->outs.names[0], p->acc_type, &p->init);
    if (!p->has_init) {
        p->init_unknown = true;
        if (!identity_init(p, &p->init))
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, a->outs.line, a->outs.col,
                               "the value init %s is not a linalg.fill of a constant, and the "
                               "comparator has no identity to stand in for it; fill it",
                               a->outs.names[0]) == LS_OK;
    }
    ac->has_init_index = ls_imp_fill_of(im, a->outs.names[1], ac->index_type, &ac->init_index);
    return true;
}

void ls_imp_arg_compare_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    next(im);
    argcmp_syntax *a = ls_xcalloc(1, sizeof *a);
    if (!parse(im, a))
        goto out;
    ls_dop *dop = add_dop(im, a, &op, result_name);
    if (failed(im))
        goto out;
    ls_problem *p = ls_imp_new_problem(im, op.line, op.col, "arg_compare");
    if (p == NULL)
        goto out;
    ls_diag local, *saved;
    ls_imp_begin_problem_checks(im, &local, &saved);
    bool ok = build_problem(im, a, p);
    ls_imp_end_problem_checks(im, &local, saved);
    /* the comparator's own type rules (its block arguments' types are the
     * verifier's business, not checked here) */
    if ((ok || (im->flags & LS_IMPORT_KEEP_UNSUPPORTED)) &&
        !ls_imp_verify_region(im, &a->r, NULL, NULL, "iree_linalg_ext.arg_compare"))
        goto out;
    if (ok && ls_imp_take_op_attrs(im, a->attrs, p))
        ls_imp_link_problem(im, dop);
out:
    free(a);
}
