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

#include "lanescope/attention.h"
#include "lanescope/functional.h"
#include "lanescope/fused.h"
#include "lanescope/gpu.h"
#include "lanescope/plan.h"

/* Registers one thread may hold per iteration in generated code: each is a
 * line of unrolled CUDA. */
#define LS_CUDA_MAX_REGISTERS 4096
/* Unrolled operations one thread of a generated attention kernel may run
 * per K2 step: each is a line of CUDA. */
#define LS_CUDA_MAX_LINES 65536

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

/* Element i of a tensor of type t as the GPU holds it (little-endian; i4
 * two to a byte, the low nibble first), and back. */
void ls_cuda_pack_element(unsigned char *buf, int64_t i, ls_value v, ls_elem_type t);
ls_value ls_cuda_unpack_element(const unsigned char *buf, int64_t i, ls_elem_type t);
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
typedef struct {
    int64_t checked;        /* outputs that match the reference */
    double max_bound_ratio; /* of float sums and products: |kernel - ref| / bound */
    /* Outputs compared bit for bit with the simulator's functional run,
     * which computes them in IREE's order (ls_functional_run): every
     * output, or 0 where it was not run (arg_compare, whose ties the
     * reference check already settles, or past the functional budget). */
    int64_t sim_equal;
} ls_cuda_emu_result;
ls_status ls_cuda_emulate(const ls_plan *plan, ls_input_source in, ls_cuda_emu_result *res,
                          ls_diag *diag);
/* A kernel's outputs (n of them, as the generator lays them out) against
 * the simulator's functional run, which combines in IREE's order: bit for
 * bit (any NaN equals any NaN), so that a generator combining in another
 * order -- which the reference's rounding bound lets pass -- is caught.
 * equal: the outputs compared, all equal; 0 where the run is not made
 * (arg_compare, whose ties the reference check settles, or a run past the
 * functional budget).  A difference is LS_ERR_INVALID, the first one
 * described. */
ls_status ls_cuda_compare_sim(const ls_plan *plan, ls_input_source in, const void *out, int64_t n,
                              int64_t *equal, ls_diag *diag);
/* The same for a given source (the tests hand it a sabotaged one), the
 * simulator's comparison included. */
ls_status ls_cuda_emulate_source(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, int64_t *checked, double *max_bound_ratio,
                                 ls_diag *diag);
/* The emulator's core: src compiled for the CPU and `call` run by every
 * thread of grid blocks of block threads, its arguments t->in[k] and
 * t->out[j] (in and out as given); file:line:col names the input in a
 * compile error. */
ls_status ls_cuda_emulate_call(const char *src, const char *call, const void *const *in,
                               void *const *out, unsigned grid, unsigned block, const char *file,
                               int line, int col, ls_diag *diag);
/* The emulated run alone: the raw output buffer (launch->out_bytes,
 * malloc'd, the caller's), unchecked. */
ls_status ls_cuda_emulate_output(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, void **output, ls_diag *diag);

/* ---- a dispatch's one kernel (fused.h; src/cuda/codegen_fused.c) ----
 *
 * The phases ls_fused_build gives, in program order, in one launch: each
 * phase is the device function its own plan generates (in a namespace of
 * its own, so each keeps its types, combine and body), a reduction's
 * result or an elementwise op's written to a buffer of its own.  A phase
 * reading an earlier phase's result (softmax's sum reading the max) reads
 * that buffer after a __syncthreads: the same workgroup wrote it, so the
 * barrier makes it visible.  IREE keeps such a result in registers; the
 * kernel's header says so. */
#define LS_CUDA_FUSED_MAX_OUTPUTS (2 * LS_FUSED_MAX_PHASES)
typedef struct {
    char kernel[64];
    unsigned grid[3], block[3];
    int64_t smem_bytes;            /* every phase's static __shared__ together */
    int n_inputs;                  /* the kernel's tensors (k->problem's inputs) */
    int64_t input_elems[LS_MAX_INPUTS], input_bytes[LS_MAX_INPUTS];
    ls_elem_type input_type[LS_MAX_INPUTS];
    /* the earlier input that is the same tensor (ls_fused_input_alias: read
     * in another phase's loops), passed the same buffer; else -1 */
    int input_alias[LS_MAX_INPUTS];
    /* one per phase, in phase order, then one per stored producer a
     * reduction's loop writes (producer_output[phase], else -1) */
    int n_outputs;
    int64_t output_elems[LS_CUDA_FUSED_MAX_OUTPUTS], output_bytes[LS_CUDA_FUSED_MAX_OUTPUTS];
    ls_elem_type output_type[LS_CUDA_FUSED_MAX_OUTPUTS];
    int producer_output[LS_FUSED_MAX_PHASES];
    int64_t in_bytes, out_bytes;   /* all together */
    int vector_phases;             /* phases with vector loads */
} ls_cuda_fused_launch;

/* Whether the generator can express k; why the reason when not (a phase
 * it does not generate yet: the caller can measure the reductions apart). */
bool ls_cuda_fused_supported(const ls_fused_kernel *k, char *why, size_t size);
/* unroll: each phase's #pragma unroll (NULL: none).  A kernel the
 * generator cannot express is LS_ERR_INVALID with the reason. */
ls_status ls_cuda_generate_fused(const ls_fused_kernel *k, const int64_t *unroll,
                                 const char *source_name, char **src,
                                 ls_cuda_fused_launch *launch, ls_diag *diag);

/* Every output of every phase, checked as the separate kernels' are: a
 * reduction's against the reference reduction, an elementwise op's bit for
 * bit against the body at each element.  A phase reading an earlier result
 * is checked against the reference computed from the result the kernel
 * wrote (itself checked), so each phase answers for its own arithmetic. */
typedef struct {
    int64_t checked[LS_FUSED_MAX_PHASES];
    double max_bound_ratio[LS_FUSED_MAX_PHASES];
    int64_t producer_checked[LS_FUSED_MAX_PHASES]; /* a stored producer's elements */
    /* emulated: a reduction phase's outputs equal to the simulator's bit
     * for bit (ls_cuda_compare_sim; 0: not compared) */
    int64_t sim_equal[LS_FUSED_MAX_PHASES];
} ls_cuda_fused_check;

/* The kernel's input tensors for a seed: values[u] (ls_value, malloc'd)
 * and bytes[u] (as uploaded, malloc'd), u < launch->n_inputs. */
void ls_cuda_fused_inputs(const ls_fused_kernel *k, const ls_cuda_fused_launch *launch,
                          uint64_t seed, ls_value **values, void **bytes);
ls_status ls_cuda_fused_check_outputs(const ls_fused_kernel *k, const ls_cuda_fused_launch *launch,
                                      ls_value *const *values, void *const *outputs,
                                      uint64_t seed, ls_cuda_fused_check *res, ls_diag *diag);
/* Generated, emulated on the CPU and checked. */
ls_status ls_cuda_emulate_fused(const ls_fused_kernel *k, const char *source_name, uint64_t seed,
                                ls_cuda_fused_check *res, ls_diag *diag);
/* On a GPU: compiled, run once and checked, timed (as ls_measure_run),
 * checked again; res->launch holds the kernel's grid, block and bytes,
 * res->outputs_checked every phase's outputs together, chk each phase's. */
ls_status ls_measure_run_fused(ls_gpu *g, const ls_fused_kernel *k, const int64_t *unroll,
                               uint64_t seed, const ls_measure_opts *opts, double copy_gbps,
                               ls_measure_result *res, ls_cuda_fused_check *chk, ls_diag *diag);
/* A kernel's outputs (n of them, as the generator lays them out) against
 * the simulator's functional run, which combines in IREE's order: bit for
 * bit (any NaN equals any NaN), so that a generator combining in another
 * order -- which the reference's rounding bound lets pass -- is caught.
 * equal: the outputs compared, all equal; 0 where the run is not made
 * (arg_compare, whose ties the reference check settles, or a run past the
 * functional budget).  A difference is LS_ERR_INVALID, the first one
 * described. */
ls_status ls_cuda_compare_sim(const ls_plan *plan, ls_input_source in, const void *out, int64_t n,
                              int64_t *equal, ls_diag *diag);
/* The same for a given source (the tests hand it a sabotaged one), the
 * simulator's comparison included. */
ls_status ls_cuda_emulate_fused_source(const ls_fused_kernel *k, const char *src,
                                       const ls_cuda_fused_launch *launch, uint64_t seed,
                                       ls_cuda_fused_check *res, ls_diag *diag);

/* ---- a decode attention's kernel (src/cuda/codegen_attention.c) ----
 *
 * The steps sim/attention_lanes.c runs lane by lane, as one kernel: each
 * thread's part of the QK and PV layouts, the scores' FMA chains and XOR
 * butterflies, the online softmax (exp2 as IREE compiles it for NVIDIA),
 * the PV update, a partial loop's merge, the stores.  Its inputs are the
 * query, key and value (the scale is a constant of the kernel); its
 * outputs the stored results. */
#define LS_CUDA_ATT_MAX_INPUTS 6
enum { LS_ATT_IN_OPERAND, LS_ATT_IN_SOURCE, LS_ATT_IN_INDICES };
typedef struct {
    char kernel[64];
    unsigned grid[3], block[3];
    int64_t smem_bytes;
    /* query, key, value (or the source a gather reads them from), a loaded
     * mask, a gather's indices (the key's, the value's) */
    int n_inputs;
    int role[LS_CUDA_ATT_MAX_INPUTS];         /* LS_ATT_IN_* */
    int operand[LS_CUDA_ATT_MAX_INPUTS];      /* the op's operand it serves (the mask: 4) */
    int seed_operand[LS_CUDA_ATT_MAX_INPUTS]; /* whose generator seed its values follow */
    /* a gather's indices: ls_input_row(rowmix, i, rows) at element i */
    uint64_t rowmix[LS_CUDA_ATT_MAX_INPUTS];
    int64_t rows[LS_CUDA_ATT_MAX_INPUTS];
    /* the earlier input that is the same tensor (one cache, or one page
     * table, for the key and the value), passed the same buffer; else -1 */
    int alias[LS_CUDA_ATT_MAX_INPUTS];
    int64_t input_elems[LS_CUDA_ATT_MAX_INPUTS], input_bytes[LS_CUDA_ATT_MAX_INPUTS];
    ls_elem_type input_type[LS_CUDA_ATT_MAX_INPUTS]; /* an i1 mask: a byte an element */
    int n_outputs; /* the stored results, in result order */
    int result[3]; /* the op's result each output is */
    int64_t output_elems[3], output_bytes[3];
    ls_elem_type output_type[3];
    int64_t in_bytes, out_bytes;
} ls_cuda_att_launch;

/* view: the engine's view of the op (ls_attention_view), whose plan holds
 * a promoted key's or value's copy layout.  LS_ERR_INVALID with the reason
 * where the generator cannot express the op (what the values run refuses,
 * subgroups other than 32 lanes, a mask type other than f16, bf16, f32, i1
 * and i8). */
ls_status ls_cuda_generate_attention(const ls_module *m, const ls_module_attention *ma,
                                     const ls_attention *a, const ls_att_view *view,
                                     const char *source_name, char **src,
                                     ls_cuda_att_launch *launch, ls_diag *diag);

typedef struct {
    int64_t outputs;    /* the kernel's output elements compared */
    int64_t sim_equal;  /* equal to the simulator's lowered values, bit for bit */
    int64_t workgroups; /* the workgroups compared (the functional budget's) */
} ls_cuda_att_check;

/* The kernel's inputs for seed: bytes[k] (malloc'd, launch->input_bytes[k]). */
void ls_cuda_att_inputs(const ls_cuda_att_launch *launch, uint64_t seed,
                        void *bytes[LS_CUDA_ATT_MAX_INPUTS]);
/* The outputs of the first max_wg workgroups (all for < 0) against the
 * simulator's lowered values (ls_attention_lowered), bit for bit (any NaN
 * equals any NaN): LS_ERR_INVALID naming the first difference. */
ls_status ls_cuda_att_compare(const ls_module *m, const ls_module_attention *ma,
                              const ls_attention *a, const ls_cuda_att_launch *launch,
                              uint64_t seed, int64_t max_wg, void *const *out,
                              ls_cuda_att_check *res, ls_diag *diag);
/* The workgroups a comparison covers within the functional budget. */
int64_t ls_cuda_att_budget_workgroups(const ls_attention *a);
/* Generated (or src, when given: the tests hand it a sabotaged one),
 * emulated on the CPU and compared. */
ls_status ls_cuda_emulate_attention(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a, const ls_att_view *view,
                                    const char *source_name, const char *src, uint64_t seed,
                                    ls_cuda_att_check *res, ls_diag *diag);
/* On a GPU: compiled, run once and compared, timed (as ls_measure_run),
 * compared again. */
ls_status ls_measure_run_attention(ls_gpu *g, const ls_module *m, const ls_module_attention *ma,
                                   const ls_attention *a, const ls_att_view *view, uint64_t seed,
                                   const ls_measure_opts *opts, double copy_gbps,
                                   ls_measure_result *res, ls_cuda_att_check *chk, ls_diag *diag);

#endif
