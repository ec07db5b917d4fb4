/* codegen_att.h: what the attention generator's two halves share
 * (private to src/cuda): the per-thread index spaces of the two matmuls'
 * layouts, the generation state, and the reductions
 * (codegen_att_reduce.c) that the kernel (codegen_attention.c) emits. */
#ifndef LANESCOPE_CUDA_CODEGEN_ATT_H
#define LANESCOPE_CUDA_CODEGEN_ATT_H

#include <stdio.h>

#include "lanescope/attention.h"
#include "lanescope/measure.h"

/* The loops of one matmul a value is laid out over, in the matmul's order. */
typedef struct {
    const ls_att_matmul *mm;
    int n;
    int loop[LS_MAX_RANK];
    int64_t count; /* local tuples per thread */
} aspace;

typedef struct {
    FILE *f;
    const ls_attention *a;
    const ls_module_attention *ma;
    const ls_dop *o;
    ls_plan_target t;
    unsigned bmask, mmask, k1mask, k2mask, nmask;
    int64_t maxbase[LS_MAX_RANK];      /* the largest thread base along each op dim */
    ls_elem_type type[5], out_type[3]; /* query, key, value, scale, mask */
    ls_elem_type et;                   /* the work type: S, P, max, sum, acc */
    bool stored[3], online, mask;
    float sprime, init[3];
    char init_lit[3][48]; /* the inits as C literals */
    int64_t nsplit_max, buf_floats;
    const char *idx;
    /* the spaces the per-thread arrays are laid out over: QK's B|M|K1 (Q'),
     * B|M|K2 (S, P; a partial tile's max, sum per slot) and B|M (a row's
     * max, sum); PV's B|M|K2|N (a partial tile's acc per slot) and B|M|N */
    aspace sq, ss, sr, spa, sa;
    /* the engine's view's plan: a promoted key (operand 1, the view's
     * input 0) or value (2, input 1) and its copy layout */
    const ls_plan *vp;
    bool prom[3];
    /* a key or value a gather makes (paged attention): its source read at
     * the row its indices name (in<k> is the source, ix<k> the indices),
     * its operand dims [0, batch_rank) the indices' and the rest the
     * source's slice of slice elements */
    const ls_module_gather *gather[3];
    int batch_rank[3];
    int64_t slice[3];
    /* a mask a linalg.generic computes from linalg.index (ls_mask) */
    const ls_module_elementwise *mask_op;
    /* the key's and value's reads as the engine times them: vw[k]
     * elements a load (1: element by element), the groups of vw[k]
     * elements loaded as one vector this step (vgroup[k][c / vw[k]]) */
    int64_t vw[3];
    bool *vgroup[3];
    int64_t ngroups[3];
} agen;

/* The element of a reduction at the tile offsets off: its value, or (a
 * contraction) the FMA's two factors. */
typedef void (*elem_fn)(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size);

typedef enum { K_CHAIN, K_ADD, K_MAX } rkind;

unsigned cg_att_mask_of(const int *dims, int n);
/* The matmul whose layout gives the thread's base along op dim d (PV's for
 * N, QK's for the rest: they agree on the dims both have), and its loop
 * of d in *loop. */
const ls_att_matmul *cg_att_base_matmul(const agen *g, int d, int *loop);
aspace cg_att_space(const ls_att_matmul *mm, unsigned mask);
/* Tuple f's constant offsets along the space's op dims (the thread's base
 * aside): b*O*T*E + o*T*E + e per loop. */
void cg_att_tuple_off(const aspace *s, int64_t f, int64_t *off);
/* Whether tuple offsets off lie inside the tile along the space's dims:
 * 1 always, 0 never, 2 depending on the thread (the condition into buf). */
int cg_att_tuple_cond(const agen *g, const aspace *s, const int64_t *off, char *buf, size_t size);
/* The tuple of space s whose offsets equal off on s's dims (-1: none). */
int64_t cg_att_find(const aspace *s, const int64_t *off);
/* The constant part of operand op's offset at tile offsets off. */
int64_t cg_att_const_offset(const ls_dop_operand *op, const int64_t *off);
/* Operand k's element at the tile offsets off, as float. */
void cg_att_operand_at(const agen *g, int k, const int64_t *off, char *buf, size_t size);
/* "const ls_idx_t name = sum over the operand's dims of (origin + thread
 * base) x stride;" */
void cg_att_emit_base(const agen *g, const ls_dop_operand *op, const char *name, const char *ind);
/* float dst[] = the value fn gives over the op dims in vals, reduced over
 * those in red, on matmul mm's layout; returns the space dst is over. */
aspace cg_att_emit_reduce(agen *g, const ls_att_matmul *mm, unsigned vals, unsigned red, rkind k,
                          elem_fn fn, const char *dst);

/* ---- codegen_att_io.c */
/* c rounded to the work type; maximumf's finite identity in it */
double cg_att_et_const(const agen *g, double c);
double cg_att_et_lowest(const agen *g);
/* ls_rt, ls_add, ls_mul, ls_fma: the softmax's arithmetic in the work type */
void cg_att_emit_work_type(const agen *g);
/* the computed mask's body as the device function ls_mask */
void cg_att_emit_mask_fn(const agen *g);
/* promote_operands: the copy threads' parts; each K2 step's copy */
void cg_att_emit_promote_setup(agen *g);
void cg_att_emit_promote_copy(agen *g);
/* the key's (k 1) or value's (2) vector width, where its reads align
 * (cg_att_vector_width); each K2 step's vector reads, after its base */
void cg_att_vector_width(agen *g, int k);
void cg_att_emit_vector_reads(agen *g, int k);
/* a gathered operand's page-table and slice bases, each K2 step */
void cg_att_emit_gather_bases(agen *g, int k);
/* applyMask on the step's scores */
void cg_att_emit_mask(agen *g);
/* the launch: grid, block, the tensors; false when no result is stored */
bool cg_att_fill_launch(agen *g, ls_cuda_att_launch *L);

#endif
