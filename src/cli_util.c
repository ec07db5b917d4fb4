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

static const char *model_for_arch(const char *arch)
{
    if (strcmp(arch, "gfx942") == 0)
        return "mi300x";
    if (strcmp(arch, "gfx1100") == 0)
        return "rx7900xtx";
    if (strcmp(arch, "sm_80") == 0)
        return "a100";
    if (strcmp(arch, "sm_90") == 0)
        return "h100";
    return NULL;
}

ls_status ls_cli_model(const ls_module *m, ls_problem *p, const char *target, ls_hw *hw,
                       ls_diag *diag)
{
    int64_t sg, wgsz;
    ls_problem_sizes(p, &sg, &wgsz, NULL);
    const char *model = target                                             ? target
                        : m->has_target && model_for_arch(m->target.arch) ? model_for_arch(m->target.arch)
                        : sg == 64                                         ? "mi300x"
                                                                           : "h100";
    if (ls_hw_load(model, hw, diag))
        return diag->status;
    if (!p->has_target && hw->has_iree_target) { /* IREE-visible limits of the chip */
        p->target = hw->iree_target;
        p->has_target = true;
    } else if (!p->has_target && ls_target_lookup(hw->name, &p->target)) {
        p->has_target = true;
    }
    return LS_OK;
}
