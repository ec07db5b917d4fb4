/* import.h: read an .mlir file and collect what lanescope can analyse.
 *
 * From IREE dispatch IR: every linalg.generic / linalg.reduce with a
 * reduction iterator becomes an ls_problem (iteration space, maps, types,
 * combiner, lowering_config, the enclosing translation_info, the target).
 * Standalone #iree_vector_ext.nested_layout, #iree_codegen.xor_shuffle and
 * #iree_codegen.rotate_rows attributes (as aliases or inline) are collected
 * too.  Everything else in the file is skipped.
 *
 * Association rules: an op takes the translation_info and the target seen
 * most recently before it in the file; a --target given by the caller
 * overrides the file's.  Limits: LS_IMPORT_MAX_ITEMS of each kind,
 * LS_IMPORT_MAX_BYTES of input.
 */
#ifndef LANESCOPE_IMPORT_H
#define LANESCOPE_IMPORT_H

#include <stddef.h>

#include "lanescope/attrs.h"
#include "lanescope/problem.h"
#include "lanescope/suggest.h"

#define LS_IMPORT_MAX_ITEMS 64
#define LS_IMPORT_MAX_BYTES (64u << 20)
#define LS_IMPORT_MAX_FUNCS 16

/* ls_module_parse_ex flags. */
enum {
    /* Keep going past reductions the simulator cannot model (two inputs, a
     * body other than one combiner, dynamic sizes...): they are still
     * recorded in the dispatches, for `suggest`.  Without it the first such
     * op is the load's error. */
    LS_IMPORT_KEEP_UNSUPPORTED = 1,
    /* Attention ops are read for `explain` (ls_module.attentions), not
     * recorded as reductions the simulator cannot run. */
    LS_IMPORT_ATTENTION = 2
};

/* An iree_linalg_ext.gather an attention reads as its key or value (IREE's
 * paged attention): out[b.., s..] = source[indices[b..] .., s..], the
 * batch dims b those of the indices, the slice dims s the source's dims
 * past the index depth (LinalgExtOps.td, GatherOp).  Shapes as written
 * ('?' is -1). */
typedef struct {
    bool on;
    int line, col;
    char source[64], indices[64];   /* their SSA names */
    int source_rank, index_rank;
    int64_t source_shape[LS_MAX_SHAPE_RANK], index_shape[LS_MAX_SHAPE_RANK];
    ls_elem_type source_elem, index_elem;
    int depth;                      /* dimension_map's size */
    int64_t dimension_map[LS_MAX_SHAPE_RANK];
    bool has_mask;                  /* the optional batch mask operand */
    char unread[48];                /* the first key of its attr-dict ("": none) */
    int unread_line, unread_col;
} ls_module_gather;

/* An iree_linalg_ext.attention / online_attention op: where it is, and the
 * configs written on it (its lowering_config, and the decomposition_config's
 * qk_attrs / pv_attrs lowering_configs), when they are. */
typedef struct {
    int dispatch, op;             /* ls_module.dispatches[dispatch].ops[op] */
    bool has_config, has_qk, has_pv;
    ls_lowering_config config, qk, pv;
    bool has_ti;
    ls_translation_info ti;
    /* What the simulator reads (sim/attention_values.c): the scale when it
     * is an arith.constant; each init's linalg.fill value when it is one
     * (an online_attention's acc, max, sum; an attention's output);
     * whether the score region yields its argument unchanged. */
    bool has_scale;
    ls_elem_type scale_type;
    uint64_t scale_bits;
    bool init_filled[3];
    uint64_t init_bits[3];
    bool region_identity;
    int region_line, region_col;
    /* an input (query, key, value, scale, mask) made by an op the importer
     * passes over (an iree_linalg_ext.gather): its op, "" when none */
    char opaque_kind[5][48];
    int opaque_line[5];
    /* the key's and value's gathers (index 1, 2), when a gather makes them */
    ls_module_gather gather[3];
} ls_module_attention;

/* A linalg.generic of a dispatch with parallel loops only (an elementwise
 * op): what the dispatch's one kernel computes per element when the
 * dispatch stores its result (a softmax's division by the sum).  Its body
 * is compiled as a reduction's is (producers inlined, a reduction's result
 * an intermediate input: import_body.c); sim/fused_kernel.c times it. */
typedef struct {
    int dispatch, op;             /* ls_module.dispatches[dispatch].ops[op] */
    int line, col;
    int rank;
    int64_t size[LS_MAX_RANK];    /* loop bounds, LS_DYN-free only when compiled */
    bool compiled;                /* else why[] says what stops it */
    char why[640];
    int n_inputs;
    ls_operand inputs[LS_MAX_INPUTS]; /* maps over its own loops */
    ls_body body;                 /* the yielded value */
    ls_elem_type out_type;
    int out_map[LS_MAX_RANK];     /* loop of each result dim */
    bool has_config;              /* a lowering_config written on the op */
    ls_lowering_config config;    /* its `serial` level in config.serial */
} ls_module_elementwise;

typedef struct {
    ls_nested_layout layout;
    int vector_rank; /* 0 when no to_layout gave the vector type */
    int64_t vector_shape[LS_MAX_RANK * 2];
    char name[64];   /* alias name without '#', or "" */
} ls_module_layout;

typedef struct {
    ls_swizzle swizzle;
    char name[64];
} ls_module_swizzle;

typedef struct ls_module_s {
    char file[256];
    size_t n_problems, n_layouts, n_swizzles;
    ls_problem problems[LS_IMPORT_MAX_ITEMS];
    ls_module_layout layouts[LS_IMPORT_MAX_ITEMS];
    ls_module_swizzle swizzles[LS_IMPORT_MAX_ITEMS];
    bool has_target;
    ls_target target; /* last one in the file */
    /* Every linalg op of each function, for IREE's heuristic (suggest.h). */
    size_t n_dispatches;
    ls_dispatch dispatches[LS_IMPORT_MAX_FUNCS];
    size_t n_attentions;
    ls_module_attention attentions[LS_IMPORT_MAX_FUNCS];
    size_t n_elementwise;
    ls_module_elementwise elementwise[LS_IMPORT_MAX_ITEMS];
    /* The first reduction the simulator cannot model, and how many. */
    int n_unsupported;
    ls_diag unsupported;
} ls_module;

/* Parse text; m is filled even on error up to the failure.  The caller owns m. */
ls_status ls_module_parse(const char *text, size_t len, const char *file, ls_module *m,
                          ls_diag *diag);
/* Read path (limit LS_IMPORT_MAX_BYTES) and parse it. */
ls_status ls_module_load(const char *path, ls_module *m, ls_diag *diag);
ls_status ls_module_parse_ex(const char *text, size_t len, const char *file, int flags,
                             ls_module *m, ls_diag *diag);
ls_status ls_module_load_ex(const char *path, int flags, ls_module *m, ls_diag *diag);

/* Sizes for dynamic ('?') loop dimensions, by index in each op's iteration
 * space (`--dim 0=4096`): size[d] > 0 binds d<d> of every op whose d<d> is
 * dynamic, in the reductions and in the dispatch view alike; a static d<d>
 * keeps its own size.  0: not given, and a dynamic d<d> of a reduction is
 * then an error at the op naming the dim. */
typedef struct {
    int64_t size[LS_MAX_RANK];
} ls_import_dims;

/* As the _ex forms, with dims (NULL: none given). */
ls_status ls_module_parse_dims(const char *text, size_t len, const char *file, int flags,
                               const ls_import_dims *dims, ls_module *m, ls_diag *diag);
ls_status ls_module_load_dims(const char *path, int flags, const ls_import_dims *dims, ls_module *m,
                              ls_diag *diag);

/* Every body of m (reductions, comparators, elementwise ops) computes its
 * math ops as `mode` says (body.h): what IREE compiles for the target. */
void ls_module_set_math(ls_module *m, ls_math_mode mode);
/* The mode of a target by its arch ("gfx942": ROCm; anything else: MLIR's
 * approximations, IREE's MathTransform predicateApprox). */
ls_math_mode ls_math_mode_for_arch(const char *arch);

#endif
