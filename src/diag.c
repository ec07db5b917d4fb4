/* diag.c: first-error-wins diagnostics (see diag.h). */
#include <stdio.h>
#include <string.h>

#include "lanescope/diag.h"

void ls_diag_clear(ls_diag *d)
{
    memset(d, 0, sizeof *d);
}

ls_status ls_diag_vset(ls_diag *d, ls_status st, const char *file, int line, int col,
                       const char *fmt, va_list ap)
{
    if (d == NULL)
        return st;
    if (d->status != LS_OK)
        return d->status;
    d->status = st;
    /* "-" as a file is standard input; say so as MLIR's tools do */
    snprintf(d->file, sizeof d->file, "%s",
             file == NULL ? "" : strcmp(file, "-") == 0 ? "<stdin>" : file);
    d->line = line;
    d->col = col;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    /* Keep the message on one line whatever was interpolated into it. */
    for (char *p = d->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return st;
}

ls_status ls_diag_set(ls_diag *d, ls_status st, const char *file, int line, int col,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ls_status r = ls_diag_vset(d, st, file, line, col, fmt, ap);
    va_end(ap);
    return r;
}

void ls_diag_format(const ls_diag *d, char *buf, size_t size)
{
    if (d->file[0] && d->line > 0)
        snprintf(buf, size, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
    else if (d->file[0])
        snprintf(buf, size, "%s: %s", d->file, d->msg);
    else
        snprintf(buf, size, "%s", d->msg);
}

const char *ls_strerror(ls_status st)
{
    switch (st) {
    case LS_OK: return "ok";
    case LS_ERR_SYNTAX: return "syntax error";
    case LS_ERR_INVALID: return "invalid configuration";
    case LS_ERR_LIMIT: return "limit exceeded";
    case LS_ERR_IO: return "I/O error";
    case LS_ERR_NOMEM: return "out of memory";
    case LS_ERR_NOTFOUND: return "not found";
    case LS_ERR_USAGE: return "usage error";
    case LS_ERR_UNAVAILABLE: return "not available here";
    }
    return "unknown error";
}

ls_status ls_diag_check_text(ls_diag *d, const char *file, const char *buf, size_t from,
                             size_t len)
{
    const char *z = len > from ? memchr(buf + from, '\0', len - from) : NULL;
    if (z == NULL)
        return LS_OK;
    int line = 1;
    const char *bol = buf;
    for (const char *p = buf; p < z; p++)
        if (*p == '\n') {
            line++;
            bol = p + 1;
        }
    return ls_diag_set(d, LS_ERR_SYNTAX, file, line, (int)(z - bol) + 1,
                       "a NUL byte: not a text file");
}
