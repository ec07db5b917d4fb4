/* problem.h: a reduction problem (iteration space, types, combiner, maps)
 * plus the lowering config, translation info and target it is lowered with,
 * and the validation that explains every violation.
 */
#ifndef LANESCOPE_PROBLEM_H
#define LANESCOPE_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/attrs.h"
#include "lanescope/body.h"
#include "lanescope/diag.h"
#include "lanescope/mlir.h"

/* The 13 vector::CombiningKind values IREE lowers (reference §4). */
typedef enum {
    LS_COMB_ADD,
    LS_COMB_MUL,
    LS_COMB_MINUI,
    LS_COMB_MINSI,
    LS_COMB_MAXUI,
    LS_COMB_MAXSI,
    LS_COMB_MINIMUMF,
    LS_COMB_MINNUMF,
    LS_COMB_MAXIMUMF,
    LS_COMB_MAXNUMF,
    LS_COMB_AND,
    LS_COMB_OR,
    LS_COMB_XOR,
    LS_COMB_COUNT
} ls_combiner;

#define LS_MAX_SUBGROUP_SIZE 1024   /* lanes; real GPUs use 32 or 64 */
#define LS_MAX_WORKGROUP_SIZE 65536 /* threads; real GPUs allow 1024 */

typedef struct {
    ls_elem_type type; /* element type in memory */
    int map_n;         /* operand rank */
    int map[LS_MAX_RANK];
    /* A strided map result (`d1 * 2`): operand dim j is map[j] * scale[j],
     * and its size shape[j] comes from the operand's type.  0 means a plain
     * dim: scale 1, the loop's size. */
    int64_t scale[LS_MAX_RANK], shape[LS_MAX_RANK];
    char name[64];     /* SSA value in the source ("%3"), or "" */
    /* The result of another reduction of the same dispatch (problem number
     * `producer` of the module): IREE keeps it in registers (every thread
     * of the workgroup holds the reduced value after the reduction), so it
     * is not read from memory, and its values are that reduction's. */
    bool intermediate;
    int producer;
} ls_operand;

/* iree_linalg_ext.arg_compare (argmax / argmin): the best value along one
 * dimension and its index, reduced together (docs/arg-compare-lowering.md
 * and IREE's Dialect/LinalgExt/IR/LinalgExtOps.td).  The problem's
 * inputs[0] is the value operand, inputs[1] the index operand in explicit
 * mode; acc_type, has_init/init/init_unknown describe the value result.
 * The combiner is the gpu.subgroup_reduce kind of the ballot path
 * (maxnumf for ogt, ...), or for a comparator without one (the butterfly
 * path) the max kind of the value type, used for nothing but typing. */
typedef struct {
    bool on;
    /* The comparator region: INPUT 0 is the candidate (%a), INPUT 1 the
     * best so far (%b); the last instruction is the yielded i1. */
    ls_body cmp;
    bool explicit_index;     /* ins(%values, %indices): inputs[1] */
    bool has_base;           /* index_base(%b : index), a constant */
    int64_t base;
    bool base_unknown;       /* index_base is not a constant: indices relative to it */
    ls_elem_type index_type; /* the index result's element type */
    bool has_init_index;     /* the index init is a linalg.fill of a constant */
    uint64_t init_index;
    /* IREE's analyzeComparatorForThreadReduction: `yield cmp(U(a), U(b))`
     * (U absent or one single-operand op) with a predicate that has a
     * max/min kind takes the ballot path; anything else the butterfly. */
    bool ballot;
    int transform;           /* cmp instruction of U, -1: none */
} ls_argcmp;

typedef struct {
    char name[128]; /* function or op name for reports */
    char file[256];
    int line, col;  /* of the op */

    int rank;
    int64_t size[LS_MAX_RANK];
    bool is_reduction[LS_MAX_RANK];

    /* Inputs in operand order: element type in memory and indexing map
     * (operand dim j is loop dim map[j]).  Input 0 is the one a
     * single-input reduction reads. */
    int n_inputs;
    ls_operand inputs[LS_MAX_INPUTS];
    /* The contribution of one iteration point, computed from the inputs
     * (body.h); n == 0: input 0 itself, widened to acc_type when extended. */
    ls_body body;
    ls_elem_type acc_type; /* element type reduced in (= output) */
    /* The init the reduction folds into: the value of the linalg.fill that
     * produces it (has_init), else the combiner's identity (what IREE's
     * fills write for these reductions). */
    bool has_init;
    uint64_t init;
    bool init_unknown;     /* the init is not a linalg.fill of a constant (a
                              tensor read, say): simulated as the identity */
    bool extended;         /* input 0 reaches the combiner through an extension only */
    ls_combiner combiner;

    ls_argcmp argcmp;      /* argcmp.on: an iree_linalg_ext.arg_compare */

    /* a TileAndFuse program seen through VectorDistribute (layout_tilefuse.c):

     * element tiles on parallel dims are the threads' tiles */

    bool tf_view;
    /* an attention's kernel seen as one loop nest over the op's dims
     * (sim/attention_timing.c): built in code from a laid-out attention,
     * so not validated as a reduction config, and never packed (IREE's
     * GPUPackPartialReductions walks linalg ops only) */
    bool att_view;
    /* an elementwise op of a fused kernel laid out by its own config
     * (fused.h): its serial tiles stand as partial_reduction tiles, which
     * GPUPackPartialReductions would pack; an elementwise op's it leaves */
    bool serial_view;

    int out_map_n; /* init operand rank; entries are loop dims */
    int out_map[LS_MAX_RANK];

    bool has_config;
    ls_lowering_config config;
    bool has_ti;
    ls_translation_info ti;
    bool has_target;
    ls_target target;

    bool config_suggested;   /* config and translation_info are IREE's heuristic's */
    bool config_from_flag;   /* config given by --config, replacing the input's */
    int dispatch, dispatch_op; /* where the importer found it (ls_module), -1: not imported */
    /* Result `result` of an op with n_results > 1 (a linalg.generic that
     * yields a min and a max): each result is its own problem, the op's
     * problems are consecutive in the module.  n_results 0: one result. */
    int result, n_results;
} ls_problem;

/* An arg_compare's reduced loop dim (its `dimension`). */
static inline int ls_argcmp_dim(const ls_problem *p)
{
    int d = 0;
    while (d < p->rank - 1 && !p->is_reduction[d])
        d++;
    return d;
}

/* "arith.addf" -> kind; the op name's float/int flavour is checked against the
 * element type by validation. */
bool ls_combiner_from_op(const char *op, ls_combiner *out);
const char *ls_combiner_name(ls_combiner k);  /* "add", "maxnumf", ... */
const char *ls_combiner_op(ls_combiner k, bool is_float); /* "arith.addf" */
bool ls_combiner_from_name(const char *name, ls_combiner *out); /* "add" or "arith.addf" */
bool ls_combiner_is_float_only(ls_combiner k);
bool ls_combiner_is_int_only(ls_combiner k);

/* Subgroup and workgroup size in force: translation_info when present, else
 * derived (subgroup: target's first choice or 64; workgroup: subgroup size x
 * subgroup count).  *assumed tells whether any was derived. */
void ls_problem_sizes(const ls_problem *p, int64_t *subgroup_size, int64_t *workgroup_size,
                      bool *assumed);

/* Checks everything a config must satisfy; the first violation goes to diag
 * with the attribute and the values named. */
ls_status ls_problem_validate(const ls_problem *p, ls_diag *diag);

/* a*b and a+b with int64 overflow detection. */
bool ls_mul_ok(int64_t a, int64_t b, int64_t *out);

#endif
