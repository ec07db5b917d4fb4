/* suggest_util.h: what the suggest test files share: a dispatch text's
 * suggestion on a named target, and a config compared in IREE's printed
 * syntax.  BIND is a dispatch's binding line (real dispatch IR). */
#ifndef LANESCOPE_TESTS_SUGGEST_UTIL_H
#define LANESCOPE_TESTS_SUGGEST_UTIL_H

#include "testutil.h"

#define BIND "  %b = hal.interface.binding.subspan layout(#l) binding(0) : !x\n"

static inline ls_status suggest_text(const char *text, const char *target, ls_suggestion *s,
                              ls_diag *diag, ls_module **mout)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(diag);
    ck_assert_msg(ls_module_parse_ex(text, strlen(text), "t.mlir", LS_IMPORT_KEEP_UNSUPPORTED, m,
                                     diag) == LS_OK,
                  "%s", diag->msg);
    ck_assert_int_eq(m->n_dispatches, 1);
    ls_target t;
    ck_assert(ls_target_lookup(target, &t));
    ls_status st = ls_suggest(&m->dispatches[0], &t, s, diag);
    if (mout)
        *mout = m;
    else
        free(m);
    return st;
}

static inline void expect_config(const ls_op_config *c, const char *text)
{
    char buf[1024];
    ls_op_config_format(c, buf, sizeof buf);
    ck_assert_str_eq(buf, text);
}

#endif
