/* layout.h: the layout math everything later reads.
 *
 * - ls_delinearize / ls_basis_*: seed 000's delinearize-then-map, with IREE's
 *   mapping convention (dim i takes basis entry mapping[i]; for the
 *   involutions in the seeds' examples both readings agree).
 * - ls_nl_*: #iree_vector_ext.nested_layout virtual ids and their inverse
 *   (seed 002), element <-> (subgroup, batch, outer, thread, element) coords.
 * - ls_derive: the nested layout IREE derives from a lowering config
 *   (reference §2: partial-reduction packing, then subgroup, lane, element
 *   tiles, batch = what remains), with per-dim workgroup, loop and lane facts.
 * - ls_owner_of / ls_thread_element: ownership both ways, duplication kept.
 */
#ifndef LANESCOPE_LAYOUT_H
#define LANESCOPE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "lanescope/attrs.h"
#include "lanescope/problem.h"

#define LS_MAX_BODY (LS_MAX_RANK * 2) /* loop-body rank after packing */
#define LS_MAX_WARNINGS 24
#define LS_MAX_REGISTERS (1 << 20) /* elements one thread holds per iteration */
#define LS_MAX_OWNERS 64 /* owners listed per element; the count is exact */

/* x -> (c0, c1..cn) over basis b[0..n): c0 is the outer bound (x / prod b). */
void ls_delinearize(int64_t x, const int64_t *b, int n, int64_t *coords);
/* Per iteration dim: count and stride (IREE's getStridesFromBasis + mapping). */
void ls_basis_dims(const ls_basis *b, int rank, int64_t *sizes, int64_t *strides);
/* Per iteration dim coordinate of id under the basis. */
void ls_basis_coords(const ls_basis *b, int rank, int64_t id, int64_t *coords);

/* ---- nested layouts ---- */
typedef struct {
    int64_t subgroup[LS_MAX_BODY], batch[LS_MAX_BODY], outer[LS_MAX_BODY],
        thread[LS_MAX_BODY], element[LS_MAX_BODY];
} ls_nl_coord;

int64_t ls_nl_extent(const ls_nested_layout *l, int dim); /* product of the 5 tiles */
void ls_nl_distributed_shape(const ls_nested_layout *l, int64_t *shape); /* batch*outer*elem */
int64_t ls_nl_registers(const ls_nested_layout *l); /* elements one thread holds */
int64_t ls_nl_threads(const ls_nested_layout *l);   /* product of thread tiles */
int64_t ls_nl_subgroups(const ls_nested_layout *l); /* product of subgroup tiles */
/* virtual_id[i] = (id / stride[i]) % tile[i]  (0 where the stride is 0) */
void ls_nl_virtual_thread(const ls_nested_layout *l, int64_t lane, int64_t *vt);
void ls_nl_virtual_subgroup(const ls_nested_layout *l, int64_t sg, int64_t *vs);
/* id = sum(stride[i] * virtual[i]) % prod(tile) */
int64_t ls_nl_lane_of(const ls_nested_layout *l, const int64_t *vt);
int64_t ls_nl_subgroup_of(const ls_nested_layout *l, const int64_t *vs);
/* idx_i = ((((s*B + b)*O + o)*T + t)*E + e) */
void ls_nl_compose(const ls_nested_layout *l, const ls_nl_coord *c, int64_t *idx);
/* Inverse of compose for idx inside the layout's extent; false otherwise. */
bool ls_nl_decompose(const ls_nested_layout *l, const int64_t *idx, ls_nl_coord *c);
/* Register index: row-major over [batch..., outer..., element...]. */
int64_t ls_nl_register_of(const ls_nested_layout *l, const ls_nl_coord *c);
void ls_nl_register_coord(const ls_nested_layout *l, int64_t reg, ls_nl_coord *c);

/* ---- derived from a lowering config ---- */
typedef struct {
    int rank;
    /* per iteration-space dim */
    int64_t wg_tile[LS_MAX_RANK];   /* elements per workgroup (parallel) */
    int64_t wg_count[LS_MAX_RANK];
    int64_t chunk[LS_MAX_RANK];     /* reduction: elements per loop iteration */
    int64_t iterations[LS_MAX_RANK];
    int64_t tail[LS_MAX_RANK];      /* valid elements of the last tile/chunk if ragged, else 0 */
    int64_t lanes[LS_MAX_RANK], subgroups[LS_MAX_RANK], thread[LS_MAX_RANK];
    bool packed[LS_MAX_RANK];       /* split by GPUPackPartialReductions */
    bool serial[LS_MAX_RANK];       /* chunked by the `reduction` level: reduced inside the loop */
    bool serial_reduce;             /* some dim is: every stage runs once per iteration */
    /* No partial_reduction tile on any reduced dim (the whole tile at
     * once, or a serial `reduction` tile per iteration): the loop's body
     * is the reduction itself, and DistributeMultiReduction /
     * DistributeContract reduce all of a thread's registers of an output
     * (batch, outer, element) from the identity, in order -- a float
     * contraction's as ContractToChainFMA's math.fma chain, last register
     * first (LS_FMA_CONTRACT).  So the registers of an output share one
     * accumulator (ls_register_slots), which starts at the identity in
     * every iteration, and the thread reduce has nothing left to do
     * (ls_derive_local_reduce_all).  Not for an arg_compare (its merge) or
     * an attention. */
    bool local_reduce_all;

    /* the loop body after packing: dims [0, rank) then one inner dim per packed dim */
    int body_rank;
    int body_origin[LS_MAX_BODY];
    int64_t body_scale[LS_MAX_BODY]; /* offset along the origin dim per body step */
    int64_t body_bound[LS_MAX_BODY];
    bool body_inner[LS_MAX_BODY];
    ls_nested_layout layout;         /* over the body dims, as IREE builds it */
    int64_t coverage[LS_MAX_BODY];   /* subgroup*batch*outer*thread*element */

    int64_t subgroup_size, workgroup_size, num_subgroups;
    bool sizes_assumed;              /* no translation_info: sizes derived */
    int64_t layout_lanes, layout_subgroups; /* distinct lanes / subgroups in the layout */
    int64_t lane_dup, subgroup_dup;  /* holders of each element */
    int64_t idle_lanes;              /* threads with no valid element in workgroup 0, iteration 0 */
    int64_t total_workgroups, total_iterations;
    int64_t elems_per_load;          /* vector width: product of element tiles */
    int64_t loads_per_iteration;     /* product of batch*outer tiles */
    int64_t elems_per_iteration;     /* registers per thread per iteration */
    int64_t red_elems_per_iteration; /* of those, per output element */
    bool tile_and_fuse;              /* a TileAndFuse program (layout_tilefuse.c) */
    int n_warnings;
    char warnings[LS_MAX_WARNINGS][320];
} ls_derived;

/* Validates the problem, then derives.  d is caller storage.  A reduction
 * on the TileAndFuse pipeline is derived from its VectorDistribute view
 * (d->tile_and_fuse). */
ls_status ls_derive(const ls_problem *p, ls_derived *d, ls_diag *diag);

/* layout_tilefuse.c: a reduction whose translation_info names the
 * TileAndFuse pipeline, and the problem q that runs the same program through
 * the VectorDistribute machinery (threads over the parallel tile, each
 * walking the reduction alone, no lane combine). */
bool ls_is_tile_and_fuse(const ls_problem *p);
ls_status ls_tile_and_fuse_view(const ls_problem *p, ls_problem *q, ls_diag *diag);

typedef struct {
    int64_t tid, subgroup, lane;
} ls_owner;

typedef struct {
    int64_t workgroup; /* linear id, last dim fastest */
    int64_t wg_coord[LS_MAX_RANK];
    int64_t iteration; /* linear partial-reduction iteration, last reduction dim fastest */
    int64_t it_coord[LS_MAX_RANK];
    int64_t body[LS_MAX_BODY];
    ls_nl_coord c;     /* layout coordinates of the element */
    int64_t reg;       /* its index in every holder's distributed vector */
    int64_t n_owners;  /* exact count of holding threads */
    int n_listed;
    ls_owner owners[LS_MAX_OWNERS];
} ls_ownership;

/* Owners of element x (iteration-space coordinates). LS_ERR_INVALID when x
 * is outside the iteration space.  Virtual ids of a derived layout depend on
 * lane mod layout_lanes (and subgroup mod layout_subgroups) only, so the
 * holders are base + k * layout_lanes: O(duplication), no scan. */
ls_status ls_owner_of(const ls_derived *d, const ls_problem *p, const int64_t *x,
                      ls_ownership *out, ls_diag *diag);

/* Coordinates x of register reg of thread tid in workgroup wg_coord and
 * iteration it_coord; *valid is false for padding (outside the space or the
 * body's bound). */
void ls_thread_element(const ls_derived *d, const ls_problem *p, int64_t tid,
                       const int64_t *wg_coord, const int64_t *it_coord, int64_t reg, int64_t *x,
                       bool *valid);

/* True when workgroup wg_coord / iteration it_coord is a partial tile (a
 * ragged tail, or a tile larger than the dim): element validity then
 * differs from an interior tile's. */
bool ls_tile_is_ragged(const ls_derived *d, const ls_problem *p, const int64_t *wg_coord,
                       const int64_t *it_coord);
/* The workgroup's half (reduction false: the parallel dims, coord a
 * workgroup's) or the iteration's half (reduction true: the reduction
 * dims, coord an iteration's) of a tile's raggedness and of its origin's
 * element offset (sum of origin x strides).  Each dim's origin comes from
 * one side, so a tile is ragged when either half is, and its offset is
 * the sum of the halves: an engine computes the workgroup's half once per
 * workgroup instead of once per iteration. */
bool ls_tile_ragged_half(const ls_derived *d, const ls_problem *p, const int64_t *coord,
                         bool reduction);
int64_t ls_tile_offset_half(const ls_derived *d, const ls_problem *p, const int64_t *strides,
                            const int64_t *coord, bool reduction);
/* One past the largest coordinate along loop dim i that any tile forms:
 * its origin plus an offset inside its padded extent (a thread's element)
 * or inside the tile (a picture's cell); -1 past int64.  ls_derive refuses
 * a layout where it is -1, so every such sum fits. */
int64_t ls_tile_reach(const ls_derived *d, const ls_problem *p, int i);
/* First iteration-space coordinate of a tile, per dim. */
void ls_tile_origin(const ls_derived *d, const ls_problem *p, const int64_t *wg_coord,
                    const int64_t *it_coord, int64_t *origin);

/* For register reg: the partial-accumulator index it feeds (packed inner
 * dims dropped; for a contract chain, the result slot) and the result slot
 * after the thread reduce (parallel dims only), both row-major over
 * [batch..., outer..., element...]. */
/* Whether p's registers reduce whole per iteration (ls_derived.local_reduce_all). */
bool ls_derive_local_reduce_all(const ls_problem *p);
void ls_register_slots(const ls_derived *d, const ls_problem *p, int64_t reg, int64_t *acc,
                       int64_t *result);
/* Input-tensor index of a tile's first element, given ls_input_strides. */
int64_t ls_tile_input_base(const ls_derived *d, const ls_problem *p, const int64_t *strides,
                           const int64_t *wg_coord, const int64_t *it_coord);

/* Input k's share of a thread's registers.  IREE gives each operand the
 * iteration-space layout projected through its indexing map
 * (NestedLayoutAttr::apply in setGPULoweringConfigLayout), so a thread
 * reads, per iteration, one vector of `width` elements (the element tiles
 * of the body dims the operand has) for each of `loads` batch/outer
 * positions of those dims: a matvec's vector operand, which lacks the row
 * dim, is read once for all the rows a thread holds. */
typedef struct {
    int64_t loads, width;
    bool dim_in[LS_MAX_BODY]; /* body dim reaches the operand */
} ls_operand_regs;

void ls_operand_regs_of(const ls_derived *d, const ls_problem *p, int k, ls_operand_regs *o);
/* A full register index holding element el of operand load `load` (the
 * dims the operand lacks at 0), and the operand load that holds register
 * reg. */
int64_t ls_operand_register(const ls_derived *d, const ls_operand_regs *o, int64_t load,
                            int64_t el);
int64_t ls_operand_load_of(const ls_derived *d, const ls_operand_regs *o, int64_t reg);
/* The operand's element, of its loads x width in an iteration, that
 * register reg reads: registers that differ only along dims the operand
 * lacks read the same one. */
int64_t ls_operand_element_of(const ls_derived *d, const ls_operand_regs *o, int64_t reg);

/* Linear <-> coordinates for workgroups and iterations. */
void ls_workgroup_coord(const ls_derived *d, int64_t wg, int64_t *coord);
void ls_iteration_coord(const ls_derived *d, const ls_problem *p, int64_t it, int64_t *coord);

#endif
