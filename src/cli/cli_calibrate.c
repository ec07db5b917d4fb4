/* cli_calibrate.c: `lanescope calibrate` -- run the CUDA microbenchmarks
 * (calibrate.h) on an NVIDIA GPU and write a hardware model from them, plus
 * the raw data points as CSV.  Everything is measured and rendered before
 * anything is written; both files are written atomically. */
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lanescope/atomic.h"
#include "lanescope/calibrate.h"
#include "lanescope/gpu.h"

#define CMD "calibrate"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope calibrate -o FILE.hw [--base MODEL] [--raw FILE.csv]\n"
            "                           [--device N] [--quick]\n"
            "\n"
            "Measure the NVIDIA GPU with CUDA microbenchmarks (compiled at run time with\n"
            "NVRTC) and write a hardware model for --target: the SM clock while running;\n"
            "L1, L2, DRAM and shared-memory load latency (pointer chases); shared-memory\n"
            "cost for conflict degrees 1..32; FMA and shuffle latency; shuffle issue rate;\n"
            "__syncthreads cost for 1..32 warps; DRAM bandwidth against bytes in flight;\n"
            "L2 bandwidth; launch overhead and block dispatch rate.  A few seconds.\n"
            "\n"
            "  -o, --output FILE  the model to write (e.g. h100-calibrated.hw)\n"
            "  --base MODEL       where the keys no benchmark measures come from, with\n"
            "                     their sources: %s, or a .hw\n"
            "                     file (default h100)\n"
            "  --raw FILE.csv     every data point, one row each, with the GPU, driver,\n"
            "                     date and command\n"
            "  --device N         CUDA device ordinal (default 0)\n"
            "  --quick            fewer repetitions and shorter chains\n"
            "  -h, --help         this help\n"
            "\n"
            "Every measured key's source names the GPU, SM count, driver, date and the\n"
            "microbenchmark.  Exit status: 0 written, 1 a failed measurement or write\n"
            "(nothing written), 2 a bad flag, 3 no NVIDIA driver or GPU.\n",
            ls_hw_names());
}

/* A microbenchmark takes seconds: one line each, redrawn on a terminal,
 * whole lines elsewhere (a log of a calibration is never silent). */
static void progress(void *ctx, int index, int total, const char *bench)
{
    bool tty = *(const bool *)ctx;
    fprintf(stderr, "%slanescope calibrate: [%d/%d] %s%s", tty ? "\r\033[K" : "", index + 1, total,
            bench, tty ? "" : "\n");
    if (tty && index + 1 == total)
        fputc('\n', stderr); /* the last line stays; the next output starts clean */
}

/* The command line as it was typed, arguments with spaces quoted. */
static void command_line(int argc, char **argv, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "lanescope");
    for (int i = 0; i < argc && n < size; i++) {
        bool q = argv[i][0] == 0 || strpbrk(argv[i], " \t'\"") != NULL;
        n += (size_t)snprintf(buf + n, size - n, q ? " '%s'" : " %s", argv[i]);
    }
}

/* A folder we cannot write to fails now, not after the GPU time. */
static bool writable_folder(const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return false;
    bool ok = access(dirname(copy), W_OK) == 0;
    free(copy);
    if (!ok)
        ls_cli_error(CMD, "%s: cannot write in its folder", path);
    return ok;
}

static void print_summary(const ls_calib_result *r, const char *text, const ls_hw *base,
                          const char *out_path, const char *raw_path, double seconds)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_hw_parse(text, out_path, &hw, &d))
        return; /* rendered text always parses (ls_calib_render_hw checked it) */
    printf("calibrated %s (%d SMs, driver %s, %s) in %.1f s\n", r->prov.gpu, r->prov.sm_count,
           r->prov.driver, r->prov.arch, seconds);
    printf("  %-18s %12s %12s\n", "key", "measured", base->name);
    const struct {
        const char *key;
        double now, was;
    } rows[] = {
        {"clock_mhz", (double)hw.clock_mhz, (double)base->clock_mhz},
        {"smem_latency", (double)hw.smem_latency, (double)base->smem_latency},
        {"alu_latency", (double)hw.alu_latency, (double)base->alu_latency},
        {"shuffle_latency", (double)hw.shuffle_latency, (double)base->shuffle_latency},
        {"shuffle_interval", (double)hw.shuffle_interval, (double)base->shuffle_interval},
        {"barrier_latency", (double)hw.barrier_latency, (double)base->barrier_latency},
        {"l2_latency", (double)hw.l2_latency, (double)base->l2_latency},
        {"dram_latency", (double)hw.dram_latency, (double)base->dram_latency},
        {"dram_gbps", hw.dram_gbps, base->dram_gbps},
        {"wgp_count", (double)hw.wgp_count, (double)base->wgp_count},
        {"l2_bytes", (double)hw.l2_bytes, (double)base->l2_bytes},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("  %-18s %12.0f %12.0f\n", rows[i].key, rows[i].now, rows[i].was);
    printf("  L1 latency %.1f cycles, L2 %.0f GB/s, launch %.2f us, dispatch %.1f blocks/us\n",
           r->q[LS_CAL_L1_LATENCY].value, r->q[LS_CAL_L2_GBPS].value, r->q[LS_CAL_LAUNCH_US].value,
           r->q[LS_CAL_DISPATCH].value);
    printf("wrote %s (%s)", out_path, hw.name);
    if (raw_path)
        printf(" and %s (%d data points)", raw_path, r->n_points);
    printf("\n");
}

/* Measure on device `device` and write the files; returns the exit status. */
static int calibrate(const char *out_path, const char *raw_path, const char *base_text,
                     const char *base_path, const ls_hw *base, int device, bool quick,
                     const char *command)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_gpu *g = NULL;
    ls_status st = ls_gpu_open(device, &g, &diag);
    if (st) {
        ls_cli_report(CMD, &diag);
        return st == LS_ERR_UNAVAILABLE ? LS_EXIT_NO_GPU : st == LS_ERR_USAGE ? 2 : 1;
    }
    ls_calib_result *r = ls_xcalloc(1, sizeof *r);
    bool tty = isatty(STDERR_FILENO);
    ls_calib_opts opts = {0, quick, progress, &tty};
    double t0 = ls_cli_now();
    st = ls_calib_run(g, &opts, r, &diag);
    ls_gpu_close(g);
    char *text = NULL, *csv = NULL;
    if (!st) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(r->prov.date, sizeof r->prov.date, "%Y-%m-%d", &tm);
        snprintf(r->prov.command, sizeof r->prov.command, "%s", command);
        st = ls_calib_render_hw(r, base_text, base_path, &text, &diag);
    }
    if (!st && raw_path)
        st = ls_calib_render_csv(r, &csv, &diag);
    int rc = 0;
    char err[512];
    if (st) {
        if (tty)
            fputc('\n', stderr); /* end the progress line */
        ls_cli_report(CMD, &diag);
        rc = 1;
    } else {
        ls_out_set_begin(); /* the pair or nothing */
        if ((raw_path && ls_write_atomic(raw_path, csv, strlen(csv), err, sizeof err)) ||
            ls_write_atomic(out_path, text, strlen(text), err, sizeof err) ||
            ls_out_set_commit(err, sizeof err)) {
            ls_out_set_abort();
            ls_cli_error(CMD, "%s", err);
            rc = 1;
        } else {
            print_summary(r, text, base, out_path, raw_path, ls_cli_now() - t0);
        }
    }
    free(text);
    free(csv);
    free(r);
    return rc;
}

int ls_cmd_calibrate(int argc, char **argv)
{
    enum { O_BASE = 256, O_RAW, O_DEVICE, O_QUICK };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"base", required_argument, NULL, O_BASE},
        {"raw", required_argument, NULL, O_RAW},
        {"device", required_argument, NULL, O_DEVICE},
        {"quick", no_argument, NULL, O_QUICK},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out_path = NULL, *raw_path = NULL, *base_name = NULL;
    int64_t device = 0;
    bool quick = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!ls_flag_once(CMD, "-o", &out_path, optarg))
                return 2;
            break;
        case O_BASE:
            if (!ls_flag_once(CMD, "--base", &base_name, optarg))
                return 2;
            break;
        case O_RAW:
            if (!ls_flag_once(CMD, "--raw", &raw_path, optarg))
                return 2;
            break;
        case O_QUICK: quick = true; break;
        case O_DEVICE:
            if (!ls_flag_int(CMD, "--device", optarg, 0, 1023, &device))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope calibrate --help)",
                         argv[optind - 1]);
            return 2;
        }
    }
    if (base_name == NULL)
        base_name = "h100"; /* the default base model */
    if (optind < argc) {
        ls_cli_error(CMD, "unexpected argument '%s' (calibrate takes no INPUT)", argv[optind]);
        return 2;
    }
    if (out_path == NULL) {
        ls_cli_error(CMD, "-o FILE.hw is required (where the calibrated model goes)");
        return 2;
    }
    if (raw_path && strcmp(raw_path, out_path) == 0) {
        ls_cli_error(CMD, "--raw and -o name the same file '%s'", out_path);
        return 2;
    }
    if (!writable_folder(out_path) || (raw_path && !writable_folder(raw_path)))
        return 1;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_hw base;
    char *base_text = NULL, base_path[1024];
    if (ls_calib_load_base(base_name, &base_text, base_path, sizeof base_path, &base, &diag)) {
        ls_cli_report(CMD, &diag);
        return 1;
    }
    char command[512];
    command_line(argc, argv, command, sizeof command);
    int rc =
        calibrate(out_path, raw_path, base_text, base_path, &base, (int)device, quick, command);
    free(base_text);
    return rc;
}
