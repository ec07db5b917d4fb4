/* test_calibrate.c: the calibration without a GPU.  Every microbenchmark
 * source compiles with NVRTC to PTX without a word in the log, and its
 * timed loops stay pure dependent chains after compilation; the .hw text
 * rendered from a synthetic result parses, every measured value comes back
 * (with "measured on" in its source), the base model's other keys keep
 * their lines, and an incomplete result is refused with a reason. */
#include <math.h>
#include <unistd.h>

#include "testutil.h"

#include "lanescope/calibrate.h"
#include "lanescope/gpu.h"

/* ---- the CUDA sources ---- */

/* Longest run of consecutive instructions (comments and blank lines
 * skipped) that start with `op` and read the register they write
 * ("op %r5, [%r5]" or "op %r5, %r5, ..."). */
static int longest_chain(const char *ptx, const char *op)
{
    int best = 0, run = 0;
    size_t oplen = strlen(op);
    for (const char *p = ptx; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[256];
        size_t n = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p = eol ? eol + 1 : p + len;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == 0 || strncmp(s, "//", 2) == 0)
            continue;
        bool dep = false;
        if (strncmp(s, op, oplen) == 0 && (s[oplen] == ' ' || s[oplen] == '\t')) {
            /* the first operand against the first register after the comma */
            const char *a = s + oplen + strspn(s + oplen, " \t");
            size_t alen = strcspn(a, ",;");
            const char *b = a[alen] == ',' ? a + alen + 1 + strspn(a + alen + 1, " [") : "";
            if (strcmp(op, "bar.sync") == 0)
                dep = true; /* barriers have no operands to chain */
            else
                dep = alen > 0 && strncmp(a, b, alen) == 0 && strchr("],; ", b[alen]);
        }
        run = dep ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

START_TEST(chain_detector)
{
    /* the checker itself: a chain, a chain broken by address arithmetic,
     * loads that do not feed each other */
    const char *good = "\t// begin inline asm\n\tld.shared.u32 %r4, [%r4];\n\t// end inline asm\n"
                       "\tld.shared.u32 %r4, [%r4];\n\n\tld.shared.u32 %r4, [%r4];\n";
    const char *broken = "\tld.shared.u32 %r4, [%r4];\n\tadd.s32 %r4, %r4, 4;\n"
                         "\tld.shared.u32 %r4, [%r4];\n";
    const char *apart = "\tld.shared.u32 %r4, [%r5];\n\tld.shared.u32 %r41, [%r4];\n";
    ck_assert_int_eq(longest_chain(good, "ld.shared.u32"), 3);
    ck_assert_int_eq(longest_chain(broken, "ld.shared.u32"), 1);
    ck_assert_int_eq(longest_chain(apart, "ld.shared.u32"), 0);
    ck_assert_int_eq(longest_chain("\tfma.rn.f32 %f1, %f1, %f2, %f3;\n", "fma.rn.f32"), 1);
}
END_TEST

/* The dependent chains each timed loop must keep, unrolled 8 times. */
static const struct {
    const char *source, *op;
} chains[] = {
    {"chase", "ld.global.ca.u64"},       {"chase", "ld.global.cg.u64"},
    {"smem_conflict", "ld.shared.u32"},  {"dependent", "fma.rn.f32"},
    {"dependent", "shfl.sync.bfly.b32"}, {"barrier", "bar.sync"},
};

START_TEST(sources_compile)
{
    size_t n;
    const ls_calib_source *src = ls_calib_sources(&n);
    ck_assert(n >= 8);
    ck_assert_int_lt(_i, (int)n);
    ls_nvrtc *nv = NULL;
    ls_diag d;
    ls_diag_clear(&d);
    ls_status st = ls_nvrtc_open(&nv, &d);
    if (st == LS_ERR_UNAVAILABLE) {
        fprintf(stderr, "SKIP sources_compile(%s): NVRTC unavailable: %s\n", src[_i].name, d.msg);
        return;
    }
    ck_assert_msg(st == LS_OK, "%s", d.msg);
    char *ptx = NULL, *log = NULL;
    size_t size = 0;
    st = ls_nvrtc_compile(nv, src[_i].src, src[_i].name, "sm_90", false, &ptx, &size, &log, &d);
    ck_assert_msg(st == LS_OK, "%s: %s\n%s", src[_i].name, d.msg, log ? log : "");
    ck_assert_msg(log && log[0] == 0, "%s: NVRTC said: %s", src[_i].name, log);
    /* every entry point the table names is in the PTX */
    char names[256];
    snprintf(names, sizeof names, "%s", src[_i].kernels);
    char *save = NULL;
    for (char *k = strtok_r(names, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
        char entry[96];
        snprintf(entry, sizeof entry, ".entry %s(", k);
        ck_assert_msg(strstr(ptx, entry), "%s: no %s in the PTX", src[_i].name, entry);
    }
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++)
        if (strcmp(chains[c].source, src[_i].name) == 0)
            ck_assert_msg(longest_chain(ptx, chains[c].op) >= 8,
                          "%s: the timed %s chain is broken up (longest run %d)", src[_i].name,
                          chains[c].op, longest_chain(ptx, chains[c].op));
    free(ptx);
    free(log);
    ls_nvrtc_close(nv);
}
END_TEST

/* ---- rendering ---- */

static void synthetic(ls_calib_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->prov.gpu, sizeof r->prov.gpu, "NVIDIA H100 PCIe");
    snprintf(r->prov.arch, sizeof r->prov.arch, "sm_90");
    r->prov.sm_count = 114;
    snprintf(r->prov.driver, sizeof r->prov.driver, "575.51.03 (CUDA 12.9)");
    snprintf(r->prov.date, sizeof r->prov.date, "2025-01-02");
    snprintf(r->prov.command, sizeof r->prov.command,
             "lanescope calibrate -o 'a, b.hw' --raw \"raw\".csv");
    static const struct {
        ls_calib_qty q;
        double v;
        const char *bench;
    } vals[] = {
        {LS_CAL_CLOCK_MHZ, 1755.4, "clock"},
        {LS_CAL_L2_LATENCY, 265.3, "chase_l2"},
        {LS_CAL_DRAM_LATENCY, 612.7, "chase_dram"},
        {LS_CAL_SMEM_LATENCY, 31.6, "smem_conflict"},
        {LS_CAL_ALU_LATENCY, 4.2, "dependent_fma"},
        {LS_CAL_SHUFFLE_LATENCY, 23.4, "dependent_shuffle"},
        {LS_CAL_SHUFFLE_INTERVAL, 0.4, "shuffle_throughput"},
        {LS_CAL_BARRIER, 19.6, "barrier"},
        {LS_CAL_DRAM_GBPS, 1987.3, "dram_bw"},
        {LS_CAL_L1_LATENCY, 33.9, "chase_l1"},
        {LS_CAL_L2_GBPS, 5500, "l2_bw"},
        {LS_CAL_LAUNCH_US, 4.5, "launch"},
        {LS_CAL_DISPATCH, 350, "dispatch"},
        {LS_CAL_L2_FAR_LATENCY, 470.4, "chase_l2_steps"},
        {LS_CAL_MSHRS, 600, "mlp"},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        r->q[vals[i].q].value = vals[i].v;
        snprintf(r->q[vals[i].q].bench, sizeof r->q[0].bench, "%s", vals[i].bench);
        snprintf(r->q[vals[i].q].how, sizeof r->q[0].how, "median of 7 (synthetic)");
    }
    r->l2_bytes = 52428800;
    r->smem_per_sm = 233472;
    r->max_threads_per_sm = 2048;
    r->max_blocks_per_sm = 32;
    for (int d = 1; d <= 32; d++) {
        char param[32];
        snprintf(param, sizeof param, "degree=%d", d);
        ck_assert(ls_calib_add_point(r, "smem_conflict", param, 31.6 + 2 * (d - 1), "cycles"));
    }
    ck_assert(ls_calib_add_point(r, "dram_bw", "bytes_in_flight_per_sm=131072", 1987.3, "GB/s"));
}

/* The line of `key` in model text (a static copy), or NULL. */
static const char *find_line(const char *text, const char *key)
{
    static char line[4096];
    size_t klen = strlen(key);
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (strncmp(p, key, klen) == 0 && (p[klen] == ' ' || p[klen] == '=')) {
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            return line;
        }
        p = eol ? eol + 1 : p + len;
    }
    return NULL;
}

static char *render(const ls_calib_result *r, char **base_text, ls_diag *d)
{
    char path[1024];
    ls_hw base;
    ls_diag_clear(d);
    ck_assert_msg(ls_calib_load_base("h100", base_text, path, sizeof path, &base, d) == LS_OK, "%s",
                  d->msg);
    char *text = NULL;
    ls_calib_render_hw(r, *base_text, path, &text, d);
    return text;
}

START_TEST(render_round_trip)
{
    ls_calib_result *r = ls_xcalloc(1, sizeof *r);
    synthetic(r);
    ls_diag d;
    char *base_text = NULL;
    char *text = render(r, &base_text, &d);
    ck_assert_msg(text != NULL, "%s", d.msg);
    ls_hw hw;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_parse(text, "calibrated.hw", &hw, &d) == LS_OK, "%s\n%s", d.msg, text);
    ck_assert_str_eq(hw.name, "h100-calibrated");
    ck_assert_str_eq(hw.arch, "sm_90");
    ck_assert_int_eq(hw.clock_mhz, 1755);
    ck_assert_int_eq(hw.l2_latency, 265);
    ck_assert_int_eq(hw.dram_latency, 613);
    ck_assert_int_eq(hw.smem_latency, 31); /* 31.6 less the model's 1 cycle per degree */
    ck_assert_int_eq(hw.alu_latency, 4);
    ck_assert_int_eq(hw.shuffle_latency, 23);
    ck_assert_int_eq(hw.shuffle_interval, 1); /* 0.4 raised to the model's minimum */
    ck_assert_int_eq(hw.barrier_latency, 20);
    ck_assert(fabs(hw.dram_gbps - 1987.3) < 1e-9);
    ck_assert_int_eq(hw.l1_latency, 34);
    ck_assert_int_eq(hw.dispatch_cycles, 5); /* 1755.4 MHz / 350 blocks a us */
    ck_assert_int_eq(hw.l2_far_latency, 470);
    ck_assert_int_eq(hw.mshrs_per_wgp, 600);
    /* the driver's limits */
    ck_assert_int_eq(hw.wgp_count, 114);
    ck_assert_int_eq(hw.l2_bytes, 52428800);
    ck_assert_int_eq(hw.smem_bytes_per_wgp, 233472);
    ck_assert_int_eq(hw.max_threads_per_wgp, 2048);
    ck_assert_int_eq(hw.max_subgroups_per_wgp, 64);
    ck_assert_int_eq(hw.max_workgroups_per_wgp, 32);
    static const char *const measured[] = {"clock_mhz",        "l2_latency",      "dram_latency",
                                           "smem_latency",     "alu_latency",     "shuffle_latency",
                                           "shuffle_interval", "barrier_latency", "dram_gbps"};
    const char *where = "measured on NVIDIA H100 PCIe (114 SMs, driver 575.51.03 (CUDA 12.9), "
                        "2025-01-02), microbenchmark ";
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
        const char *line = find_line(text, measured[i]);
        ck_assert_msg(line != NULL, "no %s line", measured[i]);
        ck_assert_msg(strstr(line, where), "%s: %s", measured[i], line);
    }
    ck_assert(strstr(find_line(text, "shuffle_interval"), "raised to the model's minimum"));
    ck_assert(strstr(find_line(text, "smem_latency"), "= 31.6 cycles, less the 1 cycle"));
    ck_assert(strstr(find_line(text, "wgp_count"),
                     "reported by the CUDA driver on NVIDIA H100 PCIe (114 SMs"));
    /* the raw data and the quantities without a field, as comments */
    ck_assert(strstr(text, "#   smem_conflict degree=32 93.6 cycles\n"));
    ck_assert(strstr(text, "#   l1_latency = 33.9 cycles (microbenchmark chase_l1"));
    ck_assert(strstr(text, "#   launch_overhead = 4.5 us"));
    /* the launch is a model key too: the measured 4.5 us replaces the estimate */
    ck_assert(strstr(find_line(text, "launch_us"), "launch_us = 4.5"));
    ck_assert(strstr(find_line(text, "launch_us"), where));
    ck_assert(strstr(text, "# command: lanescope calibrate -o 'a, b.hw'"));
    /* and the same through a file, as --target reads it */
    char dir[] = "/tmp/ls_calib_XXXXXX", path[64];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/model.hw", dir);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    ck_assert(fputs(text, f) >= 0);
    ck_assert(fclose(f) == 0);
    ls_hw loaded;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_load(path, &loaded, &d) == LS_OK, "%s", d.msg);
    unlink(path);
    rmdir(dir);
    ck_assert_int_eq(loaded.dram_latency, 613);
    ck_assert_double_eq_tol(loaded.launch_us, 4.5, 1e-12);
    free(text);
    free(base_text);
    free(r);
}
END_TEST

START_TEST(base_keys_keep_their_source)
{
    ls_calib_result *r = ls_xcalloc(1, sizeof *r);
    synthetic(r);
    r->l2_bytes = 52428800 + 1024; /* not a multiple of line x ways: the base value stays */
    ls_diag d;
    char *base_text = NULL;
    char *text = render(r, &base_text, &d);
    ck_assert_msg(text != NULL, "%s", d.msg);
    static const char *const kept[] = {"l2_ways",         "schedulers_per_wgp", "smem_banks",
                                       "smem_bank_bytes", "subgroup_size",      "l2_line_bytes",
                                       "sector_bytes",    "dpp_latency",        "l2_bytes"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char want[4096];
        const char *b = find_line(base_text, kept[i]);
        ck_assert_msg(b != NULL, "base has no %s", kept[i]);
        snprintf(want, sizeof want, "%s", b);
        const char *got = find_line(text, kept[i]);
        ck_assert_msg(got && strcmp(got, want) == 0, "%s: want '%s', got '%s'", kept[i], want,
                      got ? got : "(none)");
        ck_assert(strstr(got, "measured on") == NULL);
    }
    /* one line per key: nothing of the base left twice */
    ck_assert(strstr(text, "name = h100\n") == NULL);
    ck_assert(strstr(strstr(text, "\nclock_mhz") + 1, "\nclock_mhz") == NULL);
    free(text);
    free(base_text);
    free(r);
}
END_TEST

/* Incomplete results, each refused with a message naming what is wrong. */
static const struct {
    const char *what, *msg;
} bad[] = {
    {"zero clock", "clock_mhz = 0"},
    {"NaN DRAM latency", "dram_latency = nan"},
    {"negative barrier", "barrier_latency = -3"},
    {"no method", "l2_latency without the microbenchmark"},
    {"no GPU name", "without provenance"},
    {"no SM count", "without provenance"},
    {"bad date", "not YYYY-MM-DD"},
};

START_TEST(incomplete_results_rejected)
{
    ls_calib_result *r = ls_xcalloc(1, sizeof *r);
    synthetic(r);
    switch (_i) {
    case 0: r->q[LS_CAL_CLOCK_MHZ].value = 0; break;
    case 1: r->q[LS_CAL_DRAM_LATENCY].value = NAN; break;
    case 2: r->q[LS_CAL_BARRIER].value = -3; break;
    case 3: r->q[LS_CAL_L2_LATENCY].how[0] = 0; break;
    case 4: r->prov.gpu[0] = 0; break;
    case 5: r->prov.sm_count = 0; break;
    default: snprintf(r->prov.date, sizeof r->prov.date, "2025-1-2"); break;
    }
    ls_diag d;
    char *base_text = NULL;
    char *text = render(r, &base_text, &d);
    ck_assert_msg(text == NULL, "%s: rendered anyway", bad[_i].what);
    ck_assert_int_eq(d.status, LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, bad[_i].msg), "%s: '%s' lacks '%s'", bad[_i].what, d.msg,
                  bad[_i].msg);
    char *csv = (char *)"untouched";
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_calib_render_csv(r, &csv, &d), LS_ERR_INVALID);
    ck_assert_ptr_null(csv);
    free(base_text);
    free(r);
}
END_TEST

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Timed L2 loads: two clusters (an L2 in two partitions) found with their
 * medians less the clock reads' cost; one cluster, or a far one that is
 * too small or too close, is not a split. */
START_TEST(l2_split)
{
    enum { N = 1000 };
    double v[N], near, far, share;
    for (int i = 0; i < N; i++) /* 60% near 230 +- 4, 40% far 430 +- 4 (with 30 of clock reads) */
        v[i] = i < 600 ? 226 + (i % 9) : 426 + (i % 9);
    qsort(v, N, sizeof *v, cmp_dbl);
    ck_assert(ls_calib_l2_split(v, N, 30, &near, &far, &share));
    /* sorted: the near cluster's 600 values are 226..234, 67 each of the
     * first six: its median v[300] is 230; the far cluster's v[800] is 430 */
    ck_assert_double_eq_tol(near, 200, 1e-9);
    ck_assert_double_eq_tol(far, 400, 1e-9);
    ck_assert_double_eq_tol(share, 0.4, 1e-12);
    for (int i = 0; i < N; i++) /* one cluster: 200 .. 240 */
        v[i] = 200 + 40.0 * i / N;
    ck_assert(!ls_calib_l2_split(v, N, 0, &near, &far, &share));
    for (int i = 0; i < N; i++) /* far 5%: under the 15% a partition's share is */
        v[i] = i < 950 ? 200 : 400;
    ck_assert(!ls_calib_l2_split(v, N, 0, &near, &far, &share));
    for (int i = 0; i < N; i++) /* 10% apart: not two partitions */
        v[i] = i < 500 ? 200 : 220;
    ck_assert(!ls_calib_l2_split(v, N, 0, &near, &far, &share));
    ck_assert(!ls_calib_l2_split(v, 5, 0, &near, &far, &share)); /* too few */
}
END_TEST

START_TEST(csv_rows_carry_provenance)
{
    ls_calib_result *r = ls_xcalloc(1, sizeof *r);
    synthetic(r);
    ls_diag d;
    ls_diag_clear(&d);
    char *csv = NULL;
    ck_assert_msg(ls_calib_render_csv(r, &csv, &d) == LS_OK, "%s", d.msg);
    const char *prov = ",NVIDIA H100 PCIe,114,575.51.03 (CUDA 12.9),2025-01-02,"
                       "\"lanescope calibrate -o 'a, b.hw' --raw \"\"raw\"\".csv\"\n";
    int rows = 0;
    const char *p = strchr(csv, '\n') + 1;
    ck_assert(strncmp(csv, "benchmark,parameter,value,unit,gpu,sm_count,driver,date,command\n",
                      (size_t)(p - csv)) == 0);
    for (; *p; rows++) {
        const char *eol = strchr(p, '\n');
        ck_assert(eol != NULL);
        size_t len = (size_t)(eol - p) + 1, plen = strlen(prov);
        ck_assert_msg(len > plen && strncmp(eol + 1 - plen, prov, plen) == 0, "row: %.*s", (int)len,
                      p);
        p = eol + 1;
    }
    ck_assert_int_eq(rows, LS_CAL_N + 33); /* every quantity, 32 degrees, one curve point */
    ck_assert(strstr(csv, "\nchase_dram,dram_latency,612.7,cycles,"));
    ck_assert(strstr(csv, "\nsmem_conflict,degree=32,93.6,cycles,"));
    free(csv);
    free(r);
}
END_TEST

static const struct {
    const char *gpu, *want;
} names[] = {
    {"NVIDIA H100 80GB HBM3", "h100"},
    {"NVIDIA H200", "h200"},
    {"NVIDIA A100-SXM4-80GB", "a100"},
    {"Tesla V100-SXM2-16GB", "v100"},
    {"NVIDIA GeForce RTX 4090", "rtx4090"},
    {"NVIDIA", "gpu"},
    {"", "gpu"},
};

START_TEST(short_names)
{
    char buf[24];
    ls_calib_short_name(names[_i].gpu, buf, sizeof buf);
    ck_assert_str_eq(buf, names[_i].want);
}
END_TEST

START_TEST(base_lookup)
{
    char *text = NULL, path[1024];
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_calib_load_base("sm_80", &text, path, sizeof path, &hw, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert_str_eq(hw.name, "a100");
    ck_assert(strstr(path, "a100.hw"));
    free(text);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_calib_load_base("nosuch", &text, path, sizeof path, &hw, &d),
                     LS_ERR_NOTFOUND);
    ck_assert_ptr_null(text);
    ck_assert(strstr(d.msg, "no hardware model 'nosuch'"));
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_calib_load_base("/nonexistent/x.hw", &text, path, sizeof path, &hw, &d),
                     LS_ERR_IO);
}
END_TEST

static Suite *calibrate_suite(void)
{
    Suite *s = suite_create("calibrate");
    size_t n;
    ls_calib_sources(&n);
    TCase *tc = tcase_create("sources");
    tcase_set_timeout(tc, 120); /* NVRTC under the sanitizers */
    tcase_add_test(tc, chain_detector);
    tcase_add_loop_test(tc, sources_compile, 0, (int)n);
    suite_add_tcase(s, tc);
    tc = tcase_create("render");
    tcase_add_test(tc, render_round_trip);
    tcase_add_test(tc, base_keys_keep_their_source);
    tcase_add_loop_test(tc, incomplete_results_rejected, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, csv_rows_carry_provenance);
    tcase_add_test(tc, l2_split);
    tcase_add_loop_test(tc, short_names, 0, (int)(sizeof names / sizeof names[0]));
    tcase_add_test(tc, base_lookup);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(calibrate_suite)
