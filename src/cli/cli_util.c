/* cli_util.c: output capture and atomic writes for the CLI (see cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "lanescope/datadir.h"
#include "lanescope/arena.h"

/* The command whose flags were read (ls_flag_once), for ls_out_commit's
 * messages: "lanescope CMD: PATH: ..." once the command is known. */
static const char *flags_cmd;

double ls_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ls_cli_error(const char *cmd, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line, always: a file name or flag value holding a newline or
     * another control character is shown escaped, not obeyed */
    fprintf(stderr, "lanescope%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
        if (*c == '\n')
            fputs("\\n", stderr);
        else if (*c == '\r')
            fputs("\\r", stderr);
        else if (*c == '\t')
            fputs("\\t", stderr);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
    }
    fputc('\n', stderr);
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
            ls_cli_error(flags_cmd, "cannot write to standard output");
            rc = 1;
        }
    } else {
        char err[512];
        if (ls_write_atomic(path, o->buf, o->len, err, sizeof err) != 0) {
            ls_cli_error(flags_cmd, "%s", err);
            rc = 1;
        }
    }
    free(o->buf);
    o->buf = NULL;
    return rc;
}

static bool int_in_range(const char *cmd, const char *flag, const char *value, int64_t min,
                         int64_t max, int64_t *out)
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

/* The integer flags given so far in this process (one command a
 * process): where each went and its text, to refuse one given twice. */
static struct {
    const int64_t *out;
    const char *value;
} ints_seen[64];
static int n_ints_seen;

bool ls_flag_int(const char *cmd, const char *flag, const char *value, int64_t min, int64_t max,
                 int64_t *out)
{
    for (int i = 0; i < n_ints_seen; i++)
        if (ints_seen[i].out == out) {
            ls_cli_error(cmd, "%s given twice ('%s', then '%s'): give it once", flag,
                         ints_seen[i].value, value);
            return false;
        }
    if (!int_in_range(cmd, flag, value, min, max, out))
        return false;
    if (n_ints_seen < (int)(sizeof ints_seen / sizeof ints_seen[0])) {
        ints_seen[n_ints_seen].out = out;
        ints_seen[n_ints_seen++].value = value;
    }
    return true;
}

bool ls_flag_dim(const char *cmd, const char *value, ls_import_dims *dims)
{
    const char *eq = strchr(value, '=');
    char *end;
    errno = 0;
    long long d = eq ? strtoll(value, &end, 10) : -1;
    if (eq == NULL || end != eq || eq == value || errno == ERANGE) {
        ls_cli_error(cmd, "--dim: expected N=SIZE (loop dim N of the op, e.g. 0=4096), found '%s'",
                     value);
        return false;
    }
    if (d < 0 || d >= LS_MAX_RANK) {
        ls_cli_error(cmd, "--dim: loop dim %lld is outside 0..%d (the rank limit)", d,
                     LS_MAX_RANK - 1);
        return false;
    }
    char flag[32];
    snprintf(flag, sizeof flag, "--dim %lld", d);
    int64_t size;
    /* The same bound as a parsed static size: int64 index arithmetic on the
     * whole space must not overflow, which validation checks later. */
    if (!int_in_range(cmd, flag, eq + 1, 1, INT64_MAX, &size))
        return false;
    if (dims->size[d] != 0 && dims->size[d] != size) {
        ls_cli_error(cmd, "--dim: loop dim %lld given twice (%lld and %lld)", d,
                     (long long)dims->size[d], (long long)size);
        return false;
    }
    dims->size[d] = size;
    return true;
}

/* A .hw model file, a built-in model name, or the name of one. */
static bool names_model(const char *spec)
{
    if (strstr(spec, ".hw"))
        return true;
    static const char *builtin[] = {"h100", "h200", "a100", "mi300x", "mi355x", "rx7900xtx"};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(spec, builtin[i]) == 0)
            return true;
    return false;
}

/* The IREE target a model file stands for: its iree_target line, else the
 * built-in target of its name, else IREE's target for its arch (a copy of
 * the h100 model renamed is still an sm_90 to IREE's heuristic). */
static bool model_target(const ls_hw *hw, ls_target *t)
{
    if (hw->has_iree_target) {
        *t = hw->iree_target;
        return true;
    }
    return ls_target_lookup(hw->name, t) || (hw->arch[0] && ls_target_lookup(hw->arch, t));
}

ls_status ls_cli_hw(const ls_module *m, const char *target, int64_t subgroup_size, ls_hw *hw,
                    ls_target *t, bool *has_t, ls_diag *diag)
{
    *has_t = false;
    if (target && names_model(target)) {
        /* a model file or a built-in chip: its own target, if it names one */
        ls_status st = ls_hw_load(target, hw, diag);
        if (st)
            return st;
        *has_t = model_target(hw, t);
        return LS_OK;
    }
    if (target && !ls_target_lookup(target, t)) {
        /* a model in the search path ($LANESCOPE_TARGETS: a calibrated one) */
        ls_diag quiet;
        ls_diag_clear(&quiet);
        if (!strstr(target, ".mlir") && ls_hw_load(target, hw, &quiet) == LS_OK) {
            *has_t = model_target(hw, t);
            return LS_OK;
        }
        /* an .mlir file holding an #iree_gpu.target */
        if (!ls_cli_target(target, t, diag))
            return diag->status;
    } else if (target) {
        /* an IREE target name: t is set */
    } else if (m && m->has_target) {
        *t = m->target;
    } else { /* nothing says: by subgroup size, as before any target existed */
        return ls_cli_hw(m, subgroup_size == 64 ? "mi300x" : "h100", subgroup_size, hw, t, has_t,
                         diag);
    }
    *has_t = true;
    return ls_hw_for_target(t, hw, diag);
}

ls_status ls_cli_model(const ls_module *m, ls_problem *p, const char *target, ls_hw *hw,
                       ls_diag *diag)
{
    int64_t sg, wgsz;
    ls_problem_sizes(p, &sg, &wgsz, NULL);
    ls_target t;
    bool has_t;
    if (ls_cli_hw(m, target, sg, hw, &t, &has_t, diag))
        return diag->status;
    /* the values the target's compiled code computes (m is the caller's) */
    ls_math_mode mode = ls_math_mode_for_arch(hw->arch);
    if (m)
        ls_module_set_math((ls_module *)m, mode);
    p->body.math = (uint8_t)mode;  /* a problem from flags is in no module */
    if (!p->has_target && has_t) { /* the IREE-visible limits of the same machine */
        p->target = t;
        p->has_target = true;
    }
    if (!p->has_config && p->has_target)
        return ls_cli_suggest_config((ls_module *)m, p, diag);
    return LS_OK;
}

/* "f32", "i24", "f8E4M3FN": the element type the simulator models (or
 * UNKNOWN) and its width (0 when not a width at all). */
static ls_elem_type flag_type(const char *s, size_t n, int *bits)
{
    ls_elem_type t = ls_elem_type_from_name(s, n);
    *bits = 0;
    if (t != LS_ET_UNKNOWN && t != LS_ET_I1) {
        *bits = ls_elem_type_bits(t);
        return t;
    }
    if (n >= 2 && (s[0] == 'i' || s[0] == 'f') && s[1] >= '1' && s[1] <= '9') {
        size_t k = 1;
        int v = 0;
        while (k < n && s[k] >= '0' && s[k] <= '9' && v < 100000)
            v = v * 10 + (s[k++] - '0');
        if (k == n || s[0] == 'f')
            *bits = v;
    }
    return LS_ET_UNKNOWN;
}

bool ls_cli_flags_problem(const char *shape, const char *iter, const char *type,
                          const char *combiner, bool lenient, ls_problem *p, int *in_bits,
                          int *out_bits, ls_diag *diag)
{
    memset(p, 0, sizeof *p);
    p->dispatch = p->dispatch_op = -1;
    snprintf(p->name, sizeof p->name, "flags");
    snprintf(p->file, sizeof p->file, "--shape");
    const char *s = shape;
    while (*s) {
        if (p->rank >= LS_MAX_RANK)
            return ls_diag_set(diag, LS_ERR_LIMIT, "--shape", 0, 0,
                               "more than %d dimensions (the rank limit)", LS_MAX_RANK) == LS_OK;
        char *end;
        long long v;
        if (*s == '?' && lenient) {
            v = 0;
            end = (char *)s + 1;
        } else {
            errno = 0;
            v = strtoll(s, &end, 10);
            if (end == s || v < 1 || errno == ERANGE)
                return ls_diag_set(diag, LS_ERR_USAGE, "--shape", 0, 0,
                                   "expected sizes like 1152x384%s, found '%s'",
                                   lenient ? " ('?' for dynamic)" : "", shape) == LS_OK;
        }
        p->size[p->rank++] = v;
        s = end;
        if (*s == 'x')
            s++;
        else if (*s)
            return ls_diag_set(diag, LS_ERR_USAGE, "--shape", 0, 0,
                               "expected sizes like 1152x384, found '%s'", shape) == LS_OK;
    }
    if (p->rank == 0)
        return ls_diag_set(diag, LS_ERR_USAGE, "--shape", 0, 0, "no sizes given") == LS_OK;
    if (iter == NULL || (int)strlen(iter) != p->rank)
        return ls_diag_set(diag, LS_ERR_USAGE, "--iter", 0, 0,
                           "give one letter (p or r) per dimension of --shape (%d)", p->rank) ==
               LS_OK;
    for (int i = 0; i < p->rank; i++) {
        char c = iter[i];
        if (c != 'p' && c != 'r')
            return ls_diag_set(diag, LS_ERR_USAGE, "--iter", 0, 0,
                               "'%c' is not p (parallel) or r (reduction)", c) == LS_OK;
        p->is_reduction[i] = c == 'r';
        p->inputs[0].map[p->inputs[0].map_n++] = i;
        if (c == 'p')
            p->out_map[p->out_map_n++] = i;
    }
    const char *ty = type ? type : "f32";
    const char *colon = strchr(ty, ':');
    size_t n1 = colon ? (size_t)(colon - ty) : strlen(ty);
    int b1, b2;
    p->n_inputs = 1;
    p->inputs[0].type = flag_type(ty, n1, &b1);
    p->acc_type = colon ? flag_type(colon + 1, strlen(colon + 1), &b2) : p->inputs[0].type;
    if (!colon)
        b2 = b1;
    p->extended = colon != NULL;
    bool known = p->inputs[0].type != LS_ET_UNKNOWN && p->acc_type != LS_ET_UNKNOWN &&
                 p->inputs[0].type != LS_ET_INDEX;
    if (!known && !(lenient && b1 > 0 && b2 > 0))
        return ls_diag_set(diag, LS_ERR_USAGE, "--type", 0, 0,
                           "'%s' is not one of f16, bf16, f32, f64, i8, i16, i32, i64 (T or "
                           "T:U)%s",
                           ty, lenient ? ", nor an iN / fN width" : "") == LS_OK;
    snprintf(p->name, sizeof p->name, "%.40s %.16s %.24s", shape, iter, ty);
    if (in_bits)
        *in_bits = b1;
    if (out_bits)
        *out_bits = b2;
    p->combiner = LS_COMB_ADD;
    if (combiner && !ls_combiner_from_name(combiner, &p->combiner))
        return ls_diag_set(diag, LS_ERR_USAGE, "--combiner", 0, 0,
                           "'%s' is not a combining kind (add, mul, minui, minsi, maxui, maxsi, "
                           "minimumf, minnumf, maximumf, maxnumf, and, or, xor)",
                           combiner) == LS_OK;
    return true;
}

bool ls_cli_target(const char *spec, ls_target *t, ls_diag *diag)
{
    if (ls_target_lookup(spec, t))
        return true;
    ls_module *tm = ls_xcalloc(1, sizeof *tm);
    ls_diag local;
    ls_diag_clear(&local);
    ls_status st = ls_module_load_ex(spec, LS_IMPORT_KEEP_UNSUPPORTED, tm, &local);
    bool ok = st == LS_OK && tm->has_target;
    if (ok)
        *t = tm->target;
    else if (st == LS_ERR_IO)
        ls_diag_set(diag, LS_ERR_USAGE, "--target", 0, 0,
                    "'%s' is not a model (h100, h200, a100, mi300x, mi355x, rx7900xtx, a .hw "
                    "file), an IREE target name (sm_80, gfx942, rtx3090, ...: `lanescope "
                    "suggest --help` lists them) or a readable .mlir file",
                    spec);
    else if (st != LS_OK)
        *diag = local;
    else
        ls_diag_set(diag, LS_ERR_NOTFOUND, spec, 0, 0, "no #iree_gpu.target<...> in this file");
    free(tm);
    return ok;
}

ls_status ls_cli_suggest_config(ls_module *m, ls_problem *p, ls_diag *diag)
{
    ls_dispatch *one = NULL;
    const ls_dispatch *d;
    int op = 0;
    if (p->dispatch >= 0 && (size_t)p->dispatch < m->n_dispatches) {
        d = &m->dispatches[p->dispatch];
        op = p->dispatch_op;
    } else {
        one = ls_xcalloc(1, sizeof *one);
        ls_dispatch_from_problem(p, 0, 0, one);
        d = one;
    }
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_status st = ls_suggest(d, &p->target, s, diag);
    if (st == LS_ERR_INVALID && s->tile_and_fuse && s->root == op) {
        /* IREE's TileAndFuse config (an arg_compare's fallback, an outer
         * reduction): simulated too */
        ls_diag_clear(diag);
        ls_suggest_apply_tile_and_fuse(s, p);
        p->config_suggested = true;
        st = LS_OK;
    } else if (st == LS_OK) {
        if (ls_suggest_config_of(s, op) == NULL)
            st = ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                             "%s has no lowering_config and IREE's heuristic gives it none "
                             "(its consumers decide its tiling)",
                             p->name);
        else {
            ls_suggest_apply(s, op, p);
            p->config_suggested = true;
        }
    }
    free(s);
    free(one);
    return st;
}

const char *ls_cli_bundled_example(const char *name, char *buf, size_t size)
{
    char beside[1024];
    const char *dirs[] = {getenv("LANESCOPE_EXAMPLES"),
                          ls_exe_data_dir("examples", beside, sizeof beside), LS_EXAMPLES_DIR,
                          LS_SRC_EXAMPLES_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (dirs[i] == NULL)
            continue;
        int n = snprintf(buf, size, "%s/%s", dirs[i], name);
        if (n < 0 || (size_t)n >= size)
            continue; /* a shortened name could open another file */
        FILE *f = fopen(buf, "r");
        if (f) {
            fclose(f);
            return buf;
        }
    }
    return NULL;
}

struct json_object *ls_cli_json_root(const char *name)
{
    char schema[64];
    snprintf(schema, sizeof schema, "lanescope/%s", name);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "schema", json_object_new_string(schema));
    json_object_object_add(o, "version", json_object_new_int(LS_JSON_SCHEMA_VERSION));
    return o;
}

/* The flags that name a file (or, --out, a folder) to write: an empty
 * value names none, a usage error here rather than a write that fails (or
 * a temporary made in the working folder) later. */
static bool names_output(const char *flag)
{
    static const char *outputs[] = {"-o",      "--output",        "--trace", "--csv",
                                    "--chart", "--save-measured", "--out",   "--raw"};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
        if (strcmp(flag, outputs[i]) == 0)
            return true;
    return false;
}

bool ls_flag_once(const char *cmd, const char *flag, const char **slot, const char *value)
{
    flags_cmd = cmd;
    if (value[0] == '\0' && names_output(flag)) {
        ls_cli_error(cmd, "%s: the name is empty; give a %s", flag,
                     strcmp(flag, "--out") == 0 ? "folder" : "file (or - for standard output)");
        return false;
    }
    if (*slot) {
        ls_cli_error(cmd, "%s given twice ('%s', then '%s'): give it once", flag, *slot, value);
        return false;
    }
    *slot = value;
    return true;
}
