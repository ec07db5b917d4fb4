/* codegen.c: a plan as CUDA C (see measure.h).
 *
 * The generator walks the same functions the simulator does (layout.h:
 * register coordinates, register -> accumulator and result slots, virtual
 * thread and subgroup ids) and folds their per-register parts into
 * constants, so the kernel computes exactly the addresses, combine order,
 * butterflies and buffer slots that the functional model checks.  A
 * thread's coordinates split into three parts:
 *   body[k]  = tb_k (the thread's subgroup and lane part, computed once)
 *            + a per-register constant (batch, outer, element coordinates)
 *   x[i]     = tile origin (workgroup or iteration) + body contributions
 *   offset   = sum x[i] * input stride[i]
 * and a bounds check is emitted only where some thread, tile or register
 * can actually fall outside (ragged tails, idle lanes).
 *
 * Here: the types and helpers, the loop with its loads, and the entry
 * points -- a kernel of its own (ls_cuda_generate) or a phase of a
 * dispatch's one kernel (cg_generate_phase, codegen_fused.c).  The stages
 * after the loop are in codegen_reduce.c, the header in codegen_header.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/functional.h"
#include "lanescope/value.h"
#include "codegen.h"



/* ---------------------------------------------------------------- types */

static void emit_types(gen *g)
{
    const ls_problem *p = g->p;
    FILE *f = g->f;
    bool f16 = p->acc_type == LS_ET_F16 || p->body.n > 0, bf16 = p->acc_type == LS_ET_BF16 || p->body.n > 0;
    for (int k = 0; k < g->nin; k++) {
        f16 |= p->inputs[k].type == LS_ET_F16;
        bf16 |= p->inputs[k].type == LS_ET_BF16;
    }
    if (f16 && !g->ns) /* a fused kernel's phases: included once, before them */
        fprintf(f, "#include <cuda_fp16.h>\n");
    if (bf16 && !g->ns)
        fprintf(f, "#include <cuda_bf16.h>\n");
    fprintf(f, "\n");
    bool i4 = false;
    for (int k = 0; k < g->nin; k++) {
        i4 |= p->inputs[k].type == LS_ET_I4;
        fprintf(f, "typedef %s ls_in%d_t; /* input %d: %s in memory%s */\n",
                cg_storage_type(p->inputs[k].type), k, k, ls_elem_type_name(p->inputs[k].type),
                p->inputs[k].type == LS_ET_I4 ? ", two to a byte, low nibble first" : "");
    }
    fprintf(f, "typedef ls_in0_t ls_in_t;\n");
    if (g->prod)
        fprintf(f, "typedef %s ls_prod_t; /* %s, the stored producer's result */\n",
                cg_storage_type(g->prod->problem->acc_type),
                ls_elem_type_name(g->prod->problem->acc_type));
    fprintf(f, "typedef %s ls_acc_t; /* %s, %s */\n", cg_storage_type(p->acc_type),
            ls_elem_type_name(p->acc_type), g->elementwise ? "the result's type" : "the type reduced in");
    fprintf(f, "typedef %s ls_idx_t; /* %s */\n", g->wide ? "long long" : "int",
            g->wide ? "an index (a padded one included) reaches 2^31" : "every index fits 32 bits");
    if (i4) /* element i of a packed i4 tensor, as LLVM packs vector<2xi4> in a byte */
        fprintf(f, "static __device__ __forceinline__ unsigned char ls_ld_i4(const unsigned char "
                   "*p, ls_idx_t i)\n{\n    return (unsigned char)((p[i >> 1] >> ((i & 1) * 4)) "
                   "& 15u);\n}\n");
    for (int k = 0; k < g->nin && g->vdim >= 0; k++)
        if (g->vec_in[k]) {
            int64_t bytes = g->vlen * (ls_elem_type_bits(p->inputs[k].type) / 8);
            fprintf(f, "typedef struct __align__(%lld) { ls_in%d_t e[%lld]; } ls_vec%d_t; /* one "
                       "%lld-byte load of input %d */\n",
                    (long long)bytes, k, (long long)g->vlen, k, (long long)bytes, k);
        }
}

/* ls_combine (cg_emit_combine, codegen_types.c), ls_extend (the
 * producer's arith.extf/extsi, or nothing) and ls_shfl_xor (gpu.shuffle xor,
 * widened to 32 bits). */
static void emit_helpers(gen *g)
{
    const ls_problem *p = g->p;
    FILE *f = g->f;
    ls_elem_type t = p->acc_type;
    if (!g->elementwise) /* an elementwise loop combines nothing */
        cg_emit_combine(f, "ls_combine", "ls_acc_t", p->combiner, t);
    /* the body, or the extension of the loaded element */
    if (p->body.n > 0) {
        cg_emit_body(g);
    } else {
        if (cg_narrow_input(p->inputs[0].type)) /* an f8 input's decoder */
            cg_emit_helper(f, cg_to_float(p->inputs[0].type));
        fprintf(f, "\nstatic __device__ __forceinline__ ls_acc_t ls_extend(ls_in_t v)\n{\n");
        if (p->inputs[0].type == t)
            fprintf(f, "    return v;\n");
        else if (ls_elem_type_is_float(p->inputs[0].type))
            fprintf(f, "    return %s(%s(v)); /* arith.extf */\n", cg_from_float(t),
                    cg_to_float(p->inputs[0].type));
        else
            fprintf(f, "    return (ls_acc_t)(%s)(%s)v; /* arith.extsi */\n", cg_signed_type(t),
                    cg_signed_type(p->inputs[0].type));
        fprintf(f, "}\n");
    }
    /* gpu.shuffle xor: 32-bit lanes; narrower values go through a 32-bit register */
    bool shuffles = g->plan->n_subgroup_reduces > 0 ||
                    (g->plan->cross_subgroup && g->plan->read_cluster > 1);
    if (!shuffles || g->elementwise)
        return;
    fprintf(f, "\nstatic __device__ __forceinline__ ls_acc_t ls_shfl_xor(ls_acc_t v, int offset)\n{\n");
    if (t == LS_ET_F32)
        fprintf(f, "    return __shfl_xor_sync(0xffffffffu, v, offset);\n");
    else if (t == LS_ET_F16)
        fprintf(f, "    const unsigned int w = __half_as_ushort(v); /* widened to i32 */\n"
                   "    return __ushort_as_half((unsigned short)__shfl_xor_sync(0xffffffffu, w, offset));\n");
    else if (t == LS_ET_BF16)
        fprintf(f, "    const unsigned int w = __bfloat16_as_ushort(v); /* widened to i32 */\n"
                   "    return __ushort_as_bfloat16((unsigned short)__shfl_xor_sync(0xffffffffu, w, offset));\n");
    else
        fprintf(f, "    return (ls_acc_t)__shfl_xor_sync(0xffffffffu, (unsigned int)v, offset);%s\n",
                t == LS_ET_I32 ? "" : " /* widened to i32 */");
    fprintf(f, "}\n");
}

/* ---------------------------------------------------------------- kernel body */

/* The contribution of register r, given each input's element expression:
 * ls_extend(elem) or ls_body(elems..., coordinates...). */
/* name(src[in[0]], src[in[1]], ..., coordinates): body bp's call on
 * register r's elements (in NULL: src in order), with the loop
 * coordinates when bp reads linalg.index. */
static void body_call(const gen *g, const char *name, const ls_problem *bp, const int *in,
                      int64_t r, char src[][160], const char *extra, char *buf, size_t size)
{
    size_t u = (size_t)snprintf(buf, size, "%s(", name);
    for (int k = 0; k < bp->n_inputs && u < size; k++)
        u += (size_t)snprintf(buf + u, size - u, "%s%s", k ? ", " : "", src[in ? in[k] : k]);
    if (cg_body_uses_index(bp)) {
        int64_t rx[LS_MAX_RANK];
        cg_reg_loop_part(g, r, rx);
        for (int i = 0; i < g->p->rank && u < size; i++)
            u += (size_t)snprintf(buf + u, size - u, ", x%d + %lld", i, (long long)rx[i]);
    }
    if (u < size)
        snprintf(buf + u, size - u, "%s%s)", extra ? ", " : "", extra ? extra : "");
}

static void elem_expr(const gen *g, int64_t r, char src[][160], char *buf, size_t size)
{
    if (g->p->body.n == 0)
        snprintf(buf, size, "ls_extend(%s)", src[0]);
    else
        body_call(g, "ls_body", g->p, NULL, r, src, NULL, buf, size);
}

/* "const idx name = 0 + x_i * stride_i ...;" for the register-0 offset of
 * a tensor with those strides per loop dim. */
static void emit_offset(const gen *g, const char *indent, const char *name,
                        const int64_t *stride, const char *what)
{
    fprintf(g->f, "%sconst %s %s = 0", indent, cg_idx(g), name);
    for (int i = 0; i < g->p->rank; i++)
        if (stride[i])
            fprintf(g->f, " + x%d * %lld", i, (long long)stride[i]);
    fprintf(g->f, "; /* %s */\n", what);
}

/* dst[base + register r's part] = value, under cond when it is not "". */
static void emit_elem_store(gen *g, int64_t r, const char *dst, const char *base,
                            const int64_t *stride, const char *value, const char *cond,
                            const char *indent)
{
    int64_t rx[LS_MAX_RANK], off = 0;
    cg_reg_loop_part(g, r, rx);
    for (int i = 0; i < g->p->rank; i++)
        off += rx[i] * stride[i];
    if (cond[0])
        fprintf(g->f, "%sif (%s)\n%s    %s[%s + %lld] = %s;\n", indent, cond, indent, dst, base,
                (long long)off, value);
    else
        fprintf(g->f, "%s%s[%s + %lld] = %s;\n", indent, dst, base, (long long)off, value);
}

static void scalar_src(const gen *g, int k, int64_t r, char *buf, size_t size)
{
    if (cg_promoted(g, k)) {
        cg_promote_src(g, k, r, buf, size);
        return;
    }
    int64_t off;
    cg_reg_offset(g, k, r, &off);
    if (g->p->inputs[k].type == LS_ET_I4)
        snprintf(buf, size, "ls_ld_i4(in%d, o%d + %lld)", k, k, (long long)off);
    else
        snprintf(buf, size, "in%d[o%d + %lld]", k, k, (long long)off);
}

/* Under an FMA chain, register r's step only keeps its operands for the
 * chain after the loads (emit_fma_chain); where cond fails nothing is
 * loaded -- the element may lie past the end -- and fok[r] says so. */
static void emit_keep_operands(gen *g, int64_t r, char src[][160], const char *cond,
                               const char *indent)
{
    if (cond[0])
        fprintf(g->f, "%sif ((fok[%lld] = %s)) {\n", indent, (long long)r, cond);
    else
        fprintf(g->f, "%sfok[%lld] = true;\n", indent, (long long)r);
    for (int k = 0; k < g->nin; k++)
        fprintf(g->f, "%s%sfa%d[%lld] = %s;\n", indent, cond[0] ? "    " : "", k, (long long)r,
                src[k]);
    if (cond[0])
        fprintf(g->f, "%s}\n", indent);
}

/* The standard element step: fold register r's contribution into its
 * accumulator, or into its local reduce when grouped (the identity where
 * cond, when given, fails). */
static void emit_combine_elem(gen *g, int64_t r, char src[][160], const char *cond,
                              const char *indent)
{
    char e[1024];
    const char *into = g->grouped ? "loc" : "acc";
    if (g->fma != LS_FMA_NONE) {
        emit_keep_operands(g, r, src, cond, indent);
    } else if (g->fold_tree) {
        elem_expr(g, r, src, e, sizeof e);
        if (cond[0])
            fprintf(g->f, "%slv[%lld] = %s ? %s : ident;\n", indent, (long long)r, cond, e);
        else
            fprintf(g->f, "%slv[%lld] = %s;\n", indent, (long long)r, e);
    } else {
        elem_expr(g, r, src, e, sizeof e);
        if (cond[0])
            fprintf(g->f, "%s%s[%lld] = ls_combine(%s[%lld], %s ? %s : ident);\n", indent, into,
                    (long long)g->acc_slot[r], into, (long long)g->acc_slot[r], cond, e);
        else
            fprintf(g->f, "%s%s[%lld] = ls_combine(%s[%lld], %s);\n", indent, into,
                    (long long)g->acc_slot[r], into, (long long)g->acc_slot[r], e);
    }
    if (!g->prod)
        return;
    /* the producer's value at this element, written where the dispatch stores it */
    body_call(g, "ls_prod", g->prod->problem, g->prod_in, r, src, NULL, e, sizeof e);
    emit_elem_store(g, r, "outp", "op", g->prod_stride, e, cond, indent);
}

/* An elementwise op's step: register r's body value stored at its element
 * of the result (by the first of the threads that hold it, when its
 * layout gives several threads the same elements). */
static void emit_store_elem(gen *g, int64_t r, char src[][160], const char *cond,
                            const char *indent)
{
    char e[1024], c[1100];
    elem_expr(g, r, src, e, sizeof e);
    if (g->guard_writes)
        snprintf(c, sizeof c, cond[0] ? "ls_first && (%s)" : "ls_first%s", cond);
    else
        snprintf(c, sizeof c, "%s", cond);
    emit_elem_store(g, r, "out", "oo", g->out_stride, e, c, indent);
}

/* Whether layout l gives several of the workgroup's threads the same
 * elements: it spans fewer subgroups or lanes than there are. */
static bool layout_duplicates(const ls_derived *d)
{
    const ls_nested_layout *l = &d->layout;
    int64_t sgs = 1, lanes = 1;
    for (int k = 0; k < l->rank; k++) {
        sgs *= l->subgroup_tile[k];
        lanes *= l->thread_tile[k];
    }
    return sgs < d->num_subgroups || lanes < d->subgroup_size;
}

/* "v == (its canonical id)": the id its virtual ids give back (each
 * digit's (v / stride) % tile, times stride), so that of a group the
 * layout does not tell apart, only the first is it. */
static void emit_canonical(gen *g, const char *v, const int64_t *tile, const int64_t *stride)
{
    fprintf(g->f, "%s == 0", v);
    for (int k = 0; k < g->l->rank; k++)
        if (tile[k] > 1 && stride[k] > 0)
            fprintf(g->f, " + (%s / %lld) %% %lld * %lld", v, (long long)stride[k],
                    (long long)tile[k], (long long)stride[k]);
}

static void emit_scalar_reg(gen *g, int64_t r, const char *indent)
{
    char cond[1024], src[LS_MAX_INPUTS][160];
    cg_reg_condition(g, r, cond, sizeof cond);
    for (int k = 0; k < g->nin; k++)
        scalar_src(g, k, r, src[k], sizeof src[k]);
    g->elem(g, r, src, cond, indent);
}

/* One load group: registers [r0, r0 + n), vectors where chosen. */
static void emit_load_group(gen *g, int64_t r0, int64_t n)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    if (g->vdim < 0 || n % g->vlen != 0) {
        fprintf(f, "        /* registers %lld..%lld: element by element */\n", (long long)r0,
                (long long)(r0 + n - 1));
        for (int64_t r = r0; r < r0 + n; r++)
            emit_scalar_reg(g, r, "        ");
        return;
    }
    for (int64_t v = r0; v < r0 + n; v += g->vlen) {
        char c0[1024], c1[1024], full[2100];
        cg_reg_condition(g, v, c0, sizeof c0);
        cg_reg_condition(g, v + g->vlen - 1, c1, sizeof c1);
        snprintf(full, sizeof full, "%s%s%s", c0, c0[0] && c1[0] ? " && " : "", c1);
        fprintf(f, "        /* registers %lld..%lld:", (long long)v, (long long)(v + g->vlen - 1));
        for (int k = 0; k < g->nin; k++)
            if (g->vec_in[k])
                fprintf(f, " vector.transfer_read vector<%lldx%s> of input %d;", (long long)g->vlen,
                        ls_elem_type_name(p->inputs[k].type), k);
            else
                fprintf(f, " input %d element by element;", k);
        fprintf(f, " */\n");
        if (full[0])
            fprintf(f, "        if (%s) {\n", full);
        else
            fprintf(f, "        {\n");
        const char *ind = "            ";
        for (int k = 0; k < g->nin; k++)
            if (g->vec_in[k]) {
                int64_t off;
                cg_reg_offset(g, k, v, &off);
                fprintf(f, "%sconst ls_vec%d_t w%d = *(const ls_vec%d_t *)(in%d + o%d + %lld);\n",
                        ind, k, k, k, k, k, (long long)off);
            }
        for (int64_t e = 0; e < g->vlen; e++) {
            char src[LS_MAX_INPUTS][160];
            for (int k = 0; k < g->nin; k++)
                if (g->vec_in[k])
                    snprintf(src[k], sizeof src[k], "w%d.e[%lld]", k, (long long)e);
                else
                    scalar_src(g, k, v + e, src[k], sizeof src[k]);
            g->elem(g, v + e, src, "", ind);
        }
        if (full[0]) {
            fprintf(f, "        } else { /* the tail: element by element, padding = identity */\n");
            for (int64_t e = 0; e < g->vlen; e++)
                emit_scalar_reg(g, v + e, "            ");
        }
        fprintf(f, "        }\n");
    }
}

/* Thread ids, virtual ids and the thread parts tb_k, tx_i. */
void cg_emit_thread_setup(gen *g)
{
    FILE *f = g->f;
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    const ls_nested_layout *l = g->l;
    fprintf(f, "    const int tid = threadIdx.x, lane = tid %% 32, sg = tid / 32;\n");
    fprintf(f, "    (void)lane;\n    (void)sg;\n");
    char lit[96];
    cg_literal(p->acc_type, ls_identity(p->combiner, p->acc_type), lit, sizeof lit);
    if (!g->elementwise)
        fprintf(f, "    const ls_acc_t ident = %s; /* identity of %s */\n", lit,
                ls_combiner_name(p->combiner));
    fprintf(f, "    /* workgroup coordinates (linear id, last dim fastest) */\n");
    int64_t div = 1;
    for (int i = p->rank - 1; i >= 0; i--) {
        if (p->is_reduction[i])
            continue;
        fprintf(f, "    const %s wg%d = (%s)blockIdx.x / %lld %% %lld;\n", cg_idx(g), i, cg_idx(g),
                (long long)div, (long long)d->wg_count[i]);
        div *= d->wg_count[i];
    }
    fprintf(f, "    /* nested layout: virtual subgroup and thread ids -> body coordinates */\n");
    for (int k = 0; k < l->rank; k++) {
        int64_t sm, tm;
        cg_tile_mults(l, k, &sm, &tm);
        fprintf(f, "    const %s tb%d = 0", cg_idx(g), k);
        if (l->subgroup_tile[k] > 1 && l->subgroup_strides[k] > 0)
            fprintf(f, " + (sg / %lld) %% %lld * %lld", (long long)l->subgroup_strides[k],
                    (long long)l->subgroup_tile[k], (long long)sm);
        if (l->thread_tile[k] > 1 && l->thread_strides[k] > 0)
            fprintf(f, " + (lane / %lld) %% %lld * %lld", (long long)l->thread_strides[k],
                    (long long)l->thread_tile[k], (long long)tm);
        fprintf(f, ";\n    (void)tb%d;\n", k);
    }
    if (g->guard_writes) {
        fprintf(f, "    /* the layout gives several threads the same elements: the first of "
                   "each\n       group writes (IREE's transfer_write guard, "
                   "getNoOverlapCondition) */\n    const bool ls_first = (");
        emit_canonical(g, "sg", l->subgroup_tile, l->subgroup_strides);
        fprintf(f, ") && (");
        emit_canonical(g, "lane", l->thread_tile, l->thread_strides);
        fprintf(f, ");\n");
    }
    for (int i = 0; i < p->rank; i++) {
        fprintf(f, "    const %s tx%d = 0", cg_idx(g), i);
        for (int k = 0; k < d->body_rank; k++)
            if (d->body_origin[k] == i)
                fprintf(f, " + tb%d * %lld", k, (long long)d->body_scale[k]);
        fprintf(f, ";\n");
        if (g->epilogue) /* it reads the output loops' parts only */
            fprintf(f, "    (void)tx%d;\n", i);
    }
}

/* The loop's header: its trip count and the simulator's unroll count. */
static void emit_loop_header(gen *g, const char *what)
{
    FILE *f = g->f;
    fprintf(f, "    /* scf.for over the %s: %lld iteration%s */\n", what,
            (long long)g->plan->iterations, g->plan->iterations == 1 ? "" : "s");
    if (g->unroll > 0 && g->elementwise)
        fprintf(f, "    /* kept rolled, as the simulator keeps an elementwise loop */\n"
                   "#pragma unroll %lld\n",
                (long long)g->unroll);
    else if (g->unroll > 0)
        fprintf(f, "    /* unrolled by %lld, as the simulator models LLVM's unroller for the "
                   "target (IREE's kernel); NVRTC would choose its own count */\n"
                   "#pragma unroll %lld\n",
                (long long)g->unroll, (long long)g->unroll);
    fprintf(f, "    for (%s it = 0; it < %lld; ++it) {\n", cg_idx(g), (long long)g->plan->iterations);
}

/* The reduction tiling level (d->serial_reduce): one loop around every
 * stage up to the cross-subgroup one, each iteration's result folded into
 * the carried value, which starts at the init (sim/functional.c does the
 * same).  The stages inside keep their own indentation. */
static void emit_serial_open(gen *g)
{
    FILE *f = g->f;
    char init[96];
    cg_literal(g->p->acc_type, ls_problem_init(g->p), init, sizeof init);
    fprintf(f, "\n    /* the reduction tiling level: every stage runs per iteration and folds "
               "into the carried value, which starts at the init */\n");
    fprintf(f, "    ls_acc_t carried[%lld];\n", (long long)g->nres);
    for (int64_t q = 0; q < g->nres; q++)
        fprintf(f, "    carried[%lld] = %s;\n", (long long)q, init);
    emit_loop_header(g, "reduction tiles");
}

static void emit_serial_close(gen *g)
{
    FILE *f = g->f;
    fprintf(f, "\n    /* [acc combine] %%r = %s(%%carried, %%r) */\n",
            ls_combiner_name(g->p->combiner));
    for (int64_t q = 0; q < g->nres; q++)
        fprintf(f, "    carried[%lld] = ls_combine(carried[%lld], res[%lld]);\n", (long long)q,
                (long long)q, (long long)q);
    fprintf(f, "    }\n    ls_acc_t res[%lld];\n", (long long)g->nres);
    for (int64_t q = 0; q < g->nres; q++)
        fprintf(f, "    res[%lld] = carried[%lld];\n", (long long)q, (long long)q);
}

static void emit_load_accumulate(gen *g)
{
    FILE *f = g->f;
    fprintf(f, "\n    /* [load+accumulate] %%acc = splat identity : %lld accumulators */\n",
            (long long)g->nacc);
    fprintf(f, "    ls_acc_t acc[%lld];\n#pragma unroll\n    for (int i = 0; i < %lld; ++i)\n"
               "        acc[i] = ident;\n",
            (long long)g->nacc, (long long)g->nacc);
    g->grouped = g->plan->inner_elems > 1;
    g->fma = ls_functional_fma(g->plan);
    g->fold_tree = g->grouped && ls_plan_loop_fold_tree(g->plan, NULL);
    cg_emit_chunk_loop(g);
}

/* The math.fma chain over the registers whose operands the loads kept:
 * packed (ContractToChainFMA), each accumulator's registers last first
 * into its local value; a contract chain, each output's registers last
 * first into its accumulator; else each register into its accumulator.
 * A padded register adds the identity, as sim/functional.c's fold does. */
static void emit_fma_chain(gen *g)
{
    FILE *f = g->f;
    bool last_first = ls_fma_last_first(g->fma);
    const char *into = g->grouped ? "loc" : "acc";
    fprintf(f, "        /* math.fma chain%s */\n",
            last_first ? ", last element first (ContractToChainFMA)" : "");
    for (int64_t i = 0; i < g->regs; i++) {
        int64_t r = last_first ? g->regs - 1 - i : i, a = g->acc_slot[r];
        char src[LS_MAX_INPUTS][160], c[64], e[1024];
        for (int k = 0; k < g->nin; k++)
            snprintf(src[k], sizeof src[k], "fa%d[%lld]", k, (long long)r);
        snprintf(c, sizeof c, "%s[%lld]", into, (long long)a);
        body_call(g, "ls_body_fma", g->p, NULL, r, src, c, e, sizeof e);
        fprintf(f, "        %s = fok[%lld] ? %s : ls_combine(%s, ident);\n", c, (long long)r, e, c);
    }
}

/* Element i of a fold's index list (none: i itself). */
static long long fold_at(const int64_t *idx, int64_t i)
{
    return (long long)(idx ? idx[i] : i);
}

void cg_emit_halving_fold(FILE *f, const char *fn, const char *arr, const int64_t *idx, int64_t n,
                          const char *dst, const char *ind)
{
    while (n > 1) {
        int64_t half = n / 2;
        for (int64_t i = 0; i < half; i++)
            fprintf(f, "%s%s[%lld] = %s(%s[%lld], %s[%lld]);\n", ind, arr, fold_at(idx, i), fn, arr,
                    fold_at(idx, i), arr, fold_at(idx, n - half + i));
        n -= half;
    }
    if (n == 1 && dst)
        fprintf(f, "%s%s = %s[%lld];\n", ind, dst, arr, fold_at(idx, 0));
}

void cg_emit_group_folds(gen *g, const char *arr, const int64_t *group_of, int64_t n,
                         int64_t groups, const char *dst, const char *ind)
{
    int64_t *idx = ls_xcalloc((size_t)(n > 0 ? n : 1), sizeof *idx);
    for (int64_t q = 0; q < groups; q++) {
        int64_t m = 0;
        char to[48];
        for (int64_t i = 0; i < n; i++)
            if (group_of[i] == q)
                idx[m++] = i;
        snprintf(to, sizeof to, "%s[%lld]", dst, (long long)q);
        cg_emit_halving_fold(g->f, "ls_combine", arr, idx, m, to, ind);
    }
    free(idx);
}

void cg_emit_chunk_loop(gen *g)
{
    FILE *f = g->f;
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    if (d->serial_reduce)
        fprintf(f, "    { /* this iteration's tile (the loop above) */\n");
    else
        emit_loop_header(g, g->elementwise ? "op's tiles" : "partial-reduction chunks");
    char org[160];
    for (int i = p->rank - 1; i >= 0; i--) /* reduction dims, then the parallel ones */
        if (p->is_reduction[i]) {
            cg_origin_expr(g, i, org, sizeof org);
            fprintf(f, "        const %s x%d = %s + tx%d;\n", cg_idx(g), i, org, i);
        }
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i]) {
            cg_origin_expr(g, i, org, sizeof org);
            fprintf(f, "        const %s x%d = %s + tx%d;\n", cg_idx(g), i, org, i);
        }
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "        (void)x%d;\n", i);
    cg_emit_promote_copy(g);
    for (int k = 0; k < g->nin; k++) {
        if (cg_promoted(g, k))
            continue; /* read from its buffer */
        char name[16], what[48];
        snprintf(name, sizeof name, "o%d", k);
        snprintf(what, sizeof what, "input %d's offset of register 0", k);
        emit_offset(g, "        ", name, g->in_stride[k], what);
    }
    if (g->prod)
        emit_offset(g, "        ", "op", g->prod_stride, "the stored producer's offset of register 0");
    if (g->elementwise)
        emit_offset(g, "        ", "oo", g->out_stride, "the result's offset of register 0");
    if (g->grouped)
        fprintf(f,
                "        /* the local reduce: each accumulator's packed inner elements from the "
                "identity */\n        ls_acc_t loc[%lld];\n#pragma unroll\n"
                "        for (int i = 0; i < %lld; ++i)\n            loc[i] = ident;\n",
                (long long)g->nacc, (long long)g->nacc);
    if (g->fold_tree)
        fprintf(f,
                "        /* each register's value, for the fold after the loads */\n"
                "        ls_acc_t lv[%lld];\n",
                (long long)g->regs);
    if (g->fma != LS_FMA_NONE) {
        fprintf(f, "        /* each register's operands, for the FMA chain after the loads */\n");
        for (int k = 0; k < g->nin; k++)
            fprintf(f, "        ls_in%d_t fa%d[%lld];\n", k, k, (long long)g->regs);
        fprintf(f, "        bool fok[%lld];\n", (long long)g->regs);
    }
    int64_t group = g->plan->load_width > 0 ? g->plan->load_width : 1;
    for (int64_t r = 0; r < g->regs; r += group)
        emit_load_group(g, r, group);
    if (g->fma != LS_FMA_NONE)
        emit_fma_chain(g);
    if (g->fold_tree) { /* each accumulator's registers, into loc */
        fprintf(f, "        /* the local reduce: a vector.reduction's fold, its halves combined "
                   "(llvm.vector.reduce, unordered) */\n");
        cg_emit_group_folds(g, "lv", g->acc_slot, g->regs, g->nacc, "loc", "        ");
    }
    if (g->grouped) {
        fprintf(f, "        /* %%acc = %s(%%acc, %%local) */\n", ls_combiner_name(p->combiner));
        for (int64_t a = 0; a < g->nacc; a++)
            fprintf(f, "        acc[%lld] = ls_combine(acc[%lld], loc[%lld]);\n", (long long)a,
                    (long long)a, (long long)a);
    }
    fprintf(f, "    }\n");
}

/* An epilogue on the reductions' results: the threads that store the
 * reduction (its writers) apply the body to each result slot -- the held
 * results and any tensor over the output loops read at the slot's element
 * -- and store the value at its element of the op's result. */
static void emit_epilogue(gen *g)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    const ls_derived *d = g->d;
    char wcond[1024];
    cg_store_writer(g, wcond, sizeof wcond);
    fprintf(f, "\n    /* [epilogue] the body on each result slot, by the threads that store the "
               "reduction */\n    if (%s) {\n",
            wcond);
    for (int i = 0; i < p->rank; i++)
        if (p->is_reduction[i])
            fprintf(f, "        const %s x%d = 0;\n", cg_idx(g), i);
        else
            fprintf(f, "        const %s x%d = wg%d * %lld + tx%d;\n", cg_idx(g), i, i,
                    (long long)d->wg_tile[i], i);
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "        (void)x%d;\n", i);
    for (int k = 0; k < g->nin; k++) {
        char name[16], what[48];
        snprintf(name, sizeof name, "o%d", k);
        snprintf(what, sizeof what, "input %d's offset at the slot's row", k);
        emit_offset(g, "        ", name, g->in_stride[k], what);
    }
    emit_offset(g, "        ", "oo", g->out_stride, "the result's offset at the slot's row");
    for (int64_t q = 0; q < g->nres; q++) {
        char cond[1024], off[1024], src[LS_MAX_INPUTS][160];
        cg_store_target(g, q, cond, sizeof cond, off, sizeof off);
        int64_t r = g->slot_reg[q];
        for (int k = 0; k < g->nin; k++)
            scalar_src(g, k, r, src[k], sizeof src[k]);
        fprintf(f, "        /* result slot %lld */\n", (long long)q);
        emit_store_elem(g, r, src, cond, "        ");
    }
    fprintf(f, "    }\n");
}

/* The generation state of plan: slots, strides, index width, bounds to
 * check, vector loads; launch filled.  gen_free releases it. */
static void gen_init(gen *g, const ls_plan *plan, int64_t unroll, ls_cuda_launch *launch)
{
    memset(g, 0, sizeof *g);
    g->plan = plan;
    g->unroll = unroll;
    /* the problem as the target's code computes it: maximumf as maxnumf
     * below sm_80 (ls_problem_as_compiled), as the simulator does */
    g->compiled = ls_problem_as_compiled(plan);
    g->p = g->compiled ? g->compiled : plan->problem;
    g->d = plan->derived;
    g->l = &g->d->layout;
    g->regs = ls_nl_registers(g->l);
    g->nacc = plan->acc_registers;
    g->nres = plan->results_per_thread;
    g->acc_slot = ls_xcalloc((size_t)g->regs, sizeof *g->acc_slot);
    g->res_slot = ls_xcalloc((size_t)g->nacc, sizeof *g->res_slot);
    g->slot_reg = ls_xcalloc((size_t)g->nres, sizeof *g->slot_reg);
    for (int64_t r = 0; r < g->regs; r++) {
        int64_t a, q;
        ls_register_slots(g->d, g->p, r, &a, &q);
        g->acc_slot[r] = a;
        g->res_slot[a] = q;
    }
    for (int64_t r = g->regs; r-- > 0;)
        g->slot_reg[g->res_slot[g->acc_slot[r]]] = r;
    g->nin = g->p->n_inputs;
    g->elem = emit_combine_elem;
    for (int k = 0; k < g->nin; k++)
        ls_operand_strides(g->p, k, g->in_stride[k]);
    cg_fill_launch(g, launch);
    g->wide = launch->out_elems >= INT64_C(1) << 31;
    for (int k = 0; k < g->nin; k++) {
        int64_t o = 0;
        cg_padded_offset(plan, k, &o); /* fits: cg_check_plan */
        g->wide |= launch->input_elems[k] >= INT64_C(1) << 31 || o >= INT64_C(1) << 31;
    }
}

static void gen_free(gen *g)
{
    free(g->compiled);
    free(g->acc_slot);
    free(g->res_slot);
    free(g->slot_reg);
}

/* Bounds, vector loads: after the elementwise fields are set. */
static void gen_scan(gen *g, ls_cuda_launch *launch)
{
    cg_scan_bounds(g);
    cg_choose_vector(g, launch);
    launch->vector_loads = g->vdim >= 0;
    for (int k = 0; k < g->nin && g->vdim >= 0 && !launch->vector_bytes; k++)
        if (g->vec_in[k]) /* input 0's, else the first input that takes vectors */
            launch->vector_bytes = (int)(g->vlen * launch->input_elem_bytes[k]);
}

/* The kernel (or a phase's run function) into a malloc'd string: the
 * signature and every stage.  launch->smem_bytes gets its shared bytes. */
static char *emit_entry(gen *g, ls_cuda_launch *launch)
{
    char *body = NULL;
    size_t body_len = 0;
    g->f = open_memstream(&body, &body_len);
    if (g->ns)
        fprintf(g->f, "\nstatic __device__ __forceinline__ void\nrun(");
    else
        fprintf(g->f, "\nextern \"C\" __global__ void __launch_bounds__(%lld)\nlanescope_reduce(",
                (long long)g->d->workgroup_size);
    for (int k = 0; k < g->nin; k++)
        fprintf(g->f, "const ls_in%d_t *__restrict__ in%d, ", k, k);
    fprintf(g->f, "ls_acc_t *__restrict__ out%s)\n{\n",
            g->prod ? ", ls_prod_t *__restrict__ outp" : "");
    cg_emit_thread_setup(g);
    int64_t promote_bytes = 0;
    if (g->epilogue) {
        emit_epilogue(g);
        launch->smem_bytes = 0;
    } else if (g->elementwise) {
        fprintf(g->f, "\n    /* [load+compute+store] each register's body value to its element "
                      "of the result */\n");
        cg_emit_chunk_loop(g);
        launch->smem_bytes = 0;
    } else if (g->p->argcmp.on) {
        cg_emit_argcmp_kernel(g, &launch->smem_bytes);
    } else {
        cg_emit_promote_setup(g, &promote_bytes);
        if (g->d->serial_reduce)
            emit_serial_open(g);
        emit_load_accumulate(g);
        cg_emit_reduces(g);
        cg_emit_cross_subgroup(g, &launch->smem_bytes);
        launch->smem_bytes += promote_bytes;
        if (g->d->serial_reduce)
            emit_serial_close(g);
        cg_emit_store(g);
    }
    fprintf(g->f, "}\n");
    fclose(g->f);
    g->f = NULL;
    return body;
}

/* Types and helpers (the header is the caller's). */
static void emit_decls(gen *g)
{
    emit_types(g);
    if (g->p->argcmp.on) {
        cg_emit_argcmp_helpers(g);
    } else {
        cg_emit_promote_types(g);
        emit_helpers(g);
    }
}

static ls_status smem_limit(const gen *g, const ls_cuda_launch *launch, ls_diag *diag)
{
    if (launch->smem_bytes <= 48 * 1024)
        return LS_OK;
    return ls_diag_set(diag, LS_ERR_LIMIT, g->p->file, g->p->line, g->p->col,
                       "the cross-subgroup buffer and the promoted tiles need %lld "
                       "bytes; static shared memory is limited to 49152",
                       (long long)launch->smem_bytes);
}

ls_status ls_cuda_generate(const ls_plan *plan, int64_t unroll, const char *source_name, char **src,
                           ls_cuda_launch *launch, ls_diag *diag)
{
    *src = NULL;
    ls_status st = cg_check_plan(plan, diag);
    if (st)
        return st;
    gen g;
    gen_init(&g, plan, unroll, launch);
    gen_scan(&g, launch);
    /* the body first (it knows the shared memory size), then header + body */
    char *body = emit_entry(&g, launch);
    char *text = NULL;
    size_t len = 0;
    g.f = open_memstream(&text, &len);
    cg_emit_header(&g, source_name, launch);
    emit_decls(&g);
    fputs(body, g.f);
    fclose(g.f);
    free(body);
    gen_free(&g);
    if ((st = smem_limit(&g, launch, diag))) {
        free(text);
        return st;
    }
    *src = text;
    return LS_OK;
}

ls_status cg_generate_phase(const ls_plan *plan, const cg_phase *ph, FILE *f,
                            ls_cuda_launch *launch, ls_diag *diag)
{
    ls_status st = cg_check_plan(plan, diag);
    if (st)
        return st;
    gen g;
    gen_init(&g, plan, ph->unroll, launch);
    g.ns = ph->ns;
    g.elementwise = ph->elementwise || ph->epilogue;
    g.epilogue = ph->epilogue;
    g.prod = ph->producer;
    if (g.prod) {
        memcpy(g.prod_in, ph->producer_in, sizeof g.prod_in);
        memcpy(g.prod_stride, ph->producer_stride, sizeof g.prod_stride);
    }
    if (g.elementwise) {
        memcpy(g.out_stride, ph->out_stride, sizeof g.out_stride);
        g.elem = emit_store_elem;
        g.guard_writes = !g.epilogue && layout_duplicates(plan->derived);
    }
    gen_scan(&g, launch);
    char *body = emit_entry(&g, launch);
    if (!(st = smem_limit(&g, launch, diag))) {
        g.f = f;
        fprintf(f, "\n/* ---- %s: %s */\nnamespace %s {\n", ph->ns, ph->what, ph->ns);
        emit_decls(&g);
        fputs(body, f);
        fprintf(f, "} /* namespace %s */\n", ph->ns);
    }
    free(body);
    gen_free(&g);
    return st;
}
