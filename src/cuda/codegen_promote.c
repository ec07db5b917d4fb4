/* codegen_promote.c: promote_operands in the CUDA kernel, as
 * plan_promote.c models IREE's lowering of it (GPUVectorAlloc.cpp).
 *
 * Each promoted input gets a __shared__ buffer of the plan's padded shape
 * (the innermost dim padded by 64 bits, GPUReduceBankConflicts).  Every
 * iteration: a barrier (the previous iteration's reads are done), each
 * thread copies its part of the tile in the derived thread layout
 * (plan->promote[k]: thread_tile / thread_stride / batch / elem_tile, the
 * coordinates ls_plan_promote_coord gives), a barrier (the writes are
 * visible), and the compute layout's reads come from the buffer.
 *
 * The shared writes and the compute reads from the buffer are element by
 * element, as IREE's PTX is on NVIDIA: its buffer is aligned to one
 * element, so NVPTX splits every vector access to it, and ptxas merges the
 * elements again as far as the offsets' alignment allows (plan_promote.c,
 * ls_plan_promote_pieces: the simulator times the merged accesses).
 * What differs from IREE's kernel, said in the kernel's header: the copy's
 * global read is one vector only where no element of the tile can fall
 * outside the tensor and the vector is aligned (else element by element).
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* Copy statements a thread's kernel may unroll per promoted input. */
#define LS_CUDA_MAX_COPY 1024

bool cg_promoted(const gen *g, int k)
{
    return g->plan->promote[k].on;
}

ls_status cg_check_promote(const ls_plan *plan, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    for (int k = 0; k < p->n_inputs; k++) {
        const ls_promote *pr = &plan->promote[k];
        if (!pr->on)
            continue;
        if (plan->derived->tile_and_fuse)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "%s: promote_operands on a TileAndFuse plan; the CUDA generator "
                               "emits the VectorDistribute copy only",
                               p->name);
        if (plan->inputs[k].elem_bits < 8)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "%s: input %d is a packed %lld-bit type; the CUDA generator does "
                               "not copy sub-byte elements through workgroup memory",
                               p->name, k, (long long)plan->inputs[k].elem_bits);
        if (pr->copy_loads * pr->copy_width > LS_CUDA_MAX_COPY)
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "%s: input %d's promoted copy is %lld elements per thread per "
                               "iteration; the generator unrolls at most %d",
                               p->name, k, (long long)(pr->copy_loads * pr->copy_width),
                               LS_CUDA_MAX_COPY);
    }
    return LS_OK;
}

void cg_emit_promote_types(gen *g)
{
    for (int k = 0; k < g->nin; k++) {
        const ls_promote *pr = &g->plan->promote[k];
        if (!pr->on)
            continue;
        int64_t eb = g->plan->inputs[k].elem_bits / 8;
        fprintf(g->f, "typedef struct __align__(%lld) { ls_in%d_t e[%lld]; } ls_pvec%d_t; /* one "
                      "copy read of promoted input %d */\n",
                (long long)(pr->copy_width * eb), k, (long long)pr->copy_width, k, k);
    }
}

/* The buffers, and each thread's parts of its copy coordinates (pk) and
 * of its compute reads (po), after the thread setup. */
void cg_emit_promote_setup(gen *g, int64_t *smem_bytes)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    for (int k = 0; k < g->nin; k++) {
        const ls_promote *pr = &g->plan->promote[k];
        if (!pr->on)
            continue;
        const ls_operand *o = &p->inputs[k];
        int64_t elems = pr->bytes / (g->plan->inputs[k].elem_bits / 8);
        char ty[160];
        ls_plan_promote_type(g->plan, k, ty, sizeof ty);
        fprintf(f, "    /* promote_operands: input %d through workgroup memory, %s */\n", k, ty);
        fprintf(f, "    __shared__ ls_in%d_t prom%d[%lld];\n", k, k, (long long)elems);
        *smem_bytes += pr->bytes;
        for (int j = 0; j < pr->rank; j++)
            fprintf(f, "    const %s pk%d_%d = (tid / %lld) %% %lld; /* copy thread along operand "
                       "dim %d */\n",
                    cg_idx(g), k, j, (long long)pr->thread_stride[j],
                    (long long)pr->thread_tile[j], j);
        fprintf(f, "    const %s po%d = 0", cg_idx(g), k);
        for (int j = 0; j < o->map_n; j++)
            fprintf(f, " + tx%d * %lld", o->map[j], (long long)ls_plan_promote_stride(g->plan, k, j));
        fprintf(f, "; /* the compute layout's reads, in the buffer */\n");
    }
}

static void emit_copy(gen *g, int k)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    const ls_promote *pr = &g->plan->promote[k];
    const ls_operand *o = &p->inputs[k];
    int rank = pr->rank;
    bool ragged = false;
    for (int j = 0; j < rank; j++)
        ragged |= p->size[o->map[j]] % pr->shape[j] != 0;
    int64_t eb = g->plan->inputs[k].elem_bits / 8;
    int last = rank - 1;
    /* one vector per copy read: the elements run along the innermost dim,
     * contiguous in memory, every start a multiple of the vector */
    bool vec = !ragged && pr->copy_width > 1 && pr->elem_tile[last] == pr->copy_width &&
               g->in_stride[k][o->map[last]] == 1 && ((pr->copy_width * eb) & (pr->copy_width * eb - 1)) == 0 &&
               pr->copy_width * eb <= 16;
    for (int j = 0; j < rank && vec; j++) {
        int m = o->map[j];
        int64_t step = p->is_reduction[m] ? g->d->chunk[m] : g->d->wg_tile[m];
        vec = (j == last ? step : g->in_stride[k][m]) % pr->copy_width == 0;
    }
    fprintf(f, "        { /* input %d: %lld copy read%s of %lld element%s per thread (derived "
               "thread layout), %s */\n",
            k, (long long)pr->copy_loads, pr->copy_loads == 1 ? "" : "s",
            (long long)pr->copy_width, pr->copy_width == 1 ? "" : "s",
            vec ? "each one vector" : ragged ? "element by element (the tile can pass the tensor's end)"
                                             : "element by element");
    fprintf(f, "            const %s c = 0", cg_idx(g));
    for (int j = 0; j < rank; j++) {
        char org[160];
        cg_origin_expr(g, o->map[j], org, sizeof org);
        fprintf(f, " + (%s + pk%d_%d * %lld) * %lld", org, k, j, (long long)pr->elem_tile[j],
                (long long)g->in_stride[k][o->map[j]]);
    }
    fprintf(f, ";\n            const %s s = 0", cg_idx(g));
    for (int j = 0; j < rank; j++)
        fprintf(f, " + pk%d_%d * %lld", k, j, (long long)(pr->elem_tile[j] * ls_plan_promote_stride(g->plan, k, j)));
    fprintf(f, ";\n");
    for (int64_t b = 0; b < pr->copy_loads; b++) {
        /* the batch and element parts of the coordinate, as ls_plan_promote_coord */
        int64_t bj[LS_MAX_RANK], rest = b;
        for (int j = rank - 1; j >= 0; j--) {
            bj[j] = rest % pr->batch[j];
            rest /= pr->batch[j];
        }
        if (vec) {
            int64_t cg = 0, cs = 0;
            for (int j = 0; j < rank; j++) {
                int64_t y = bj[j] * pr->thread_tile[j] * pr->elem_tile[j];
                cg += y * g->in_stride[k][o->map[j]];
                cs += y * ls_plan_promote_stride(g->plan, k, j);
            }
            fprintf(f, "            {\n                const ls_pvec%d_t v = *(const ls_pvec%d_t "
                       "*)(in%d + c + %lld);\n",
                    k, k, k, (long long)cg);
            for (int64_t e = 0; e < pr->copy_width; e++)
                fprintf(f, "                prom%d[s + %lld] = v.e[%lld];\n", k,
                        (long long)(cs + e), (long long)e);
            fprintf(f, "            }\n");
            continue;
        }
        for (int64_t e = 0; e < pr->copy_width; e++) {
            int64_t ej[LS_MAX_RANK], er = e, cg = 0, cs = 0;
            for (int j = rank - 1; j >= 0; j--) {
                ej[j] = er % pr->elem_tile[j];
                er /= pr->elem_tile[j];
            }
            char cond[1024] = "";
            size_t u = 0;
            for (int j = 0; j < rank; j++) {
                int64_t y = bj[j] * pr->thread_tile[j] * pr->elem_tile[j] + ej[j];
                cg += y * g->in_stride[k][o->map[j]];
                cs += y * ls_plan_promote_stride(g->plan, k, j);
                int m = o->map[j];
                if (p->size[m] % pr->shape[j] == 0 || u >= sizeof cond)
                    continue;
                char org[160];
                cg_origin_expr(g, m, org, sizeof org);
                u += (size_t)snprintf(cond + u, sizeof cond - u,
                                      "%s%s + pk%d_%d * %lld + %lld < %lld", u ? " && " : "", org,
                                      k, j, (long long)pr->elem_tile[j], (long long)y,
                                      (long long)p->size[m]);
            }
            if (cond[0])
                fprintf(f, "            if (%s)\n    ", cond);
            fprintf(f, "            prom%d[s + %lld] = in%d[c + %lld];\n", k, (long long)cs, k,
                    (long long)cg);
        }
    }
    fprintf(f, "        }\n");
}

void cg_emit_promote_copy(gen *g)
{
    if (g->plan->n_promoted == 0)
        return;
    FILE *f = g->f;
    fprintf(g->f, "        /* [promote] the previous iteration's reads of the buffer are done */\n"
                  "        __syncthreads();\n");
    for (int k = 0; k < g->nin; k++)
        if (g->plan->promote[k].on)
            emit_copy(g, k);
    fprintf(f, "        /* [promote] iree_gpu.value_barrier: the writes are visible */\n"
               "        __syncthreads();\n");
}

void cg_promote_src(const gen *g, int k, int64_t r, char *buf, size_t size)
{
    const ls_operand *o = &g->p->inputs[k];
    int64_t rx[LS_MAX_RANK], off = 0;
    cg_reg_loop_part(g, r, rx);
    for (int j = 0; j < o->map_n; j++)
        off += rx[o->map[j]] * ls_plan_promote_stride(g->plan, k, j);
    snprintf(buf, size, "prom%d[po%d + %lld]", k, k, (long long)off);
}
