/* diag.h: status codes and one-line diagnostics that name an input position.
 *
 * Every layer returns an ls_status (0 ok, negative error) and fills an ls_diag
 * with the first error only (later errors never overwrite it, so the message a
 * user sees is the root cause).  Library code never prints; the CLI prints
 * ls_diag_format().
 */
#ifndef LANESCOPE_DIAG_H
#define LANESCOPE_DIAG_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
    LS_OK = 0,
    LS_ERR_SYNTAX = -1,   /* malformed input text */
    LS_ERR_INVALID = -2,  /* well-formed but semantically invalid (validation) */
    LS_ERR_LIMIT = -3,    /* a size, rank or count over a documented limit */
    LS_ERR_IO = -4,       /* file could not be read or written */
    LS_ERR_NOMEM = -5,    /* allocation failed */
    LS_ERR_NOTFOUND = -6, /* something asked for is not in the input */
    LS_ERR_USAGE = -7,    /* bad command-line flag */
    LS_ERR_UNAVAILABLE = -8 /* no NVIDIA driver/GPU, or a CUDA library not found */
} ls_status;

typedef struct {
    ls_status status; /* LS_OK until the first error */
    char file[256];   /* input name, "" when none */
    int line, col;    /* 1-based; 0 when no position applies */
    char msg[512];
} ls_diag;

/* Reset to "no error". */
void ls_diag_clear(ls_diag *d);

/* Record an error unless one is already recorded; returns the status stored. */
ls_status ls_diag_set(ls_diag *d, ls_status st, const char *file, int line, int col,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
ls_status ls_diag_vset(ls_diag *d, ls_status st, const char *file, int line, int col,
                       const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* "file:line:col: msg" (position parts dropped when absent) into buf. */
void ls_diag_format(const ls_diag *d, char *buf, size_t size);

/* Short name for a status, like strerror. */
const char *ls_strerror(ls_status st);

/* Text files hold no NUL bytes: checks buf[from, len) (a chunk just read)
 * and on the first NUL sets an error at its line and column in buf. */
ls_status ls_diag_check_text(ls_diag *d, const char *file, const char *buf, size_t from,
                             size_t len);

#endif
