/* cli_view.h: what `lanescope view`'s setup (cli_view.c) and its window
 * (cli_view_window.c, present only in a build with SDL2) share. */
#ifndef LS_CLI_VIEW_H
#define LS_CLI_VIEW_H

#include "cli.h"
#include "lanescope/view.h"
#include "lanescope/view.h"

#define CMD "view"

typedef struct {
    const char *input, *target, *keys, *out;
    int64_t index, workgroup, seed;
    int width, height;
    bool headless;
    ls_import_dims dims;
    ls_cli_problem_flags pf; /* --shape ... (input then NULL), --config */
} ls_cli_view_opts;

/* The dispatch being viewed and the view on one of its reductions.  `o` and
 * `O` replace the view with one on another reduction (ls_cli_view_apply);
 * each slot holds one reduction's model, derived sizes, plan and inputs,
 * so the new view is made before the old one goes. */
typedef struct {
    ls_hw hw;
    ls_derived *d;
    ls_plan plan;
    ls_input_source in;
} ls_cli_view_op;

typedef struct {
    const ls_cli_view_opts *o;
    ls_module *m;
    ls_cli_view_op slot[2];
    int cur;   /* the slot the view is on */
    ls_view *v;
    /* a file whose op is an attention (no reduction): its kernel's view */
    ls_attention *att;
    ls_att_view *att_view;
    ls_view_attention va;
} ls_cli_view_session;

/* One key on the session's view, with what it asks of the front end done
 * here: `s` saves (name printed), `o`/`O` switch the reduction.  Returns
 * the view's LS_VIEW_* bits, or a negative status with diag set. */
int ls_cli_view_apply(ls_cli_view_session *s, const char *key, ls_diag *diag);

/* Run the window on the session until the person quits: 0, or 1 with the
 * message printed or the diag set.  A build without SDL2 refuses here,
 * once the input has loaded (its errors come first, as with no display). */
int ls_cli_view_window(ls_cli_view_session *s, ls_diag *diag);

#endif
