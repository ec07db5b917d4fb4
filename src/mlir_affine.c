/* mlir_affine.c: the MLIR parser's affine maps -- each result classified
 * as a dim, a scaled dim, a constant or "complex", not fully represented --
 * and dense arrays (array<i32: 1, 2, 3>).  The rest of the parser is
 * mlir.c. */
#include <stdio.h>
#include <string.h>

#include "lanescope/mlir.h"
#include "mlir_internal.h"

typedef struct {
    const ls_token *names;
    int n;
} id_scope;

static int scope_find(const id_scope *s, const ls_token *t)
{
    for (int i = 0; i < s->n; i++)
        if (s->names[i].len == t->len && memcmp(s->names[i].text, t->text, t->len) == 0)
            return i;
    return -1;
}

static bool parse_aff_sum(ls_parser *p, const id_scope *dims, const id_scope *syms,
                          ls_aff_expr *out);

static bool parse_aff_unary(ls_parser *p, const id_scope *dims, const id_scope *syms,
                            ls_aff_expr *out)
{
    ls_token t = p->lx->tok;
    /* levels are brackets: the dim or number at the bottom of 64 of them
     * is the 65th call (LS_MLIR_MAX_DEPTH) */
    if (++p->depth > LS_MLIR_MAX_DEPTH + 1) {
        ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, t.line, t.col,
                    "affine expression nested deeper than %d levels", LS_MLIR_MAX_DEPTH);
        return false;
    }
    out->scale = 1;
    bool ok = true;
    if (ls_tok_is(&t, '-')) {
        ls_lex_next(p->lx);
        ok = parse_aff_unary(p, dims, syms, out);
        if (ok && out->kind == LS_AFF_CONST && out->value != INT64_MIN)
            out->value = -out->value;
        else if (ok)
            out->kind = LS_AFF_COMPLEX;
    } else if (ls_tok_is(&t, '(')) {
        ls_lex_next(p->lx);
        ok = parse_aff_sum(p, dims, syms, out) && ls_mlp_expect_punct(p, ')');
    } else if (t.kind == LS_TOK_INT) {
        ok = ls_mlp_parse_int_text(p, &t, false, &out->value);
        out->kind = LS_AFF_CONST;
        ls_lex_next(p->lx);
    } else if (t.kind == LS_TOK_IDENT) {
        int d = scope_find(dims, &t);
        if (d >= 0) {
            out->kind = LS_AFF_DIM;
            out->value = d;
            out->scale = 1;
        } else if (scope_find(syms, &t) >= 0) {
            out->kind = LS_AFF_COMPLEX;
        } else {
            ls_diag_set(p->diag, LS_ERR_SYNTAX, p->lx->file, t.line, t.col,
                        "'%.*s' is not a dimension or symbol of this affine_map",
                        t.len > 40 ? 40 : (int)t.len, t.text);
            ok = false;
        }
        ls_lex_next(p->lx);
    } else {
        ls_mlp_expected(p, "an affine expression");
        ok = false;
    }
    p->depth--;
    return ok && !ls_mlp_failed(p);
}

static bool parse_aff_term(ls_parser *p, const id_scope *dims, const id_scope *syms,
                           ls_aff_expr *out)
{
    if (!parse_aff_unary(p, dims, syms, out))
        return false;
    while (ls_tok_is(&p->lx->tok, '*') || ls_tok_ident(&p->lx->tok, "floordiv") ||
           ls_tok_ident(&p->lx->tok, "ceildiv") || ls_tok_ident(&p->lx->tok, "mod")) {
        bool mul = ls_tok_is(&p->lx->tok, '*');
        ls_lex_next(p->lx);
        ls_aff_expr rhs;
        if (!parse_aff_unary(p, dims, syms, &rhs))
            return false;
        /* dim * c and c * dim (c > 0) stay strided accesses; the rest is
         * kept only as "complex" */
        bool dim_l = out->kind == LS_AFF_DIM || out->kind == LS_AFF_SCALED;
        bool dim_r = rhs.kind == LS_AFF_DIM || rhs.kind == LS_AFF_SCALED;
        if (mul && dim_l && rhs.kind == LS_AFF_CONST && rhs.value > 0 &&
            out->scale <= INT32_MAX / rhs.value) {
            out->kind = LS_AFF_SCALED;
            out->scale *= rhs.value;
        } else if (mul && out->kind == LS_AFF_CONST && out->value > 0 && dim_r &&
                   rhs.scale <= INT32_MAX / out->value) {
            out->scale = rhs.scale * out->value;
            out->value = rhs.value;
            out->kind = LS_AFF_SCALED;
        } else {
            out->kind = LS_AFF_COMPLEX;
        }
        if (out->kind == LS_AFF_SCALED && out->scale == 1)
            out->kind = LS_AFF_DIM;
    }
    return true;
}

static bool parse_aff_sum(ls_parser *p, const id_scope *dims, const id_scope *syms,
                          ls_aff_expr *out)
{
    if (!parse_aff_term(p, dims, syms, out))
        return false;
    while (ls_tok_is(&p->lx->tok, '+') || ls_tok_is(&p->lx->tok, '-')) {
        ls_lex_next(p->lx);
        ls_aff_expr rhs;
        if (!parse_aff_term(p, dims, syms, &rhs))
            return false;
        out->kind = LS_AFF_COMPLEX;
    }
    return true;
}

enum { LS_MAX_AFFINE_IDS = 64 };

static bool parse_id_list(ls_parser *p, char closer, ls_token *names, int *n)
{
    *n = 0;
    while (!ls_tok_is(&p->lx->tok, closer)) {
        if (p->lx->tok.kind != LS_TOK_IDENT) {
            ls_mlp_expected(p, "a dimension or symbol name");
            return false;
        }
        if (*n >= LS_MAX_AFFINE_IDS) {
            ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, p->lx->tok.line, p->lx->tok.col,
                        "affine_map has more than %d dimensions or symbols", LS_MAX_AFFINE_IDS);
            return false;
        }
        names[(*n)++] = p->lx->tok;
        ls_lex_next(p->lx);
        if (ls_tok_is(&p->lx->tok, ','))
            ls_lex_next(p->lx);
        else if (!ls_tok_is(&p->lx->tok, closer)) {
            char what[24];
            snprintf(what, sizeof what, "',' or '%c'", closer);
            ls_mlp_expected(p, what);
            return false;
        }
    }
    ls_lex_next(p->lx);
    return !ls_mlp_failed(p);
}

ls_attr *ls_mlp_parse_affine_map(ls_parser *p, int line, int col)
{
    ls_token dims[LS_MAX_AFFINE_IDS], syms[LS_MAX_AFFINE_IDS];
    id_scope ds = {dims, 0}, ss = {syms, 0};
    if (!ls_mlp_expect_punct(p, '<') || !ls_mlp_expect_punct(p, '('))
        return NULL;
    if (!parse_id_list(p, ')', dims, &ds.n))
        return NULL;
    if (ls_tok_is(&p->lx->tok, '[')) {
        ls_lex_next(p->lx);
        if (!parse_id_list(p, ']', syms, &ss.n))
            return NULL;
    }
    if (p->lx->tok.kind != LS_TOK_ARROW)
        return ls_mlp_expected(p, "'->'");
    ls_lex_next(p->lx);
    if (!ls_mlp_expect_punct(p, '('))
        return NULL;
    ls_aff_expr res[LS_MAX_AFFINE_IDS];
    int nres = 0;
    while (!ls_tok_is(&p->lx->tok, ')')) {
        if (nres >= LS_MAX_AFFINE_IDS) {
            ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, p->lx->tok.line, p->lx->tok.col,
                        "affine_map has more than %d results", LS_MAX_AFFINE_IDS);
            return NULL;
        }
        if (!parse_aff_sum(p, &ds, &ss, &res[nres]))
            return NULL;
        nres++;
        if (ls_tok_is(&p->lx->tok, ','))
            ls_lex_next(p->lx);
        else if (!ls_tok_is(&p->lx->tok, ')'))
            return ls_mlp_expected(p, "',' or ')'");
    }
    ls_lex_next(p->lx);
    if (!ls_mlp_expect_punct(p, '>'))
        return NULL;
    ls_attr *a = ls_mlp_new_attr(p, LS_AV_AFFINE_MAP, line, col);
    a->map = ls_arena_alloc(p->arena, sizeof *a->map);
    a->map->num_dims = ds.n;
    a->map->num_syms = ss.n;
    a->map->num_results = nres;
    a->map->results = ls_arena_alloc(p->arena, (size_t)(nres ? nres : 1) * sizeof(ls_aff_expr));
    memcpy(a->map->results, res, (size_t)nres * sizeof(ls_aff_expr));
    return a;
}

/* array<i32: 1, 2, 3> */
ls_attr *ls_mlp_parse_dense_array(ls_parser *p, int line, int col)
{
    if (!ls_mlp_expect_punct(p, '<'))
        return NULL;
    if (p->lx->tok.kind != LS_TOK_IDENT)
        return ls_mlp_expected(p, "an element type");
    ls_lex_next(p->lx);
    ls_attr *a = ls_mlp_new_attr(p, LS_AV_ARRAY, line, col);
    item_list l = {0};
    if (ls_tok_is(&p->lx->tok, ':')) {
        ls_lex_next(p->lx);
        for (;;) {
            ls_token t = p->lx->tok;
            bool neg = false;
            if (ls_tok_is(&t, '-')) {
                neg = true;
                ls_lex_next(p->lx);
                t = p->lx->tok;
            }
            if (t.kind != LS_TOK_INT)
                return ls_mlp_expected(p, "an integer");
            ls_attr *v = ls_mlp_new_attr(p, LS_AV_INT, t.line, t.col);
            if (!ls_mlp_parse_int_text(p, &t, neg, &v->i))
                return NULL;
            ls_mlp_list_push(p, &l, NULL, v);
            ls_lex_next(p->lx);
            if (!ls_tok_is(&p->lx->tok, ','))
                break;
            ls_lex_next(p->lx);
        }
    }
    if (!ls_mlp_expect_punct(p, '>'))
        return NULL;
    ls_mlp_list_store(a, &l, false);
    return a;
}
