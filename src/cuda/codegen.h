/* codegen.h: what the CUDA generator's two halves share (private to
 * src/cuda): the generation state, and the address decomposition
 * (codegen_layout.c) that the emitters (codegen.c) print. */
#ifndef LANESCOPE_CUDA_CODEGEN_H
#define LANESCOPE_CUDA_CODEGEN_H

#include <stdio.h>

#include "lanescope/functional.h"
#include "lanescope/measure.h"

typedef struct gen {
    const ls_plan *plan;
    const ls_problem *p;  /* plan->problem, or compiled */
    ls_problem *compiled; /* ls_problem_as_compiled's copy, owned; NULL: none */
    const ls_derived *d;
    const ls_nested_layout *l;
    FILE *f;
    int64_t regs, nacc, nres;
    int64_t unroll;                /* the loop's #pragma unroll count, 0: none */
    int64_t *acc_slot, *res_slot, *slot_reg;
    int nin;                       /* input operands */
    int64_t in_stride[LS_MAX_INPUTS][LS_MAX_RANK]; /* per input, per loop dim (0: broadcast) */
    int64_t max_tb[LS_MAX_BODY];   /* largest thread part per body dim */
    int64_t max_tx[LS_MAX_RANK];   /* largest thread part per loop dim */
    int64_t max_origin[LS_MAX_RANK];
    bool wide;                     /* 64-bit index arithmetic */
    int vdim;                      /* body dim of vector loads, -1: scalar */
    int64_t vlen;                  /* elements per vector load */
    bool vec_in[LS_MAX_INPUTS];    /* input k loads vlen-element vectors */
    char vec_why[LS_MAX_INPUTS][200]; /* why not, when the others do */
    /* One register's step in the chunk loop: src[k] reads input k's
     * element, cond (may be "") says whether it lies inside the tensor. */
    void (*elem)(struct gen *g, int64_t r, char src[][160], const char *cond, const char *indent);
    int64_t index_offset;          /* arg_compare: where the indices start in the output */
    /* A phase of a fused kernel (codegen_fused.c): its declarations and a
     * device function run(...) in namespace ns; NULL for a kernel of its own */
    const char *ns;
    /* an elementwise op's loop: each register's body value stored at
     * out[sum of x_i * out_stride[i]], no reduce */
    bool elementwise;
    int64_t out_stride[LS_MAX_RANK];
    /* an epilogue (with elementwise): no loop; the threads that store the
     * reduction apply the body to their result slots and store that */
    bool epilogue;
    /* an elementwise loop whose layout gives several threads the same
     * elements: only the first of each such group stores (ls_first) */
    bool guard_writes;
    /* a stored producer the reduction's loop writes (IREE writes its tile
     * there): its view plan, each of its inputs as this plan's input, and
     * its result's stride per loop dim; NULL when none */
    const ls_plan *prod;
    int prod_in[LS_MAX_INPUTS];
    int64_t prod_stride[LS_MAX_RANK];
    /* A reduction's loop as IREE lowers it (sim/functional.c does the
     * same): with packed inner dims (grouped), each iteration reduces an
     * accumulator's registers from the identity into loc[] and then adds
     * loc to acc; fma (ls_functional_fma) fuses the body's last multiply
     * into that chain, which runs last register first, so each register's
     * operands are kept (fa<k>[r], fok[r]) until the loads are done. */
    bool grouped;
    /* grouped, and the fold a vector.reduction LLVM compiles as a tree
     * (ls_plan_fold_shape): each register's value is kept (lv[r]) and the
     * group folded in halves after the loads, as the SelectionDAG splits
     * the vector -- the dependences of IREE's code; the value is the same
     * in any order (integers, min and max) */
    bool fold_tree;
    ls_fma_kind fma;
} gen;

/* ---- codegen.c: one plan as the phase of a fused kernel */
typedef struct {
    const char *ns;               /* its namespace: "ls_ph0" */
    const char *what;             /* its comment: the op */
    int64_t unroll;               /* the loop's #pragma unroll, 0: none */
    bool elementwise;             /* store every element (out_stride), no reduce */
    int64_t out_stride[LS_MAX_RANK];
    bool epilogue;                /* with elementwise: the body on the result slots */
    const ls_plan *producer;      /* a stored producer the loop also writes, else NULL */
    int producer_in[LS_MAX_INPUTS];
    int64_t producer_stride[LS_MAX_RANK];
} cg_phase;
/* namespace ns { types, helpers, run(in0, ..., out) } on f; launch gets
 * the phase's grid, block, inputs, output and shared bytes. */
ls_status cg_generate_phase(const ls_plan *plan, const cg_phase *ph, FILE *f,
                            ls_cuda_launch *launch, ls_diag *diag);

/* ---- codegen_fused.c: each input of the stored producer of ph as the
 * reduction's input (the same tensor through the same map) into in;
 * false when one is not */
bool cg_producer_inputs(const ls_fused_phase *ph, int *in);

/* ---- codegen_header.c: the kernel's header comment, and its launch */
void cg_emit_header(gen *g, const char *source_name, const ls_cuda_launch *launch);
void cg_fill_launch(gen *g, ls_cuda_launch *launch);

/* ---- codegen_argcmp.c: an arg_compare plan's kernel (see there) */
ls_status cg_check_argcmp(const ls_plan *plan, ls_diag *diag);
void cg_emit_argcmp_helpers(gen *g);
void cg_emit_argcmp_kernel(gen *g, int64_t *smem_bytes);

/* ---- codegen_types.c: C types, literals, combiners */
/* "signed char", "short", "int" or "long long" for an integer type */
const char *cg_signed_type(ls_elem_type t);
/* A C literal with the exact bits of v in type t (integers through ls_acc_t). */
void cg_literal(ls_elem_type t, ls_value v, char *buf, size_t size);
/* name(a, b) computing combiner c on type t (its C type ctype), as sim/value.c does. */
void cg_emit_combine(FILE *f, const char *name, const char *ctype, ls_combiner c, ls_elem_type t);

/* ---- codegen_reduce.c: the stages after the loop */
void cg_emit_reduces(gen *g);                           /* thread, then subgroup reduce */
void cg_emit_cross_subgroup(gen *g, int64_t *smem_bytes); /* its buffer's bytes */
void cg_emit_store(gen *g);                             /* the init, then the store */

/* ---- codegen.c: pieces the arg_compare kernel (codegen_argcmp.c) shares */
void cg_emit_thread_setup(gen *g);
/* The partial-reduction loop: per iteration the loop coordinates x<i>,
 * input offsets o<k>, and g->elem for every register. */
void cg_emit_chunk_loop(gen *g);
void cg_store_writer(const gen *g, char *wcond, size_t size);
void cg_store_target(const gen *g, int64_t q, char *cond, size_t csize, char *off, size_t osize);
/* The cross-subgroup buffer's shape: the reduced body dims, slots per row,
 * rows, the writers' condition and the writer's slot expression. */
void cg_cross_layout(const gen *g, int *red, int *nred, int64_t *nslots, int64_t *npos,
                     char *wcond, size_t wsize, char *slot, size_t ssize);

void cg_tile_mults(const ls_nested_layout *l, int k, int64_t *sg_mult, int64_t *th_mult);
void cg_reg_part(const gen *g, int64_t reg, int64_t *rp);
void cg_thread_part(const gen *g, int64_t tid, int64_t *tb);
void cg_body_to_loop(const gen *g, const int64_t *body, int64_t *x);
int64_t cg_loop_offset(const gen *g, int k, const int64_t *x);
void cg_scan_bounds(gen *g);
void cg_choose_vector(gen *g, ls_cuda_launch *launch);
void cg_reg_condition(const gen *g, int64_t reg, char *buf, size_t size);
void cg_reg_offset(const gen *g, int k, int64_t reg, int64_t *off);
/* The register's loop coordinates relative to x (its per-register part). */
void cg_reg_loop_part(const gen *g, int64_t reg, int64_t *rx);
const char *cg_idx(const gen *g);
/* The tile origin along loop dim i, the part of x_i that is not the
 * thread's: the iteration's chunk (reduction dims) or the workgroup's tile. */
void cg_origin_expr(const gen *g, int i, char *buf, size_t size);
void cg_parallel_pos_parts(const gen *g, int64_t q, int64_t *cpos, char *tpos, size_t size);
void cg_virt(const ls_nested_layout *l, int k, bool subgroup, char *buf, size_t size);

/* codegen_body.c: the reduction body (body.h) as a device function
 * ls_body(inputs..., loop coordinates...) computing what sim/body.c
 * computes, bit for bit; and whether a body can be expressed. */
bool cg_body_supported(const ls_problem *p, char *why, size_t size);
bool cg_insts_supported(const ls_body *b, const char *file, char *why, size_t size);
/* Any ls_body as a device function ret name(in_ctypes[k] a<k>..., ls_idx_t
 * x<i>...), computing what sim/body.c computes: a<k> holds INPUT k, of
 * element type in_types[k]; ret_type LS_ET_I1 returns bool (a comparator),
 * else the body's last value in ret_type's storage type ret_ctype. */
typedef struct {
    const ls_body *body;
    const char *name, *what;   /* what: its comment */
    int n_in;
    const ls_elem_type *in_types;
    const char *const *in_ctypes;
    int index_rank;            /* loop coordinates passed (linalg.index), 0: none */
    const char *ret_ctype;
    ls_elem_type ret_type;
    /* the body's last op, a multiply, fused with an addend c (ret_ctype,
     * the last parameter) into one FMA rounded once, as sim/body.c's
     * ls_body_fma: the lowering's math.fma (ls_functional_fma) */
    bool fma_last;
} cg_body_fn;
char *cg_body_fn_text(const cg_body_fn *fn); /* malloc'd */
/* fns[0..n) with the helpers they call, each helper once. */
void cg_emit_body_fns(FILE *out, const cg_body_fn *fns, int n);
bool cg_body_uses_index(const ls_problem *p);
void cg_emit_body(gen *g);
/* "float", "__half", ... for a type in memory; NULL when the CUDA path has none */
const char *cg_storage_type(ls_elem_type t);
const char *cg_to_float(ls_elem_type t);
/* An input type narrower than the generator computes in (i4, the four f8
 * types): read as a byte, widened only by the body's ops. */
bool cg_narrow_input(ls_elem_type t);
/* The body helper of that name (an f8 decoder: ls_f8e4m3fn_f ...) on f. */
void cg_emit_helper(FILE *f, const char *name);
/* The body helpers that text[0..n) call, each once, on out. */
void cg_emit_called_helpers(FILE *out, const char *const *text, int n);
const char *cg_from_float(ls_elem_type t);
/* The C type a body value of type t lives in; NULL: not expressible. */
const char *cg_value_type(ls_elem_type t);

/* codegen_promote.c: promote_operands -- the refusals, the buffers and
 * each thread's copy/read parts, the per-iteration copy between two
 * barriers, and a promoted input's read of register r from its buffer. */
bool cg_promoted(const gen *g, int k);
ls_status cg_check_promote(const ls_plan *plan, ls_diag *diag);
void cg_emit_promote_types(gen *g);
void cg_emit_promote_setup(gen *g, int64_t *smem_bytes);
void cg_emit_promote_copy(gen *g);
void cg_promote_src(const gen *g, int k, int64_t r, char *buf, size_t size);

/* codegen_check.c: LS_OK when the generator can express the plan, else the
 * refusal with its reason; and the largest offset into input k a thread
 * forms (false past int64). */
ls_status cg_check_plan(const ls_plan *plan, ls_diag *diag);
bool cg_padded_offset(const ls_plan *plan, int k, int64_t *out);

/* The values arr[idx[0..n)] (idx NULL: arr[0..n)) folded with the device
 * function fn as LLVM folds a vector.reduction that is not ordered: the
 * vector's halves combined elementwise while it has more than one element
 * (the SelectionDAG's split; an odd middle element waits a level), the
 * result assigned to dst (NULL: left in the first element).  The value is
 * the same in any order for the combines this takes (integers, min and
 * max); the dependences are IREE's code's. */
void cg_emit_halving_fold(FILE *f, const char *fn, const char *arr, const int64_t *idx, int64_t n,
                          const char *dst, const char *ind);

/* For each group q < groups, the elements i < n of arr with group_of[i] ==
 * q folded so (cg_emit_halving_fold) into dst[q]. */
void cg_emit_group_folds(gen *g, const char *arr, const int64_t *group_of, int64_t n,
                         int64_t groups, const char *dst, const char *ind);

#endif
