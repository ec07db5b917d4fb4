/* calibrate.c: the calibration microbenchmarks (CUDA C compiled at run
 * time), running them on a GPU, and the .hw / CSV text written from their
 * results (see calibrate.h).
 *
 * Method, shared by every benchmark:
 *   - cycles come from clock64 inside the kernel (SM cycles, the unit of
 *     every latency in a model); the cost of a clock read, measured in the
 *     same kernel, is subtracted from each timed interval;
 *   - latencies are dependent chains (each operation's input is the last
 *     one's output) written as volatile inline PTX, so neither NVRTC nor
 *     ptxas can shorten, merge or reorder them, unrolled 8x so the loop's
 *     own counter work hides under the chain;
 *   - throughputs use many independent operations per thread on every SM;
 *   - every number is the median of `reps` runs (7; --quick 3), and a
 *     bandwidth is bytes over event time less the empty-kernel launch time.
 * The run takes a few seconds; NVRTC compiling a source for each of the
 * twelve kernel loads is most of it.  Nothing here keeps state between
 * calls.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/datadir.h"
#include "lanescope/arena.h"
#include "lanescope/calibrate.h"
#include "calib.h"

/* ------------------------------------------------------- results, checks */

/* Name (the CSV's parameter column) and unit of each quantity. */
static const char *const qty_name[LS_CAL_N] = {
    [LS_CAL_CLOCK_MHZ] = "clock_mhz",
    [LS_CAL_L2_LATENCY] = "l2_latency",
    [LS_CAL_DRAM_LATENCY] = "dram_latency",
    [LS_CAL_SMEM_LATENCY] = "smem_load_latency",
    [LS_CAL_ALU_LATENCY] = "alu_latency",
    [LS_CAL_SHUFFLE_LATENCY] = "shuffle_latency",
    [LS_CAL_SHUFFLE_INTERVAL] = "shuffle_interval",
    [LS_CAL_BARRIER] = "barrier_latency",
    [LS_CAL_DRAM_GBPS] = "dram_gbps",
    [LS_CAL_L1_LATENCY] = "l1_latency",
    [LS_CAL_L2_GBPS] = "l2_gbps",
    [LS_CAL_LAUNCH_US] = "launch_overhead",
    [LS_CAL_DISPATCH] = "block_dispatch_rate",
    [LS_CAL_L2_FAR_LATENCY] = "l2_far_latency",
    [LS_CAL_MSHRS] = "requests_in_flight_per_sm",
};
static const char *const qty_unit[LS_CAL_N] = {
    [LS_CAL_CLOCK_MHZ] = "MHz",
    [LS_CAL_L2_LATENCY] = "cycles",
    [LS_CAL_DRAM_LATENCY] = "cycles",
    [LS_CAL_SMEM_LATENCY] = "cycles",
    [LS_CAL_ALU_LATENCY] = "cycles",
    [LS_CAL_SHUFFLE_LATENCY] = "cycles",
    [LS_CAL_SHUFFLE_INTERVAL] = "cycles",
    [LS_CAL_BARRIER] = "cycles",
    [LS_CAL_DRAM_GBPS] = "GB/s",
    [LS_CAL_L1_LATENCY] = "cycles",
    [LS_CAL_L2_GBPS] = "GB/s",
    [LS_CAL_LAUNCH_US] = "us",
    [LS_CAL_DISPATCH] = "blocks/us",
    [LS_CAL_L2_FAR_LATENCY] = "cycles",
    [LS_CAL_MSHRS] = "sectors",
};

bool ls_calib_add_point(ls_calib_result *r, const char *bench, const char *param, double value,
                        const char *unit)
{
    if (r->n_points >= LS_CALIB_MAX_POINTS)
        return false;
    ls_calib_point *p = &r->points[r->n_points++];
    snprintf(p->bench, sizeof p->bench, "%s", bench);
    snprintf(p->param, sizeof p->param, "%s", param);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->value = value;
    return true;
}

static bool is_date(const char *s)
{
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    return s[10] == 0;
}

ls_status ls_calib_check(const ls_calib_result *r, ls_diag *diag)
{
    const ls_calib_prov *p = &r->prov;
    if (p->gpu[0] == 0 || p->arch[0] == 0 || p->driver[0] == 0 || p->sm_count <= 0)
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0,
                           "calibration result without provenance (GPU name, arch, SM count "
                           "and driver are all needed)");
    if (!is_date(p->date))
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0,
                           "calibration result dated '%.20s', not YYYY-MM-DD", p->date);
    for (int q = 0; q < LS_CAL_MODEL_N; q++) {
        double v = r->q[q].value;
        if (!isfinite(v) || v <= 0)
            return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0,
                               "calibration result has %s = %g (microbenchmark %s): every "
                               "model value must be measured, finite and positive",
                               qty_name[q], v, r->q[q].bench[0] ? r->q[q].bench : "not run");
        if (r->q[q].bench[0] == 0 || r->q[q].how[0] == 0)
            return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0,
                               "calibration result has %s without the microbenchmark and "
                               "method behind it",
                               qty_name[q]);
    }
    return LS_OK;
}

void ls_calib_short_name(const char *gpu, char *buf, size_t size)
{
    static const char *const vendor[] = {"nvidia", "geforce", "tesla", "quadro", NULL};
    char word[64], first[64] = "";
    bool have_number = false;
    const char *s = gpu;
    buf[0] = 0;
    while (*s) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        size_t n = 0;
        while (isalnum((unsigned char)*s)) {
            if (n + 1 < sizeof word)
                word[n++] = (char)tolower((unsigned char)*s);
            s++;
        }
        word[n] = 0;
        if (n == 0)
            break;
        /* a chip name: one letter, then only digits (h100, a100, l40) */
        bool chip = n >= 3 && isalpha((unsigned char)word[0]);
        for (size_t i = 1; chip && i < n; i++)
            chip = isdigit((unsigned char)word[i]) != 0;
        if (chip) {
            snprintf(buf, size, "%.20s", word);
            return;
        }
        bool is_vendor = false, digits = strspn(word, "0123456789") == n;
        for (int i = 0; vendor[i]; i++)
            is_vendor |= strcmp(word, vendor[i]) == 0;
        if (!is_vendor && first[0] == 0)
            snprintf(first, sizeof first, "%s", word);
        else if (digits && first[0] && !have_number) /* "rtx" "4090" -> rtx4090 */
            snprintf(first + strlen(first), sizeof first - strlen(first), "%s", word);
        have_number |= first[0] && digits;
    }
    snprintf(buf, size, "%.20s", first[0] ? first : "gpu");
}

void ls_calib_driver_string(int cuda_driver_version, char *buf, size_t size)
{
    char kmod[32] = "";
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        char line[512];
        if (fgets(line, sizeof line, f)) {
            /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ..." */
            char *save = NULL;
            for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
                size_t digits = strspn(t, "0123456789."), n = strlen(t);
                if (n < sizeof kmod && digits == n && isdigit((unsigned char)t[0]) &&
                    strchr(t, '.')) {
                    snprintf(kmod, sizeof kmod, "%s", t);
                    break;
                }
            }
        }
        fclose(f);
    }
    int major = cuda_driver_version / 1000, minor = cuda_driver_version % 1000 / 10;
    if (kmod[0])
        snprintf(buf, size, "%s (CUDA %d.%d)", kmod, major, minor);
    else
        snprintf(buf, size, "CUDA %d.%d", major, minor);
}

/* ------------------------------------------------------------ base model */

ls_status ls_calib_load_base(const char *name, char **text, char *path, size_t path_size, ls_hw *hw,
                             ls_diag *diag)
{
    /* The lookup ls_hw_load does (hwmodel.c keeps it private): arch names
     * alias the built-in models, which live in $LANESCOPE_TARGETS, the
     * installed data folder or the source tree. */
    static const char *const alias[][2] = {
        {"sm_90", "h100"}, {"sm_80", "a100"}, {"gfx942", "mi300x"}, {"gfx1100", "rx7900xtx"}};
    *text = NULL;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(name, alias[i][0]) == 0)
            name = alias[i][1];
    FILE *f = NULL;
    if (strchr(name, '/') || strstr(name, ".hw")) {
        if ((size_t)snprintf(path, path_size, "%s", name) >= path_size)
            return ls_diag_set(diag, LS_ERR_LIMIT, "--base", 0, 0,
                               "the base model's file name is longer than %zu bytes",
                               path_size - 1);
        if ((f = fopen(path, "rb")) == NULL)
            return ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "cannot open the base model: %s",
                               strerror(errno));
    } else {
        char beside[1024];
        const char *dirs[] = {getenv("LANESCOPE_TARGETS"),
                              ls_exe_data_dir("targets", beside, sizeof beside),
#ifdef LS_TARGETS_DIR
                              LS_TARGETS_DIR,
#endif
#ifdef LS_SRC_TARGETS_DIR
                              LS_SRC_TARGETS_DIR,
#endif
                              NULL};
        for (size_t i = 0; i + 1 < sizeof dirs / sizeof dirs[0] && f == NULL; i++) {
            if (dirs[i] == NULL)
                continue;
            int n = snprintf(path, path_size, "%s/%s.hw", dirs[i], name);
            if (n < 0 || (size_t)n >= path_size)
                continue; /* a shortened name could open another model */
            f = fopen(path, "rb");
        }
        if (f == NULL)
            return ls_diag_set(diag, LS_ERR_NOTFOUND, "--base", 0, 0,
                               "no hardware model '%s' (built in: %s; or give a .hw file)", name,
                               ls_hw_names());
    }
    char *buf = ls_xmalloc(65537);
    size_t n = fread(buf, 1, 65536, f);
    bool big = n == 65536 && fgetc(f) != EOF;
    fclose(f);
    buf[n] = 0;
    ls_status st =
        big ? ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "model file larger than 64 KiB")
            : ls_hw_parse(buf, path, hw, diag);
    if (st) {
        free(buf);
        return st;
    }
    *text = buf;
    return LS_OK;
}

/* --------------------------------------------------------- the L2 split */

bool ls_calib_l2_split(const double *v, int n, double overhead, double *near, double *far,
                       double *far_share)
{
    *near = *far = *far_share = 0;
    if (n < 10)
        return false;
    double *sum = ls_xcalloc((size_t)n + 1, sizeof *sum);
    double *sq = ls_xcalloc((size_t)n + 1, sizeof *sq);
    for (int i = 0; i < n; i++) {
        sum[i + 1] = sum[i] + v[i];
        sq[i + 1] = sq[i] + v[i] * v[i];
    }
    int split = n / 2;
    double best = INFINITY;
    for (int k = n / 10; k <= n - n / 10; k++) {
        double a = sum[k], b = sum[n] - sum[k];
        double sse = sq[n] - a * a / k - b * b / (n - k);
        if (sse < best) {
            best = sse;
            split = k;
        }
    }
    free(sum);
    free(sq);
    *near = v[split / 2] - overhead;
    *far = v[split + (n - split) / 2] - overhead;
    *far_share = (double)(n - split) / n;
    return *far_share >= 0.15 && *far_share <= 0.85 && *near > 0 && *far >= 1.25 * *near;
}

/* ------------------------------------------------------------- rendering */

/* Model keys written from measurements.  offset is added before rounding
 * to the key's integer (the model's smem access costs its conflict degree
 * on top of smem_latency, so degree 1's measured latency is smem_latency +
 * 1); note says so in the source. */
typedef struct {
    const char *key;
    ls_calib_qty q;
    double offset;
    int64_t min;
    bool is_double;
    const char *note;
    bool per_block; /* a rate (per us): the key is clock_mhz / rate, cycles apart */
} model_key;

static const model_key model_keys[] = {
    {"clock_mhz", LS_CAL_CLOCK_MHZ, 0, 1, false, NULL, false},
    {"smem_latency", LS_CAL_SMEM_LATENCY, -1, 0, false,
     "less the 1 cycle per conflict degree the model adds", false},
    {"alu_latency", LS_CAL_ALU_LATENCY, 0, 1, false, NULL, false},
    {"shuffle_latency", LS_CAL_SHUFFLE_LATENCY, 0, 1, false, NULL, false},
    {"shuffle_interval", LS_CAL_SHUFFLE_INTERVAL, 0, 1, false, NULL, false},
    {"barrier_latency", LS_CAL_BARRIER, 0, 0, false, NULL, false},
    {"l2_latency", LS_CAL_L2_LATENCY, 0, 0, false, NULL, false},
    {"dram_latency", LS_CAL_DRAM_LATENCY, 0, 0, false, NULL, false},
    {"dram_gbps", LS_CAL_DRAM_GBPS, 0, 1, true, NULL, false},
    {"launch_us", LS_CAL_LAUNCH_US, 0, 0, true, NULL, false}, /* when measured */
    {"l1_latency", LS_CAL_L1_LATENCY, 0, 1, false, NULL, false},
    {"dispatch_cycles", LS_CAL_DISPATCH, 0, 0, false,
     "as cycles between dispatches: the clock over the rate", true},
    {"l2_far_latency", LS_CAL_L2_FAR_LATENCY, 0, 0, false, NULL, false}, /* when measured */
    {"mshrs_per_wgp", LS_CAL_MSHRS, 0, 1, false, NULL, false},          /* when measured */
};
#define N_MODEL_KEYS (sizeof model_keys / sizeof model_keys[0])

/* Model keys the driver reports (0: unknown, the base line stays). */
typedef struct {
    const char *key;
    int64_t value;
    char what[96];
} driver_key;

static int driver_keys(const ls_calib_result *r, const ls_hw *base, driver_key *k)
{
    int n = 0;
    k[n++] =
        (driver_key){"wgp_count", r->prov.sm_count, "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)"};
    /* the base model's line and ways must still divide the L2 */
    int64_t unit = base->l2_line_bytes * base->l2_ways;
    k[n++] = (driver_key){"l2_bytes", r->l2_bytes > 0 && r->l2_bytes % unit == 0 ? r->l2_bytes : 0,
                          "cuDeviceGetAttribute(L2_CACHE_SIZE)"};
    k[n++] = (driver_key){"smem_bytes_per_wgp", r->smem_per_sm,
                          "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)"};
    k[n++] = (driver_key){"max_threads_per_wgp", r->max_threads_per_sm,
                          "cuDeviceGetAttribute(MAX_THREADS_PER_MULTIPROCESSOR)"};
    k[n] = (driver_key){"max_subgroups_per_wgp", r->max_threads_per_sm / base->subgroup_size, ""};
    snprintf(k[n++].what, sizeof k->what,
             "cuDeviceGetAttribute(MAX_THREADS_PER_MULTIPROCESSOR) / warp size %lld",
             (long long)base->subgroup_size);
    k[n++] = (driver_key){"max_workgroups_per_wgp", r->max_blocks_per_sm,
                          "cuDeviceGetAttribute(MAX_BLOCKS_PER_MULTIPROCESSOR)"};
    return n;
}

/* Text with newlines and '#' made spaces: a source or comment stays one line. */
void ls_calib_one_line(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = src[i] == '\n' || src[i] == '\r' || src[i] == '#' ? ' ' : src[i];
    dst[i] = 0;
}

/* "key = value" padded to the column the targets files use, then the source. */
static void key_line(FILE *f, const char *key, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void key_line(FILE *f, const char *key, const char *value, const char *fmt, ...)
{
    char kv[128];
    snprintf(kv, sizeof kv, "%s = %s", key, value);
    fprintf(f, "%-29s # source: ", kv);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

static void emit_measured(FILE *f, const model_key *mk, const ls_calib_result *r, const char *where,
                          double clock_mhz)
{
    const ls_calib_value *v = &r->q[mk->q];
    char value[64], how[256];
    double x = mk->per_block ? clock_mhz / v->value : v->value + mk->offset;
    const char *clamped = "";
    if (mk->is_double) {
        snprintf(value, sizeof value, "%.1f", x);
    } else {
        long long i = llround(x);
        if (i < mk->min) {
            i = mk->min;
            clamped = ", raised to the model's minimum";
        }
        snprintf(value, sizeof value, "%lld", i);
    }
    ls_calib_one_line(how, sizeof how, v->how);
    key_line(f, mk->key, value, "measured on %s, microbenchmark %s: %s = %.6g %s%s%s%s", where,
             v->bench, how, v->value, qty_unit[mk->q], mk->note ? ", " : "",
             mk->note ? mk->note : "", clamped);
}

/* The key of a model line ("" for blank and comment lines). */
static void line_key(const char *line, size_t len, char *key, size_t size)
{
    size_t i = 0, n = 0;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    while (i < len && line[i] != '=' && !isspace((unsigned char)line[i]) && line[i] != '#' &&
           n + 1 < size)
        key[n++] = line[i++];
    key[n] = 0;
}

/* Every key line of the base model in its order: measured keys and
 * driver-reported limits replaced, name and arch ours, the rest verbatim. */
static void emit_keys(FILE *f, const ls_calib_result *r, const char *base_text, const ls_hw *base,
                      const char *where)
{
    driver_key dk[8];
    int ndk = driver_keys(r, base, dk);
    const char *p = base_text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char key[64];
        line_key(p, len, key, sizeof key);
        const char *line = p;
        p = eol ? eol + 1 : p + len;
        if (key[0] == 0 || strcmp(key, "name") == 0 || strcmp(key, "arch") == 0)
            continue;
        if (strcmp(key, "iree_target") == 0) {
            /* IREE's view of the base's chip: only true of the same arch */
            if (strcmp(base->arch, r->prov.arch) == 0)
                fprintf(f, "%.*s\n", (int)len, line);
            continue;
        }
        bool done = false;
        for (size_t i = 0; i < N_MODEL_KEYS && !done; i++)
            if (strcmp(key, model_keys[i].key) == 0 &&
                (model_keys[i].q < LS_CAL_MODEL_N || r->q[model_keys[i].q].value > 0)) {
                emit_measured(f, &model_keys[i], r, where,
                              r->q[LS_CAL_CLOCK_MHZ].value > 0 ? r->q[LS_CAL_CLOCK_MHZ].value
                                                               : (double)base->clock_mhz);
                done = true;
            }
        for (int i = 0; i < ndk && !done; i++)
            if (strcmp(key, dk[i].key) == 0 && dk[i].value > 0) {
                char value[32];
                snprintf(value, sizeof value, "%lld", (long long)dk[i].value);
                key_line(f, key, value, "reported by the CUDA driver on %s: %s", where, dk[i].what);
                done = true;
            }
        if (!done) /* kept as the base wrote it, source and all */
            fprintf(f, "%.*s\n", (int)len, line);
    }
}

/* The measurements without a model field, and every raw point, as comments. */
static void emit_extras(FILE *f, const ls_calib_result *r)
{
    fprintf(f, "#\n# Measured by the further microbenchmarks (also in the --raw CSV; written\n"
               "# above as l1_latency, launch_us, dispatch_cycles where the base model has\n"
               "# the key):\n");
    for (int q = LS_CAL_MODEL_N; q < LS_CAL_N; q++) {
        const ls_calib_value *v = &r->q[q];
        char how[256];
        ls_calib_one_line(how, sizeof how, v->how);
        if (v->value > 0)
            fprintf(f, "#   %s = %.6g %s (microbenchmark %s: %s)\n", qty_name[q], v->value,
                    qty_unit[q], v->bench, how);
    }
    if (r->n_points > 0)
        fprintf(f, "#\n# Data points (microbenchmark, parameter, value, unit):\n");
    for (int i = 0; i < r->n_points; i++) {
        const ls_calib_point *pt = &r->points[i];
        char param[128];
        ls_calib_one_line(param, sizeof param, pt->param);
        fprintf(f, "#   %s %s %.6g %s\n", pt->bench, param, pt->value, pt->unit);
    }
}

ls_status ls_calib_render_hw(const ls_calib_result *r, const char *base_text, const char *base_path,
                             char **out, ls_diag *diag)
{
    *out = NULL;
    ls_hw base, check;
    ls_status st = ls_calib_check(r, diag);
    if (st)
        return st;
    if ((st = ls_hw_parse(base_text, base_path, &base, diag)))
        return st;
    char gpu[256], where[512], cmd[512], shortname[24];
    ls_calib_one_line(gpu, sizeof gpu, r->prov.gpu);
    ls_calib_one_line(cmd, sizeof cmd, r->prov.command);
    snprintf(where, sizeof where, "%s (%d SMs, driver %s, %s)", gpu, r->prov.sm_count,
             r->prov.driver, r->prov.date);
    ls_calib_short_name(r->prov.gpu, shortname, sizeof shortname);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return ls_diag_set(diag, LS_ERR_NOMEM, "", 0, 0, "cannot allocate the model text");
    fprintf(f,
            "# %s-calibrated: hardware model measured by lanescope calibrate on\n"
            "# %s.\n"
            "# Cycles are SM core cycles at the measured clock_mhz.\n"
            "# Keys whose source says \"measured on\" come from the microbenchmark named\n"
            "# there, \"reported by the CUDA driver\" from the device's attributes; every\n"
            "# other key, with its source, from the base model %s (%s).\n"
            "# command: %s\n",
            shortname, where, base.name, base_path, cmd[0] ? cmd : "(not recorded)");
    fprintf(f, "name = %s-calibrated\narch = %s\n", shortname, r->prov.arch);
    emit_keys(f, r, base_text, &base, where);
    emit_extras(f, r);
    if (fclose(f) != 0 || text == NULL) {
        free(text);
        return ls_diag_set(diag, LS_ERR_NOMEM, "", 0, 0, "cannot allocate the model text");
    }
    if (len > 65536) {
        free(text);
        return ls_diag_set(diag, LS_ERR_LIMIT, "", 0, 0,
                           "the calibrated model is %zu bytes, over the 64 KiB a model may have",
                           len);
    }
    ls_diag local;
    ls_diag_clear(&local);
    if (ls_hw_parse(text, "calibrated model", &check, &local)) {
        free(text);
        char msg[600];
        ls_diag_format(&local, msg, sizeof msg);
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0, "%s", msg);
    }
    *out = text;
    return LS_OK;
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_row(FILE *f, const ls_calib_prov *p, const char *bench, const char *param,
                    double value, const char *unit)
{
    csv_field(f, bench);
    fputc(',', f);
    csv_field(f, param);
    fprintf(f, ",%.6g,", value);
    csv_field(f, unit);
    fputc(',', f);
    csv_field(f, p->gpu);
    fprintf(f, ",%d,", p->sm_count);
    csv_field(f, p->driver);
    fputc(',', f);
    csv_field(f, p->date);
    fputc(',', f);
    csv_field(f, p->command);
    fputc('\n', f);
}

ls_status ls_calib_render_csv(const ls_calib_result *r, char **out, ls_diag *diag)
{
    *out = NULL;
    ls_status st = ls_calib_check(r, diag);
    if (st)
        return st;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return ls_diag_set(diag, LS_ERR_NOMEM, "", 0, 0, "cannot allocate the CSV text");
    fprintf(f, "benchmark,parameter,value,unit,gpu,sm_count,driver,date,command\n");
    for (int q = 0; q < LS_CAL_N; q++)
        if (r->q[q].value > 0)
            csv_row(f, &r->prov, r->q[q].bench, qty_name[q], r->q[q].value, qty_unit[q]);
    for (int i = 0; i < r->n_points; i++)
        csv_row(f, &r->prov, r->points[i].bench, r->points[i].param, r->points[i].value,
                r->points[i].unit);
    if (fclose(f) != 0 || text == NULL) {
        free(text);
        return ls_diag_set(diag, LS_ERR_NOMEM, "", 0, 0, "cannot allocate the CSV text");
    }
    *out = text;
    return LS_OK;
}

