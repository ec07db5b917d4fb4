/* cli_measure.c: `lanescope measure` -- the plan as CUDA C (--emit-cuda,
 * --ptx), run on the CPU through the emulator (--emulate), or compiled with
 * NVRTC, launched on an NVIDIA GPU through the driver API, checked against
 * the reference and timed, next to the simulator's time for the same plan. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_sim.h"
#include "config.h"
#include "lanescope/engine.h"
#include "lanescope/measure.h"

#define CMD "measure"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: lanescope measure INPUT [--target MODEL] [--runs N] [--warmup N] [--no-flush]\n"
        "                         [--seed N] [--json] [--device N] [--dim N=SIZE]... [-o FILE]\n"
        "       lanescope measure INPUT --emit-cuda [-o FILE]\n"
        "       lanescope measure INPUT --ptx [--arch sm_XY] [-o FILE]\n"
        "       lanescope measure INPUT --emulate [--seed N]\n"
        "       lanescope measure --shape AxB.. --iter pr.. [--type T] [--combiner K]\n"
        "                         [--config ATTR] ...   (a problem without an INPUT file)\n"
        "\n"
        "Run the lowered reduction on an NVIDIA GPU: the plan the simulator times becomes\n"
        "CUDA C (the partial-reduction loop with the plan's vector loads, the thread\n"
        "reduce, __shfl_xor_sync butterflies as IREE lowers gpu.subgroup_reduce for\n"
        "NVIDIA, the cross-subgroup buffer in shared memory between two __syncthreads,\n"
        "the guarded store), compiled at run time by NVRTC and launched through the CUDA\n"
        "driver API.  Inputs come from the simulator's generator (same seed), every output\n"
        "is checked against the reference (a wrong value is an error, exit 1), then the\n"
        "kernel is timed: L2 flushed before each run, CUDA events, median/min/max.\n"
        "A decode attention becomes the kernel `sim` runs lane by lane (the scores' FMA\n"
        "chains and butterflies, the online softmax, the PV update, the merge); its\n"
        "outputs must equal the simulator's lowered values bit for bit.\n"
        "\n"
        "  --target MODEL  NVIDIA hardware model for the plan and the simulated time\n"
        "                  (default: the input's target, else h100): %s\n"
        "  --runs N        timed runs (default 20); --warmup N untimed runs first (default 3,\n"
        "                  and at least 25 ms of GPU time, so the clock has ramped up)\n"
        "  --no-flush      keep L2 between runs (default: flush it before each)\n"
        "  --seed N        input generator seed (default 1)\n"
        "  --json          machine-readable result with its provenance\n"
        "  --device N      GPU ordinal (default 0)\n"
        "  --dim N=SIZE    size of dynamic ('?') loop dim dN of the ops (repeatable; any mode)\n"
        "  --emit-cuda     print the generated CUDA C; needs no GPU\n"
        "  --ptx           compile it with NVRTC and print the PTX; needs no GPU\n"
        "  --arch sm_XY    architecture for --ptx (default: the model's)\n"
        "  --emulate       run the generated CUDA C on the CPU (one thread per CUDA thread,\n"
        "                  host C++ compiler: $CXX or c++) and check its values; no timing\n"
        "  -o FILE         write the output to FILE (atomically)\n"
        "  --config ATTR   use this #iree_gpu.lowering_config<{...}> for every reduction\n"
        "  --shape AxBx..  describe the problem by flags instead of INPUT ...\n"
        "  --iter pr..     ... one letter per dim: p(arallel) or r(eduction)\n"
        "  --type T[:U]    ... element type T, reduced in U (default T)\n"
        "  --combiner K    ... add, mul, minsi, maxnumf, ... (default add)\n"
        "  -h, --help      this help\n"
        "\n"
        "Exit status: 0 ok, 1 error (including a wrong value), 2 usage, 3 no NVIDIA\n"
        "driver/GPU (or this build has no CUDA path).\n",
        ls_hw_names());
}

typedef struct {
    bool emit, ptx, emulate, json, flush;
    int64_t runs, warmup, seed, device;
    const char *target, *output, *arch;
    const char *input;        /* NULL: the problem the flags state */
    ls_import_dims dims;      /* --dim */
    ls_cli_problem_flags pf;  /* --shape ..., --config */
} measure_args;

static int parse_args(int argc, char **argv, measure_args *a)
{
    enum { O_EMIT = 256, O_PTX, O_EMU, O_JSON, O_RUNS, O_WARM, O_SEED, O_DEV, O_TARGET, O_ARCH,
           O_NOFLUSH, O_DIM };
    static const struct option longopts[] = {
        {"emit-cuda", no_argument, NULL, O_EMIT}, {"ptx", no_argument, NULL, O_PTX},
        {"emulate", no_argument, NULL, O_EMU},    {"json", no_argument, NULL, O_JSON},
        {"runs", required_argument, NULL, O_RUNS}, {"warmup", required_argument, NULL, O_WARM},
        {"seed", required_argument, NULL, O_SEED}, {"device", required_argument, NULL, O_DEV},
        {"target", required_argument, NULL, O_TARGET}, {"arch", required_argument, NULL, O_ARCH},
        {"no-flush", no_argument, NULL, O_NOFLUSH}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {"dim", required_argument, NULL, O_DIM},
        LS_CLI_PROBLEM_LONGOPTS,                  {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->runs = 20;
    a->warmup = 3;
    a->seed = 1;
    a->flush = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_EMIT: a->emit = true; break;
        case O_PTX: a->ptx = true; break;
        case O_EMU: a->emulate = true; break;
        case O_JSON: a->json = true; break;
        case O_NOFLUSH: a->flush = false; break;
        case O_RUNS:
            if (!ls_flag_int(CMD, "--runs", optarg, 1, 100000, &a->runs))
                return 2;
            break;
        case O_WARM:
            if (!ls_flag_int(CMD, "--warmup", optarg, 0, 100000, &a->warmup))
                return 2;
            break;
        case O_SEED:
            if (!ls_flag_int(CMD, "--seed", optarg, 0, INT64_MAX, &a->seed))
                return 2;
            break;
        case O_DEV:
            if (!ls_flag_int(CMD, "--device", optarg, 0, 1024, &a->device))
                return 2;
            break;
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &a->target, optarg))
                return 2;
            break;
        case O_ARCH:
            if (!ls_flag_once(CMD, "--arch", &a->arch, optarg))
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &a->dims))
                return 2;
            break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &a->output, optarg))
                return 2;
            break;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &a->pf, c, optarg) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope measure --help)", argv[optind - 1]);
            return 2;
        }
    }
    if ((int)a->emit + (int)a->ptx + (int)a->emulate > 1) {
        ls_cli_error(CMD, "give one of --emit-cuda, --ptx and --emulate");
        return 2;
    }
    if (a->arch && !a->ptx) {
        ls_cli_error(CMD, "--arch applies to --ptx only (a GPU run compiles for its own device)");
        return 2;
    }
    if (a->arch && (strncmp(a->arch, "sm_", 3) != 0 || strlen(a->arch) < 5 ||
                    strspn(a->arch + 3, "0123456789") != strlen(a->arch + 3))) {
        ls_cli_error(CMD, "--arch: '%s' is not an NVIDIA architecture like sm_90", a->arch);
        return 2;
    }
    if (argc - optind > 1) {
        ls_cli_error(CMD, "expected one INPUT (.mlir file), found %d", argc - optind);
        return 2;
    }
    a->input = optind < argc ? argv[optind] : NULL;
    if (!ls_cli_problem_source(CMD, a->input, &a->pf))
        return 2;
    if (a->input == NULL && a->pf.shape == NULL) {
        ls_cli_error(CMD, "expected one INPUT (.mlir file) or --shape/--iter");
        return 2;
    }
    return -1;
}

static void provenance(json_object *o, const ls_gpu_info *gi, int argc, char **argv)
{
    char date[32], cmd[1024];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    size_t u = (size_t)snprintf(cmd, sizeof cmd, "lanescope");
    for (int i = 0; i < argc && u < sizeof cmd; i++)
        u += (size_t)snprintf(cmd + u, sizeof cmd - u, " %s", argv[i]);
    json_object_object_add(o, "gpu", json_object_new_string(gi->name));
    json_object_object_add(o, "sm_count", json_object_new_int(gi->sm_count));
    char cc[16];
    snprintf(cc, sizeof cc, "sm_%d%d", gi->cc_major, gi->cc_minor);
    json_object_object_add(o, "arch", json_object_new_string(cc));
    json_object_object_add(o, "sm_clock_khz", json_object_new_int(gi->clock_khz));
    json_object_object_add(o, "mem_clock_khz", json_object_new_int(gi->mem_clock_khz));
    json_object_object_add(o, "driver_version", json_object_new_int(gi->driver_version));
    char nv[16];
    snprintf(nv, sizeof nv, "%d.%d", gi->nvrtc_major, gi->nvrtc_minor);
    json_object_object_add(o, "nvrtc", json_object_new_string(nv));
    json_object_object_add(o, "date", json_object_new_string(date));
    json_object_object_add(o, "command", json_object_new_string(cmd));
    json_object_object_add(o, "lanescope", json_object_new_string(PACKAGE_VERSION));
}

/* "N outputs match the reference (add f32, seed S)", or for an arg_compare
 * its (value, index) pairs against the op's semantics. */
static void checked_text(const ls_problem *p, int64_t n, int64_t seed, char *buf, size_t size)
{
    if (p->argcmp.on)
        snprintf(buf, size,
                 "%lld (value, index) output%s match%s the op's semantics (%s arg_compare, %s "
                 "indices, seed %lld; a tie the lowering breaks at another position of the best "
                 "value counts as a match)",
                 (long long)n, n == 1 ? "" : "s", n == 1 ? "es" : "",
                 ls_elem_type_name(p->acc_type), ls_elem_type_name(p->argcmp.index_type),
                 (long long)seed);
    else
        snprintf(buf, size, "%lld output%s match%s the reference (%s %s, seed %lld)", (long long)n,
                 n == 1 ? "" : "s", n == 1 ? "es" : "", ls_combiner_name(p->combiner),
                 ls_elem_type_name(p->acc_type), (long long)seed);
}

static void print_measured(FILE *f, const char *name, const char *checked, const ls_gpu_info *gi,
                           const ls_measure_result *r, const ls_sim_result *sim, const ls_hw *hw,
                           const measure_args *a, const ls_cuda_launch *L, int argc, char **argv)
{
    fprintf(f, "%s: measured on %s (%d SMs, sm_%d%d, driver %d.%d, NVRTC %d.%d)\n", name,
            gi->name, gi->sm_count, gi->cc_major, gi->cc_minor, gi->driver_version / 1000,
            (gi->driver_version % 1000) / 10, gi->nvrtc_major, gi->nvrtc_minor);
    fprintf(f, "  median %.3f us (min %.3f, max %.3f; %d runs after %lld warm-up, L2 %s)\n",
            r->median_us, r->min_us, r->max_us, r->runs, (long long)a->warmup,
            a->flush ? "flushed before each" : "kept warm");
    fprintf(f, "  %.3f MB moved: %.1f GB/s = %.1f%% of the measured device copy bandwidth "
               "(%.0f GB/s)\n",
            (double)(L->in_bytes + L->out_bytes) / 1e6, r->gbytes_per_s, 100 * r->copy_fraction,
            r->copy_gbps);
    fprintf(f, "  launch floor: %.3f us (an empty kernel of the same grid and block, timed alike; "
               "the simulated time does not include it)\n",
            r->launch_us);
    fprintf(f, "  simulated on %s: %.3f us; measured / simulated = %.3f\n", hw->name, sim->time_us,
            sim->time_us > 0 ? r->median_us / sim->time_us : 0);
    fprintf(f, "  kernel: %d registers per thread, %d bytes of shared memory, %d blocks per SM "
               "resident; %s loads\n",
            r->regs_per_thread, r->static_smem, r->occupancy_blocks,
            L->vector_loads ? "vector" : "scalar");
    fprintf(f, "  values checked: %s\n", checked);
    json_object *o = json_object_new_object();
    provenance(o, gi, argc, argv);
    json_object *v;
    fprintf(f, "  provenance:");
    static const char *keys[] = {"date", "sm_clock_khz", "mem_clock_khz", "command"};
    for (int i = 0; i < 4; i++)
        if (json_object_object_get_ex(o, keys[i], &v))
            fprintf(f, " %s=%s", keys[i], json_object_get_string(v));
    fprintf(f, "\n");
    json_object_put(o);
}

/* --emit-cuda: the source on out; --ptx: NVRTC's PTX of it. */
static ls_status emit_or_ptx(const char *src, const char *file, const ls_hw *hw,
                             const measure_args *a, FILE *out, ls_diag *diag)
{
    if (a->emit) {
        fputs(src, out);
        return LS_OK;
    }
    ls_nvrtc *nv = NULL;
    char *ptx = NULL, *log = NULL;
    size_t n;
    ls_status st = ls_nvrtc_open(&nv, diag);
    if (!st)
        st = ls_nvrtc_compile(nv, src, file, a->arch ? a->arch : hw->arch, false, &ptx, &n, &log,
                              diag);
    if (!st) {
        if (log && *log)
            fprintf(stderr, "lanescope measure: NVRTC said: %s\n", log);
        fputs(ptx, out);
    }
    free(ptx);
    free(log);
    ls_nvrtc_close(nv);
    return st;
}

/* The JSON record of one measured kernel. */
static json_object *measured_json(const char *name, const ls_measure_result *r,
                                  const ls_sim_result *sim, const ls_hw *hw, const measure_args *a,
                                  const ls_gpu_info *gi, int argc, char **argv)
{
    const ls_cuda_launch L = r->launch; /* what ran, not generated again */
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "median_us", json_object_new_double(r->median_us));
    json_object_object_add(o, "min_us", json_object_new_double(r->min_us));
    json_object_object_add(o, "max_us", json_object_new_double(r->max_us));
    json_object_object_add(o, "runs", json_object_new_int(r->runs));
    json_object_object_add(o, "launch_us", json_object_new_double(r->launch_us));
    json_object_object_add(o, "l2_flushed", json_object_new_boolean(a->flush));
    json_object_object_add(o, "bytes", json_object_new_int64(L.in_bytes + L.out_bytes));
    json_object_object_add(o, "gbytes_per_s", json_object_new_double(r->gbytes_per_s));
    json_object_object_add(o, "copy_gbps", json_object_new_double(r->copy_gbps));
    json_object_object_add(o, "copy_fraction", json_object_new_double(r->copy_fraction));
    json_object_object_add(o, "simulated_us", json_object_new_double(sim->time_us));
    json_object_object_add(o, "model", json_object_new_string(hw->name));
    json_object_object_add(o, "registers", json_object_new_int(r->regs_per_thread));
    json_object_object_add(o, "blocks_per_sm", json_object_new_int(r->occupancy_blocks));
    json_object_object_add(o, "outputs_checked", json_object_new_int64(r->outputs_checked));
    json_object_object_add(o, "seed", json_object_new_int64(a->seed));
    provenance(o, gi, argc, argv);
    return o;
}

/* One reduction: emit, compile, emulate or measure into out. */
static ls_status measure_one(ls_problem *p, ls_plan *plan, const ls_hw *hw, const measure_args *a,
                             ls_input_source in, ls_gpu **gpu, FILE *out, json_object *arr,
                             int argc, char **argv, ls_diag *diag)
{
    if (a->emit || a->ptx) {
        char *src = NULL;
        ls_cuda_launch L;
        ls_status st = ls_cuda_generate(plan, ls_engine_unroll(plan, hw), p->file, &src, &L, diag);
        if (!st)
            st = emit_or_ptx(src, p->file, hw, a, out, diag);
        free(src);
        return st;
    }
    if (a->emulate) {
        ls_cuda_emu_result er;
        ls_status st = ls_cuda_emulate(plan, in, &er, diag);
        char what[300];
        checked_text(p, er.checked, a->seed, what, sizeof what);
        if (st)
            return st;
        fprintf(out, "%s: emulated on the CPU: %s%s\n", p->name, what,
                er.max_bound_ratio > 0 ? "; float error within the rounding bound" : "");
        if (er.sim_equal > 0)
            fprintf(out, "  and %s the simulator's, bit for bit (it combines in IREE's order)\n",
                    er.sim_equal == 1 ? "is" : "are");
        else if (!p->argcmp.on)
            fprintf(out, "  (not compared with the simulator's values: its functional run is past "
                         "the budget)\n");
        return LS_OK;
    }
    ls_status st;
    if (!*gpu && (st = ls_gpu_open((int)a->device, gpu, diag)))
        return st;
    ls_measure_opts mo = {(int)a->runs, (int)a->warmup, a->flush, ls_engine_unroll(plan, hw)};
    ls_measure_result r;
    if ((st = ls_measure_run(*gpu, plan, in, &mo, 0, &r, diag)))
        return st;
    ls_sim_result sim;
    if ((st = ls_engine_run(plan, hw, &sim, NULL, diag)))
        return st;
    const ls_gpu_info *gi = ls_gpu_get_info(*gpu);
    if (!a->json) {
        char what[300];
        checked_text(p, r.outputs_checked, a->seed, what, sizeof what);
        print_measured(out, p->name, what, gi, &r, &sim, hw, a, &r.launch, argc, argv);
        return LS_OK;
    }
    json_object_array_add(arr, measured_json(p->name, &r, &sim, hw, a, gi, argc, argv));
    return LS_OK;
}

/* The machine is NVIDIA's, else the refusal: a --target that names another
 * vendor is a bad flag (usage), an input whose own target does bad input. */
static ls_status nvidia_only(const ls_hw *hw, const measure_args *a, ls_diag *diag)
{
    if (strncmp(hw->arch, "sm_", 3) == 0)
        return LS_OK;
    return ls_diag_set(diag, a->target ? LS_ERR_USAGE : LS_ERR_INVALID,
                       a->target  ? "--target"
                       : a->input ? a->input
                                  : "--shape",
                       0, 0,
                       "%s (%s) is not an NVIDIA target; the CUDA path runs NVIDIA plans "
                       "(give --target h100, a100 or an NVIDIA .hw file)",
                       hw->name, hw->arch);
}

/* Every reduction's machine, derived layout and plan: a dispatch's one
 * kernel is built from all of them. */
static ls_status build_plans(ls_module *m, const measure_args *a, ls_derived *d, ls_plan *plans,
                             ls_hw *hws, ls_diag *diag)
{
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        /* nothing names a machine: the CUDA path's, not the by-subgroup-size guess */
        const char *target = a->target || m->has_target ? a->target : "h100";
        if (ls_cli_model(m, p, target, &hws[i], diag) || nvidia_only(&hws[i], a, diag) ||
            ls_derive(p, &d[i], diag) ||
            ls_plan_build(p, &d[i], ls_plan_target_from_arch(hws[i].arch), &plans[i], diag))
            return diag->status;
    }
    return LS_OK;
}

/* Attention op i of m: emit, compile, emulate or measure into out; its
 * values compared with the simulator's lowered ones bit for bit. */
static ls_status measure_attention(ls_module *m, size_t i, const measure_args *a, ls_gpu **gpu,
                                   FILE *out, json_object *arr, int argc, char **argv,
                                   ls_diag *diag)
{
    const char *target = a->target || m->has_target ? a->target : "h100";
    const ls_module_attention *ma = &m->attentions[i];
    ls_hw hw;
    ls_attention *att = NULL;
    ls_att_view *view = NULL;
    char *src = NULL;
    ls_status st = ls_cli_attention_view(m, i, target, &hw, &att, &view, diag);
    if (!st)
        st = nvidia_only(&hw, a, diag);
    ls_cuda_att_check chk;
    if (st) {
    } else if (a->emit || a->ptx) {
        ls_cuda_att_launch L;
        if (!(st = ls_cuda_generate_attention(m, ma, att, view, att->file, &src, &L, diag)))
            st = emit_or_ptx(src, att->file, &hw, a, out, diag);
    } else if (a->emulate) {
        if (!(st = ls_cuda_emulate_attention(m, ma, att, view, att->file, NULL, (uint64_t)a->seed,
                                             &chk, diag)))
            fprintf(out,
                    "%s: emulated on the CPU: %lld output%s of %lld workgroup%s equal the "
                    "simulator's lowered values bit for bit (seed %lld; `lanescope sim` checks "
                    "those against the op)\n",
                    att->name, (long long)chk.sim_equal, ls_s(chk.sim_equal),
                    (long long)chk.workgroups, ls_s(chk.workgroups), (long long)a->seed);
    } else if (*gpu || !(st = ls_gpu_open((int)a->device, gpu, diag))) {
        ls_measure_opts mo = {(int)a->runs, (int)a->warmup, a->flush, 0};
        ls_measure_result r;
        ls_sim_result sim;
        if (!(st = ls_measure_run_attention(*gpu, m, ma, att, view, (uint64_t)a->seed, &mo, 0, &r,
                                            &chk, diag)) &&
            !(st = ls_engine_run(ls_att_view_plan(view), &hw, &sim, NULL, diag))) {
            const ls_gpu_info *gi = ls_gpu_get_info(*gpu);
            char what[300];
            snprintf(what, sizeof what,
                     "%lld output%s of %lld workgroup%s equal the simulator's lowered values bit "
                     "for bit (seed %lld)",
                     (long long)chk.sim_equal, ls_s(chk.sim_equal), (long long)chk.workgroups,
                     ls_s(chk.workgroups), (long long)a->seed);
            if (a->json)
                json_object_array_add(arr,
                                      measured_json(att->name, &r, &sim, &hw, a, gi, argc, argv));
            else
                print_measured(out, att->name, what, gi, &r, &sim, &hw, a, &r.launch, argc, argv);
        }
    }
    free(src);
    ls_att_view_free(view);
    free(att);
    return st;
}

/* What each phase's check covered, one line each (indent before each). */
static void phases_checked(FILE *f, const ls_fused_kernel *k, const ls_cuda_fused_check *chk,
                           int64_t seed, const char *indent)
{
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        char what[300];
        if (ph->elementwise || ph->epilogue)
            snprintf(what, sizeof what, "%lld elements match its body bit for bit (seed %lld)",
                     (long long)chk->checked[i], (long long)seed);
        else
            checked_text(ph->plan->problem, chk->checked[i], seed, what, sizeof what);
        fprintf(f, "%sphase %d, %s: %s%s\n", indent, i, ph->what, what,
                chk->max_bound_ratio[i] > 0 ? "; float error within the rounding bound" : "");
        if (chk->sim_equal[i] > 0)
            fprintf(f, "%s  and %s the simulator's, bit for bit (it combines in IREE's order)\n",
                    indent, chk->sim_equal[i] == 1 ? "is" : "are");
        if (ph->producer_op >= 0)
            fprintf(f, "%s  and %s, which its loop writes: %lld elements match its body bit for "
                       "bit\n",
                    indent, ph->producer_what, (long long)chk->producer_checked[i]);
    }
}

/* A dispatch's loops as its one kernel (fused.h): emit, compile, emulate
 * or measure into out. */
static ls_status measure_fused(const ls_fused_kernel *k, const ls_hw *hw, const measure_args *a,
                               ls_gpu **gpu, FILE *out, json_object *arr, int argc, char **argv,
                               ls_diag *diag)
{
    const ls_problem *lp = k->plan.problem;
    int64_t unroll[LS_FUSED_MAX_PHASES];
    ls_engine_fused_unrolls(k, hw, unroll);
    ls_status st;
    if (a->emit || a->ptx) {
        char *src = NULL;
        ls_cuda_fused_launch L;
        if (!(st = ls_cuda_generate_fused(k, unroll, lp->file, &src, &L, diag)))
            st = emit_or_ptx(src, lp->file, hw, a, out, diag);
        free(src);
        return st;
    }
    ls_cuda_fused_check chk;
    if (a->emulate) {
        if ((st = ls_cuda_emulate_fused(k, lp->file, (uint64_t)a->seed, &chk, diag)))
            return st;
        fprintf(out, "%s: emulated on the CPU as the dispatch's one kernel (%d phase%s):\n",
                lp->name, k->n_phases, k->n_phases == 1 ? "" : "s");
        phases_checked(out, k, &chk, a->seed, "  ");
        return LS_OK;
    }
    if (!*gpu && (st = ls_gpu_open((int)a->device, gpu, diag)))
        return st;
    ls_measure_opts mo = {(int)a->runs, (int)a->warmup, a->flush, 0};
    ls_measure_result r;
    ls_sim_result sim;
    if ((st = ls_measure_run_fused(*gpu, k, unroll, (uint64_t)a->seed, &mo, 0, &r, &chk, diag)) ||
        (st = ls_engine_run(&k->plan, hw, &sim, NULL, diag)))
        return st;
    const ls_gpu_info *gi = ls_gpu_get_info(*gpu);
    char name[300];
    snprintf(name, sizeof name, "%s (the dispatch's one kernel, %d phase%s)", lp->name,
             k->n_phases, k->n_phases == 1 ? "" : "s");
    if (!a->json) {
        char what[300];
        snprintf(what, sizeof what, "%lld outputs of %d phase%s, each phase:",
                 (long long)r.outputs_checked, k->n_phases, k->n_phases == 1 ? "" : "s");
        print_measured(out, name, what, gi, &r, &sim, hw, a, &r.launch, argc, argv);
        phases_checked(out, k, &chk, a->seed, "    ");
        return LS_OK;
    }
    json_object *o = measured_json(lp->name, &r, &sim, hw, a, gi, argc, argv);
    json_object_object_add(o, "phases", json_object_new_int(k->n_phases));
    json_object_array_add(arr, o);
    return LS_OK;
}

/* Reduction j alone; another reduction's results it reads (softmax's
 * max) are an input of the reference's values of that reduction. */
static ls_status measure_apart(ls_module *m, size_t j, ls_plan *plans, const ls_hw *hw,
                               const measure_args *a, ls_gpu **gpu, FILE *out, json_object *arr,
                               int argc, char **argv, ls_diag *diag)
{
    ls_input_source in = {(uint64_t)a->seed, NULL, {NULL}};
    if (ls_bind_intermediates(m->problems, m->n_problems, j, &in, diag))
        return diag->status;
    ls_status st =
        measure_one(&m->problems[j], &plans[j], hw, a, in, gpu, out, arr, argc, argv, diag);
    ls_free_intermediates(&in);
    return st;
}

int ls_cmd_measure(int argc, char **argv)
{
    measure_args a;
    int prc = parse_args(argc, argv, &a);
    if (prc >= 0)
        return prc;
    const char *input = a.input ? a.input : "--shape";
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *d = NULL;
    ls_plan *plans = NULL;
    ls_hw *hws = NULL;
    ls_fused_kernel *fused = NULL;
    ls_gpu *gpu = NULL;
    json_object *arr = a.json ? json_object_new_array() : NULL;
    ls_out out;
    ls_out_open(&out);
    int rc = 1;
    a.pf.import_flags = LS_IMPORT_ATTENTION; /* measured below (measure_attention) */
    if (ls_cli_problem_load(a.input, &a.pf, &a.dims, m, &diag))
        goto fail;
    if (m->n_problems == 0 && m->n_attentions == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, input, 0, 0,
                    "no linalg.generic/linalg.reduce with a reduction, and no attention, to "
                    "measure");
        goto fail;
    }
    for (size_t i = 0; i < m->n_attentions; i++)
        if (measure_attention(m, i, &a, &gpu, out.f, arr, argc, argv, &diag))
            goto fail;
    d = ls_xcalloc(m->n_problems, sizeof *d);
    plans = ls_xcalloc(m->n_problems, sizeof *plans);
    hws = ls_xcalloc(m->n_problems, sizeof *hws);
    if (build_plans(m, &a, d, plans, hws, &diag))
        goto fail;
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        if (p->dispatch >= 0 && ls_fused_first(m, i) != i)
            continue; /* in its dispatch's one kernel, or measured apart below */
        if (p->dispatch >= 0) {
            /* the dispatch's loops as IREE's one kernel where the simulator
             * times them so; else each reduction apart, as `sim` says why */
            fused = ls_xmalloc(sizeof *fused);
            char why[512];
            if (ls_fused_build(m, i, plans, fused, why, sizeof why)) {
                if (ls_cuda_fused_supported(fused, why, sizeof why)) {
                    if (measure_fused(fused, &hws[i], &a, &gpu, out.f, arr, argc, argv, &diag))
                        goto fail;
                    free(fused);
                    fused = NULL;
                    continue;
                }
            }
            /* say why the loops are apart: `sim` times one kernel that this
             * does not generate, or `sim` times them apart too (it says why) */
            if (why[0])
                fprintf(stderr, "lanescope measure: note: %s; each reduction of the dispatch is "
                                "generated as its own kernel\n",
                        why);
            free(fused);
            fused = NULL;
        }
        for (size_t j = i; j < m->n_problems && (j == i || (p->dispatch >= 0 &&
                                                            m->problems[j].dispatch == p->dispatch));
             j++)
            if (measure_apart(m, j, plans, &hws[j], &a, &gpu, out.f, arr, argc, argv, &diag))
                goto fail;
    }
    if (arr) {
        /* one document: the schema, then every reduction's measurement */
        json_object *root = ls_cli_json_root("measure");
        json_object_object_add(root, "input", json_object_new_string(input));
        json_object_object_add(root, "reductions", json_object_get(arr));
        fprintf(out.f, "%s\n", json_object_to_json_string_ext(
                                   root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    }
    rc = ls_out_commit(&out, a.output);
    goto done;
fail:
    ls_out_discard(&out);
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_UNAVAILABLE ? LS_EXIT_NO_GPU : diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    if (arr)
        json_object_put(arr);
    ls_gpu_close(gpu);
    free(fused);
    free(hws);
    free(plans);
    free(d);
    free(m);
    return rc;
}
