/* import_named.c: named structured ops -- linalg.matvec, vecmat, matmul,
 * their batch and transposed forms, linalg.contract, linalg.fill,
 * convolutions and pooling.
 *
 * A named contraction is a linalg.generic with implied maps (or the
 * explicit `indexing_maps = [...]` it was written with, which replace
 * them) and the body linalg's OpDSL gives it: both inputs cast to the
 * output type (cast_signed: extf/truncf, sitofp, extsi/trunci), multiplied,
 * added to the init.  It enters the dispatch view (for IREE's heuristic)
 * and, having a reduction loop, becomes a reduction to simulate.
 *   linalg.matmul {attrs} [indexing_maps = [...]] ins(...) outs(...) [{attrs}] -> T
 */
#include "import_internal.h"

typedef struct {
    const char *name;
    int rank;
    const char *iters;     /* p / r per loop */
    int8_t map[3][4];      /* per operand: loop dims, -1 ends */
} named_contraction;

static const named_contraction named_ops[] = {
    {"linalg.matmul", 3, "ppr", {{0, 2, -1}, {2, 1, -1}, {0, 1, -1}}},
    {"linalg.matmul_transpose_a", 3, "ppr", {{2, 0, -1}, {2, 1, -1}, {0, 1, -1}}},
    {"linalg.matmul_transpose_b", 3, "ppr", {{0, 2, -1}, {1, 2, -1}, {0, 1, -1}}},
    {"linalg.matvec", 2, "pr", {{0, 1, -1}, {1, -1}, {0, -1}}},
    {"linalg.vecmat", 2, "pr", {{1, -1}, {1, 0, -1}, {0, -1}}},
    {"linalg.batch_matmul", 4, "pppr", {{0, 1, 3, -1}, {0, 3, 2, -1}, {0, 1, 2, -1}}},
    {"linalg.batch_matmul_transpose_a", 4, "pppr", {{0, 3, 1, -1}, {0, 3, 2, -1}, {0, 1, 2, -1}}},
    {"linalg.batch_matmul_transpose_b", 4, "pppr", {{0, 1, 3, -1}, {0, 2, 3, -1}, {0, 1, 2, -1}}},
    {"linalg.batch_matvec", 3, "ppr", {{0, 1, 2, -1}, {0, 2, -1}, {0, 1, -1}}},
    {"linalg.batch_vecmat", 3, "ppr", {{0, 2, -1}, {0, 2, 1, -1}, {0, 1, -1}}},
    {"linalg.contract", 0, "", {{-1}, {-1}, {-1}}}, /* maps always explicit */
};

bool ls_imp_is_named_op(const ls_token *t)
{
    if (ls_tok_ident(t, "linalg.fill"))
        return true;
    for (size_t i = 0; i < sizeof named_ops / sizeof named_ops[0]; i++)
        if (ls_tok_ident(t, named_ops[i].name))
            return true;
    char name[64];
    copy_tok(name, sizeof name, t);
    return ls_imp_is_conv_name(name);
}

/* The cast linalg's cast_signed applies from type a to type b (none when
 * they agree). */
static bool cast_op(ls_elem_type a, ls_elem_type b, ls_body_opcode *op)
{
    if (a == b)
        return false;
    bool fa = ls_elem_type_is_float(a), fb = ls_elem_type_is_float(b);
    int wa = ls_elem_type_bits(a), wb = ls_elem_type_bits(b);
    if (fa && fb)
        *op = wa < wb ? LS_BOP_EXTF : LS_BOP_TRUNCF;
    else if (!fa && fb)
        *op = LS_BOP_SITOFP;
    else if (fa && !fb)
        *op = LS_BOP_FPTOSI;
    else
        *op = wa < wb ? LS_BOP_EXTSI : LS_BOP_TRUNCI;
    return true;
}

static int add_inst(ls_body *b, ls_body_opcode op, ls_elem_type t, ls_elem_type src, int a,
                    int c, int line, int col)
{
    ls_body_inst *in = &b->inst[b->n];
    memset(in, 0, sizeof *in);
    in->op = (uint8_t)op;
    in->type = (uint8_t)t;
    in->src = (uint8_t)src;
    in->a = (int16_t)a;
    in->b = (int16_t)c;
    in->c = -1;
    in->line = line;
    in->col = col;
    return b->n++;
}

/* The reduction of a named contraction: maps bound, body built. */
static void contraction_problem(importer *im, const char *kind, int line, int col, int rank,
                                const bool *red, const ls_affine_map *const *am,
                                const operand_list *ins, const operand_list *outs,
                                const ls_attr *dict, const ls_attr *dict2, ls_dop *dop)
{
    ls_problem *p = ls_imp_new_problem(im, line, col, kind);
    if (p == NULL)
        return;
    ls_diag local, *saved;
    ls_imp_begin_problem_checks(im, &local, &saved);
    bool ok = false;
    p->rank = rank;
    memcpy(p->is_reduction, red, sizeof(bool) * (size_t)rank);
    p->acc_type = outs->types[0].elem;
    p->combiner = LS_COMB_ADD;
    p->n_inputs = 2;
    bool used[LS_MAX_RANK] = {false};
    for (int k = 0; k < 2; k++) {
        ls_operand *o = &p->inputs[k];
        o->type = ins->types[k].elem;
        snprintf(o->name, sizeof o->name, "%s", ins->names[k]);
        if (!ls_elem_type_is_data(o->type)) {
            ls_diag_set(im->diag, LS_ERR_INVALID, im->file, ins->line, ins->col,
                        "input %s holds %s: lanescope reads " LS_ELEM_TYPES_TEXT,
                        ins->names[k], ins->types[k].elem_text ? ins->types[k].elem_text : "?");
            goto checked;
        }
        char what[16];
        snprintf(what, sizeof what, "input %d", k);
        if (!ls_imp_bind_map(im, p, am[k], line, col, &ins->types[k], o->map, &o->map_n, o->scale,
                             o->shape, what))
            goto checked;
        for (int j = 0; j < o->map_n; j++)
            used[o->map[j]] = true;
    }
    if (!ls_imp_init_type_ok(im, outs))
        goto checked;
    if (!ls_imp_bind_map(im, p, am[2], line, col, &outs->types[0], p->out_map, &p->out_map_n,
                         NULL, NULL, "init") ||
        !ls_imp_check_loops(im, p, used, line, col, line, col))
        goto checked;
    int v[2];
    bool fl = ls_elem_type_is_float(p->acc_type);
    for (int k = 0; k < 2; k++) {
        v[k] = add_inst(&p->body, LS_BOP_INPUT, p->inputs[k].type, p->inputs[k].type, -1, -1,
                        line, col);
        p->body.inst[v[k]].index = k;
        ls_body_opcode c;
        if (cast_op(p->inputs[k].type, p->acc_type, &c))
            v[k] = add_inst(&p->body, c, p->acc_type, p->inputs[k].type, v[k], -1, line, col);
    }
    add_inst(&p->body, fl ? LS_BOP_MULF : LS_BOP_MULI, p->acc_type, p->acc_type, v[0], v[1],
             line, col);
    ls_imp_set_init(im, p, outs->names[0]);
    ok = true;
checked:
    ls_imp_end_problem_checks(im, &local, saved);
    if (!ok)
        return;
    if (!ls_imp_take_op_attrs(im, dict, p) || !ls_imp_take_op_attrs(im, dict2, p))
        return;
    ls_imp_link_problem(im, dop);
}

/* An attribute dictionary starts with `key =` (or is empty); a region does
 * not. */
static bool at_dict(importer *im)
{
    if (!ls_tok_is(tok(im), '{'))
        return false;
    ls_lexer save = im->lx;
    next(im);
    bool is_dict = ls_tok_is(tok(im), '}');
    if (!is_dict && tok(im)->kind == LS_TOK_IDENT) {
        next(im);
        is_dict = ls_tok_is(tok(im), '=') || ls_tok_is(tok(im), ',') || ls_tok_is(tok(im), '}');
    }
    im->lx = save;
    return is_dict;
}

/* A named contraction's explicit indexing_maps (given_maps) into am[0..3)
 * and its loops: parallel where the init's map names them, reductions
 * elsewhere (how linalg infers them for linalg.contract and the matmul
 * family).  Explicit maps replace the implied ones. */
static bool explicit_maps(importer *im, const char *kind, const ls_attr *given_maps,
                          const operand_list *ins, const operand_list *outs,
                          const ls_affine_map **am, bool *red, int *rank_out)
{
    if (given_maps->kind != LS_AV_ARRAY || given_maps->n != 3 || ins->n != 2 || outs->n != 1) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, given_maps->line, given_maps->col,
                    "%s: indexing_maps must hold three affine maps (two inputs, one init)", kind);
        return false;
    }
    for (int k = 0; k < 3; k++) {
        const ls_attr *m = given_maps->items[k];
        if (m->kind != LS_AV_AFFINE_MAP ||
            m->map->num_dims != given_maps->items[0]->map->num_dims ||
            m->map->num_dims > LS_MAX_RANK) {
            ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                        "%s: indexing_maps[%d] is not an affine map over the same %d loops "
                        "(at most %d)",
                        kind, k,
                        given_maps->items[0]->kind == LS_AV_AFFINE_MAP
                            ? given_maps->items[0]->map->num_dims
                            : 0,
                        LS_MAX_RANK);
            return false;
        }
        am[k] = m->map;
    }
    int rank = *rank_out = am[0]->num_dims;
    for (int d = 0; d < rank; d++) {
        red[d] = true;
        for (int j = 0; j < am[2]->num_results; j++)
            if (am[2]->results[j].kind == LS_AFF_DIM && am[2]->results[j].value == d)
                red[d] = false;
    }
    return true;
}

void ls_imp_named_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    char kind[48];
    copy_tok(kind, sizeof kind, &op);
    next(im);
    const ls_attr *dict = NULL, *given_maps = NULL;
    while (ls_tok_is(tok(im), '{') || ls_tok_ident(tok(im), "indexing_maps")) {
        bool maps_kw = ls_tok_ident(tok(im), "indexing_maps");
        if (maps_kw) {
            next(im);
            if (!expect(im, '='))
                return;
        }
        const ls_attr *a = ls_parse_attr(&im->p);
        if (a == NULL)
            return;
        if (maps_kw)
            given_maps = a;
        else
            dict = a;
    }
    operand_list ins, outs;
    if (!ls_imp_operands_ex(im, "ins", true, &ins) || !ls_imp_operands_ex(im, "outs", true, &outs))
        return;
    const ls_attr *dict2 = NULL;
    if (at_dict(im) && (dict2 = ls_parse_attr(&im->p)) == NULL)
        return;
    ls_aff_expr res[3][LS_MAX_RANK];
    ls_affine_map maps[3];
    const ls_affine_map *am[LS_DISPATCH_MAX_OPERANDS] = {NULL};
    bool red[LS_MAX_RANK] = {false};
    int rank = 0;
    bool known = false, contraction = false;
    if (strcmp(kind, "linalg.fill") == 0 && outs.n == 1 && outs.types[0].rank <= LS_MAX_RANK) {
        /* a fill of rank 0 (a full reduction's init) has no loops */
        known = true;
        if (result_name && ins.n == 1)
            ls_imp_fill(im, result_name, ins.names[0]);
        rank = outs.types[0].rank;
        for (int d = 0; d < rank; d++)
            res[1][d] = (ls_aff_expr){LS_AFF_DIM, d, 1};
        maps[0] = (ls_affine_map){rank, 0, 0, res[0]};
        maps[1] = (ls_affine_map){rank, 0, rank, res[1]};
        am[0] = &maps[0];
        am[1] = &maps[1];
    } else if (ls_imp_is_conv_name(kind)) {
        known = true;
        rank = 1; /* only its kind matters: the gate rejects it */
        red[0] = true;
    } else if (given_maps) {
        if (!explicit_maps(im, kind, given_maps, &ins, &outs, am, red, &rank))
            return;
        known = contraction = true;
    } else {
        for (size_t i = 0; i < sizeof named_ops / sizeof named_ops[0]; i++) {
            const named_contraction *nc = &named_ops[i];
            if (strcmp(kind, nc->name) != 0 || ins.n != 2 || outs.n != 1 || nc->rank == 0)
                continue;
            known = contraction = true;
            rank = nc->rank;
            for (int d = 0; d < rank; d++)
                red[d] = nc->iters[d] == 'r';
            for (int k = 0; k < 3; k++) {
                int n = 0;
                while (n < 4 && nc->map[k][n] >= 0) {
                    res[k][n] = (ls_aff_expr){LS_AFF_DIM, nc->map[k][n], 1};
                    n++;
                }
                maps[k] = (ls_affine_map){rank, 0, n, res[k]};
                am[k] = &maps[k];
            }
        }
        if (!known && strcmp(kind, "linalg.contract") == 0) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, op.line, op.col,
                        "linalg.contract needs indexing_maps = [...]");
            return;
        }
    }
    if (!known)
        return;
    ls_dop *o = ls_imp_add_dop(im, kind, op.line, op.col, rank, red, am, &ins, &outs, NULL,
                               result_name, op.text);
    if (failed(im))
        return;
    if (o && !o->is_conv && !o->is_fill) {
        /* The named contraction's body is multiply-accumulate by definition. */
        o->is_contraction = true;
        o->reduced_inits = 1;
    }
    bool any_red = false;
    for (int d = 0; d < rank; d++)
        any_red |= red[d];
    if (contraction && any_red)
        contraction_problem(im, kind, op.line, op.col, rank, red, am, &ins, &outs, dict, dict2,
                            o);
}
