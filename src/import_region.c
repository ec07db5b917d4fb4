/* import_region.c: operand lists ins(...)/outs(...), regions with their
 * block arguments, statements and yield, and the body shapes the importer
 * and IREE's heuristic look for. */
#include "import_internal.h"

bool ls_imp_operands_ex(importer *im, const char *kw, bool allow_scalar, operand_list *out)
{
    memset(out, 0, sizeof *out);
    out->line = tok(im)->line;
    out->col = tok(im)->col;
    if (!ls_tok_ident(tok(im), kw)) {
        char what[32];
        snprintf(what, sizeof what, "'%s('", kw);
        syntax(im, what);
        return false;
    }
    next(im);
    if (!expect(im, '('))
        return false;
    while (tok(im)->kind == LS_TOK_PERCENT) {
        if (out->n >= MAX_OPERANDS) {
            ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, tok(im)->line, tok(im)->col,
                        "more than %d operands in %s(...)", MAX_OPERANDS, kw);
            return false;
        }
        snprintf(out->names[out->n++], sizeof out->names[0], "%.*s",
                 tok(im)->len > 63 ? 63 : (int)tok(im)->len, tok(im)->text);
        next(im);
        if (!ls_tok_is(tok(im), ','))
            break;
        next(im);
    }
    if (out->n > 0) {
        if (!expect(im, ':'))
            return false;
        for (int i = 0; i < out->n; i++) {
            if (i > 0 && !expect(im, ','))
                return false;
            ls_attr *t = ls_parse_type(&im->p);
            if (t == NULL)
                return false;
            out->types[i] = *t->type;
            /* tensor<f32> (rank 0) is the init of a full reduction. */
            if (!allow_scalar && !out->types[i].shaped) {
                ls_diag_set(im->diag, LS_ERR_INVALID, im->file, t->line, t->col,
                            "operand %s of %s has type %s; a tensor is expected", out->names[i], kw,
                            t->s);
                return false;
            }
        }
    }
    return expect(im, ')');
}

bool ls_imp_operands(importer *im, const char *kw, operand_list *out)
{
    return ls_imp_operands_ex(im, kw, false, out);
}

bool ls_imp_block_args(importer *im, region *r)
{
    /* at '(' */
    next(im);
    while (tok(im)->kind == LS_TOK_PERCENT) {
        if (r->n_args >= MAX_OPERANDS) {
            ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, tok(im)->line, tok(im)->col,
                        "more than %d block arguments", MAX_OPERANDS);
            return false;
        }
        copy_tok(r->arg[r->n_args++], sizeof r->arg[0], tok(im));
        next(im);
        if (!expect(im, ':'))
            return false;
        if (ls_parse_type(&im->p) == NULL)
            return false;
        if (!ls_tok_is(tok(im), ','))
            break;
        next(im);
    }
    return expect(im, ')');
}

/* linalg's terminator, or iree_linalg_ext's (arg_compare's comparator). */
static bool is_yield(const ls_token *t)
{
    return ls_tok_ident(t, "linalg.yield") || ls_tok_ident(t, "iree_linalg_ext.yield");
}

/* The rest of `%r = op ...`: operands, a leading keyword (cmpf's
 * predicate), a number literal, attributes (fastmath<...>, {...}) skipped,
 * then ": T", ": A, B" (the last counts) or ": A to B".  Stops before the
 * next statement, the yield or the region's '}'. */
static bool stmt_tail(importer *im, stmt *s)
{
    int nest = 0, bracket_at = -1; /* nest of an operand's [index list] */
    bool minus = false;
    while (!failed(im) && tok(im)->kind != LS_TOK_EOF) {
        ls_token *u = tok(im);
        if (bracket_at >= 0 && nest == bracket_at + 1 && u->kind == LS_TOK_PERCENT) {
            if (s->n_idx < LS_MAX_RANK)
                copy_tok(s->idx[s->n_idx], sizeof s->idx[0], u);
            s->n_idx++;
            next(im);
            continue;
        }
        if (nest == 0 && ls_tok_is(u, '[') && s->n_args > 0)
            bracket_at = 0;
        if (nest == 0 && (ls_tok_is(u, ':') || ls_tok_is(u, '}') || u->kind == LS_TOK_CARET ||
                          is_yield(u)))
            break;
        if (ls_tok_is(u, '<') || ls_tok_is(u, '{') || ls_tok_is(u, '(') || ls_tok_is(u, '[')) {
            nest++;
        } else if (ls_tok_is(u, '>') || ls_tok_is(u, '}') || ls_tok_is(u, ')') ||
                   ls_tok_is(u, ']')) {
            nest--;
        } else if (nest == 0 && u->kind == LS_TOK_PERCENT) {
            ls_lexer save = im->lx;
            next(im);
            bool starts_stmt = ls_tok_is(tok(im), '=');
            im->lx = save;
            if (starts_stmt)
                return true; /* an op without a type: the next statement begins */
            if (s->n_args < 3)
                copy_tok(s->args[s->n_args++], sizeof s->args[0], u);
        } else if (nest == 0 && u->kind == LS_TOK_IDENT && s->n_args == 0 && !s->pred[0] &&
                   !s->lit[0]) {
            copy_tok(s->pred, sizeof s->pred, u);
        } else if (nest == 0 && ls_tok_is(u, '-')) {
            minus = true;
        } else if (nest == 0 && (u->kind == LS_TOK_INT || u->kind == LS_TOK_FLOAT) && !s->lit[0]) {
            snprintf(s->lit, sizeof s->lit, "%s%.*s", minus ? "-" : "",
                     u->len > 44 ? 44 : (int)u->len, u->text);
        }
        next(im);
    }
    if (!ls_tok_is(tok(im), ':'))
        return true;
    next(im);
    if (ls_tok_ident(tok(im), "tensor")) { /* tensor.extract's source type */
        ls_attr *ty = ls_parse_type(&im->p);
        if (ty == NULL)
            return false;
        if (ty->type) {
            s->from = s->to = s->first = ty->type->elem;
            snprintf(s->from_text, sizeof s->from_text, "%s",
                     ty->type->elem_text ? ty->type->elem_text : "?");
        }
        return !failed(im);
    }
    while (tok(im)->kind == LS_TOK_IDENT) {
        copy_tok(s->from_text, sizeof s->from_text, tok(im));
        s->from = ls_elem_type_from_name(tok(im)->text, tok(im)->len);
        s->to = s->from;
        if (s->first == LS_ET_UNKNOWN)
            s->first = s->from;
        next(im);
        if (!ls_tok_is(tok(im), ','))
            break;
        next(im);
    }
    if (ls_tok_ident(tok(im), "to")) {
        next(im);
        if (tok(im)->kind == LS_TOK_IDENT) {
            s->to = ls_elem_type_from_name(tok(im)->text, tok(im)->len);
            next(im);
        }
    }
    return !failed(im);
}

bool ls_imp_parse_region(importer *im, region *r)
{
    int open_line = tok(im)->line, open_col = tok(im)->col;
    if (!expect(im, '{'))
        return false;
    int depth = 1;
    while (depth > 0 && !failed(im)) {
        ls_token t = *tok(im);
        if (t.kind == LS_TOK_EOF) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, open_line, open_col,
                        "unterminated region: no '}' matches this '{'");
            return false;
        }
        if (ls_tok_is(&t, '{')) {
            depth++;
            next(im);
        } else if (ls_tok_is(&t, '}')) {
            depth--;
            next(im);
        } else if (depth == 1 && t.kind == LS_TOK_CARET) {
            next(im);
            if (ls_tok_is(tok(im), '(') && !ls_imp_block_args(im, r))
                return false;
        } else if (depth == 1 && t.kind == LS_TOK_IDENT && r->n_stmts == 0 && r->n_args == 0 &&
                   !is_yield(&t)) {
            /* short form: { arith.addf } */
            copy_tok(r->short_op, sizeof r->short_op, &t);
            next(im);
        } else if (depth == 1 && t.kind == LS_TOK_PERCENT) {
            next(im);
            if (!ls_tok_is(tok(im), '='))
                continue;
            next(im);
            if (tok(im)->kind != LS_TOK_IDENT)
                continue;
            if (r->n_stmts >= MAX_STMTS) {
                ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, t.line, t.col,
                            "region has more than %d statements", MAX_STMTS);
                return false;
            }
            stmt *s = &r->stmts[r->n_stmts++];
            memset(s, 0, sizeof *s);
            s->line = t.line;
            s->col = t.col;
            copy_tok(s->res, sizeof s->res, &t);
            copy_tok(s->op, sizeof s->op, tok(im));
            next(im);
            if (!stmt_tail(im, s))
                return false;
        } else if (depth == 1 && is_yield(&t)) {
            r->yield_line = t.line;
            r->yield_col = t.col;
            next(im);
            while (tok(im)->kind == LS_TOK_PERCENT || ls_tok_is(tok(im), ',')) {
                if (tok(im)->kind == LS_TOK_PERCENT && r->n_yield < MAX_OPERANDS)
                    copy_tok(r->yield[r->n_yield++], sizeof r->yield[0], tok(im));
                next(im);
            }
        } else {
            next(im);
        }
    }
    return !failed(im);
}

const stmt *ls_imp_def_of(const region *r, const char *name)
{
    for (int i = r->n_stmts; i-- > 0;)
        if (strcmp(r->stmts[i].res, name) == 0)
            return &r->stmts[i];
    return NULL;
}

bool ls_imp_is_ext_op(const char *op)
{
    return strcmp(op, "arith.extf") == 0 || strcmp(op, "arith.extsi") == 0 ||
           strcmp(op, "arith.extui") == 0;
}

int ls_imp_uses_of(const region *r, const char *name)
{
    int n = 0;
    for (int i = 0; i < r->n_stmts; i++)
        for (int a = 0; a < r->stmts[i].n_args; a++)
            n += strcmp(r->stmts[i].args[a], name) == 0;
    for (int i = 0; i < r->n_yield; i++)
        n += strcmp(r->yield[i], name) == 0;
    return n;
}

const stmt *ls_imp_user_of(const region *r, const char *name)
{
    for (int i = 0; i < r->n_stmts; i++)
        for (int a = 0; a < r->stmts[i].n_args; a++)
            if (strcmp(r->stmts[i].args[a], name) == 0)
                return &r->stmts[i];
    return NULL;
}

/* matchReduction with one combiner: the init's block argument has one use,
 * an op whose single-use result is yielded at the init's position. */
bool ls_imp_single_combiner(const region *r, int n_inputs, int k)
{
    if (r->short_op[0])
        return true;
    if (n_inputs + k >= r->n_args || k >= r->n_yield)
        return false;
    const char *out = r->arg[n_inputs + k];
    if (ls_imp_uses_of(r, out) != 1)
        return false;
    const stmt *c = ls_imp_user_of(r, out);
    return c != NULL && ls_imp_uses_of(r, c->res) == 1 && strcmp(r->yield[k], c->res) == 0;
}

bool ls_imp_is_cast_op(const char *op)
{
    static const char *casts[] = {"arith.extf", "arith.extsi", "arith.extui", "arith.truncf",
                                  "arith.trunci", "arith.sitofp", "arith.uitofp",
                                  "arith.fptosi", "arith.fptoui"};
    for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++)
        if (strcmp(op, casts[i]) == 0)
            return true;
    return false;
}

/* The block argument a value is, directly or through one cast. */
int ls_imp_arg_through_cast(const region *r, const char *v)
{
    for (int i = 0; i < r->n_args; i++)
        if (strcmp(r->arg[i], v) == 0)
            return i;
    const stmt *s = ls_imp_def_of(r, v);
    if (s && ls_imp_is_cast_op(s->op) && s->n_args == 1)
        for (int i = 0; i < r->n_args; i++)
            if (strcmp(r->arg[i], s->args[0]) == 0)
                return i;
    return -1;
}

/* linalg's contraction body: yield(add(mul(cast(a), cast(b)), out)). */
bool ls_imp_contraction_body(const region *r)
{
    if (r->n_args != 3 || r->n_yield != 1)
        return false;
    const stmt *add = ls_imp_def_of(r, r->yield[0]);
    if (add == NULL || add->n_args != 2 ||
        !(strcmp(add->op, "arith.addf") == 0 || strcmp(add->op, "arith.addi") == 0 ||
          strcmp(add->op, "arith.ori") == 0))
        return false;
    int out_side = strcmp(add->args[0], r->arg[2]) == 0 ? 0 : strcmp(add->args[1], r->arg[2]) == 0 ? 1 : -1;
    if (out_side < 0)
        return false;
    const stmt *mul = ls_imp_def_of(r, add->args[1 - out_side]);
    if (mul == NULL || mul->n_args != 2 ||
        !(strcmp(mul->op, "arith.mulf") == 0 || strcmp(mul->op, "arith.muli") == 0 ||
          strcmp(mul->op, "arith.andi") == 0))
        return false;
    int a = ls_imp_arg_through_cast(r, mul->args[0]), b = ls_imp_arg_through_cast(r, mul->args[1]);
    return (a == 0 && b == 1) || (a == 1 && b == 0);
}

