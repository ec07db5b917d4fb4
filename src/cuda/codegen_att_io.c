/* codegen_att_io.c: what the attention kernel reads and how it is
 * launched (see codegen_attention.c): the work type's arithmetic, a
 * promoted key's or value's copy through workgroup memory, a gathered
 * key's or value's page-table reads, the mask (loaded, or the generic's
 * body as ls_mask), and the launch's tensors. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_att.h"
#include "lanescope/arena.h"

/* c rounded to the work type (ln 2, log2e: constants of that type). */
double cg_att_et_const(const agen *g, double c)
{
    return ls_value_to_double(ls_value_from_double(c, g->et), g->et);
}

/* maximumf's finite identity in the work type (useOnlyFiniteValue). */
double cg_att_et_lowest(const agen *g)
{
    return g->et == LS_ET_F16 ? -65504.0 : g->et == LS_ET_BF16 ? -0x1.fep127 : -FLT_MAX;
}

/* The softmax's arithmetic in the work type, each result rounded once to
 * it, as sim/attention_lanes.c computes it: f32 ops as they are; a 16-bit
 * work type's sum, product and FMA of 16-bit values formed exactly in
 * double, rounded to odd in float and then to the type (ls_d2f_odd: the
 * second rounding is then exact), so the kernel rounds the same double
 * value the simulator rounds. */
void cg_att_emit_work_type(const agen *g)
{
    FILE *f = g->f;
    if (g->et == LS_ET_F32) {
        fprintf(f, "/* the softmax in f32 */\n"
                   "#define ls_rt(x) (x)\n#define ls_add __fadd_rn\n#define ls_mul __fmul_rn\n"
                   "#define ls_fma __fmaf_rn\n");
        return;
    }
    cg_emit_helper(f, "ls_d2f_odd");
    fprintf(f,
            "/* the softmax in %s: each op's exact value rounded once to it */\n"
            "static __device__ __forceinline__ float ls_rt(float x) { return %s(%s(x)); }\n"
            "static __device__ __forceinline__ float ls_add(float a, float b) "
            "{ return ls_rt(ls_d2f_odd((double)a + (double)b)); }\n"
            "static __device__ __forceinline__ float ls_mul(float a, float b) "
            "{ return ls_rt(ls_d2f_odd((double)a * (double)b)); }\n"
            "static __device__ __forceinline__ float ls_fma(float a, float b, float c) "
            "{ return ls_rt(ls_d2f_odd((double)a * (double)b + (double)c)); }\n",
            ls_elem_type_name(g->et), cg_to_float(g->et), cg_from_float(g->et));
}

/* The mask generic's body as a device function of its loop coordinates. */
void cg_att_emit_mask_fn(const agen *g)
{
    ls_elem_type t = g->type[4];
    char what[160];
    snprintf(what, sizeof what, "the mask: the linalg.generic at line %d, from linalg.index",
             g->mask_op->line);
    cg_body_fn fn = {&g->mask_op->body,
                     "ls_mask",
                     what,
                     0,
                     NULL,
                     NULL,
                     g->mask_op->rank,
                     t == LS_ET_I1 ? "bool" : cg_storage_type(t),
                     t,
                     false};
    cg_emit_body_fns(g->f, &fn, 1);
}

/* promote_operands on a matmul's key or value (docs/cuda-path.md): every
 * K2 step, after a barrier, each thread copies its part of the tile in
 * the derived thread layout (the view plan's ls_promote, as
 * ls_plan_promote_coord) into the padded workgroup buffer; after a second
 * barrier (IREE's value_barrier) the compute layout reads it there. */
void cg_att_emit_promote_setup(agen *g)
{
    FILE *f = g->f;
    for (int k = 1; k < 3; k++) {
        if (!g->prom[k])
            continue;
        const ls_promote *pr = &g->vp->promote[k - 1];
        const ls_dop_operand *op = &g->o->operand[k];
        for (int j = 0; j < pr->rank; j++)
            fprintf(
                f, "    const %s pk%d_%d = (tid / %lld) %% %lld; /* copy thread along dim %d */\n",
                g->idx, k, j, (long long)pr->thread_stride[j], (long long)pr->thread_tile[j], j);
        fprintf(f, "    const %s pb%d = 0", g->idx, k);
        for (int j = 0; j < op->map_n; j++)
            fprintf(f, " + bs%d * %lld", op->map[j],
                    (long long)ls_plan_promote_stride(g->vp, k - 1, j));
        fprintf(f, "; /* the compute layout's reads, in the buffer */\n");
    }
}

void cg_att_emit_promote_copy(agen *g)
{
    FILE *f = g->f;
    if (!g->prom[1] && !g->prom[2])
        return;
    fprintf(f, "        /* [promote] the previous step's reads of the buffers are done */\n"
               "        __syncthreads();\n");
    for (int k = 1; k < 3; k++) {
        if (!g->prom[k])
            continue;
        const ls_promote *pr = &g->vp->promote[k - 1];
        const ls_dop_operand *op = &g->o->operand[k];
        int64_t gs[LS_MAX_RANK], stride = 1;
        for (int j = op->map_n; j-- > 0;) {
            gs[j] = stride;
            stride *= op->dims[j];
        }
        fprintf(f,
                "        { /* operand %d: %lld copy read%s of %lld element%s a thread, "
                "element by element */\n            const %s c = 0",
                k, (long long)pr->copy_loads, pr->copy_loads == 1 ? "" : "s",
                (long long)pr->copy_width, pr->copy_width == 1 ? "" : "s", g->idx);
        for (int j = 0; j < pr->rank; j++)
            fprintf(f, " + (org%d + pk%d_%d * %lld) * (%s)%lld", op->map[j], k, j,
                    (long long)pr->elem_tile[j], g->idx, (long long)gs[j]);
        fprintf(f, ";\n            const %s s = 0", g->idx);
        for (int j = 0; j < pr->rank; j++)
            fprintf(f, " + pk%d_%d * %lld", k, j,
                    (long long)(pr->elem_tile[j] * ls_plan_promote_stride(g->vp, k - 1, j)));
        fprintf(f, ";\n");
        for (int64_t b = 0; b < pr->copy_loads; b++)
            for (int64_t e = 0; e < pr->copy_width; e++) {
                /* the constant part of ls_plan_promote_coord's coordinate */
                int64_t cg = 0, cs = 0, lb = b, le = e;
                char cond[400] = "";
                size_t u = 0;
                for (int j = pr->rank - 1; j >= 0; j--) {
                    int64_t y = (lb % pr->batch[j]) * pr->thread_tile[j] * pr->elem_tile[j] +
                                le % pr->elem_tile[j];
                    lb /= pr->batch[j];
                    le /= pr->elem_tile[j];
                    cg += y * gs[j];
                    cs += y * ls_plan_promote_stride(g->vp, k - 1, j);
                    if (y + (pr->thread_tile[j] - 1) * pr->elem_tile[j] >= pr->shape[j] &&
                        u < sizeof cond) /* a copy thread past the tile */
                        u += (size_t)snprintf(cond + u, sizeof cond - u,
                                              "%spk%d_%d * %lld + %lld < %lld", u ? " && " : "", k,
                                              j, (long long)pr->elem_tile[j], (long long)y,
                                              (long long)pr->shape[j]);
                }
                fprintf(f, "            %s%s%sprom%d[s + %lld] = in%d[c + %lld];\n",
                        u ? "if (" : "", cond, u ? ") " : "", k, (long long)cs, k, (long long)cg);
            }
        fprintf(f, "        }\n");
    }
    fprintf(f, "        /* [promote] iree_gpu.value_barrier: the writes are visible */\n"
               "        __syncthreads();\n");
}

/* A gathered operand's bases (transfer_gather): gb<k>, its position among
 * the indices (row-major over the operand's batch dims), and gs<k>, its
 * offset in the source's slice; the element reads add their constants. */
void cg_att_emit_gather_bases(agen *g, int k)
{
    const ls_dop_operand *op = &g->o->operand[k];
    for (int part = 0; part < 2; part++) {
        fprintf(g->f, "        const %s %s%d = 0", g->idx, part ? "gs" : "gb", k);
        int64_t stride = 1;
        char terms[LS_MAX_RANK][96];
        int lo = part ? g->batch_rank[k] : 0, hi = part ? op->map_n : g->batch_rank[k];
        for (int j = hi; j-- > lo;) {
            int d = op->map[j];
            snprintf(terms[j], sizeof terms[j], " + (org%d + bs%d) * (%s)%lld", d, d, g->idx,
                     (long long)stride);
            stride *= g->a->size[d];
        }
        for (int j = lo; j < hi; j++)
            fputs(terms[j], g->f);
        fprintf(g->f, ";%s\n", part ? "" : " /* the page table's entry */");
    }
}

/* The computed mask at the tile offsets off: ls_mask of the generic's loop
 * coordinates, each the op's global coordinate its result dim names (as
 * sim/attention_lanes.c's operand_at evaluates it). */
static void mask_call(const agen *g, const int64_t *off, char *buf, size_t size)
{
    const ls_module_elementwise *me = g->mask_op;
    const ls_dop_operand *op = &g->o->operand[4];
    size_t u = (size_t)snprintf(buf, size, "(ls_mask(");
    for (int i = 0; i < me->rank && u < size; i++) {
        int d = -1;
        for (int j = 0; j < op->map_n; j++)
            if (me->out_map[j] == i)
                d = op->map[j];
        u += (size_t)snprintf(buf + u, size - u, "%sorg%d + bs%d + %lld", i ? ", " : "", d, d,
                              (long long)off[d]);
    }
    if (u < size)
        snprintf(buf + u, size - u, "))");
}

/* applyMask: S += a float mask times log2e (both in S's type), or an
 * integer mask's i1 selecting 0 or -inf (sim/attention_lanes.c's scores). */
void cg_att_emit_mask(agen *g)
{
    FILE *f = g->f;
    bool is_float = ls_elem_type_is_float(g->type[4]);
    fprintf(f, "        /* the mask%s: %s */\n",
            g->mask_op ? ", computed from linalg.index (ls_mask)" : "",
            is_float ? "S += mask * log2e" : "S += (mask & 1) ? 0 : -inf");
    if (!g->mask_op)
        cg_att_emit_base(g, &g->o->operand[4], "ab4", "        ");
    char ce[600], v[400];
    for (int64_t e = 0; e < g->ss.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->ss, e, off);
        int ok = cg_att_tuple_cond(g, &g->ss, off, ce, sizeof ce);
        if (ok == 0)
            continue;
        if (g->mask_op)
            mask_call(g, off, v, sizeof v);
        else
            cg_att_operand_at(g, 4, off, v, sizeof v);
        fprintf(f, "        %s%s%sS[%lld] = ls_add(S[%lld], ", ok == 2 ? "if (" : "",
                ok == 2 ? ce : "", ok == 2 ? ") " : "", (long long)e, (long long)e);
        if (is_float)
            fprintf(f, "ls_mul(ls_rt(%s%s), %af));\n", cg_to_float(g->type[4]), v,
                    cg_att_et_const(g, 1.44269504088896340736));
        else
            fprintf(f, "(%s & 1) ? 0.0f : __uint_as_float(0xff800000u));\n", v);
    }
}

static int64_t operand_elems(const ls_dop_operand *op)
{
    int64_t n = 1;
    for (int j = 0; j < op->rank; j++)
        n *= op->dims[j];
    return n;
}

/* The launch: grid, block, the tensors' sizes; g->idx, the index type.
 * False when the dispatch stores no result. */
bool cg_att_fill_launch(agen *g, ls_cuda_att_launch *L)
{
    const ls_attention *a = g->a;
    L->n_inputs = 0;
    snprintf(L->kernel, sizeof L->kernel, "lanescope_attention");
    L->grid[0] = (unsigned)a->workgroups;
    L->grid[1] = L->grid[2] = 1;
    L->block[0] = (unsigned)a->workgroup_size;
    L->block[1] = L->block[2] = 1;
    bool wide = false;
    /* the query, key and value (or the sources gathers read), a loaded
     * mask, then each gather's indices */
    for (int op = 0; op < 5; op++) {
        if (op == 3 || (op == 4 && (!g->mask || g->mask_op)))
            continue;
        int i = L->n_inputs++, bits = ls_elem_type_bits(g->type[op]);
        const ls_module_gather *ga = op < 3 ? g->gather[op] : NULL;
        L->role[i] = ga ? LS_ATT_IN_SOURCE : LS_ATT_IN_OPERAND;
        L->operand[i] = L->seed_operand[i] = op;
        L->alias[i] = -1;
        L->input_type[i] = g->type[op];
        L->input_elems[i] = operand_elems(&g->o->operand[op]);
        if (ga) { /* one tensor for gathers of one source; its leading dim is static
                   * (ls_att_gather_problem), the slice the operand's trailing dims */
            L->seed_operand[i] = ls_att_gather_source_of(g->ma, op);
            L->input_elems[i] = ga->source_shape[0] * g->slice[op];
            for (int j = 0; j < i; j++)
                if (L->role[j] == LS_ATT_IN_SOURCE && L->seed_operand[j] == L->seed_operand[i])
                    L->alias[i] = j;
        }
        L->input_bytes[i] = L->input_elems[i] * (bits < 8 ? 1 : bits / 8); /* an i1 a byte */
        wide |= L->input_elems[i] > INT32_MAX;
    }
    for (int op = 1; op < 3; op++) {
        const ls_module_gather *ga = g->gather[op];
        if (!ga)
            continue;
        int i = L->n_inputs++;
        L->role[i] = LS_ATT_IN_INDICES;
        L->operand[i] = L->seed_operand[i] = op;
        L->alias[i] = -1;
        L->input_type[i] = ga->index_elem == LS_ET_I32 ? LS_ET_I32 : LS_ET_I64;
        L->rowmix[i] = ls_att_gather_rowmix(g->ma, op);
        L->rows[i] = ga->source_shape[0];
        /* a row per batch element: the operand's batch dims, whose sizes
         * the op has (a '?' of the indices given by --dim) */
        L->input_elems[i] = 1;
        for (int j = 0; j < g->batch_rank[op]; j++)
            L->input_elems[i] *= g->a->size[g->o->operand[op].map[j]];
        L->input_bytes[i] = L->input_elems[i] * ls_elem_type_bits(L->input_type[i]) / 8;
        for (int j = 0; j < i; j++) /* one page table for both: one tensor */
            if (L->role[j] == LS_ATT_IN_INDICES && L->rowmix[j] == L->rowmix[i])
                L->alias[i] = j;
    }
    for (int i = 0; i < L->n_inputs; i++)
        L->in_bytes += L->alias[i] < 0 ? L->input_bytes[i] : 0;
    for (int r = 0; r < g->o->n_inits; r++) {
        if (!g->stored[r])
            continue;
        int i = L->n_outputs++;
        L->result[i] = r;
        L->output_type[i] = g->out_type[r];
        L->output_elems[i] = operand_elems(&g->o->operand[g->o->n_inputs + r]);
        L->output_bytes[i] = L->output_elems[i] * ls_elem_type_bits(g->out_type[r]) / 8;
        L->out_bytes += L->output_bytes[i];
        wide |= L->output_elems[i] > INT32_MAX;
    }
    g->idx = wide ? "long long" : "int";
    return L->n_outputs > 0;
}

void cg_att_vector_width(agen *g, int k)
{
    g->vw[k] = 1;
    const ls_dop_operand *op = &g->o->operand[k];
    if (g->prom[k] || g->gather[k] || op->map_n < 1)
        return;
    /* the engine's view times loads of vp->inputs[k - 1].width elements
     * (ls_operand_regs_of; a wider one than 16 bytes in 16-byte pieces):
     * the contiguous dim's element tile, at most 16 bytes, a load */
    int d = op->map[op->map_n - 1], i;
    const ls_att_matmul *mm = cg_att_base_matmul(g, d, &i);
    int64_t eb = ls_elem_type_bits(g->type[k]) / 8, vw = g->vp->inputs[k - 1].width;
    if (i < 0 || eb < 1 || vw < 2)
        return;
    int64_t w = mm->layout.element_tile[i];
    while (w * eb > 16)
        w /= 2;
    if (w < 2 || (w & (w - 1)) != 0 || mm->layout.element_tile[i] % w != 0 || vw % w != 0)
        return;
    /* aligned for every thread and step: the contiguous dim's thread base
     * (a multiple of its element tile, emit_bases) and tile origin (of its
     * extent) are multiples of w, and so is every other dim's stride */
    if (ls_att_extent(g->a, d) % w != 0)
        return;
    int64_t stride = op->dims[op->map_n - 1];
    for (int j = op->map_n - 1; j-- > 0;) {
        if (stride % w != 0)
            return;
        stride *= op->dims[j];
    }
    g->vw[k] = w;
}

void cg_att_emit_vector_reads(agen *g, int k)
{
    int64_t w = g->vw[k]; /* at most 16 (16 bytes of 1-byte elements) */
    if (w < 2)
        return;
    const ls_dop_operand *op = &g->o->operand[k];
    unsigned mask = 0;
    for (int j = 0; j < op->map_n; j++)
        mask |= 1u << op->map[j];
    aspace s = cg_att_space(k == 1 ? &g->a->qk : &g->a->pv, mask);
    /* the thread's elements of the operand this step, each group of w at
     * an offset that is a multiple of w: the elements it holds, bit i for
     * element i, or OUTSIDE where a thread may lie outside the tile */
    const uint32_t OUTSIDE = 1u << 31, full = (1u << w) - 1;
    int64_t *c = ls_xcalloc((size_t)(s.count > 0 ? s.count : 1), sizeof *c), maxc = 0;
    bool *inside = ls_xcalloc((size_t)(s.count > 0 ? s.count : 1), sizeof *inside);
    char cond[600];
    for (int64_t t = 0; t < s.count; t++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&s, t, off);
        c[t] = cg_att_const_offset(op, off);
        inside[t] = cg_att_tuple_cond(g, &s, off, cond, sizeof cond) == 1;
        maxc = c[t] > maxc ? c[t] : maxc;
    }
    int64_t n = maxc / w + 1;
    uint32_t *held = ls_xcalloc((size_t)n, sizeof *held);
    for (int64_t t = 0; t < s.count; t++)
        held[c[t] / w] |= inside[t] ? 1u << (c[t] % w) : OUTSIDE;
    free(g->vgroup[k]);
    g->vgroup[k] = ls_xcalloc((size_t)n, sizeof *g->vgroup[k]);
    g->ngroups[k] = n;
    fprintf(g->f,
            "        /* the %s's vector.transfer_read: %lld elements a load, as the engine "
            "times them */\n",
            k == 1 ? "key" : "value", (long long)w);
    for (int64_t j = 0; j < n; j++)
        if (held[j] == full) { /* one vector load; the others element by element */
            g->vgroup[k][j] = true;
            fprintf(g->f,
                    "        const ls_v%d_t kv%d_%lld = *(const ls_v%d_t *)(in%d + ab%d + %lld);\n",
                    k, k, (long long)j, k, k, k, (long long)(j * w));
        }
    free(held);
    free(inside);
    free(c);
}
