/* cli_view.h: what `lanescope view`'s setup (cli_view.c) and its window
 * (cli_view_window.c, present only in a build with SDL2) share. */
#ifndef LS_CLI_VIEW_H
#define LS_CLI_VIEW_H

#include "cli.h"
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

/* `s`: the current view as a PNG in dir (the current folder when NULL),
 * its name printed. */
bool ls_cli_view_save(const ls_view *v, const char *dir, ls_diag *diag);

/* Run the window on v until the person quits: 0, or 1 with the message
 * printed or the diag set.  A build without SDL2 refuses here, once the
 * input has loaded (its errors come first, as with no display). */
int ls_cli_view_window(ls_view *v, const ls_cli_view_opts *o, ls_diag *diag);

#endif
