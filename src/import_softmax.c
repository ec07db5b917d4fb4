/* import_softmax.c: linalg.softmax, decomposed as IREE decomposes it.
 *
 * IREE's LLVMGPU configuration pipeline runs DecomposeSoftmax (with fusion)
 * in addCommonTargetExecutablePreprocessingPasses, before it chooses any
 * config (iree-org/iree: Codegen/Common/DecomposeSoftmax.cpp, its test
 * Codegen/Common/test/decompose_softmax.mlir, and
 * Codegen/LLVMGPU/Passes.cpp).  softmax(x) along dim D becomes
 *
 *   %max = generic reduction over D: maxnumf, init = fill(-NaN)
 *          (0xFFC00000 for f32: maxnumf ignores the NaN)
 *   %sum = generic reduction over D of exp(x - %max): addf, init = fill(0)
 *          (the sub/exp producer fused into the reduction)
 *   %r   = generic elementwise exp(x - %max) / %sum
 *
 * so the dispatch holds two reductions, the second reading the first's
 * result, and IREE's heuristic configures those.  The importer writes that
 * decomposition out as IR and reads it like any other, then points the ops
 * it made at the softmax's location.
 */
#include "import_internal.h"

/* "tensor<2x?x32xf32>" */
static void type_text(char *buf, size_t size, const ls_type_info *t, int drop)
{
    size_t u = (size_t)snprintf(buf, size, "tensor<");
    for (int j = 0; j < t->rank && u < size; j++) {
        if (j == drop)
            continue;
        if (t->dims[j] < 0)
            u += (size_t)snprintf(buf + u, size - u, "?x");
        else
            u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)t->dims[j]);
    }
    if (u < size)
        snprintf(buf + u, size - u, "%s>", t->elem_text ? t->elem_text : "f32");
}

/* maxnumf's identity as IREE's decomposition spells it: a negative quiet
 * NaN (arith::getIdentityValueAttr). */
static const char *neg_nan(ls_elem_type t)
{
    switch (t) {
    case LS_ET_F16: return "0xFE00";
    case LS_ET_BF16: return "0xFFC0";
    case LS_ET_F64: return "0xFFF8000000000000";
    default: return "0xFFC00000";
    }
}

/* DecomposeSoftmax's ops as IR text (arena): the max, the sum of
 * exp(x - max), the normalisation into init, the last named result_name.
 * NULL, with the diagnostic set, past the text's limit. */
static const char *decomposition_text(importer *im, const ls_token *op, const ls_type_info *t,
                                      long dim, const char *x, const char *init,
                                      const char *result_name)
{
    char full[256], red[256], maps_full[256], maps_red[256], iters[256];
    type_text(full, sizeof full, t, -1);
    type_text(red, sizeof red, t, (int)dim);
    size_t a = 0, b = 0, c = 0;
    a += (size_t)snprintf(maps_full + a, sizeof maps_full - a, "affine_map<(");
    for (int j = 0; j < t->rank; j++)
        a += (size_t)snprintf(maps_full + a, sizeof maps_full - a, "%sd%d", j ? ", " : "", j);
    memcpy(maps_red, maps_full, a + 1);
    b = a;
    a += (size_t)snprintf(maps_full + a, sizeof maps_full - a, ") -> (");
    b += (size_t)snprintf(maps_red + b, sizeof maps_red - b, ") -> (");
    for (int j = 0, n = 0; j < t->rank; j++) {
        a += (size_t)snprintf(maps_full + a, sizeof maps_full - a, "%sd%d", j ? ", " : "", j);
        if (j != dim)
            b += (size_t)snprintf(maps_red + b, sizeof maps_red - b, "%sd%d", n++ ? ", " : "",
                                  j);
        c += (size_t)snprintf(iters + c, sizeof iters - c, "%s\"%s\"", j ? ", " : "",
                              j == dim ? "reduction" : "parallel");
    }
    snprintf(maps_full + a, sizeof maps_full - a, ")>");
    snprintf(maps_red + b, sizeof maps_red - b, ")>");
    char par_iters[256];
    size_t pi = 0;
    for (int j = 0; j < t->rank; j++)
        pi += (size_t)snprintf(par_iters + pi, sizeof par_iters - pi, "%s\"parallel\"",
                               j ? ", " : "");
    int id = ++im->n_softmax; /* value names unique within the file */
    const char *e = t->elem_text ? t->elem_text : "f32";
    enum { TEXT = 8192 };
    char *text = ls_arena_alloc(&im->arena, TEXT);
    size_t u = 0;
#define ADD(...) (u += (size_t)snprintf(text + u, u < TEXT ? TEXT - u : 0, __VA_ARGS__))
    ADD("%%__sm%d_nan = arith.constant %s : %s\n", id, neg_nan(t->elem), e);
    ADD("%%__sm%d_zero = arith.constant 0.000000e+00 : %s\n", id, e);
    ADD("%%__sm%d_empty = tensor.empty() : %s\n", id, red);
    /* max */
    ADD("%%__sm%d_fill0 = linalg.fill ins(%%__sm%d_nan : %s) outs(%%__sm%d_empty : %s) -> %s\n",
        id, id, e, id, red, red);
    ADD("%%__sm%d_max = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} "
        "ins(%s : %s) outs(%%__sm%d_fill0 : %s) {\n",
        id, maps_full, maps_red, iters, x, full, id, red);
    ADD("^bb0(%%in: %s, %%out: %s):\n  %%m = arith.maxnumf %%in, %%out : %s\n"
        "  linalg.yield %%m : %s\n} -> %s\n",
        e, e, e, e, red);
    /* sum of exp(x - max) */
    ADD("%%__sm%d_fill1 = linalg.fill ins(%%__sm%d_zero : %s) outs(%%__sm%d_empty : %s) -> %s\n",
        id, id, e, id, red, red);
    ADD("%%__sm%d_sum = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]} "
        "ins(%s, %%__sm%d_max : %s, %s) outs(%%__sm%d_fill1 : %s) {\n",
        id, maps_full, maps_red, maps_red, iters, x, id, full, red, id, red);
    ADD("^bb0(%%in: %s, %%in_1: %s, %%out: %s):\n  %%s = arith.subf %%in, %%in_1 : %s\n"
        "  %%x = math.exp %%s : %s\n  %%a = arith.addf %%x, %%out : %s\n"
        "  linalg.yield %%a : %s\n} -> %s\n",
        e, e, e, e, e, e, e, red);
    /* the normalisation, elementwise */
    ADD("%s = linalg.generic {indexing_maps = [%s, %s, %s, %s], iterator_types = [%s]} "
        "ins(%s, %%__sm%d_max, %%__sm%d_sum : %s, %s, %s) outs(%s : %s) {\n",
        result_name ? result_name : "%__softmax_result", maps_full, maps_red, maps_red, maps_full,
        par_iters, x, id, id, full, red, red, init, full);
    ADD("^bb0(%%in: %s, %%in_1: %s, %%in_2: %s, %%out: %s):\n"
        "  %%s = arith.subf %%in, %%in_1 : %s\n  %%x = math.exp %%s : %s\n"
        "  %%d = arith.divf %%x, %%in_2 : %s\n  linalg.yield %%d : %s\n} -> %s\n",
        e, e, e, e, e, e, e, e, full);
#undef ADD
    if (u >= TEXT) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, op->line, op->col,
                    "linalg.softmax: its decomposition exceeds %d bytes of IR", TEXT);
        return NULL;
    }
    return text;
}

/* The decomposition's text imported in place of the softmax at op: its
 * reductions and ops stand at op, named after it. */
static void import_decomposition(importer *im, const ls_token *op, const char *text)
{
    size_t first_problem = im->m->n_problems;
    int first_op = im->cur ? im->cur->n_ops : 0;
    ls_dispatch *cur_before = im->cur;
    int op_index = im->op_index;
    ls_lexer saved = im->lx;
    /* lanescope's own text, with its own names: the function's checks of
     * SSA names and argument types are for what the user wrote */
    int func_depth = im->func_depth;
    im->func_depth = -1;
    ls_lexer_init(&im->lx, text, strlen(text), im->file, im->diag);
    next(im);
    ls_imp_scan_ops(im);
    im->lx = saved;
    im->func_depth = func_depth;
    if (failed(im)) /* the text is lanescope's own: a failure is a bug, said so */
        return;
    /* The new ops stand at the softmax, named after it. */
    im->op_index = op_index + 1;
    static const char *const part[] = {"max", "sum"};
    for (size_t i = first_problem; i < im->m->n_problems; i++) {
        ls_problem *p = &im->m->problems[i];
        p->line = op->line;
        p->col = op->col;
        snprintf(p->name, sizeof p->name, "%s%slinalg.softmax#%d.%s", im->func,
                 im->func[0] ? ":" : "", im->op_index,
                 part[i - first_problem < 2 ? i - first_problem : 1]);
    }
    ls_dispatch *d = im->cur;
    for (int i = d == cur_before ? first_op : 0; d && i < d->n_ops; i++) {
        d->ops[i].line = op->line;
        d->ops[i].col = op->col;
    }
}

void ls_imp_softmax_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    next(im);
    const ls_attr *dict = NULL;
    if (ls_tok_is(tok(im), '{') && (dict = ls_parse_attr(&im->p)) == NULL)
        return;
    if (!ls_tok_ident(tok(im), "dimension")) {
        syntax(im, "'dimension(N)'");
        return;
    }
    next(im);
    if (!expect(im, '('))
        return;
    if (tok(im)->kind != LS_TOK_INT) {
        syntax(im, "a dimension number");
        return;
    }
    long dim = strtol(tok(im)->text, NULL, 10);
    int dim_line = tok(im)->line, dim_col = tok(im)->col;
    next(im);
    if (!expect(im, ')'))
        return;
    operand_list ins, outs;
    if (!ls_imp_operands(im, "ins", &ins) || !ls_imp_operands(im, "outs", &outs))
        return;
    if (ls_tok_is(tok(im), '{') && dict == NULL && (dict = ls_parse_attr(&im->p)) == NULL)
        return;
    if (ins.n != 1 || outs.n != 1) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, op.line, op.col,
                    "linalg.softmax takes one input and one init, not %d and %d", ins.n, outs.n);
        return;
    }
    const ls_type_info *t = &ins.types[0];
    if (dim < 0 || dim >= t->rank || t->rank > LS_MAX_RANK) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, dim_line, dim_col,
                    "dimension(%ld) is not a dimension of the rank-%d input (rank limit %d)", dim,
                    t->rank, LS_MAX_RANK);
        return;
    }
    if (!ls_elem_type_is_float(t->elem)) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins.line, ins.col,
                    "linalg.softmax of %s: a float type is expected",
                    t->elem_text ? t->elem_text : "?");
        return;
    }
    if (dict && (ls_attr_get(dict, "lowering_config") || ls_attr_get(dict, "compilation_info"))) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, dict->line, dict->col,
                    "a lowering_config on linalg.softmax is never read: IREE decomposes the op "
                    "(DecomposeSoftmax) before it configures the dispatch, and the decomposed "
                    "ops do not inherit attributes; write the decomposed linalg.generic ops "
                    "with their configs instead");
        return;
    }
    const char *text =
        decomposition_text(im, &op, t, dim, ins.names[0], outs.names[0], result_name);
    if (text != NULL)
        import_decomposition(im, &op, text);
}
