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
 *
 * How the buffer's vector accesses compile.  IREE bufferizes the
 * allocation with no alignment (gpuAllocationFn, LLVMGPU/Passes.cpp), so
 * on NVIDIA the workgroup global is aligned to one element
 * (ConvertSharedMemAllocOp, LLVMGPU/ConvertToLLVM.cpp), MLIR's
 * vector.store / vector.load carry the element's alignment, and LLVM's
 * NVPTX splits each such vector into elements: a copy's vector<8xf16>
 * store is 8 st.shared.b16 in the PTX (llc-22 -mcpu=sm_90).  ptxas then
 * merges neighbouring scalar accesses again, up to four elements
 * (STS.64 of four halves, STS.128 of four floats) and as far as the
 * offsets' alignment goes (CUDA 13.0 ptxas for sm_80 and sm_90, the
 * opcodes read from the cubin by tools/ptxas-shared-merges.py: 8 halves
 * at 8-aligned offsets are two LDS.64, at 4-aligned ones four LDS.32; 4
 * floats at 16-aligned offsets one LDS.128).  The suite's promoted
 * matvecs compile so (their kernels' PTX is the same scalar accesses), and
 * their H100 times (targets/measured/) agree with it, not with one access
 * per element.
 * ROCm raises every workgroup global to 16 bytes (setSharedMemoryAlignment,
 * ConvertToROCDL.cpp), and AMDGPU takes any alignment in one instruction
 * per 16 bytes (ds_write_b128, ds_write2_b64 where it knows 8 bytes;
 * gfx90a to gfx1201, llc-22).
 */
#include <stdio.h>
#include <stdlib.h>
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

/* The instruction one piece of `bytes` of a buffer access compiles to. */
static const char *access_name(const ls_plan *plan, bool store, int64_t bytes, char *buf,
                               size_t size)
{
    long long bits = (long long)bytes * 8;
    if (!plan->amd)
        snprintf(buf, size, "%s.shared.b%lld", store ? "st" : "ld", bits);
    else if (plan->gfx_major >= 11)
        snprintf(buf, size, "ds_%s_b%lld", store ? "store" : "load", bits);
    else
        snprintf(buf, size, "ds_%s_%s%lld", store ? "write" : "read",
                 store || bits >= 32 ? "b" : "u", bits);
    return buf;
}

/* --dump-plan's line on what input k's buffer accesses compile to. */
static void dump_accesses(const ls_plan *plan, int k, FILE *f)
{
    int64_t sb, rb;
    int64_t ns = ls_plan_promote_pieces_most(plan, k, false, &sb);
    int64_t nr = ls_plan_promote_pieces_most(plan, k, true, &rb);
    char st[32], ld[32];
    access_name(plan, true, sb, st, sizeof st);
    access_name(plan, false, rb, ld, sizeof ld);
    fprintf(f,
            "        (the backend: each copy vector's store %lld x %s, each compute read of "
            "%%prom%d %lld x %s; %s)\n",
            (long long)ns, st, k, (long long)nr, ld,
            plan->amd ? "ROCm aligns workgroup memory to 16 bytes and AMDGPU takes any "
                        "alignment, 16 bytes an instruction"
                      : "IREE's PTX accesses each element (the buffer is aligned to one) and "
                        "ptxas merges up to four as the offsets' alignment allows");
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
        dump_accesses(plan, k, f);
    }
    fprintf(f, "      iree_gpu.value_barrier (gpu.barrier: the writes are visible)\n");
}

/* The largest power of two, at most 16, dividing every offset[0..n). */
static int64_t offsets_align(const int64_t *offset, int64_t n)
{
    int64_t align = 16;
    for (int64_t i = 0; i < n; i++)
        while (align > 1 && offset[i] % align != 0)
            align /= 2;
    return align;
}

int64_t ls_plan_promote_accesses(const ls_plan *plan, int k, int64_t elems, int64_t align,
                                 int64_t *bytes)
{
    int64_t bits = plan->inputs[k].elem_bits, total = (elems * bits + 7) / 8;
    if (total < 1)
        total = 1;
    int64_t piece;
    if (plan->amd) {
        piece = total < 16 ? total : 16;
    } else {
        /* whole elements (a packed sub-byte type's bytes), four at most */
        int64_t eb = bits >= 8 ? bits / 8 : 1, n = total / eb, per = 1;
        while (2 * per <= n && 2 * per <= 4 && 2 * per * eb <= align && 2 * per * eb <= 16)
            per *= 2;
        piece = per * eb;
    }
    if (bytes)
        *bytes = piece;
    return (total + piece - 1) / piece;
}

/* Access a's elements' elems (copy width or compute read width). */
static int64_t access_elems(const ls_plan *plan, int k, int64_t a)
{
    const ls_promote *pr = &plan->promote[k];
    return a < pr->copy_loads ? pr->copy_width : plan->inputs[k].width;
}

/* Thread tid's byte offset in the buffer of element el of access a; false
 * where the thread holds no such element (padding of the compute layout). */
static bool element_offset(const ls_plan *plan, const ls_operand_regs *regs, int k, int64_t a,
                           int64_t tid, int64_t el, int64_t *off)
{
    const ls_promote *pr = &plan->promote[k];
    const ls_problem *p = plan->problem;
    const ls_operand *o = &p->inputs[k];
    int64_t zero[LS_MAX_RANK] = {0}, y[LS_MAX_RANK], x[LS_MAX_RANK];
    if (a < pr->copy_loads) {
        ls_plan_promote_coord(plan, k, tid, a, el, y);
    } else {
        bool valid;
        int64_t reg = ls_operand_register(plan->derived, regs, a - pr->copy_loads, el);
        ls_thread_element(plan->derived, p, tid, zero, zero, reg, x, &valid);
        if (!valid)
            return false;
        for (int j = 0; j < o->map_n; j++)
            y[j] = x[o->map[j]];
    }
    *off = ls_plan_promote_offset(plan, k, y);
    return true;
}

int ls_plan_promote_offsets(const ls_plan *plan, int k, int64_t a, int64_t threads, int64_t *lanes,
                            int64_t *addr)
{
    ls_operand_regs regs;
    ls_operand_regs_of(plan->derived, plan->problem, k, &regs);
    int n = 0;
    for (int64_t tid = 0; tid < threads; tid++)
        if (element_offset(plan, &regs, k, a, tid, 0, &addr[n]))
            lanes[n++] = tid;
    return n;
}

static int cmp_off(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int64_t ls_plan_promote_pieces(const ls_plan *plan, int k, int64_t a, int64_t *rel, int64_t *bytes)
{
    int64_t elems = access_elems(plan, k, a), bits = plan->inputs[k].elem_bits;
    int64_t eb = bits >= 8 ? bits / 8 : 1, wg = plan->derived->workgroup_size;
    ls_operand_regs regs;
    ls_operand_regs_of(plan->derived, plan->problem, k, &regs);
    /* thread 0's elements in the buffer, in order: the contiguous runs
     * (a multi-row vector, or one the padding breaks, is several) */
    int64_t *off = ls_xcalloc((size_t)elems, sizeof *off), first = 0, n = 0;
    for (int64_t el = 0; el < elems; el++)
        if (element_offset(plan, &regs, k, a, 0, el, &off[n]))
            n++;
    if (n == 0) { /* thread 0 holds none of it: one access stands for it */
        free(off);
        rel[0] = 0;
        bytes[0] = (elems * bits + 7) / 8;
        return 1;
    }
    qsort(off, (size_t)n, sizeof *off, cmp_off);
    /* offsets from the element every thread's first byte stands for (the
     * engine's addresses): element 0, or the lowest where it is padding */
    if (!element_offset(plan, &regs, k, a, 0, 0, &first))
        first = off[0];
    /* every thread's first byte, once; a run's start is at the same
     * distance from it in each */
    int64_t *lanes = ls_xcalloc((size_t)wg, sizeof *lanes),
            *at = ls_xcalloc((size_t)wg, sizeof *at);
    int64_t *starts = ls_xcalloc((size_t)wg, sizeof *starts);
    int nt = ls_plan_promote_offsets(plan, k, a, wg, lanes, at);
    int64_t count = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && off[j] - off[j - 1] <= eb)
            j++;
        int64_t run = off[j - 1] - off[i] + eb; /* bytes */
        /* the run's alignment: its start in every thread */
        int64_t start = off[i] - first;
        for (int t = 0; t < nt; t++)
            starts[t] = at[t] + start;
        int64_t pb,
            c = ls_plan_promote_accesses(plan, k, run * 8 / bits, offsets_align(starts, nt), &pb);
        for (int64_t q = 0; q < c; q++) {
            rel[count] = start + q * pb;
            bytes[count++] = run - q * pb < pb ? run - q * pb : pb;
        }
        i = j;
    }
    free(off);
    free(lanes);
    free(at);
    free(starts);
    return count;
}

int64_t ls_plan_promote_pieces_most(const ls_plan *plan, int k, bool reads, int64_t *bytes)
{
    int64_t from = reads ? plan->promote[k].copy_loads : 0;
    int64_t n = reads ? plan->inputs[k].loads : plan->promote[k].copy_loads, most = 0;
    *bytes = 0;
    for (int64_t a = from; a < from + n; a++) {
        int64_t cap = access_elems(plan, k, a) * 2 + 1;
        int64_t *rel = ls_xcalloc((size_t)cap, sizeof *rel);
        int64_t *b = ls_xcalloc((size_t)cap, sizeof *b);
        int64_t c = ls_plan_promote_pieces(plan, k, a, rel, b);
        if (c > most) {
            most = c;
            *bytes = b[0];
        }
        free(rel);
        free(b);
    }
    return most;
}
