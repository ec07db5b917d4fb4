/* attrs.h: typed views of the IREE attributes lanescope reads.
 *
 * Each ls_*_from_attr() checks the shape of a parsed attribute (ls_attr from
 * mlir.h) and copies it into a fixed-size struct, reporting the first problem
 * as "file:line:col: expected X for 'key', found Y".  Array lengths are
 * limited by LS_MAX_RANK (checked, limit in the message).
 */
#ifndef LANESCOPE_ATTRS_H
#define LANESCOPE_ATTRS_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/diag.h"
#include "lanescope/mlir.h"

#define LS_MAX_RANK 8      /* iteration-space rank limit */
#define LS_MAX_IGNORED 16  /* ignored lowering_config keys remembered */
#define LS_MAX_SG_CHOICES 8

typedef struct {
    bool present;
    int n;
    int64_t v[LS_MAX_RANK];
    int line, col;
} ls_i64_list;

/* [[counts], [mapping]] */
typedef struct {
    bool present;
    ls_i64_list counts, mapping;
    int line, col;
} ls_basis;

typedef struct {
    ls_i64_list workgroup, thread, partial_reduction;
    /* The serial `reduction` tiling level: an scf.for over the reduction
     * dims whose body reduces its tile completely (subgroup reduce inside
     * the loop) into the carried init. */
    ls_i64_list reduction;
    ls_i64_list serial; /* read for elementwise ops only (also in ignored[]) */
    ls_basis lane_basis, subgroup_basis;
    /* Operands (op operand numbers: inputs, then the init) read through
     * workgroup memory (plan.h's promote). */
    ls_i64_list promote_operands;
    int n_ignored;
    char ignored[LS_MAX_IGNORED][48]; /* keys the reduction path does not read */
    int ignored_line[LS_MAX_IGNORED], ignored_col[LS_MAX_IGNORED];
    /* true for a `reduction` or `serial` level of all zeros: it tiles nothing,
     * so not reading it changes nothing; any other ignored key is rejected
     * by validation rather than silently dropped */
    bool ignored_inert[LS_MAX_IGNORED];
    int line, col;
} ls_lowering_config;

typedef struct {
    /* without IREE's older "LLVMGPU" prefix: "VectorDistribute",
     * "TileAndFuse", ...; "" when the attribute names none */
    char pipeline[64];
    int pipeline_line, pipeline_col;
    bool has_workgroup_size, has_subgroup_size;
    int wg_rank;
    int64_t workgroup_size[3];
    int64_t subgroup_size;
    int line, col;
} ls_translation_info;

/* The IREE-visible fields of #iree_gpu.target (seed 003, reference §5). */
typedef struct {
    char arch[32];
    char sku[32];
    int n_subgroup_choices;
    int64_t subgroup_choices[LS_MAX_SG_CHOICES]; /* in the target's list order */
    int64_t max_workgroup_sizes[3];
    int64_t max_thread_count;        /* per workgroup */
    int64_t max_workgroup_memory_bytes;
    int64_t wgp_count;               /* 0: no chip description */
    int64_t max_load_instruction_bits; /* 0: unset */
    int64_t simds_per_wgp;           /* 0: unset */
    int line, col;                   /* 0 when built in */
    /* The wgp's mma list: 1 it lists intrinsics, -1 it lists none (or has
     * no `mma` key), 0 not said (a built-in: ls_target_has_mma decides by
     * arch, as IREE's KnownTargets.cpp does). */
    int mma;
} ls_target;

typedef struct {
    int rank;
    int64_t subgroup_tile[LS_MAX_RANK * 2], batch_tile[LS_MAX_RANK * 2],
        outer_tile[LS_MAX_RANK * 2], thread_tile[LS_MAX_RANK * 2],
        element_tile[LS_MAX_RANK * 2], subgroup_strides[LS_MAX_RANK * 2],
        thread_strides[LS_MAX_RANK * 2];
    int line, col;
} ls_nested_layout;

typedef enum { LS_SWIZZLE_XOR_SHUFFLE, LS_SWIZZLE_ROTATE_ROWS } ls_swizzle_kind;

/* The largest swizzle parameter (elements, rows): a period, blocks per row
 * times per_phase, then fits 64 bits with room; IREE's are in the tens. */
#define LS_SWIZZLE_MAX_PARAM (INT64_C(1) << 24)

typedef struct {
    ls_swizzle_kind kind;
    int64_t row_width, access_width;
    int64_t row_stride; /* xor_shuffle only; 0 in the attribute means row_width */
    int64_t per_phase;  /* xor_shuffle only; 0 in the attribute means 1 */
    int line, col;
} ls_swizzle;

ls_status ls_lowering_config_from_attr(const ls_attr *a, const char *file,
                                       ls_lowering_config *out, ls_diag *diag);
ls_status ls_translation_info_from_attr(const ls_attr *a, const char *file,
                                        ls_translation_info *out, ls_diag *diag);
ls_status ls_target_from_attr(const ls_attr *a, const char *file, ls_target *out,
                              ls_diag *diag);
ls_status ls_nested_layout_from_attr(const ls_attr *a, const char *file, ls_nested_layout *out,
                                     ls_diag *diag);
ls_status ls_swizzle_from_attr(const ls_attr *a, const char *file, ls_swizzle *out,
                               ls_diag *diag);

/* Built-in targets by IREE name (gfx942, mi300x, gfx950, gfx1100, rx7900xtx,
 * sm_80, a100, sm_90, h100).  false when unknown. */
bool ls_target_lookup(const char *name, ls_target *out);
/* Whether IREE's target lists MMA intrinsics (wgp `mma = [...]`): CDNA1-4,
 * RDNA3-4, gfx1250 and NVIDIA sm_70 and later do; Pascal, RDNA1-2 do not
 * (KnownTargets.cpp).  sm_90 is lanescope's own row and follows Ampere. */
bool ls_target_has_mma(const ls_target *t);

/* Comma-separated list of the built-in names, for messages. */
const char *ls_target_names(void);

/* "[1, 2, 3]" into buf; returns the length it needed (snprintf-style). */
size_t ls_format_list(char *buf, size_t size, const int64_t *v, int n);

/* Print a lowering config back in IREE's syntax. */
void ls_lowering_config_format(const ls_lowering_config *c, char *buf, size_t size);
void ls_nested_layout_format(const ls_nested_layout *l, char *buf, size_t size);

#endif
