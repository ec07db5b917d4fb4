/* import_brackets.c: the importer's last pass -- brackets paired over the
 * whole file, so a file cut short is an error even where the op scan
 * passed over what it does not read.  Split from import.c. */
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

/* ---- brackets: a file that ends inside one was cut short ----
 *
 * The scan passes over what it does not read, so a file cut after the
 * last op it reads (the function's '}' lost, or in `return %2 :
 * tensor<64x`) would otherwise import as if whole.  One more pass over the
 * tokens pairs { } ( ) [ ] and < >: the end of input with one still open
 * is an error naming the innermost and where it opened, as is a closer
 * that matches no opener.  '<' opens wherever it stands (MLIR has no
 * less-than operator; `->` is one token); a '>' closes only a '<' (`>=`
 * in an integer set sits inside parentheses), and a '}' ) or ] closes the
 * '<'s left open inside it, so only a file that ends inside a type or
 * attribute reports one.  An alias definition that does not parse is
 * passed over (its error is reported only where the alias is used).  The
 * stack grows with the nesting (regions may nest to any depth); the cost
 * is one more lexing of the file. */
typedef struct {
    char open;
    int line, col;
    size_t offset;        /* of the opener in the text */
    const char *prev;     /* the token before it, for the message */
    size_t prev_len;
    const char *op;       /* the op it belongs to ("func.func"), or NULL */
    size_t op_len;
    const char *sym;      /* that op's @symbol, or NULL */
    size_t sym_len;
} bracket;

static char closer_of(char c)
{
    return c == '{' ? '}' : c == '(' ? ')' : c == '[' ? ']' : '>';
}

/* What a '{' opens: an attribute dictionary starts `key =`, `key,` or
 * `key}`; anything else is a region. */
static bool opens_dict(const importer *im, const char *text, size_t len, const bracket *b)
{
    ls_diag quiet;
    ls_diag_clear(&quiet);
    ls_lexer lx;
    ls_lexer_init(&lx, text, len, im->file, &quiet);
    lx.pos = b->offset + 1;
    lx.line = b->line;
    lx.col = b->col + 1;
    ls_lex_next(&lx);
    if (lx.tok.kind != LS_TOK_IDENT && lx.tok.kind != LS_TOK_STRING)
        return false;
    ls_lex_next(&lx);
    return ls_tok_is(&lx.tok, '=') || ls_tok_is(&lx.tok, ',') || ls_tok_is(&lx.tok, '}');
}

static void describe_bracket(const importer *im, const char *text, size_t len, const bracket *b,
                             char *out, size_t size)
{
    char owner[160] = "";
    if (b->op)
        snprintf(owner, sizeof owner, "%.*s%s%.*s", b->op_len > 60 ? 60 : (int)b->op_len, b->op,
                 b->sym ? " " : "", b->sym ? (b->sym_len > 60 ? 60 : (int)b->sym_len) : 0,
                 b->sym ? b->sym : "");
    if (b->open == '{' && opens_dict(im, text, len, b))
        snprintf(out, size, "an attribute dictionary%s%s", owner[0] ? " of " : "", owner);
    else if (b->open == '{' && b->op && b->op_len == 9 && memcmp(b->op, "func.func", 9) == 0)
        snprintf(out, size, "the body of %s", owner);
    else if (b->open == '{')
        snprintf(out, size, "a region%s%s", owner[0] ? " of " : "", owner);
    else if (b->prev && b->prev + b->prev_len == text + b->offset)
        snprintf(out, size, "in '%.*s%c...%c'", b->prev_len > 40 ? 40 : (int)b->prev_len,
                 b->prev, b->open, closer_of(b->open));
    else if (b->prev)
        snprintf(out, size, "after '%.*s'", b->prev_len > 40 ? 40 : (int)b->prev_len, b->prev);
    else
        snprintf(out, size, "at the start of the file");
}

void ls_imp_check_brackets(importer *im, const char *text, size_t len)
{
    ls_diag local;
    ls_diag_clear(&local);
    ls_lexer lx;
    ls_lexer_init(&lx, text, len, im->file, &local);
    bracket *stack = NULL;
    size_t n = 0, cap = 0;
    const char *prev = NULL, *op = NULL, *sym = NULL;
    size_t prev_len = 0, op_len = 0, sym_len = 0;
    int since_op = 0; /* tokens since op: its @symbol follows within two */
    size_t skip = 0;  /* the next broken alias definition (in file order) */
    for (ls_lex_next(&lx); lx.tok.kind != LS_TOK_EOF; ls_lex_next(&lx)) {
        const ls_token *t = &lx.tok;
        while (skip < im->n_skipped && t->text >= im->skipped[skip].end)
            skip++;
        if (skip < im->n_skipped && t->text >= im->skipped[skip].begin)
            continue;
        if (t->kind == LS_TOK_ERROR) {
            *im->diag = local; /* a lexical error the scan passed over */
            goto done;
        }
        since_op++;
        if (t->kind == LS_TOK_IDENT && memchr(t->text, '.', t->len) &&
            (n == 0 || stack[n - 1].open != '<')) {
            /* an op's name, unless it is a dictionary key (`a.b = ...`) */
            size_t pos = lx.pos;
            while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
                pos++;
            if (pos >= len || text[pos] != '=') {
                op = t->text;
                op_len = t->len;
                sym = NULL;
                since_op = 0;
            }
        } else if (t->kind == LS_TOK_AT && op && !sym && since_op <= 2) {
            sym = t->text;
            sym_len = t->len;
        } else if (t->kind == LS_TOK_PUNCT) {
            char c = t->punct;
            if (c == '{' || c == '(' || c == '[' || c == '<') {
                if (n == cap) {
                    cap = cap ? cap * 2 : 64;
                    stack = ls_xrealloc(stack, cap * sizeof *stack);
                }
                stack[n++] = (bracket){c, t->line, t->col, (size_t)(t->text - text), prev,
                                       prev_len, op, op_len, sym, sym_len};
            } else if (c == '>') {
                if (n > 0 && stack[n - 1].open == '<')
                    n--;
            } else if (c == '}' || c == ')' || c == ']') {
                while (n > 0 && stack[n - 1].open == '<')
                    n--;
                if (n == 0 || closer_of(stack[n - 1].open) != c) {
                    char what[200] = "";
                    if (n > 0)
                        describe_bracket(im, text, len, &stack[n - 1], what, sizeof what);
                    if (n == 0)
                        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, t->line, t->col,
                                    "'%c' closes nothing: no bracket is open here", c);
                    else
                        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, t->line, t->col,
                                    "'%c' where the '%c' at %d:%d (%s) wants '%c'", c,
                                    stack[n - 1].open, stack[n - 1].line, stack[n - 1].col,
                                    what, closer_of(stack[n - 1].open));
                    goto done;
                }
                n--;
                if (c == '}' && n > 0) {
                    /* past a region: back in the op around it */
                    op = stack[n - 1].op;
                    op_len = stack[n - 1].op_len;
                    sym = stack[n - 1].sym;
                    sym_len = stack[n - 1].sym_len;
                }
            }
        }
        prev = t->text;
        prev_len = t->len;
    }
    if (n > 0) {
        const bracket *b = &stack[n - 1];
        char what[200];
        describe_bracket(im, text, len, b, what, sizeof what);
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, lx.tok.line, lx.tok.col,
                    "the file ends inside the '%c' at %d:%d (%s): no '%c' matches it; is the "
                    "file cut short?",
                    b->open, b->line, b->col, what, closer_of(b->open));
    }
done:
    free(stack);
}
