/* mlir.c: MLIR attribute recursive-descent parser (see mlir.h); the lexer
 * is mlir_lex.c, types and aliases mlir_types.c, affine maps and dense
 * arrays mlir_affine.c.
 *
 * Invariants: every loop consumes at least one token or stops; recursion is
 * bounded by LS_MLIR_MAX_DEPTH; the first error is kept in the diag and all
 * callers return NULL once it is set, so one bad byte yields one message.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/mlir.h"
#include "mlir_internal.h"

/* ------------------------------------------------------------ parser */

static void describe_tok(const ls_token *t, char *buf, size_t size)
{
    int n = t->len > 40 ? 40 : (int)t->len;
    switch (t->kind) {
    case LS_TOK_EOF: snprintf(buf, size, "end of input"); break;
    case LS_TOK_IDENT: snprintf(buf, size, "identifier '%.*s'", n, t->text); break;
    case LS_TOK_INT: snprintf(buf, size, "integer %.*s", n, t->text); break;
    case LS_TOK_FLOAT: snprintf(buf, size, "number %.*s", n, t->text); break;
    case LS_TOK_STRING: snprintf(buf, size, "string \"%.*s\"", n, t->text); break;
    case LS_TOK_ARROW: snprintf(buf, size, "'->'"); break;
    case LS_TOK_PUNCT:
        if (isprint((unsigned char)t->punct))
            snprintf(buf, size, "'%c'", t->punct);
        else
            snprintf(buf, size, "byte 0x%02x", (unsigned char)t->punct);
        break;
    case LS_TOK_ERROR: snprintf(buf, size, "invalid text"); break;
    default: snprintf(buf, size, "'%.*s'", n, t->text); break;
    }
}

bool ls_mlp_failed(const ls_parser *p)
{
    return p->diag->status != LS_OK;
}

void *ls_mlp_expected(ls_parser *p, const char *what)
{
    char found[96];
    describe_tok(&p->lx->tok, found, sizeof found);
    ls_diag_set(p->diag, LS_ERR_SYNTAX, p->lx->file, p->lx->tok.line, p->lx->tok.col,
                "expected %s, found %s", what, found);
    return NULL;
}

bool ls_mlp_expect_punct(ls_parser *p, char c)
{
    if (!ls_tok_is(&p->lx->tok, c)) {
        char what[8] = {'\'', c, '\'', 0};
        ls_mlp_expected(p, what);
        return false;
    }
    ls_lex_next(p->lx);
    return !ls_mlp_failed(p);
}

ls_attr *ls_mlp_new_attr(ls_parser *p, ls_attr_kind k, int line, int col)
{
    ls_attr *a = ls_arena_alloc(p->arena, sizeof *a);
    a->kind = k;
    a->line = line;
    a->col = col;
    return a;
}

void ls_mlp_list_push(ls_parser *p, item_list *l, const char *key, ls_attr *item)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        ls_attr **items = ls_arena_alloc(p->arena, cap * sizeof *items);
        const char **keys = ls_arena_alloc(p->arena, cap * sizeof *keys);
        if (l->n) {
            memcpy(items, l->items, l->n * sizeof *items);
            memcpy(keys, l->keys, l->n * sizeof *keys);
        }
        l->items = items;
        l->keys = keys;
        l->cap = cap;
    }
    l->items[l->n] = item;
    l->keys[l->n] = key;
    l->n++;
}

/* MLIR rejects a dictionary or parameter key given twice ("duplicate key");
 * taking the last would silently drop what the user wrote first. */
static bool key_is_new(ls_parser *p, const item_list *l, const char *key, int line, int col)
{
    for (size_t i = 0; key && i < l->n; i++)
        if (l->keys[i] && strcmp(l->keys[i], key) == 0) {
            ls_diag_set(p->diag, LS_ERR_SYNTAX, p->lx->file, line, col,
                        "key '%s' is given twice (first with the value at %d:%d)", key,
                        l->items[i]->line, l->items[i]->col);
            return false;
        }
    return true;
}

void ls_mlp_list_store(ls_attr *a, item_list *l, bool with_keys)
{
    a->items = l->items;
    a->n = l->n;
    a->keys = with_keys ? l->keys : NULL;
}

bool ls_mlp_parse_int_text(ls_parser *p, const ls_token *t, bool negative, int64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    int base = 10;
    if (t->len > 2 && t->text[0] == '0' && (t->text[1] == 'x' || t->text[1] == 'X')) {
        base = 16;
        i = 2;
    }
    for (; i < t->len; i++) {
        int c = (unsigned char)t->text[i];
        int d = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            goto overflow;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (negative) {
        if (v > (uint64_t)INT64_MAX + 1)
            goto overflow;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            goto overflow;
        *out = (int64_t)v;
    }
    return true;
overflow:
    ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, t->line, t->col,
                "integer literal %s%.*s does not fit in 64 bits (limit %" PRId64 ")",
                negative ? "-" : "", t->len > 40 ? 40 : (int)t->len, t->text, INT64_MAX);
    return false;
}

static ls_attr *parse_value(ls_parser *p);

/* Items until the closer; commas between items are optional because
 * translation_info prints `pipeline = X workgroup_size = [..]`. */
static bool parse_params_body(ls_parser *p, ls_attr *a, char closer)
{
    item_list l = {0};
    while (!ls_tok_is(&p->lx->tok, closer)) {
        if (p->lx->tok.kind == LS_TOK_EOF) {
            char what[32];
            snprintf(what, sizeof what, "'%c'", closer);
            ls_mlp_expected(p, what);
            return false;
        }
        const char *key = NULL;
        int key_line = p->lx->tok.line, key_col = p->lx->tok.col;
        if (p->lx->tok.kind == LS_TOK_IDENT || p->lx->tok.kind == LS_TOK_STRING) {
            ls_lexer save = *p->lx;
            ls_token kt = p->lx->tok;
            ls_lex_next(p->lx);
            if (ls_tok_is(&p->lx->tok, '=')) {
                key = ls_arena_strndup(p->arena, kt.text, kt.len);
                ls_lex_next(p->lx);
            } else {
                *p->lx = save;
            }
        }
        if (!key_is_new(p, &l, key, key_line, key_col))
            return false;
        ls_attr *v = parse_value(p);
        if (v == NULL)
            return false;
        ls_mlp_list_push(p, &l, key, v);
        if (ls_tok_is(&p->lx->tok, ','))
            ls_lex_next(p->lx);
        if (ls_mlp_failed(p))
            return false;
    }
    ls_lex_next(p->lx);
    ls_mlp_list_store(a, &l, true);
    return !ls_mlp_failed(p);
}

static bool parse_dict_body(ls_parser *p, ls_attr *a)
{
    item_list l = {0};
    while (!ls_tok_is(&p->lx->tok, '}')) {
        ls_token kt = p->lx->tok;
        if (kt.kind != LS_TOK_IDENT && kt.kind != LS_TOK_STRING) {
            ls_mlp_expected(p, "a dictionary key or '}'");
            return false;
        }
        const char *key = ls_arena_strndup(p->arena, kt.text, kt.len);
        if (!key_is_new(p, &l, key, kt.line, kt.col))
            return false;
        ls_lex_next(p->lx);
        ls_attr *v;
        if (ls_tok_is(&p->lx->tok, '=')) {
            ls_lex_next(p->lx);
            v = parse_value(p);
            if (v == NULL)
                return false;
        } else {
            v = ls_mlp_new_attr(p, LS_AV_UNIT, kt.line, kt.col);
        }
        ls_mlp_list_push(p, &l, key, v);
        if (ls_tok_is(&p->lx->tok, ','))
            ls_lex_next(p->lx);
        else if (!ls_tok_is(&p->lx->tok, '}')) {
            ls_mlp_expected(p, "',' or '}'");
            return false;
        }
        if (ls_mlp_failed(p))
            return false;
    }
    ls_lex_next(p->lx);
    ls_mlp_list_store(a, &l, true);
    return !ls_mlp_failed(p);
}

/* !name without a dialect prefix or parameters is a type alias (MLIR's
 * type-alias syntax); dialect types always have a '.' in their name. */
static ls_attr *type_alias_use(ls_parser *p, const ls_token *t)
{
    const char *name = t->text + 1;
    size_t nlen = t->len - 1;
    const ls_alias *al = ls_alias_find(p->type_aliases, name, nlen);
    if (al == NULL) {
        ls_diag_set(p->diag, LS_ERR_SYNTAX, p->lx->file, t->line, t->col,
                    "undefined type alias !%.*s (define it with `!%.*s = TYPE` before its use)",
                    nlen > 60 ? 60 : (int)nlen, name, nlen > 60 ? 60 : (int)nlen, name);
        return NULL;
    }
    if (al->value == NULL) {
        ls_diag_set(p->diag, al->error.status ? al->error.status : LS_ERR_SYNTAX, al->error.file,
                    al->error.line, al->error.col, "in the definition of !%s (used at line %d): %s",
                    al->name, t->line, al->error.msg);
        return NULL;
    }
    /* A copy, so errors about this operand point at the use, not the alias. */
    ls_attr *a = ls_arena_alloc(p->arena, sizeof *a);
    *a = *al->value;
    a->line = t->line;
    a->col = t->col;
    ls_lex_next(p->lx);
    return ls_mlp_failed(p) ? NULL : a;
}

ls_attr *ls_parse_type(ls_parser *p)
{
    ls_token t = p->lx->tok;
    if (t.kind == LS_TOK_BANG && p->type_aliases && memchr(t.text, '.', t.len) == NULL &&
        !ls_lex_adjacent(p->lx, '<'))
        return type_alias_use(p, &t);
    if (t.kind == LS_TOK_IDENT || t.kind == LS_TOK_BANG) {
        const char *start = t.text;
        size_t len = t.len;
        ls_attr *a = ls_mlp_new_attr(p, LS_AV_TYPE, t.line, t.col);
        if (ls_lex_adjacent(p->lx, '<')) {
            const char *body;
            size_t blen;
            if (!ls_lex_skip_angle(p->lx, &body, &blen))
                return NULL;
            len = (size_t)(body + blen + 1 - start);
        } else {
            ls_lex_next(p->lx);
        }
        a->s = ls_arena_strndup(p->arena, start, len);
        a->type = ls_arena_alloc(p->arena, sizeof *a->type);
        if (t.kind == LS_TOK_IDENT && !ls_type_info_parse(start, len, p->arena, a->type)) {
            if (a->type->too_many_dims)
                ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, t.line, t.col,
                            "type '%.*s' has more than %d dimensions (the limit)",
                            len > 60 ? 60 : (int)len, start, LS_MAX_SHAPE_RANK);
            else if (a->type->dim_overflow >= 0)
                ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, t.line, t.col,
                            "dimension %d of type '%.*s' is past int64 (the largest size is "
                            "%" PRId64 ")",
                            a->type->dim_overflow, len > 60 ? 60 : (int)len, start, INT64_MAX);
            else
                ls_diag_set(p->diag, LS_ERR_SYNTAX, p->lx->file, t.line, t.col,
                            "malformed type '%.*s'", len > 60 ? 60 : (int)len, start);
            return NULL;
        }
        return ls_mlp_failed(p) ? NULL : a;
    }
    if (ls_tok_is(&t, '(')) {
        /* Function or tuple type: keep the text, nothing here needs its parts. */
        int depth = 0;
        const char *start = t.text;
        do {
            if (ls_tok_is(&p->lx->tok, '('))
                depth++;
            else if (ls_tok_is(&p->lx->tok, ')'))
                depth--;
            else if (p->lx->tok.kind == LS_TOK_EOF)
                return ls_mlp_expected(p, "')'");
            ls_lex_next(p->lx);
        } while (depth > 0 && !ls_mlp_failed(p));
        ls_attr *a = ls_mlp_new_attr(p, LS_AV_TYPE, t.line, t.col);
        a->s = ls_arena_strndup(p->arena, start, (size_t)(p->lx->tok.text - start));
        a->type = ls_arena_alloc(p->arena, sizeof *a->type);
        if (p->lx->tok.kind == LS_TOK_ARROW) {
            ls_lex_next(p->lx);
            if (ls_parse_type(p) == NULL)
                return NULL;
        }
        return ls_mlp_failed(p) ? NULL : a;
    }
    return ls_mlp_expected(p, "a type");
}

/* A number (t, the token after any '-'), then an optional `: type`;
 * negative: a '-' at the column before it. */
static ls_attr *parse_number(ls_parser *p, ls_token t, bool negative)
{
    ls_lexer *lx = p->lx;
    ls_attr *a = ls_mlp_new_attr(p, t.kind == LS_TOK_INT ? LS_AV_INT : LS_AV_FLOAT, t.line,
                                 negative ? t.col - 1 : t.col);
    if (t.kind == LS_TOK_INT) {
        if (!ls_mlp_parse_int_text(p, &t, negative, &a->i))
            return NULL;
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", t.len > 60 ? 60 : (int)t.len, t.text);
        a->f = negative ? -strtod(buf, NULL) : strtod(buf, NULL);
    }
    ls_lex_next(lx);
    if (ls_tok_is(&lx->tok, ':')) {
        ls_lex_next(lx);
        if (ls_parse_type(p) == NULL)
            return NULL;
    }
    return ls_mlp_failed(p) ? NULL : a;
}

/* #alias, or #dialect.attr with optional <params>. */
static ls_attr *parse_hash_value(ls_parser *p, ls_token t)
{
    ls_lexer *lx = p->lx;
    const char *name = t.text + 1;
    size_t nlen = t.len - 1;
    const ls_alias *al = ls_alias_find(p->aliases, name, nlen);
    if (al && !ls_lex_adjacent(lx, '<')) {
        if (al->value == NULL) {
            ls_diag_set(p->diag, al->error.status ? al->error.status : LS_ERR_SYNTAX,
                        al->error.file, al->error.line, al->error.col,
                        "in the definition of #%s (used at line %d): %s", al->name, t.line,
                        al->error.msg);
            return NULL;
        }
        ls_lex_next(lx);
        return al->value;
    }
    if (memchr(name, '.', nlen) == NULL && !ls_lex_adjacent(lx, '<')) {
        ls_diag_set(p->diag, LS_ERR_SYNTAX, lx->file, t.line, t.col,
                    "undefined attribute alias #%.*s", nlen > 60 ? 60 : (int)nlen, name);
        return NULL;
    }
    ls_attr *a = ls_mlp_new_attr(p, LS_AV_DIALECT, t.line, t.col);
    a->s = ls_arena_strndup(p->arena, name, nlen);
    if (ls_lex_adjacent(lx, '<')) {
        ls_lex_next(lx); /* now at '<' */
        ls_lex_next(lx);
        if (!parse_params_body(p, a, '>'))
            return NULL;
    } else {
        ls_lex_next(lx);
    }
    return a;
}

/* A keyword, possibly bit-flags a|b|c.  A keyword followed by ':' in
 * attribute position is a typed value like `0 : i64`; plain types (f32)
 * arrive here as keywords too. */
static ls_attr *parse_keyword(ls_parser *p, ls_token t)
{
    ls_lexer *lx = p->lx;
    char buf[512];
    size_t n = 0;
    ls_attr *a = ls_mlp_new_attr(p, LS_AV_IDENT, t.line, t.col);
    for (;;) {
        ls_token it = lx->tok;
        if (n + it.len + 1 >= sizeof buf) {
            ls_diag_set(p->diag, LS_ERR_LIMIT, lx->file, it.line, it.col,
                        "keyword list longer than %zu characters", sizeof buf - 1);
            return NULL;
        }
        memcpy(buf + n, it.text, it.len);
        n += it.len;
        ls_lex_next(lx);
        if (!ls_tok_is(&lx->tok, '|'))
            break;
        ls_lex_next(lx);
        if (lx->tok.kind != LS_TOK_IDENT)
            return ls_mlp_expected(p, "a keyword after '|'");
        buf[n++] = '|';
    }
    a->s = ls_arena_strndup(p->arena, buf, n);
    return a;
}

/* true/false, unit, affine_map<...>, array<...>, a builtin type, an
 * opaque name<...> (with an optional `: type`), or a keyword. */
static ls_attr *parse_ident_value(ls_parser *p, ls_token t)
{
    ls_lexer *lx = p->lx;
    ls_attr *a;
    if (ls_tok_ident(&t, "true") || ls_tok_ident(&t, "false")) {
        a = ls_mlp_new_attr(p, LS_AV_BOOL, t.line, t.col);
        a->i = t.text[0] == 't';
        ls_lex_next(lx);
        return a;
    }
    if (ls_tok_ident(&t, "unit")) {
        ls_lex_next(lx);
        return ls_mlp_new_attr(p, LS_AV_UNIT, t.line, t.col);
    }
    if (!ls_lex_adjacent(lx, '<'))
        return parse_keyword(p, t);
    if (ls_tok_ident(&t, "affine_map")) {
        ls_lex_next(lx);
        return ls_mlp_parse_affine_map(p, t.line, t.col);
    }
    if (ls_tok_ident(&t, "array")) {
        ls_lex_next(lx);
        return ls_mlp_parse_dense_array(p, t.line, t.col);
    }
    if (ls_tok_ident(&t, "tensor") || ls_tok_ident(&t, "vector") || ls_tok_ident(&t, "memref") ||
        ls_tok_ident(&t, "complex") || ls_tok_ident(&t, "tuple"))
        return ls_parse_type(p);
    const char *body;
    size_t blen;
    if (!ls_lex_skip_angle(lx, &body, &blen))
        return NULL;
    a = ls_mlp_new_attr(p, LS_AV_OPAQUE, t.line, t.col);
    a->s = ls_arena_strndup(p->arena, t.text, (size_t)(body + blen + 1 - t.text));
    if (ls_tok_is(&lx->tok, ':')) { /* dense<...> : tensor<2xi32> */
        ls_lex_next(lx);
        if (ls_parse_type(p) == NULL)
            return NULL;
    }
    return a;
}

/* -number, [array], {dict}, <params> or a (function) type. */
static ls_attr *parse_punct_value(ls_parser *p, ls_token t)
{
    ls_lexer *lx = p->lx;
    ls_attr *a;
    if (t.punct == '-') {
        ls_lex_next(lx);
        if (lx->tok.kind != LS_TOK_INT && lx->tok.kind != LS_TOK_FLOAT)
            return ls_mlp_expected(p, "a number after '-'");
        return parse_number(p, lx->tok, true);
    }
    if (t.punct == '[') {
        a = ls_mlp_new_attr(p, LS_AV_ARRAY, t.line, t.col);
        item_list l = {0};
        ls_lex_next(lx);
        while (!ls_tok_is(&lx->tok, ']')) {
            ls_attr *v = parse_value(p);
            if (v == NULL)
                return NULL;
            ls_mlp_list_push(p, &l, NULL, v);
            if (ls_tok_is(&lx->tok, ','))
                ls_lex_next(lx);
            else if (!ls_tok_is(&lx->tok, ']'))
                return ls_mlp_expected(p, "',' or ']'");
        }
        ls_lex_next(lx);
        ls_mlp_list_store(a, &l, false);
        return ls_mlp_failed(p) ? NULL : a;
    }
    if (t.punct == '{') {
        a = ls_mlp_new_attr(p, LS_AV_DICT, t.line, t.col);
        ls_lex_next(lx);
        return parse_dict_body(p, a) ? a : NULL;
    }
    if (t.punct == '<') {
        a = ls_mlp_new_attr(p, LS_AV_PARAMS, t.line, t.col);
        ls_lex_next(lx);
        return parse_params_body(p, a, '>') ? a : NULL;
    }
    if (t.punct == '(')
        return ls_parse_type(p);
    return ls_mlp_expected(p, "an attribute value");
}

static ls_attr *parse_value_inner(ls_parser *p)
{
    ls_lexer *lx = p->lx;
    ls_token t = lx->tok;
    ls_attr *a;
    switch (t.kind) {
    case LS_TOK_INT:
    case LS_TOK_FLOAT: return parse_number(p, t, false);
    case LS_TOK_STRING:
        a = ls_mlp_new_attr(p, LS_AV_STRING, t.line, t.col);
        a->s = ls_arena_strndup(p->arena, t.text, t.len);
        ls_lex_next(lx);
        return a;
    case LS_TOK_AT:
        a = ls_mlp_new_attr(p, LS_AV_SYMBOL, t.line, t.col);
        a->s = ls_arena_strndup(p->arena, t.text + 1, t.len - 1);
        ls_lex_next(lx);
        return a;
    case LS_TOK_BANG: return ls_parse_type(p);
    case LS_TOK_HASH: return parse_hash_value(p, t);
    case LS_TOK_IDENT: return parse_ident_value(p, t);
    case LS_TOK_PUNCT: return parse_punct_value(p, t);
    default: return ls_mlp_expected(p, "an attribute value");
    }
}

static ls_attr *parse_value(ls_parser *p)
{
    if (ls_mlp_failed(p))
        return NULL;
    /* levels are brackets: the scalar at the bottom of 64 of them is the
     * 65th call (LS_MLIR_MAX_DEPTH) */
    if (++p->depth > LS_MLIR_MAX_DEPTH + 1) {
        ls_diag_set(p->diag, LS_ERR_LIMIT, p->lx->file, p->lx->tok.line, p->lx->tok.col,
                    "attribute nested deeper than %d levels", LS_MLIR_MAX_DEPTH);
        return NULL;
    }
    ls_attr *a = parse_value_inner(p);
    p->depth--;
    return ls_mlp_failed(p) ? NULL : a;
}

ls_attr *ls_parse_attr(ls_parser *p)
{
    return parse_value(p);
}

ls_attr *ls_parse_attr_string(const char *text, size_t len, const char *file, ls_arena *arena,
                              const ls_alias_table *aliases, ls_diag *diag)
{
    ls_lexer lx;
    ls_lexer_init(&lx, text, len, file, diag);
    ls_lex_next(&lx);
    ls_parser p = {&lx, arena, aliases, diag, 0, NULL};
    ls_attr *a = ls_parse_attr(&p);
    if (a && lx.tok.kind != LS_TOK_EOF) {
        ls_mlp_expected(&p, "end of input");
        return NULL;
    }
    return a;
}

ls_attr *ls_attr_get(const ls_attr *a, const char *key)
{
    if (a == NULL || a->keys == NULL)
        return NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->keys[i] && strcmp(a->keys[i], key) == 0)
            return a->items[i];
    return NULL;
}

const char *ls_attr_kind_name(ls_attr_kind k)
{
    switch (k) {
    case LS_AV_INT: return "an integer";
    case LS_AV_FLOAT: return "a float";
    case LS_AV_STRING: return "a string";
    case LS_AV_BOOL: return "a boolean";
    case LS_AV_UNIT: return "a unit attribute";
    case LS_AV_IDENT: return "a keyword";
    case LS_AV_ARRAY: return "an array";
    case LS_AV_DICT: return "a dictionary";
    case LS_AV_DIALECT: return "a dialect attribute";
    case LS_AV_PARAMS: return "a parameter list";
    case LS_AV_ALIAS: return "an alias";
    case LS_AV_TYPE: return "a type";
    case LS_AV_AFFINE_MAP: return "an affine_map";
    case LS_AV_SYMBOL: return "a symbol";
    case LS_AV_OPAQUE: return "an opaque attribute";
    }
    return "a value";
}
