/* measure.h: the plan as CUDA C, and the runs of it -- on a GPU (timed,
 * checked) or on the CPU through the emulator (checked, untimed).
 *
 * The generated kernel is the program the simulator times (plan.h): the
 * partial-reduction loop with the plan's vector loads, the accumulation,
 * the thread-local reduce, gpu.subgroup_reduce as IREE lowers it for NVIDIA
 * (a __shfl_xor_sync butterfly from the cluster stride upward, sub-32-bit
 * values widened to 32 bits per value; no redux.sync, as IREE does not
 * emit it), the cross-subgroup buffer in __shared__ memory with its 64-bit
 * padding between two __syncthreads, the combine with the init, the
 * guarded store.  Every index is computed from the same layout functions
 * the simulator uses (layout.h), folded into constants at generation time.
 */
#ifndef LANESCOPE_MEASURE_H
#define LANESCOPE_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/functional.h"
#include "lanescope/gpu.h"
#include "lanescope/plan.h"

/* Registers one thread may hold per iteration in generated code: each is a
 * line of unrolled CUDA. */
#define LS_CUDA_MAX_REGISTERS 4096

typedef struct {
    char kernel[64];            /* entry point name */
    unsigned grid[3], block[3];
    int64_t smem_bytes;         /* static __shared__ bytes */
    int n_inputs;               /* the kernel's arguments: inputs 0..n-1, then the output */
    int64_t input_elems[LS_MAX_INPUTS], input_bytes[LS_MAX_INPUTS];
    int input_elem_bytes[LS_MAX_INPUTS];
    int64_t in_elems, out_elems;   /* input 0's elements */
    int in_elem_bytes, out_elem_bytes; /* input 0's */
    int64_t in_bytes, out_bytes;   /* in_bytes: every input's together; out_bytes: the
                                    * output buffer (an arg_compare's indices included) */
    /* arg_compare: the indices follow the values at index_offset (8-byte
     * aligned), index_elem_bytes each; 0 for other reductions */
    int64_t index_offset;
    int index_elem_bytes;
    bool vector_loads;          /* 4/8/16-byte loads where the plan loads vectors */
    int vector_bytes;           /* bytes per vector load (0: none) */
    char vector_note[200];      /* why not, when the plan's loads stay scalar */
} ls_cuda_launch;

/* The CUDA C source of plan (NVIDIA target, subgroup size 32) into a
 * malloc'd string; source_name is quoted in the header comment.  unroll
 * (ls_engine_unroll): iterations per trip of the reduction loop, pinned
 * with #pragma unroll so the measured kernel is the program the simulator
 * times; 0 leaves it to NVRTC.  A plan the generator cannot express is
 * LS_ERR_INVALID with the reason. */
ls_status ls_cuda_generate(const ls_plan *plan, int64_t unroll, const char *source_name, char **src,
                           ls_cuda_launch *launch, ls_diag *diag);

/* Input k's tensor (row-major over its operand dims, its element bytes)
 * from the simulator's generator or a .npy array (input 0), the values the
 * reference reads; malloc'd, launch->input_bytes[k] long. */
void *ls_cuda_make_input(const ls_plan *plan, ls_input_source in, const ls_cuda_launch *launch,
                         int k);
/* The reference value and error bound of every output element (row-major
 * over the output operand), computed once on all host cores. */
typedef struct {
    int64_t n;
    ls_value *value;
    double *bound;
    /* arg_compare: the reference index of each output, and the inputs (a
     * differing index may be a tie, checked against them); else NULL */
    ls_value *index;
    ls_input_source in;
} ls_cuda_reference;
void ls_cuda_reference_compute(const ls_plan *plan, ls_input_source in, ls_cuda_reference *ref);
void ls_cuda_reference_free(ls_cuda_reference *ref);
/* Check an output buffer against it: LS_ERR_INVALID naming the first wrong
 * element. */
ls_status ls_cuda_check_against(const ls_plan *plan, const ls_cuda_reference *ref, const void *out,
                                int64_t *checked, double *max_bound_ratio, ls_diag *diag);
/* Check every output element (row-major over the parallel dims) against
 * the reference reduction, as the functional model does.  Returns
 * LS_ERR_INVALID naming the first wrong element. */
ls_status ls_cuda_check_output(const ls_plan *plan, ls_input_source in, const void *out,
                               int64_t *checked, double *max_bound_ratio, ls_diag *diag);

/* ---- on a GPU ---- */
typedef struct {
    int runs, warmup;           /* timed runs (each after an L2 flush); warm-up runs, at
                                 * least, and at least 25 ms of them (the clock ramps up) */
    bool flush_l2;
    int64_t unroll;             /* the loop's unrolling (ls_cuda_generate); 0: NVRTC's */
} ls_measure_opts;

typedef struct {
    double median_us, min_us, max_us;
    double launch_us;           /* an empty kernel of the same grid and block, timed alike:
                                 * the launch and dispatch floor, which the simulator's
                                 * time does not include yet */
    double gbytes_per_s;        /* input + output bytes over the median time */
    double copy_gbps;           /* the device copy bandwidth measured alongside */
    double copy_fraction;       /* gbytes_per_s / copy_gbps */
    int64_t outputs_checked;
    double max_bound_ratio;
    int regs_per_thread, static_smem;
    int occupancy_blocks;       /* resident blocks per SM (driver) */
    ls_cuda_launch launch;      /* what ran: grid, block, bytes, vector loads */
    int runs;
} ls_measure_result;

/* Compile, run once and check the values, then time.  copy_gbps may be 0
 * (then it is measured here). */
ls_status ls_measure_run(ls_gpu *g, const ls_plan *plan, ls_input_source in,
                         const ls_measure_opts *opts, double copy_gbps, ls_measure_result *res,
                         ls_diag *diag);

/* ---- on the CPU: the generated source compiled by the host C++ compiler
 * ($CXX, else c++) with an emulation prelude (one POSIX thread per CUDA
 * thread, barriers for __syncthreads and warp shuffles), run and checked.
 * Slow: for checking the generator on small problems. */
ls_status ls_cuda_emulate(const ls_plan *plan, ls_input_source in, int64_t *checked,
                          double *max_bound_ratio, ls_diag *diag);
/* The same for a given source (the tests hand it a sabotaged one). */
ls_status ls_cuda_emulate_source(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, int64_t *checked, double *max_bound_ratio,
                                 ls_diag *diag);
/* The emulated run alone: the raw output buffer (launch->out_bytes,
 * malloc'd, the caller's), unchecked. */
ls_status ls_cuda_emulate_output(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, void **output, ls_diag *diag);

#endif
