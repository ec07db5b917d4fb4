/* view_util.h: what the view's tests share (test_view.c, test_view_steps.c):
 * a view opened on a module's first reduction for mi300x, without a
 * window, and keys acted on it. */
#ifndef LANESCOPE_TESTS_VIEW_UTIL_H
#define LANESCOPE_TESTS_VIEW_UTIL_H

#include "../viz/view_internal.h"
#include "lanescope/import.h"
#include "lanescope/view.h"
#include "testutil.h"

typedef struct {
    ls_module *m;
    ls_derived *d;
    ls_plan plan;
    ls_hw hw;
    ls_view *v;
} fixture;

static inline void open_module(fixture *f, ls_module *m, int w, int h)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    f->m = m;
    f->d = ls_xcalloc(1, sizeof *f->d);
    ck_assert_int_eq(m->n_problems >= 1, 1);
    ck_assert_int_eq(ls_hw_load("mi300x", &f->hw, &diag), LS_OK);
    ck_assert_int_eq(ls_derive(&m->problems[0], f->d, &diag), LS_OK);
    ck_assert_int_eq(ls_plan_build(&m->problems[0], f->d, ls_plan_target_from_arch(f->hw.arch),
                                   &f->plan, &diag),
                     LS_OK);
    ls_view_config c = {.plan = &f->plan, .hw = &f->hw, .in = {1, NULL, {NULL}}, .width = w,
                        .height = h, .ui_scale = 1};
    ck_assert_msg(ls_view_new(&c, &f->v, &diag) == LS_OK, "%s", diag.msg);
}

/* An example (a path under examples/) opened in a w x h view. */
static inline void open_example(fixture *f, const char *example, int w, int h)
{
    ls_diag diag;
    ls_module *m = load_example(example, &diag);
    ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
    open_module(f, m, w, h);
}

static inline void open_example2(fixture *f, int w, int h)
{
    open_example(f, "seed000_example2.mlir", w, h);
}

static inline void close_fixture(fixture *f)
{
    ls_view_free(f->v);
    free(f->m);
    free(f->d);
    ls_viz_shutdown();
}

static inline int act(fixture *f, const char *key)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    int rc = ls_view_action(f->v, key, &diag);
    ck_assert_msg(rc >= 0, "key %s: %s", key, diag.msg);
    return rc;
}

static inline ls_view_state state(const fixture *f)
{
    ls_view_state s;
    ls_view_get_state(f->v, &s);
    return s;
}

#endif
