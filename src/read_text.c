/* read_text.c: opening an input as every reader does (ls_open_input: a
 * folder refused, "-" as standard input, the file noted as an input of the
 * run), and a whole text input read into memory with a size limit,
 * refusing NUL bytes (ls_read_text in atomic.h): the reader of the
 * importer, the compare suites and CSVs.  Split from atomic.c, which keeps
 * the outputs and the identities of what the run reads and writes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lanescope/arena.h"
#include "lanescope/atomic.h"
#include "lanescope/diag.h"

/* "-" is standard input, which a run can read once: a second input named
 * "-" (the IR and an array, two suites) would find it empty or half read,
 * so it is refused.  Reading goes through a dup, so closing the stream
 * leaves descriptor 0 alone. */
static bool stdin_taken;

static FILE *open_stdin(ls_diag *diag)
{
    if (stdin_taken) {
        ls_diag_set(diag, LS_ERR_USAGE, "-", 0, 0,
                    "standard input is named as two inputs of this run; give a file for one");
        return NULL;
    }
    struct stat st;
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISDIR(st.st_mode)) {
        ls_diag_set(diag, LS_ERR_IO, "-", 0, 0, "standard input is a folder; expected a file");
        return NULL;
    }
    int fd = dup(STDIN_FILENO);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        ls_diag_set(diag, LS_ERR_IO, "-", 0, 0, "cannot read standard input: %s", strerror(errno));
        return NULL;
    }
    char err[512];
    if (ls_io_note_input_err(fd, "-", err, sizeof err) != 0) {
        fclose(f);
        ls_diag_set(diag, LS_ERR_IO, "", 0, 0, "%s", err);
        return NULL;
    }
    stdin_taken = true;
    return f;
}

FILE *ls_open_input(const char *path, ls_diag *diag)
{
    if (strcmp(path, "-") == 0)
        return open_stdin(diag);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "is a folder; expected a file");
        return NULL;
    }
    char err[512];
    if (ls_io_note_input_err(fileno(f), path, err, sizeof err) != 0) {
        fclose(f);
        ls_diag_set(diag, LS_ERR_IO, "", 0, 0, "%s", err);
        return NULL;
    }
    return f;
}

/* "64 MiB", "64 KiB", "1000 bytes": a size limit as a person says it. */
static void size_words(size_t n, char *buf, size_t size)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, size, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, size, "%zu KiB", n >> 10);
    else
        snprintf(buf, size, "%zu bytes", n);
}

ls_status ls_read_text(const char *path, size_t limit, char **out, size_t *out_len,
                       ls_diag *diag)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = ls_open_input(path, diag);
    if (f == NULL)
        return diag->status;
    size_t cap = 4096, len = 0;
    char *buf = ls_xmalloc(cap + 1);
    ls_status st = LS_OK;
    for (;;) {
        if (len == cap) {
            if (cap > limit) {
                char words[32];
                size_words(limit, words, sizeof words);
                st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0,
                                 "file is larger than the %s limit", words);
                break;
            }
            cap *= 2;
            buf = ls_xrealloc(buf, cap + 1);
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
        /* chunk by chunk: /dev/zero ends here, not at the size limit */
        if ((st = ls_diag_check_text(diag, path, buf, len - n, len)))
            break;
    }
    if (st == LS_OK && ferror(f))
        st = ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "read error");
    if (st == LS_OK && len > limit) {
        char words[32];
        size_words(limit, words, sizeof words);
        st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "file is larger than the %s limit",
                         words);
    }
    fclose(f);
    if (st) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return LS_OK;
}
