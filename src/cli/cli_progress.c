/* cli_progress.c: the progress lines of long runs (sim's engine and
 * functional check, sweep, compare, calibrate).  On a terminal one line is
 * redrawn in place after the first second; elsewhere (a log, CI, a pipe) a
 * whole line is written every LANESCOPE_PROGRESS_SECONDS seconds (10 by
 * default), so that a run of minutes is never silent.  --quiet silences
 * both.  The simulator itself never reads a clock: timing stays
 * deterministic; only these lines depend on the wall clock. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

#define LS_PROGRESS_DEFAULT_SECONDS 10.0

static double off_terminal_interval(void)
{
    const char *e = getenv("LANESCOPE_PROGRESS_SECONDS");
    if (e == NULL || *e == 0)
        return LS_PROGRESS_DEFAULT_SECONDS;
    char *end;
    double v = strtod(e, &end);
    /* a value that is not a non-negative number keeps the default: the
     * variable tunes logging, it must not stop a run */
    return *end == 0 && isfinite(v) && v >= 0 ? v : LS_PROGRESS_DEFAULT_SECONDS;
}

void ls_cli_progress_init(ls_cli_progress *p, const char *cmd, const char *subject,
                          const char *unit, bool quiet)
{
    p->cmd = cmd;
    p->subject = subject;
    p->unit = unit;
    p->quiet = quiet;
    p->tty = isatty(STDERR_FILENO);
    p->every = p->tty ? 0.2 : off_terminal_interval();
    p->start = ls_cli_now();
    p->last = p->start;
    p->last_pct = -1;
    p->shown = false;
}

void ls_cli_progress_update(ls_cli_progress *p, int64_t done, int64_t total)
{
    if (p->quiet || total <= 0)
        return;
    double t = ls_cli_now(), el = t - p->start;
    int pct = (int)(100.0 * (double)done / (double)total);
    if (p->tty) {
        if (el < 1.0 || (t - p->last < p->every && done != total))
            return;
    } else if (p->every > 0) {
        if (t - p->last < p->every)
            return;
    } else if (pct == p->last_pct) { /* 0 s: a line per percent */
        return;
    }
    p->last = t;
    p->last_pct = pct;
    p->shown = true;
    char left[48] = "";
    if (pct >= 5 && done < total) /* earlier, the rate says little */
        snprintf(left, sizeof left, ", ~%.0f s left",
                 el * (double)(total - done) / (double)done);
    fprintf(stderr, "%slanescope %s: %s%s%lld/%lld %s (%d%%), %.1f s%s%s", p->tty ? "\r\033[K" : "",
            p->cmd, p->subject ? p->subject : "", p->subject ? ": " : "", (long long)done,
            (long long)total, p->unit, pct, el, left, p->tty ? "" : "\n");
}

void ls_cli_progress_end(ls_cli_progress *p)
{
    if (p->shown && p->tty)
        fprintf(stderr, "\r\033[K");
    p->shown = false;
}

void ls_cli_progress_cb(void *ctx, int64_t done, int64_t total)
{
    ls_cli_progress_update(ctx, done, total);
}
