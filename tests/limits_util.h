/* limits_util.h: what the limits' tests share (test_limits.c,
 * test_limits_work.c): an in-memory file to generate inputs into, parsing
 * a text as a module, and the assertion that a status is the limit's
 * refusal naming it.  Header-only, static: each test program includes it
 * once. */
#ifndef LANESCOPE_TESTS_LIMITS_UTIL_H
#define LANESCOPE_TESTS_LIMITS_UTIL_H

#include <stdio.h>

#include "lanescope/mlir.h"
#include "testutil.h"

typedef struct {
    char *text;
    size_t len;
    FILE *f;
} buf;

static inline FILE *buf_open(buf *b)
{
    b->text = NULL;
    b->len = 0;
    b->f = open_memstream(&b->text, &b->len);
    ck_assert_ptr_nonnull(b->f);
    return b->f;
}

static inline void buf_close(buf *b)
{
    fclose(b->f);
}

/* Parse text as a module; the status, with the diag's message kept. */
static inline ls_status parse(const char *text, size_t len, ls_module **out, ls_diag *d)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(d);
    ls_status st = ls_module_parse(text, len, "limits.mlir", m, d);
    if (out)
        *out = m;
    else
        free(m);
    return st;
}

#define ASSERT_LIMIT(st, d, fragment)                                                              \
    do {                                                                                           \
        ck_assert_int_eq((st), LS_ERR_LIMIT);                                                      \
        ck_assert_msg(strstr((d).msg, (fragment)) != NULL, "message '%s' lacks '%s'", (d).msg,     \
                      (fragment));                                                                 \
    } while (0)

#endif
