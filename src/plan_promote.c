/* plan_promote.c: `promote_operands` on the VectorDistribute reduction
 * pipeline, as IREE lowers it.
 *
 * LLVMGPUConfigureTensorLayouts.cpp marks the to_layout of each promoted
 * operand with a shared_memory_conversion (the default promotion,
 * derived_thread_config).  GPUVectorAlloc.cpp then rewrites the operand's
 * global transfer_read: every thread of the workgroup reads the tile in a
 * derived thread layout (deriveThreadTileSizes: 128-bit vectors where the
 * tile allows, DerivedConfigUtils.cpp; getDerivedThreadLayout,
 * GPUNestedLayoutUtils.cpp), writes it to a workgroup allocation, and the
 * compute layout's reads come from there.  A workgroup barrier at the start
 * of the loop body keeps the writes from overtaking the previous
 * iteration's reads, an iree_gpu.value_barrier after the writes makes them
 * visible.  GPUReduceBankConflicts (paddingBits = 64 in the
 * VectorDistribute pipeline, LLVMGPU/Passes.cpp) pads the innermost dim.
 * The values do not change, only where they travel.
 */
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"

/* getVectorTileSizesFromLoopRanges for a static shape, vectorised along the
 * innermost dim, collapsing into outer dims when the inner ones are
 * covered whole. */
static void copy_element_tile(const int64_t *shape, int rank, int64_t threads, int64_t vec,
                              int64_t *tile)
{
    int64_t flat = 1;
    for (int i = 0; i < rank; i++) {
        tile[i] = 1;
        flat *= shape[i];
    }
    int t = rank - 1;
    int64_t range = shape[t];
    if (flat % threads != 0) { /* indivisible: just the vector size */
        tile[t] = range >= vec ? vec : range;
        return;
    }
    int64_t maxv = vec < flat / threads ? vec : flat / threads;
    if (range % maxv != 0 && maxv % range != 0)
        return; /* unit vectors */
    tile[t] = range < maxv ? range : maxv;
    if (range >= maxv)
        return;
    maxv /= range;
    for (int i = rank - 2; i >= 0 && maxv % shape[i] == 0; i--) {
        tile[i] = shape[i];
        maxv /= shape[i];
    }
}

/* getDerivedThreadLayout: threads laid over the vectors innermost first,
 * each dim taking all its vectors or all the threads left; the rest of
 * each dim is batch.  False where IREE fails ("failed to derive layout for
 * promoted read-like op"). */
static bool derived_layout(int64_t threads, const int64_t *shape, int rank,
                           const int64_t *elem, int64_t *tile, int64_t *stride, int64_t *batch)
{
    int64_t residual = threads, cur = 1;
    for (int i = rank - 1; i >= 0; i--) {
        if (elem[i] <= 0 || shape[i] % elem[i] != 0)
            return false;
        int64_t size = shape[i] / elem[i], block;
        if (residual % size == 0)
            block = size;
        else if (size % residual == 0)
            block = residual;
        else
            return false;
        tile[i] = block;
        stride[i] = cur;
        batch[i] = size / block;
        cur *= block;
        residual /= block;
    }
    return true;
}

ls_status ls_plan_promote(const ls_problem *p, const ls_derived *d, ls_plan *plan, ls_diag *diag)
{
    const ls_i64_list *l = &p->config.promote_operands;
    for (int i = 0; l->present && i < l->n; i++) {
        int k = (int)l->v[i];
        const ls_operand *o = &p->inputs[k];
        if (plan->promote[k].on)
            continue; /* named twice: promoted once */
        /* The tile read per iteration, in the operand's dims.  A dim packed
         * by GPUPackPartialReductions would give the buffer the packed
         * shape; lanescope does not lay that out. */
        for (int b = 0; b < d->body_rank; b++)
            for (int j = 0; d->body_inner[b] && j < o->map_n; j++)
                if (o->map[j] == d->body_origin[b])
                    return ls_diag_set(diag, LS_ERR_INVALID, p->file, l->line, l->col,
                                       "promote_operands: input %d's reduced dim d%d is packed "
                                       "by GPUPackPartialReductions, so its buffer takes the "
                                       "packed shape, which lanescope does not model; a "
                                       "`reduction` (serial) tile keeps it whole",
                                       k, o->map[j]);
        ls_promote *pr = &plan->promote[k];
        pr->rank = o->map_n;
        int bits = ls_elem_type_bits(o->type);
        for (int j = 0; j < o->map_n; j++) {
            int m = o->map[j];
            pr->shape[j] = p->is_reduction[m] ? d->chunk[m] : d->wg_tile[m];
        }
        /* The buffer in bits, padding included, fits int64: a workgroup tile
         * may be far past the dim's size (one workgroup), and the copy's
         * tiling and the byte sizes below multiply the shape out. */
        int64_t tile_elems = 1, tile_bits;
        for (int j = 0; j < pr->rank; j++) {
            int64_t e;
            if (__builtin_add_overflow(pr->shape[j], j == pr->rank - 1 ? 64 / bits : 0, &e) ||
                !ls_mul_ok(tile_elems, e, &tile_elems))
                tile_elems = -1;
            if (tile_elems < 0)
                break;
        }
        if (tile_elems < 0 || !ls_mul_ok(tile_elems, bits, &tile_bits) ||
            __builtin_add_overflow(tile_bits, 7, &tile_bits))
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, l->line, l->col,
                               "promote_operands: input %d's tile per iteration overflows int64 "
                               "as a bit count (its workgroup or reduction tile is too large)",
                               k);
        copy_element_tile(pr->shape, pr->rank, d->workgroup_size, 128 / bits, pr->elem_tile);
        if (!derived_layout(d->workgroup_size, pr->shape, pr->rank, pr->elem_tile,
                            pr->thread_tile, pr->thread_stride, pr->batch))
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, l->line, l->col,
                               "promote_operands: input %d's tile cannot be spread over %lld "
                               "threads in a derived thread layout (IREE's GPUVectorAlloc fails "
                               "the same way: 'failed to derive layout for promoted read-like "
                               "op')",
                               k, (long long)d->workgroup_size);
        pr->copy_loads = pr->copy_width = 1;
        for (int j = 0; j < pr->rank; j++) {
            pr->copy_loads *= pr->batch[j];
            pr->copy_width *= pr->elem_tile[j];
        }
        pr->pad = 64 / bits;
        int64_t elems = 1;
        for (int j = 0; j < pr->rank; j++)
            elems *= pr->shape[j] + (j == pr->rank - 1 ? pr->pad : 0);
        pr->bytes = (elems * bits + 7) / 8; /* a packed i4 / f4 tile: two a byte */
        pr->on = true;
        plan->n_promoted++;
        plan->promote_bytes += pr->bytes;
    }
    return LS_OK;
}

void ls_plan_promote_coord(const ls_plan *plan, int k, int64_t tid, int64_t load, int64_t el,
                           int64_t *y)
{
    const ls_promote *pr = &plan->promote[k];
    /* row-major over the batch and element tiles, outermost dim first */
    for (int j = pr->rank - 1; j >= 0; j--) {
        int64_t b = load % pr->batch[j], e = el % pr->elem_tile[j];
        load /= pr->batch[j];
        el /= pr->elem_tile[j];
        int64_t t = (tid / pr->thread_stride[j]) % pr->thread_tile[j];
        y[j] = (b * pr->thread_tile[j] + t) * pr->elem_tile[j] + e;
    }
}

int64_t ls_plan_promote_stride(const ls_plan *plan, int k, int j)
{
    const ls_promote *pr = &plan->promote[k];
    int64_t s = 1;
    for (int i = pr->rank - 1; i > j; i--)
        s *= pr->shape[i] + (i == pr->rank - 1 ? pr->pad : 0);
    return s;
}

int64_t ls_plan_promote_offset(const ls_plan *plan, int k, const int64_t *y)
{
    int64_t off = 0;
    for (int j = 0; j < plan->promote[k].rank; j++)
        off += y[j] * ls_plan_promote_stride(plan, k, j);
    return off * plan->inputs[k].elem_bits / 8;
}

void ls_plan_promote_type(const ls_plan *plan, int k, char *buf, size_t size)
{
    const ls_promote *pr = &plan->promote[k];
    size_t u = (size_t)snprintf(buf, size, "memref<");
    for (int j = 0; j < pr->rank && u < size; j++)
        u += (size_t)snprintf(buf + u, size - u, "%lldx",
                              (long long)(pr->shape[j] + (j == pr->rank - 1 ? pr->pad : 0)));
    if (u < size)
        snprintf(buf + u, size - u, "%s, #gpu.address_space<workgroup>>",
                 ls_elem_type_name(plan->problem->inputs[k].type));
}

void ls_plan_promote_dump_alloc(const ls_plan *plan, FILE *f)
{
    char ty[160];
    for (int k = 0; k < plan->n_inputs; k++) {
        if (!plan->promote[k].on)
            continue;
        ls_plan_promote_type(plan, k, ty, sizeof ty);
        fprintf(f, "    %%prom%d = memref.alloc() : %s (%lld bytes; innermost padded by %lld) "
                   "-- promote_operands: input %d %s\n",
                k, ty, (long long)plan->promote[k].bytes, (long long)plan->promote[k].pad, k,
                plan->problem->inputs[k].name);
    }
}

void ls_plan_promote_dump_copy(const ls_plan *plan, FILE *f)
{
    if (plan->n_promoted == 0)
        return;
    fprintf(f, "      gpu.barrier (the previous iteration's reads are done)\n");
    for (int k = 0; k < plan->n_inputs; k++) {
        const ls_promote *pr = &plan->promote[k];
        if (!pr->on)
            continue;
        /* lists of the derived layout, and its distributed vector as
         * VectorDistribute prints it: batch, outer (1), element tiles */
        char el[96] = "", th[96] = "", vec[128] = "vector<";
        size_t ue = 0, ut = 0, uv = strlen(vec);
        for (int j = 0; j < pr->rank; j++) {
            ue += (size_t)snprintf(el + ue, sizeof el - ue, "%s%lld", j ? ", " : "",
                                   (long long)pr->elem_tile[j]);
            ut += (size_t)snprintf(th + ut, sizeof th - ut, "%s%lld", j ? ", " : "",
                                   (long long)pr->thread_tile[j]);
        }
        for (int g = 0; g < 3; g++)
            for (int j = 0; j < pr->rank && uv < sizeof vec; j++)
                uv += (size_t)snprintf(vec + uv, sizeof vec - uv, "%lldx",
                                       (long long)(g == 0   ? pr->batch[j]
                                                   : g == 1 ? 1
                                                            : pr->elem_tile[j]));
        if (uv < sizeof vec)
            snprintf(vec + uv, sizeof vec - uv, "%s>",
                     ls_elem_type_name(plan->problem->inputs[k].type));
        fprintf(f, "      input %d %s: vector.transfer_read from global, %lld x vector<%lldx%s> "
                   "per thread (derived thread layout: threads [%s], elements [%s]; distributed "
                   "%s); vector.transfer_write -> %%prom%d\n",
                k, plan->problem->inputs[k].name, (long long)pr->copy_loads,
                (long long)pr->copy_width, ls_elem_type_name(plan->problem->inputs[k].type), th,
                el, vec, k);
    }
    fprintf(f, "      iree_gpu.value_barrier (gpu.barrier: the writes are visible)\n");
}
