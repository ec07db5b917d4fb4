/* import_func.c: a function of the input as the importer tracks it -- its
 * signature's arguments (types checked at their uses) and the SSA names
 * defined at its top level (a second definition is MLIR's "redefinition
 * of SSA value"). */
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static ssa_def *ssa_slot(const ssa_set *set, const char *name, size_t len)
{
    size_t i = (size_t)name_hash(name, len) & (set->cap - 1);
    while (set->slot[i].name &&
           !(set->slot[i].len == len && memcmp(set->slot[i].name, name, len) == 0))
        i = (i + 1) & (set->cap - 1);
    return &set->slot[i];
}

static const ssa_def *ssa_find(const ssa_set *set, const char *name, size_t len)
{
    if (set->n == 0)
        return NULL;
    const ssa_def *d = ssa_slot(set, name, len);
    return d->name ? d : NULL;
}

static void ssa_add(ssa_set *set, const char *name, size_t len, int line, int col)
{
    if (2 * (set->n + 1) > set->cap) {
        ssa_set bigger = {ls_xcalloc(set->cap ? set->cap * 2 : 64, sizeof(ssa_def)),
                          set->cap ? set->cap * 2 : 64, 0};
        for (size_t i = 0; i < set->cap; i++)
            if (set->slot[i].name)
                *ssa_slot(&bigger, set->slot[i].name, set->slot[i].len) = set->slot[i];
        bigger.n = set->n;
        free(set->slot);
        *set = bigger;
    }
    ssa_def *d = ssa_slot(set, name, len);
    if (d->name)
        return;
    *d = (ssa_def){name, len, line, col};
    set->n++;
}

void ls_imp_ssa_clear(ssa_set *set)
{
    if (set->n)
        memset(set->slot, 0, set->cap * sizeof *set->slot);
    set->n = 0;
}

/* Past a parenthesised group at the current token (a `loc(...)`, a
 * result list), nested parentheses included; stops at the end of input or
 * at a lexical error (quiet). */
static void skip_parens(importer *im, const ls_diag *quiet)
{
    int depth = 0;
    do {
        if (ls_tok_is(tok(im), '('))
            depth++;
        else if (ls_tok_is(tok(im), ')'))
            depth--;
        next(im);
    } while (depth > 0 && tok(im)->kind != LS_TOK_EOF && quiet->status == LS_OK);
}

/* At the '@name' of a func.func: its arguments `(%arg0: T {attrs} loc(..),
 * ...)` into im->func_args, read on a copy of the lexer with a private
 * diag (the scan then reads the same tokens as before).  A signature it
 * cannot follow records nothing: the uses are then not checked. */
void ls_imp_func_signature(importer *im)
{
    ls_lexer save = im->lx;
    ls_diag quiet;
    ls_diag_clear(&quiet);
    im->lx.diag = &quiet;
    im->p.diag = &quiet;
    im->n_func_args = 0;
    int n = 0;
    next(im);
    if (ls_tok_is(tok(im), '(')) {
        next(im);
        while (tok(im)->kind == LS_TOK_PERCENT && n < MAX_FUNC_ARGS) {
            func_arg *a = &im->func_args[n];
            copy_tok(a->name, sizeof a->name, tok(im));
            a->line = tok(im)->line;
            a->col = tok(im)->col;
            next(im);
            if (!ls_tok_is(tok(im), ':'))
                break;
            next(im);
            ls_attr *t = ls_parse_type(&im->p);
            if (t == NULL || t->type == NULL)
                break;
            a->type = *t->type;
            a->text = t->s;
            n++;
            if (ls_tok_is(tok(im), '{') && ls_parse_attr(&im->p) == NULL)
                break;
            if (ls_tok_ident(tok(im), "loc")) {
                next(im);
                skip_parens(im, &quiet);
            }
            if (!ls_tok_is(tok(im), ','))
                break;
            next(im);
        }
        if (ls_tok_is(tok(im), ')') && quiet.status == LS_OK) {
            im->n_func_args = n;
            /* on to the body's '{': past `-> T` or `-> (T {attrs}, ...)`
             * and `attributes {...}` */
            next(im);
            if (tok(im)->kind == LS_TOK_ARROW) {
                next(im);
                if (ls_tok_is(tok(im), '(')) {
                    skip_parens(im, &quiet);
                } else {
                    ls_parse_type(&im->p);
                }
            }
            if (ls_tok_ident(tok(im), "attributes")) {
                next(im);
                if (!ls_tok_is(tok(im), '{') || ls_parse_attr(&im->p) == NULL)
                    ls_diag_set(&quiet, LS_ERR_SYNTAX, "", 0, 0, "no attributes");
            }
            if (ls_tok_is(tok(im), '{') && quiet.status == LS_OK)
                im->func_body_at = tok(im)->text;
        }
    }
    im->lx = save;
    im->lx.diag = im->diag;
    im->p.diag = im->diag;
}

/* Two types the same for a use's check: shape and element type (an
 * encoding or layout after the element type is not compared). */
static bool same_type(const ls_type_info *a, const ls_type_info *b)
{
    if (a->shaped != b->shaped || strcmp(a->container, b->container) != 0 || a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank && i < LS_MAX_SHAPE_RANK; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return strcmp(a->elem_text, b->elem_text) == 0;
}

bool ls_imp_check_func_arg_use(importer *im, const char *name, const ls_type_info *t,
                               const char *text, int line, int col)
{
    if (im->func_depth < 0 || t->elem_text == NULL)
        return true;
    for (int i = 0; i < im->n_func_args; i++) {
        const func_arg *a = &im->func_args[i];
        if (strcmp(a->name, name) != 0)
            continue;
        if (a->type.elem_text == NULL || same_type(&a->type, t))
            return true;
        /* MLIR: "use of value '%arg0' expects different type than prior uses" */
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, line, col,
                           "%s is used as %.80s, but the function's signature declares it "
                           "%.80s (at %d:%d)",
                           name, text ? text : "?", a->text ? a->text : "?", a->line,
                           a->col) == LS_OK;
    }
    return true;
}

/* True when t is the first token of its line: `%x = op` starts one in
 * printed IR, where `scf.for %i = ...` and `iter_args(%a = %b)` (region
 * arguments, which sibling regions may name alike) do not. */
static bool first_on_line(const importer *im, const ls_token *t)
{
    const char *p = t->text;
    while (p > im->lx.src && (p[-1] == ' ' || p[-1] == '\t'))
        p--;
    return p == im->lx.src || p[-1] == '\n';
}

/* At %name followed by `=` or `:N =` at the top level of a function's
 * body: a second definition of a name there (or of an argument) is
 * MLIR's "redefinition of SSA value". */
bool ls_imp_top_level_definition(importer *im, const ls_token *t)
{
    if (im->func_depth < 0 || im->brace_depth != im->func_depth || !first_on_line(im, t))
        return true;
    ls_lexer save = im->lx;
    ls_diag quiet;
    ls_diag_clear(&quiet);
    im->lx.diag = &quiet;
    next(im);
    if (ls_tok_is(tok(im), ':')) {
        next(im);
        if (tok(im)->kind == LS_TOK_INT)
            next(im);
    }
    bool def = ls_tok_is(tok(im), '=');
    im->lx = save;
    if (!def)
        return true;
    size_t len = t->len;
    const char *hash = memchr(t->text, '#', len);
    if (hash)
        return true; /* %3#1 is a use */
    int at_line = 0, at_col = 0;
    const char *what = "";
    const ssa_def *d = ssa_find(&im->func_names, t->text, len);
    if (d && d->name == t->text)
        return true; /* the same token read again (after a rewind) */
    if (d) {
        at_line = d->line;
        at_col = d->col;
    }
    for (int i = 0; i < im->n_func_args && !at_line; i++)
        if (strlen(im->func_args[i].name) == len &&
            memcmp(im->func_args[i].name, t->text, len) == 0) {
            at_line = im->func_args[i].line;
            at_col = im->func_args[i].col;
            what = ", an argument of the function";
        }
    if (at_line)
        return ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, t->line, t->col,
                           "redefinition of SSA value %.*s (first defined at %d:%d%s)",
                           len > 60 ? 60 : (int)len, t->text, at_line, at_col, what) == LS_OK;
    ssa_add(&im->func_names, t->text, len, t->line, t->col);
    return true;
}
