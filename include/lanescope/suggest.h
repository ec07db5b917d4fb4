/* suggest.h: the lowering config IREE's reduction heuristic would choose.
 *
 * A dispatch (ls_dispatch) is what the heuristic looks at: the linalg ops of
 * one function in program order, how their operands connect (SSA producer
 * links), the values the function stores, and any scf.forall.  The importer
 * fills one per function (import.h); ls_dispatch_from_problem builds the
 * one-op dispatch a --shape/--iter/--type description stands for.
 *
 * ls_suggest reproduces IREE's setReductionConfig and its helpers
 * (shared/reference/iree-reduction-lowering.md §1, ReductionConfigUtils.cpp):
 * the dispatch gate, root-op choice, reduction size, subgroup choice, the
 * bitwidth rule (bit-extending producers looked through), thread loads,
 * workgroup-size caps and halving, then per op the partial_reduction /
 * serial config with ROCm's local split-k, and the workgroup tile the
 * tracked shared dims get.  A dispatch IREE would reject gets
 * LS_ERR_INVALID with the reason and the op's position; so does one IREE
 * gives another pipeline first: a matmul-like contraction, or an outer
 * reduction (an input indexed by a permutation whose first dim is reduced,
 * LLVMGPU/KernelConfig.cpp), whose TileAndFuse translation_info and
 * lowering_config the message carries.  Every decision is also written down
 * as a step, for `lanescope suggest` to show its work.
 *
 * Sizes: LS_DYN marks a dynamic ('?') size.  Limits: LS_DISPATCH_MAX_OPS
 * linalg ops per function, LS_DISPATCH_MAX_OPERANDS operands per op.
 */
#ifndef LANESCOPE_SUGGEST_H
#define LANESCOPE_SUGGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/attrs.h"
#include "lanescope/diag.h"
#include "lanescope/problem.h"

#define LS_DYN (-1)
#define LS_DISPATCH_MAX_OPS 32
#define LS_DISPATCH_MAX_OPERANDS 8
#define LS_DISPATCH_MAX_STORES 16
#define LS_SUGGEST_MAX_STEPS 24

typedef struct {
    char value[48];          /* SSA name, "%5" or "%5#1" */
    int producer;            /* dispatch op defining it, -1: none (a load, an empty...) */
    int producer_result;     /* which result of the producer */
    int rank;
    int64_t dims[LS_MAX_RANK]; /* LS_DYN for '?' */
    int elem_bits;           /* 0: not an integer, float or index element */
    char elem[24];           /* the element type as spelled ("f16"), "" when unknown */
    bool is_index;
    int map_n;
    int map[LS_MAX_RANK];    /* loop dim of each map result, -1 for other expressions */
} ls_dop_operand;

typedef struct {
    char kind[48];           /* "linalg.generic", "linalg.reduce", "linalg.matvec", ... */
    int line, col;
    int rank;
    int64_t size[LS_MAX_RANK]; /* loop bounds, LS_DYN when dynamic */
    bool is_reduction[LS_MAX_RANK];
    int n_inputs, n_inits;   /* operand[] holds inputs, then inits */
    ls_dop_operand operand[LS_DISPATCH_MAX_OPERANDS];
    char result[48];         /* SSA name of the result ("%5"), "" when unnamed */
    bool is_fill, is_conv, is_contraction, is_bit_extend;
    bool in_forall;
    int reduced_inits;       /* inits whose combiner chain is one combining op */
    bool combiner_ok;        /* IREE's checkSingleCombiner holds */
    char combiner_why[160];  /* why not, when !combiner_ok */
    int problem;             /* index of the ls_problem built from this op, -1: none */
} ls_dop;

/* " at line N" naming where op o is, for messages; "" for an op built
 * from --shape, which has no line. */
typedef struct {
    char s[32];
} ls_dop_where;
ls_dop_where ls_dop_where_of(const ls_dop *o);

typedef struct {
    char file[256];          /* for messages */
    char func[96];
    int line, col;
    int n_ops;
    ls_dop ops[LS_DISPATCH_MAX_OPS];
    int n_stores;            /* dispatch.tensor.store / store_to_buffer */
    char stored[LS_DISPATCH_MAX_STORES][48];
    int n_inserts;           /* tensor.parallel_insert_slice (inside a forall) */
    char inserted[LS_DISPATCH_MAX_STORES][48];
    bool has_bindings;       /* hal.interface.binding.subspan / dispatch.tensor.load seen:
                                real dispatch IR, not a snippet */
    int n_forall;
    bool forall_split_mapping; /* the (first) forall carries split_reduction_mapping */
    int forall_line, forall_col;
} ls_dispatch;

/* One op's config, in IREE's terms.  Reduction ops get partial_reduction,
 * parallel-only ops get serial; only the root op prints a workgroup key. */
typedef struct {
    int op;                  /* index in the dispatch */
    bool is_reduction;       /* partial_reduction (else serial) */
    bool has_workgroup;      /* the root op */
    int rank;
    int64_t workgroup[LS_MAX_RANK];  /* the root's workgroup tile */
    int64_t tile[LS_MAX_RANK];       /* partial_reduction or serial */
    int64_t thread[LS_MAX_RANK];
    int64_t lanes[LS_MAX_RANK], subgroups[LS_MAX_RANK]; /* bases, mapping = identity */
    int64_t wg_tile[LS_MAX_RANK];    /* this op's dims' workgroup tile (tracked dims), 0 else */
} ls_op_config;

/* One half of an attention's decomposition_config (qk_attrs or pv_attrs):
 * IREE projects the thread tile and the bases onto the dims that matmul
 * has, keeping every count (KernelConfig.cpp projectBasis). */
typedef struct {
    int n_thread;                    /* rank - 1 */
    int64_t thread[LS_MAX_RANK];
    int64_t lane_counts[LS_MAX_RANK], subgroup_counts[LS_MAX_RANK]; /* rank entries */
    int64_t lane_mapping[LS_MAX_RANK], subgroup_mapping[LS_MAX_RANK]; /* n_thread entries */
} ls_attention_part;

/* An attention's dims, as IREE's AttentionOpDetail classifies them from
 * the query, key, value and output maps (LinalgExt/Utils/IndexingUtils.cpp):
 * B = (Q & V) | (K & O), K1 = Q & K - B, K2 = K - B - K1, M = Q - B - K1,
 * N = V - B - K2; each ascending. */
typedef struct {
    int n_batch, n_m, n_k1, n_k2, n_n;
    int batch[LS_MAX_RANK], m[LS_MAX_RANK], k1[LS_MAX_RANK], k2[LS_MAX_RANK], n[LS_MAX_RANK];
} ls_attention_dims;
/* Whether dim d is one of the n dims of list l (one of the roles above). */
bool ls_att_dim_in(const int *l, int n, int d);

typedef struct {
    int root;                        /* dispatch op the heuristic is rooted at */
    int64_t subgroup_size, workgroup_size, thread_loads, bitwidth;
    int64_t reduction_size;          /* 2^31 for dynamic */
    int64_t parallel_size;           /* LS_DYN when dynamic */
    int64_t max_workgroup_size;      /* after the one-wave cap */
    int n_steps;
    char steps[LS_SUGGEST_MAX_STEPS][200]; /* how each rule decided, in order */
    int n_configs;
    ls_op_config configs[LS_DISPATCH_MAX_OPS];
    /* An arg_compare root IREE gives TileAndFuse (setArgCompareConfig):
     * ls_suggest returns LS_ERR_INVALID naming it, and these hold the
     * config, which lanescope simulates (layout.h). */
    bool tile_and_fuse;
    /* the root reached the reduction heuristic (not a matmul, not an outer
     * reduction): where it refuses, IREE tries TileAndFuse next */
    bool tf_candidate;
    int64_t tf_workgroup[LS_MAX_RANK], tf_thread[LS_MAX_RANK], tf_workgroup_size[3];
    int64_t tf_reduction[LS_MAX_RANK]; /* the serial reduction tile; all 0: none */
    /* An iree_linalg_ext.(online_)attention root: IREE's
     * setAttentionReductionConfig (suggest_attention.c), whose config is a
     * workgroup and partial_reduction tile on the op and a decomposition
     * config for its two matmuls; n_configs is 0. */
    bool attention;
    int att_rank;
    int64_t att_workgroup[LS_MAX_RANK], att_partial[LS_MAX_RANK];
    ls_attention_part qk, pv;
} ls_suggestion;

/* Whether op o is iree_linalg_ext.attention or online_attention, and its
 * dims (operands: query, key, value first, the output first of the inits). */
bool ls_dop_is_attention(const ls_dop *o);
void ls_attention_classify(const ls_dop *o, ls_attention_dims *out);

/* The one-op dispatch of a problem described without IR (--shape ...): an
 * input read through in_map, an init through out_map, the result stored.
 * in_bits/out_bits override the element widths when nonzero (types the
 * simulator does not model, e.g. i4 or i24). */
void ls_dispatch_from_problem(const ls_problem *p, int in_bits, int out_bits, ls_dispatch *d);

/* IREE's choice for dispatch d on target t.  LS_ERR_INVALID with the reason
 * IREE would reject it (position of the op concerned); s keeps the steps
 * taken up to there either way. */
ls_status ls_suggest(const ls_dispatch *d, const ls_target *t, ls_suggestion *s, ls_diag *diag);

/* setAttentionReductionConfig's three seeds: key vectors per K1 tile (how
 * K1 is split over lanes), value vectors per thread (the N tile) and the
 * subgroups asked for on K2.  IREE's are 8, 2, 8; `sweep` tries others. */
typedef struct {
    int64_t key_vectors, value_vectors, subgroups;
} ls_attention_seeds;

/* The config setAttentionReductionConfig derives for attention op `root`
 * of d with the given seeds (its rules unchanged): s as ls_suggest fills
 * it for IREE's seeds. */
ls_status ls_suggest_attention_seeded(const ls_dispatch *d, int root, const ls_target *t,
                                      const ls_attention_seeds *seeds, ls_suggestion *s,
                                      ls_diag *diag);

/* The config of dispatch op `op`, or NULL when the heuristic gives it none. */
const ls_op_config *ls_suggest_config_of(const ls_suggestion *s, int op);

/* IREE's printed syntax (keys sorted, as a DictionaryAttr prints them). */
void ls_op_config_format(const ls_op_config *c, char *buf, size_t size);
void ls_suggest_format_translation(const ls_suggestion *s, char *buf, size_t size);
/* An attention suggestion's op config and its decomposition_config. */
void ls_attention_format(const ls_suggestion *s, char *lowering, size_t lsize, char *decomposition,
                         size_t dsize);

/* A lowering_config from per-dim arrays (rank entries each; bases get the
 * identity mapping), and a VectorDistribute translation_info of [wg, 1, 1]
 * threads and subgroup size sg.  Positions are set to (line, col). */
void ls_config_set(ls_lowering_config *c, int rank, const int64_t *workgroup,
                   const int64_t *partial, const int64_t *thread, const int64_t *lanes,
                   const int64_t *subgroups, int line, int col);
void ls_translation_set(ls_translation_info *ti, int64_t wg, int64_t sg, int line, int col);

/* Give problem p (built from dispatch op `op`) the suggested config and
 * translation_info.  The workgroup tile is the op's tracked tile. */
void ls_suggest_apply(const ls_suggestion *s, int op, ls_problem *p);
/* The same for an arg_compare that IREE gives TileAndFuse (s->tile_and_fuse). */
void ls_suggest_apply_tile_and_fuse(const ls_suggestion *s, ls_problem *p);

#endif
