/* mlir_lex.c: the MLIR lexer (see mlir.h): identifiers, SSA names,
 * attribute and type aliases, numbers, strings and punctuation, with their
 * line and column for messages; balanced <...> bodies skipped whole. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/mlir.h"

/* ------------------------------------------------------------------ lexer */

static bool is_id_start(int c) { return isalpha(c) || c == '_'; }
static bool is_id_char(int c) { return isalnum(c) || c == '_' || c == '$' || c == '.'; }

void ls_lexer_init(ls_lexer *lx, const char *src, size_t len, const char *file, ls_diag *diag)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->len = len;
    lx->line = 1;
    lx->col = 1;
    lx->file = file ? file : "";
    lx->diag = diag;
}

static int peekc(const ls_lexer *lx, size_t off)
{
    return lx->pos + off < lx->len ? (unsigned char)lx->src[lx->pos + off] : -1;
}

static void advance(ls_lexer *lx)
{
    if (lx->pos >= lx->len)
        return;
    if (lx->src[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static void lex_error(ls_lexer *lx, int line, int col, const char *msg)
{
    ls_diag_set(lx->diag, LS_ERR_SYNTAX, lx->file, line, col, "%s", msg);
    lx->tok.kind = LS_TOK_ERROR;
}

/* At '@': MLIR's bare symbol names are ASCII (bare-id = (letter|_)
 * (letter|digit|[_$.])*, letters in a-z A-Z), so a non-ASCII byte at the
 * start or right after the ASCII part is not part of the name: MLIR stops
 * there with "unexpected character" (or wants a letter after '@').  Read
 * on, the name would be cut short or lost; the error names the quoted
 * form, which takes any UTF-8.  True (an error token) when that is so. */
static bool non_ascii_symbol(ls_lexer *lx)
{
    size_t n = 1;
    if (lx->pos + n < lx->len && is_id_start(peekc(lx, n)))
        while (is_id_char(peekc(lx, n)))
            n++;
    if (peekc(lx, n) < 0x80)
        return false;
    /* the whole run of name bytes, ASCII or not, for the suggestion */
    size_t end = n;
    while (peekc(lx, end) >= 0x80 || is_id_char(peekc(lx, end)))
        end++;
    size_t shown = end - 1 > 60 ? 60 : end - 1;
    while (shown > 0 && shown < end - 1 &&
           ((unsigned char)lx->src[lx->pos + 1 + shown] & 0xC0) == 0x80)
        shown--; /* not in the middle of a UTF-8 sequence */
    char msg[160];
    snprintf(msg, sizeof msg,
             "a bare symbol name is ASCII letters, digits, '_', '$' and '.'; quote it: "
             "@\"%.*s%s\"",
             (int)shown, lx->src + lx->pos + 1, shown < end - 1 ? "..." : "");
    ls_token *t = &lx->tok;
    t->len = end;
    lex_error(lx, t->line, t->col, msg);
    for (size_t i = 0; i < end; i++)
        advance(lx);
    return true;
}

/* Past white space and // comments. */
static void skip_space(ls_lexer *lx)
{
    for (;;) {
        int c = peekc(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            advance(lx);
        } else if (c == '/' && peekc(lx, 1) == '/') {
            while (peekc(lx, 0) != -1 && peekc(lx, 0) != '\n')
                advance(lx);
        } else {
            break;
        }
    }
}

/* A sigil's name: #attr, %value (%3#1: result 1), ^block, @symbol or
 * @"quoted", !type.  False after an error (t->len set). */
static bool lex_sigil(ls_lexer *lx, int c, size_t start)
{
    ls_token *t = &lx->tok;
    advance(lx);
    if (c == '@' && peekc(lx, 0) == '"') {
        advance(lx);
        while (peekc(lx, 0) != -1 && peekc(lx, 0) != '"' && peekc(lx, 0) != '\n')
            advance(lx);
        if (peekc(lx, 0) != '"') {
            lex_error(lx, t->line, t->col, "unterminated quoted symbol name");
            t->len = lx->pos - start;
            return false;
        }
        advance(lx);
    } else {
        while (is_id_char(peekc(lx, 0)) || peekc(lx, 0) == '-')
            advance(lx);
        /* %3#1 names result 1 of a multi-result op. */
        if (c == '%' && peekc(lx, 0) == '#' && isdigit(peekc(lx, 1))) {
            advance(lx);
            while (isdigit(peekc(lx, 0)))
                advance(lx);
        }
    }
    t->kind = c == '#'   ? LS_TOK_HASH
              : c == '%' ? LS_TOK_PERCENT
              : c == '^' ? LS_TOK_CARET
              : c == '@' ? LS_TOK_AT
                         : LS_TOK_BANG;
    return true;
}

/* An integer (decimal or 0x hex) or a float (a fraction, an exponent). */
static void lex_number(ls_lexer *lx, int c)
{
    ls_token *t = &lx->tok;
    t->kind = LS_TOK_INT;
    if (c == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X') && isxdigit(peekc(lx, 2))) {
        advance(lx);
        advance(lx);
        while (isxdigit(peekc(lx, 0)))
            advance(lx);
        return;
    }
    while (isdigit(peekc(lx, 0)))
        advance(lx);
    if (peekc(lx, 0) == '.' && isdigit(peekc(lx, 1))) {
        t->kind = LS_TOK_FLOAT;
        advance(lx);
        while (isdigit(peekc(lx, 0)))
            advance(lx);
    }
    if ((peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') &&
        (isdigit(peekc(lx, 1)) ||
         ((peekc(lx, 1) == '+' || peekc(lx, 1) == '-') && isdigit(peekc(lx, 2))))) {
        t->kind = LS_TOK_FLOAT;
        advance(lx);
        advance(lx);
        while (isdigit(peekc(lx, 0)))
            advance(lx);
    }
}

/* A string literal: the token's text is what lies between the quotes
 * (escapes kept as written). */
static void lex_string(ls_lexer *lx, size_t start)
{
    ls_token *t = &lx->tok;
    advance(lx);
    for (;;) {
        int d = peekc(lx, 0);
        if (d == -1) {
            lex_error(lx, t->line, t->col, "unterminated string literal");
            t->len = lx->pos - start;
            return;
        }
        advance(lx);
        if (d == '\\' && peekc(lx, 0) != -1)
            advance(lx);
        else if (d == '"')
            break;
    }
    t->kind = LS_TOK_STRING;
    t->text = lx->src + start + 1;
    t->len = lx->pos - start - 2;
}

void ls_lex_next(ls_lexer *lx)
{
    skip_space(lx);
    ls_token *t = &lx->tok;
    t->line = lx->line;
    t->col = lx->col;
    t->text = lx->src + lx->pos;
    t->punct = 0;
    size_t start = lx->pos;
    int c = peekc(lx, 0);
    if (c == -1) {
        t->kind = LS_TOK_EOF;
        t->len = 0;
        return;
    }
    if (is_id_start(c)) {
        while (is_id_char(peekc(lx, 0)))
            advance(lx);
        t->kind = LS_TOK_IDENT;
    } else if (c == '@' && non_ascii_symbol(lx)) {
        return;
    } else if ((c == '#' || c == '%' || c == '^' || c == '@' || c == '!') &&
               (is_id_char(peekc(lx, 1)) || (c == '@' && peekc(lx, 1) == '"'))) {
        if (!lex_sigil(lx, c, start))
            return;
    } else if (isdigit(c)) {
        lex_number(lx, c);
    } else if (c == '"') {
        lex_string(lx, start);
        return;
    } else if (c == '-' && peekc(lx, 1) == '>') {
        advance(lx);
        advance(lx);
        t->kind = LS_TOK_ARROW;
    } else {
        advance(lx);
        t->kind = LS_TOK_PUNCT;
        t->punct = (char)c;
    }
    t->len = lx->pos - start;
}

bool ls_tok_is(const ls_token *t, char c)
{
    return t->kind == LS_TOK_PUNCT && t->punct == c;
}

bool ls_tok_ident(const ls_token *t, const char *s)
{
    size_t n = strlen(s);
    return t->kind == LS_TOK_IDENT && t->len == n && memcmp(t->text, s, n) == 0;
}

bool ls_lex_adjacent(const ls_lexer *lx, char c)
{
    return lx->pos < lx->len && lx->src[lx->pos] == c;
}

bool ls_lex_skip_angle(ls_lexer *lx, const char **body, size_t *blen)
{
    int line = lx->line, col = lx->col;
    if (!ls_lex_adjacent(lx, '<'))
        return false;
    advance(lx);
    size_t start = lx->pos;
    int depth = 1;
    for (;;) {
        int c = peekc(lx, 0);
        if (c == -1) {
            lex_error(lx, line, col, "unterminated '<': no matching '>' before end of input");
            return false;
        }
        if (c == '"') {
            advance(lx);
            while (peekc(lx, 0) != -1 && peekc(lx, 0) != '"') {
                if (peekc(lx, 0) == '\\')
                    advance(lx);
                advance(lx);
            }
            advance(lx);
            continue;
        }
        if (c == '-' && peekc(lx, 1) == '>') {
            advance(lx);
            advance(lx);
            continue;
        }
        if (c == '<')
            depth++;
        else if (c == '>' && --depth == 0)
            break;
        advance(lx);
    }
    *body = lx->src + start;
    *blen = lx->pos - start;
    advance(lx); /* the closing '>' */
    ls_lex_next(lx);
    return true;
}

