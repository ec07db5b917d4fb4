/* cli_util.c: output capture and atomic writes for the CLI (see cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lanescope/arena.h"

void ls_cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "lanescope%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ls_cli_report(const char *cmd, const ls_diag *d)
{
    char msg[1024];
    ls_diag_format(d, msg, sizeof msg);
    ls_cli_error(cmd, "%s", msg);
}

void ls_out_open(ls_out *o)
{
    o->buf = NULL;
    o->len = 0;
    o->f = open_memstream(&o->buf, &o->len);
    if (o->f == NULL) {
        fprintf(stderr, "lanescope: cannot allocate the output buffer\n");
        exit(1);
    }
}

void ls_out_discard(ls_out *o)
{
    if (o->f)
        fclose(o->f);
    free(o->buf);
    o->f = NULL;
    o->buf = NULL;
}

int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize)
{
    size_t n = strlen(path);
    char *tmp = ls_xmalloc(n + 16);
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errsize, "%s: cannot create a temporary file: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errsize, "%s: cannot finish writing: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int ls_out_commit(ls_out *o, const char *path)
{
    fclose(o->f);
    o->f = NULL;
    int rc = 0;
    if (path == NULL || strcmp(path, "-") == 0) {
        if (fwrite(o->buf, 1, o->len, stdout) != o->len || fflush(stdout) != 0) {
            fprintf(stderr, "lanescope: cannot write to standard output\n");
            rc = 1;
        }
    } else {
        char err[512];
        if (ls_write_atomic(path, o->buf, o->len, err, sizeof err) != 0) {
            fprintf(stderr, "lanescope: %s\n", err);
            rc = 1;
        }
    }
    free(o->buf);
    o->buf = NULL;
    return rc;
}

bool ls_flag_int(const char *cmd, const char *flag, const char *value, int64_t min, int64_t max,
                 int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (*value == '\0' || *end != '\0' || errno == ERANGE) {
        ls_cli_error(cmd, "%s: expected an integer, found '%s'", flag, value);
        return false;
    }
    if (v < min || v > max) {
        ls_cli_error(cmd, "%s: %lld is outside %lld..%lld", flag, v, (long long)min,
                     (long long)max);
        return false;
    }
    *out = v;
    return true;
}
