/* codegen_argcmp.c: an arg_compare plan (argmax / argmin) as CUDA C.
 *
 * The kernel follows the same five steps sim/argcmp.c executes
 * (docs/arg-compare-lowering.md §3.4), every compare through the op's own
 * comparator, emitted from its region as the device function ls_cmp:
 *   A. the partial generic: a (value, index) pair per register, starting at
 *      the inits; each iteration takes the candidate where
 *      ls_cmp(candidate, pair) holds; the index is the position along the
 *      reduced dim (+ index_base), or the explicit index input's element;
 *   B. the merge's local step: the inits, then the registers in order;
 *   C. across lanes, per gpu.subgroup_reduce: NVVM's lowering of IREE's
 *      ballot path (the subgroup reduce of the value or of U(value) as a
 *      butterfly of __shfl_xor_sync, cmp oeq, __ballot_sync, cttz as __ffs,
 *      the winner's index -- and value under U -- by __shfl_sync; cttz of 0
 *      is 32, which the shuffle takes modulo 32: lane 0) or the butterfly of
 *      both (partner's pair taken unless the own one wins);
 *   D. across subgroups: the first thread of each cluster writes both
 *      buffers, every lane folds the slot(s) it reads into the inits, then
 *      C over the read cluster;
 *   E. the cluster's first thread stores the value and the index.
 * The output buffer holds the values, then (at an 8-byte boundary,
 * launch->index_offset) the indices.
 */
#include <stdio.h>
#include <string.h>

#include "lanescope/value.h"
#include "codegen.h"

/* The C type of an index result or explicit index input; NULL: not emitted. */
static const char *index_ctype(ls_elem_type t)
{
    switch (t) {
    case LS_ET_I32: return "unsigned int";
    case LS_ET_I64:
    case LS_ET_INDEX: return "unsigned long long";
    default: return NULL;
    }
}

static bool is_64(ls_elem_type t) { return ls_elem_type_bits(t) == 64; }

ls_status cg_check_argcmp(const ls_plan *plan, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const ls_argcmp *a = &p->argcmp;
    if (!index_ctype(a->index_type))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "the index result is %s; the CUDA generator writes i32, i64 and index "
                           "indices",
                           ls_elem_type_name(a->index_type));
    if (a->explicit_index && (p->n_inputs < 2 || p->inputs[1].type != LS_ET_I32))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "the explicit index input is %s; the CUDA generator reads i32 indices",
                           p->n_inputs < 2 ? "missing" : ls_elem_type_name(p->inputs[1].type));
    if (p->inputs[0].type != p->acc_type)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "arg_compare reads %s values into a %s result; the values are "
                           "compared as read, so the types must agree",
                           ls_elem_type_name(p->inputs[0].type), ls_elem_type_name(p->acc_type));
    if (plan->derived->serial_reduce || plan->n_promoted > 0)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "an arg_compare with a serial reduction level or promote_operands; "
                           "the CUDA generator emits neither for arg_compare");
    for (int i = 0; i < a->cmp.n; i++)
        if (a->cmp.inst[i].op == LS_BOP_INDEX)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, a->cmp.inst[i].line,
                               a->cmp.inst[i].col,
                               "the comparator reads linalg.index; the CUDA generator compares "
                               "values only");
    char why[400];
    if (!cg_insts_supported(&a->cmp, p->file, why, sizeof why))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col, "%s", why);
    return LS_OK;
}

/* The type gpu.subgroup_reduce reduces on the ballot path: U's result, or
 * the value's type. */
static ls_elem_type reduce_type(const ls_problem *p)
{
    const ls_argcmp *a = &p->argcmp;
    if (a->ballot && a->transform >= 0)
        return (ls_elem_type)a->cmp.inst[a->transform].type;
    return p->acc_type;
}

/* A value's 32 bits for a shuffle, and back (sub-32-bit values widened). */
static void emit_bits(FILE *f, const char *suffix, const char *ctype, ls_elem_type t)
{
    const char *to, *from;
    switch (t) {
    case LS_ET_F32: to = "__float_as_uint(v)"; from = "__uint_as_float(u)"; break;
    case LS_ET_F16: to = "(unsigned int)__half_as_ushort(v)"; from = "__ushort_as_half((unsigned short)u)"; break;
    case LS_ET_BF16:
        to = "(unsigned int)__bfloat16_as_ushort(v)";
        from = "__ushort_as_bfloat16((unsigned short)u)";
        break;
    default: to = "(unsigned int)v"; from = NULL; break;
    }
    fprintf(f, "static __device__ __forceinline__ unsigned int ls_%s2u(%s v) { return %s; }\n",
            suffix, ctype, to);
    if (from)
        fprintf(f, "static __device__ __forceinline__ %s ls_u2%s(unsigned int u) { return %s; }\n",
                ctype, suffix, from);
    else
        fprintf(f, "static __device__ __forceinline__ %s ls_u2%s(unsigned int u) { return (%s)u; }\n",
                ctype, suffix, ctype);
}

void cg_emit_argcmp_helpers(gen *g)
{
    const ls_problem *p = g->p;
    const ls_argcmp *a = &p->argcmp;
    FILE *f = g->f;
    ls_elem_type xt = reduce_type(p);
    fprintf(f, "typedef %s ls_ix_t; /* %s, the index result */\n", index_ctype(a->index_type),
            ls_elem_type_name(a->index_type));
    fprintf(f, "typedef %s ls_x_t; /* %s, what gpu.subgroup_reduce reduces */\n",
            cg_storage_type(xt), ls_elem_type_name(xt));
    /* the comparator, and U alone for the ballot path */
    ls_elem_type two[2] = {p->acc_type, p->acc_type};
    const char *two_c[2] = {"ls_acc_t", "ls_acc_t"};
    cg_body_fn fns[2] = {{&a->cmp, "ls_cmp",
                          "the comparator region: does a (the candidate) beat b "
                          "(the best so far)?",
                          2, two, two_c, 0, "bool", LS_ET_I1, false}};
    int nfn = 1;
    ls_body u;
    if (a->ballot && a->transform >= 0) {
        memset(&u, 0, sizeof u);
        u.n = 2;
        u.inst[0] = a->cmp.inst[0];
        u.inst[1] = a->cmp.inst[a->transform];
        u.inst[1].a = 0;
        fns[nfn++] = (cg_body_fn){
            &u, "ls_u", "U: the comparator's transform of one value", 1, two, two_c, 0, "ls_x_t",
            xt, false};
    }
    cg_emit_body_fns(f, fns, nfn);
    /* the shuffles' helpers, only those the lane combines call (NVRTC warns
     * of an unused one): the butterfly exchanges both halves of the pair;
     * the ballot reduces x, then fetches the winner's index (and value,
     * under U) */
    const ls_plan *pl = g->plan;
    if (pl->n_subgroup_reduces + (pl->cross_subgroup && pl->read_cluster > 1) == 0)
        return;
    const char *kind = a->ballot ? "idx" : "xor", *fn = a->ballot ? "__shfl_sync" : "__shfl_xor_sync";
    fprintf(f, "\n/* 32-bit shuffle words */\n");
    if (!a->ballot || a->transform >= 0)
        emit_bits(f, "v", "ls_acc_t", p->acc_type);
    if (a->ballot) {
        emit_bits(f, "x", "ls_x_t", xt);
        cg_emit_combine(f, "ls_xcombine", "ls_x_t", p->combiner, xt);
    }
    /* the index: one word, or two for 64 bits */
    if (is_64(a->index_type))
        fprintf(f, "static __device__ __forceinline__ ls_ix_t ls_shfl_%s_i(ls_ix_t v, int l)\n{\n"
                   "    const unsigned int lo = %s(0xffffffffu, (unsigned int)v, l);\n"
                   "    const unsigned int hi = %s(0xffffffffu, (unsigned int)(v >> 32), l);\n"
                   "    return (ls_ix_t)hi << 32 | lo;\n}\n",
                kind, fn, fn);
    else
        fprintf(f, "static __device__ __forceinline__ ls_ix_t ls_shfl_%s_i(ls_ix_t v, int l) "
                   "{ return %s(0xffffffffu, v, l); }\n",
                kind, fn);
}

/* A: one register's compare and selects (the candidate read only where it
 * lies inside the tensor; a masked register keeps its pair). */
static void argcmp_elem(gen *g, int64_t r, char src[][160], const char *cond, const char *ind)
{
    const ls_problem *p = g->p;
    const ls_argcmp *a = &p->argcmp;
    FILE *f = g->f;
    char idx[320];
    if (a->explicit_index) {
        snprintf(idx, sizeof idx, "(ls_ix_t)%s", src[1]);
    } else {
        int dim = ls_argcmp_dim(p);
        int64_t rx[LS_MAX_RANK];
        cg_reg_loop_part(g, r, rx);
        snprintf(idx, sizeof idx, "(ls_ix_t)((unsigned long long)(x%d + %lld) + %lldull)", dim,
                 (long long)rx[dim], (long long)(a->has_base ? a->base : 0));
    }
    const char *in2 = "";
    if (cond[0]) {
        fprintf(f, "%sif (%s) {\n", ind, cond);
        in2 = "    ";
    }
    fprintf(f, "%s%s{\n%s%s    const ls_acc_t c = %s;\n", ind, in2, ind, in2, src[0]);
    fprintf(f, "%s%s    if (ls_cmp(c, av[%lld])) {\n", ind, in2, (long long)r);
    fprintf(f, "%s%s        av[%lld] = c;\n%s%s        ai[%lld] = %s;\n%s%s    }\n%s%s}\n", ind, in2,
            (long long)r, ind, in2, (long long)r, idx, ind, in2, ind, in2);
    if (cond[0])
        fprintf(f, "%s}\n", ind);
}

/* C: one lane combine of the pair (v, i) over reduce r. */
static void emit_lane_combine(gen *g, const ls_subgroup_reduce *r, const char *v, const char *i,
                              const char *ind)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    const ls_argcmp *a = &p->argcmp;
    if (!g->plan->ballot) {
        fprintf(f, "%s/* butterfly of (value, index): the partner's pair unless the own one "
                   "wins */\n", ind);
        for (int k = 0; k < r->n_steps; k++)
            fprintf(f, "%s{\n%s    const ls_acc_t pv = ls_u2v(__shfl_xor_sync(0xffffffffu, "
                       "ls_v2u(%s), %lld));\n"
                       "%s    const ls_ix_t pi = ls_shfl_xor_i(%s, %lld);\n"
                       "%s    if (!ls_cmp(%s, pv)) {\n%s        %s = pv;\n%s        %s = pi;\n"
                       "%s    }\n%s}\n",
                    ind, ind, v, (long long)r->steps[k].offset, ind, i,
                    (long long)r->steps[k].offset, ind, v, ind, v, ind, i, ind, ind);
        return;
    }
    bool xform = a->transform >= 0;
    ls_elem_type xt = reduce_type(p);
    fprintf(f, "%s{ /* ballot: gpu.subgroup_reduce %s cluster(size = %lld, stride = %lld), cmp "
               "oeq, ballot, cttz, shuffle idx */\n",
            ind, ls_combiner_name(p->combiner), (long long)r->cluster_size,
            (long long)r->cluster_stride);
    fprintf(f, "%s    const ls_x_t x = %s(%s);\n%s    ls_x_t red = x;\n", ind, xform ? "ls_u" : "",
            v, ind);
    for (int k = 0; k < r->n_steps; k++)
        fprintf(f, "%s    red = ls_xcombine(red, ls_u2x(__shfl_xor_sync(0xffffffffu, ls_x2u(red), "
                   "%lld)));\n",
                ind, (long long)r->steps[k].offset);
    if (ls_elem_type_is_float(xt))
        fprintf(f, "%s    unsigned int mask = __ballot_sync(0xffffffffu, %s(x) == %s(red));\n", ind,
                cg_to_float(xt), cg_to_float(xt));
    else
        fprintf(f, "%s    unsigned int mask = __ballot_sync(0xffffffffu, x == red);\n", ind);
    if (r->cluster_stride > 1) {
        unsigned mask = 0;
        for (int64_t l = 0; l < 32; l++)
            if (l % r->cluster_stride == 0 && l / r->cluster_stride < r->cluster_size)
                mask |= 1u << l;
        fprintf(f, "%s    mask &= 0x%08xu; /* the cluster's lanes */\n", ind, mask);
    }
    fprintf(f, "%s    const int w = mask ? __ffs((int)mask) - 1 : 0; /* cttz(0) = 32: lane 0 */\n",
            ind);
    fprintf(f, "%s    %s = ls_shfl_idx_i(%s, w);\n", ind, i, i);
    if (xform)
        fprintf(f, "%s    %s = ls_u2v(__shfl_sync(0xffffffffu, ls_v2u(%s), w));\n", ind, v, v);
    else
        fprintf(f, "%s    %s = red;\n", ind, v);
    fprintf(f, "%s}\n", ind);
}

/* D: the two buffers and the second merge. */
static void emit_argcmp_cross(gen *g, const char *init_v, const char *init_i, int64_t *smem_bytes)
{
    FILE *f = g->f;
    const ls_plan *pl = g->plan;
    *smem_bytes = 0;
    if (!pl->cross_subgroup) {
        fprintf(f, "\n    /* [cross-subgroup] none: no reduced dim is split across subgroups */\n");
        return;
    }
    int red[LS_MAX_BODY], nred;
    int64_t nslots, npos;
    char wcond[512], slot[512];
    cg_cross_layout(g, red, &nred, &nslots, &npos, wcond, sizeof wcond, slot, sizeof slot);
    /* each buffer padded by 64 bits per row (GPUReduceBankConflicts), as
     * the plan sizes them */
    int ib = ls_elem_type_bits(g->p->argcmp.index_type) / 8;
    int64_t rowv = nslots + pl->buffer_pad, rowi = nslots + 8 / ib;
    *smem_bytes = npos * (rowv * pl->acc_elem_bytes + rowi * ib);
    fprintf(f, "\n    /* [cross-subgroup] a value buffer of %lld x %lld and an index buffer of "
               "%lld x %lld: %lld slot%s + 64 bits of padding per row */\n",
            (long long)npos, (long long)rowv, (long long)npos, (long long)rowi, (long long)nslots,
            nslots == 1 ? "" : "s");
    fprintf(f, "    __shared__ ls_acc_t bufv[%lld];\n    __shared__ ls_ix_t bufi[%lld];\n",
            (long long)(npos * rowv), (long long)(npos * rowi));
    fprintf(f, "    __syncthreads(); /* gpu.barrier: the buffers may still be read */\n");
    fprintf(f, "    if (%s) { /* first thread of its cluster writes its pair */\n", wcond);
    fprintf(f, "        const int slot = %s;\n", slot);
    for (int64_t q = 0; q < g->nres; q++) {
        int64_t cpos;
        char tpos[512];
        cg_parallel_pos_parts(g, q, &cpos, tpos, sizeof tpos);
        fprintf(f, "        bufv[(%s + %lld) * %lld + slot] = rv[%lld];\n", tpos, (long long)cpos,
                (long long)rowv, (long long)q);
        fprintf(f, "        bufi[(%s + %lld) * %lld + slot] = ri[%lld];\n", tpos, (long long)cpos,
                (long long)rowi, (long long)q);
    }
    fprintf(f, "    }\n    __syncthreads(); /* gpu.barrier: the pairs are visible */\n");
    for (int64_t q = 0; q < g->nres; q++) {
        int64_t cpos;
        char tpos[512];
        cg_parallel_pos_parts(g, q, &cpos, tpos, sizeof tpos);
        fprintf(f, "    { /* the second merge: the inits first, then the slot%s read */\n",
                pl->read_cluster > 1 ? "" : "s");
        fprintf(f, "        const ls_acc_t *const pv = bufv + (%s + %lld) * %lld;\n", tpos,
                (long long)cpos, (long long)rowv);
        fprintf(f, "        const ls_ix_t *const pi = bufi + (%s + %lld) * %lld;\n", tpos,
                (long long)cpos, (long long)rowi);
        fprintf(f, "        ls_acc_t v = %s;\n        ls_ix_t i = %s;\n", init_v, init_i);
        if (pl->read_cluster == 1) {
            fprintf(f, "        for (int sl = 0; sl < %lld; ++sl)\n", (long long)nslots);
            fprintf(f, "            if (ls_cmp(pv[sl], v)) {\n                v = pv[sl];\n"
                       "                i = pi[sl];\n            }\n");
        } else {
            fprintf(f, "        const int sl = lane / %lld %% %lld; /* past %lld slots: the inits "
                       "stay */\n",
                    (long long)pl->read_stride, (long long)pl->read_cluster, (long long)nslots);
            fprintf(f, "        if (sl < %lld && ls_cmp(pv[sl], v)) {\n            v = pv[sl];\n"
                       "            i = pi[sl];\n        }\n",
                    (long long)nslots);
            emit_lane_combine(g, &pl->cross_reduce, "v", "i", "        ");
        }
        fprintf(f, "        rv[%lld] = v;\n        ri[%lld] = i;\n    }\n", (long long)q,
                (long long)q);
    }
}

void cg_emit_argcmp_kernel(gen *g, int64_t *smem_bytes)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    const ls_plan *pl = g->plan;
    const ls_argcmp *a = &p->argcmp;
    char init_v[96], init_i[96];
    cg_literal(p->acc_type, p->init, init_v, sizeof init_v);
    snprintf(init_i, sizeof init_i, "(ls_ix_t)0x%llxull",
             (unsigned long long)(ls_argcmp_init_index(p) & ls_value_mask(a->index_type)));
    fprintf(f, "    (void)ident; /* arg_compare starts from its inits */\n");
    fprintf(f, "    ls_ix_t *const oidx = (ls_ix_t *)((unsigned char *)out + %lld);\n",
            (long long)g->index_offset);
    fprintf(f, "\n    /* [load+accumulate] the partial generic: a (value, index) pair per register, "
               "from the inits */\n");
    fprintf(f, "    ls_acc_t av[%lld];\n    ls_ix_t ai[%lld];\n#pragma unroll\n"
               "    for (int r = 0; r < %lld; ++r) {\n        av[r] = %s;\n        ai[r] = %s;\n"
               "    }\n",
            (long long)g->regs, (long long)g->regs, (long long)g->regs, init_v, init_i);
    g->elem = argcmp_elem;
    cg_emit_chunk_loop(g);
    fprintf(f, "\n    /* [thread reduce] the merge's local step: the inits, then the registers in "
               "order */\n");
    fprintf(f, "    ls_acc_t rv[%lld];\n    ls_ix_t ri[%lld];\n", (long long)g->nres,
            (long long)g->nres);
    for (int64_t q = 0; q < g->nres; q++)
        fprintf(f, "    rv[%lld] = %s;\n    ri[%lld] = %s;\n", (long long)q, init_v, (long long)q,
                init_i);
    for (int64_t r = 0; r < g->regs; r++) {
        int64_t q = g->res_slot[g->acc_slot[r]];
        fprintf(f, "    if (ls_cmp(av[%lld], rv[%lld])) {\n        rv[%lld] = av[%lld];\n"
                   "        ri[%lld] = ai[%lld];\n    }\n",
                (long long)r, (long long)q, (long long)q, (long long)r, (long long)q, (long long)r);
    }
    fprintf(f, "\n    /* [subgroup reduce]%s */\n",
            pl->n_subgroup_reduces ? "" : " none: no reduced dim has more than one lane");
    for (int k = 0; k < pl->n_subgroup_reduces; k++)
        for (int64_t q = 0; q < g->nres; q++) {
            char v[32], i[32];
            snprintf(v, sizeof v, "rv[%lld]", (long long)q);
            snprintf(i, sizeof i, "ri[%lld]", (long long)q);
            emit_lane_combine(g, &pl->subgroup_reduces[k], v, i, "    ");
        }
    emit_argcmp_cross(g, init_v, init_i, smem_bytes);
    char wcond[1024];
    cg_store_writer(g, wcond, sizeof wcond);
    fprintf(f, "\n    /* [store] one thread per output element: the value, then the index */\n"
               "    if (%s) {\n",
            wcond);
    for (int64_t q = 0; q < g->nres; q++) {
        char cond[1024], off[1024];
        cg_store_target(g, q, cond, sizeof cond, off, sizeof off);
        if (cond[0])
            fprintf(f, "        if (%s) {\n    ", cond);
        else
            fprintf(f, "        {\n    ");
        fprintf(f, "        out[%s] = rv[%lld];\n", off, (long long)q);
        fprintf(f, "            oidx[%s] = ri[%lld];\n        }\n", off, (long long)q);
    }
    fprintf(f, "    }\n");
}
