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
        out->name_line[out->n] = tok(im)->line;
        out->name_col[out->n] = tok(im)->col;
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
            out->type_text[i] = t->s;
            if (!ls_imp_check_func_arg_use(im, out->names[i], &out->types[i], t->s,
                                           out->name_line[i], out->name_col[i]))
                return false;
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

/* MLIR's parser rejects a second definition of a name in the same region
 * ("redefinition of SSA value"); read on, the later one would silently
 * replace the first for every use.  Block arguments and the first n_stmts
 * statements' results are the names defined so far. */
static bool new_name(importer *im, const region *r, const char *name, int line, int col,
                     int n_stmts)
{
    int at_line = 0, at_col = 0;
    for (int i = 0; i < r->n_args && !at_line; i++)
        if (strcmp(r->arg[i], name) == 0) {
            at_line = r->arg_line[i];
            at_col = r->arg_col[i];
        }
    for (int i = 0; i < n_stmts && !at_line; i++)
        if (strcmp(r->stmts[i].res, name) == 0) {
            at_line = r->stmts[i].line;
            at_col = r->stmts[i].col;
        }
    if (!at_line)
        return true;
    ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, line, col,
                "redefinition of SSA value %s (first defined at %d:%d in this region)", name,
                at_line, at_col);
    return false;
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
        int k = r->n_args;
        ls_token name = *tok(im);
        copy_tok(r->arg[k], sizeof r->arg[0], &name);
        if (!new_name(im, r, r->arg[k], name.line, name.col, 0))
            return false;
        r->arg_line[k] = name.line;
        r->arg_col[k] = name.col;
        r->n_args++;
        next(im);
        if (!expect(im, ':'))
            return false;
        ls_attr *t = ls_parse_type(&im->p);
        if (t == NULL)
            return false;
        r->arg_type[k] = *t->type;
        r->arg_type_text[k] = t->s;
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
 * predicate), a number literal, fastmath<...> (its flags into s->fmf: IREE's FMA
 * fusion reads them), other attributes ({...}) skipped,
 * then ": T", ": A, B" (the last counts) or ": A to B".  Stops before the
 * next statement, the yield or the region's '}'. */
static bool stmt_tail(importer *im, stmt *s)
{
    int nest = 0, bracket_at = -1; /* nest of an operand's [index list] */
    bool minus = false, in_fmf = false;
    while (!failed(im) && tok(im)->kind != LS_TOK_EOF) {
        ls_token *u = tok(im);
        if (nest == 0 && ls_tok_ident(u, "fastmath"))
            in_fmf = true; /* fastmath<flag, ...>: what IREE's FMA fusion reads */
        else if (nest == 0)
            in_fmf = in_fmf && ls_tok_is(u, '<');
        else if (in_fmf && nest == 1 && u->kind == LS_TOK_IDENT && !ls_tok_ident(u, "none")) {
            if (ls_tok_ident(u, "contract") || ls_tok_ident(u, "fast"))
                s->fmf = LS_FMF_CONTRACT;
            if (!ls_tok_ident(u, "contract") && !s->fmf_other[0]) { /* refused by its user */
                snprintf(s->fmf_other, sizeof s->fmf_other, "%.*s", u->len < 15 ? (int)u->len : 15,
                         u->text);
                s->fmf_line = u->line;
                s->fmf_col = u->col;
            }
        }
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
            if (s->n_args < 3) {
                s->arg_line[s->n_args] = u->line;
                s->arg_col[s->n_args] = u->col;
                copy_tok(s->args[s->n_args++], sizeof s->args[0], u);
            }
        } else if (nest == 0 && u->kind == LS_TOK_IDENT && s->n_args == 0 && !s->pred[0] &&
                   !s->lit[0]) {
            copy_tok(s->pred, sizeof s->pred, u);
        } else if (nest == 0 && ls_tok_is(u, '-')) {
            minus = true;
            s->lit_line = u->line;
            s->lit_col = u->col;
        } else if (nest == 0 && (u->kind == LS_TOK_INT || u->kind == LS_TOK_FLOAT) && !s->lit[0]) {
            if (!minus) {
                s->lit_line = u->line;
                s->lit_col = u->col;
            }
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
            stmt *s = &r->stmts[r->n_stmts];
            memset(s, 0, sizeof *s);
            s->line = t.line;
            s->col = t.col;
            copy_tok(s->res, sizeof s->res, &t);
            if (!new_name(im, r, s->res, t.line, t.col, r->n_stmts))
                return false;
            r->n_stmts++;
            copy_tok(s->op, sizeof s->op, tok(im));
            next(im);
            if (!stmt_tail(im, s))
                return false;
            char why[160];
            if (strcmp(s->op, "arith.constant") == 0 &&
                !ls_imp_literal_fits(s->lit, s->from, why, sizeof why)) {
                ls_diag_set(im->diag, LS_ERR_INVALID, im->file, s->lit_line, s->lit_col,
                            "arith.constant %s : %s: the literal does not fit the type: %s",
                            s->lit, ls_elem_type_name(s->from), why);
                return false;
            }
        } else if (depth == 1 && is_yield(&t)) {
            r->yield_line = t.line;
            r->yield_col = t.col;
            next(im);
            while (tok(im)->kind == LS_TOK_PERCENT || ls_tok_is(tok(im), ',')) {
                if (tok(im)->kind == LS_TOK_PERCENT && r->n_yield < MAX_OPERANDS)
                    copy_tok(r->yield[r->n_yield++], sizeof r->yield[0], tok(im));
                next(im);
            }
            if (r->n_yield > 0 && ls_tok_is(tok(im), ':')) {
                /* the yielded values' types, for the checks against their
                 * definitions and the op's inits (ls_imp_verify_region) */
                next(im);
                for (;;) {
                    int k = r->n_yield_types, tl = tok(im)->line, tc = tok(im)->col;
                    ls_attr *ty = ls_parse_type(&im->p);
                    if (ty == NULL)
                        return false;
                    if (k < MAX_OPERANDS) {
                        r->yield_type[k] = ty->type && !ty->type->shaped ? ty->type->elem
                                                                         : LS_ET_UNKNOWN;
                        r->yield_type_line[k] = tl;
                        r->yield_type_col[k] = tc;
                        r->n_yield_types++;
                    }
                    if (!ls_tok_is(tok(im), ','))
                        break;
                    next(im);
                }
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


/* ---- the verifier's type rules for a region, where MLIR's apply ---- */

/* What a statement's op wants of operand k and gives as its result, from
 * its `: T` / `: A to B` / `: A, B` types: the same type throughout for
 * arith/math arithmetic (SameOperandsAndResultType), the source type for a
 * cast, i1 from a compare, i1 and T for select.  LS_ET_UNKNOWN: not known
 * here (an op lanescope does not interpret, or no type written). */
static ls_elem_type stmt_operand_type(const stmt *s, int k)
{
    ls_body_opcode op;
    if (s->from == LS_ET_UNKNOWN || !ls_body_opcode_from_name(s->op, &op))
        return LS_ET_UNKNOWN;
    switch (op) {
    case LS_BOP_CONST:
    case LS_BOP_INDEX:
    case LS_BOP_INPUT: return LS_ET_UNKNOWN;
    case LS_BOP_FPOWI:
    case LS_BOP_SCALING_EXTF: return k == 0 ? s->first : s->from;
    case LS_BOP_CMPF:
    case LS_BOP_CMPI: return s->from;
    case LS_BOP_SELECT: return k == 0 ? LS_ET_I1 : s->to;
    default:
        if (ls_imp_is_cast_op(s->op) || op == LS_BOP_INDEX_CAST)
            return s->from;
        return s->from == s->to ? s->from : LS_ET_UNKNOWN;
    }
}

static ls_elem_type stmt_result_type(const stmt *s)
{
    ls_body_opcode op;
    if (strcmp(s->op, "linalg.index") == 0)
        return LS_ET_INDEX;
    if (strcmp(s->op, "tensor.extract") == 0)
        return s->from;
    if (s->to == LS_ET_UNKNOWN || !ls_body_opcode_from_name(s->op, &op))
        return LS_ET_UNKNOWN;
    switch (op) {
    case LS_BOP_CMPF:
    case LS_BOP_CMPI: return LS_ET_I1;
    case LS_BOP_FPOWI: return s->first;
    default: return s->to;
    }
}

/* The type of a value defined before statement `before` of the region
 * (a block argument or an earlier result); where it was defined and as
 * what, for the message. */
static ls_elem_type value_type(const region *r, const char *name, int before, int *line,
                               int *col, const char **what)
{
    for (int i = 0; i < r->n_args; i++)
        if (strcmp(r->arg[i], name) == 0) {
            *line = r->arg_line[i];
            *col = r->arg_col[i];
            *what = "block argument";
            return r->arg_type[i].shaped ? LS_ET_UNKNOWN : r->arg_type[i].elem;
        }
    for (int i = 0; i < before && i < r->n_stmts; i++)
        if (strcmp(r->stmts[i].res, name) == 0) {
            *line = r->stmts[i].line;
            *col = r->stmts[i].col;
            *what = r->stmts[i].op;
            return stmt_result_type(&r->stmts[i]);
        }
    return LS_ET_UNKNOWN;
}

/* Spelled types compared without blanks: "tensor<4x f32>" is "tensor<4xf32>". */
static bool same_text(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')
            a++;
        while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')
            b++;
        if (*a != *b)
            return false;
        if (*a == 0)
            return true;
        a++;
        b++;
    }
}

bool ls_imp_verify_region(importer *im, const region *r, const operand_list *ins,
                          const operand_list *outs, const char *opname)
{
    if (failed(im))
        return false;
    /* LinalgOp's verifier: one block argument per operand, of the
     * operand's element type (its own type for a scalar operand) */
    int n_ops = ins && outs ? ins->n + outs->n : 0;
    if (n_ops > 0 && r->n_args > 0 && r->n_args != n_ops)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, r->arg_line[0], r->arg_col[0],
                           "%s's region has %d block arguments for its %d operands (%d ins, "
                           "%d outs); MLIR wants one per operand",
                           opname, r->n_args, n_ops, ins->n, outs->n) == LS_OK;
    for (int k = 0; n_ops > 0 && k < r->n_args; k++) {
        const operand_list *l = k < ins->n ? ins : outs;
        int j = k < ins->n ? k : k - ins->n;
        const char *want = l->types[j].elem_text;
        const char *got = r->arg_type[k].shaped ? r->arg_type_text[k] : r->arg_type[k].elem_text;
        if (want == NULL || got == NULL || same_text(want, got))
            continue;
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, r->arg_line[k], r->arg_col[k],
                           "block argument %s is %s, but its operand %s (%s %d) holds %s: the "
                           "types must match",
                           r->arg[k], got, l->names[j], l == ins ? "input" : "init", j,
                           want) == LS_OK;
    }
    /* every use of a value has the type it was defined with */
    for (int i = 0; i < r->n_stmts; i++) {
        const stmt *s = &r->stmts[i];
        for (int k = 0; k < s->n_args; k++) {
            ls_elem_type want = stmt_operand_type(s, k);
            int dl = 0, dc = 0;
            const char *what = "";
            ls_elem_type have = value_type(r, s->args[k], i, &dl, &dc, &what);
            if (want == LS_ET_UNKNOWN || have == LS_ET_UNKNOWN || want == have)
                continue;
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, s->arg_line[k],
                               s->arg_col[k],
                               "%s uses %s as %s, but it is %s (the %s at %d:%d)", s->op,
                               s->args[k], ls_elem_type_name(want), ls_elem_type_name(have),
                               what, dl, dc) == LS_OK;
        }
    }
    for (int k = 0; k < r->n_yield && k < r->n_yield_types; k++) {
        int dl = 0, dc = 0;
        const char *what = "";
        ls_elem_type have = value_type(r, r->yield[k], r->n_stmts, &dl, &dc, &what);
        ls_elem_type want = r->yield_type[k];
        if (want == LS_ET_UNKNOWN || have == LS_ET_UNKNOWN || want == have)
            continue;
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, r->yield_type_line[k],
                           r->yield_type_col[k],
                           "the yield gives %s as %s, but it is %s (the %s at %d:%d)",
                           r->yield[k], ls_elem_type_name(want), ls_elem_type_name(have), what,
                           dl, dc) == LS_OK;
    }
    /* LinalgOp: what the body yields is the element type of each init */
    if (outs && r->n_yield > 0) {
        if (r->n_yield != outs->n)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, r->yield_line, r->yield_col,
                               "the body yields %d values for %s's %d inits", r->n_yield,
                               opname, outs->n) == LS_OK;
        for (int k = 0; k < r->n_yield; k++) {
            int dl = 0, dc = 0;
            const char *what = "";
            ls_elem_type have = k < r->n_yield_types
                                    ? r->yield_type[k]
                                    : value_type(r, r->yield[k], r->n_stmts, &dl, &dc, &what);
            ls_elem_type want = outs->types[k].elem;
            if (want == LS_ET_UNKNOWN || have == LS_ET_UNKNOWN || want == have)
                continue;
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file,
                               k < r->n_yield_types ? r->yield_type_line[k] : r->yield_line,
                               k < r->n_yield_types ? r->yield_type_col[k] : r->yield_col,
                               "the body yields %s as its value %d, but init %s holds %s",
                               ls_elem_type_name(have), k, outs->names[k],
                               ls_elem_type_name(want)) == LS_OK;
        }
    }
    return true;
}
