/* mlir_internal.h: what the MLIR parser's files (mlir.c, mlir_affine.c)
 * share: its error helpers, attribute allocation and item lists.  Not
 * installed. */
#ifndef LANESCOPE_MLIR_INTERNAL_H
#define LANESCOPE_MLIR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/mlir.h"

/* Growable item list built in the arena (copied into place at the end). */
typedef struct {
    ls_attr **items;
    const char **keys;
    size_t n, cap;
} item_list;

/* Whether the parse has failed (the diag holds its first error). */
bool ls_mlp_failed(const ls_parser *p);
/* Sets "expected WHAT, found <the token>" at the token; returns NULL. */
void *ls_mlp_expected(ls_parser *p, const char *what);
/* Consumes the punctuation c, or fails as ls_mlp_expected. */
bool ls_mlp_expect_punct(ls_parser *p, char c);
ls_attr *ls_mlp_new_attr(ls_parser *p, ls_attr_kind k, int line, int col);
void ls_mlp_list_push(ls_parser *p, item_list *l, const char *key, ls_attr *item);
void ls_mlp_list_store(ls_attr *a, item_list *l, bool with_keys);
/* An integer token's value (decimal or 0x hex), negated if negative; an
 * error naming the literal when it does not fit in int64. */
bool ls_mlp_parse_int_text(ls_parser *p, const ls_token *t, bool negative, int64_t *out);

/* mlir_affine.c: `<(dims)[syms] -> (results)>` after the keyword at
 * line:col, and `<type: ints>` after `array`. */
ls_attr *ls_mlp_parse_affine_map(ls_parser *p, int line, int col);
ls_attr *ls_mlp_parse_dense_array(ls_parser *p, int line, int col);

#endif
