/* read_text.c: a whole text input read into memory with a size limit,
 * refusing NUL bytes and folders (ls_read_text in atomic.h): the reader of
 * the importer, the compare suites and CSVs.  Split from atomic.c, which
 * keeps the outputs and the inputs' identities (ls_open_input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/atomic.h"
#include "lanescope/diag.h"

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
