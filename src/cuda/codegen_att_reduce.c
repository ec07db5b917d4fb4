/* codegen_att_reduce.c: the attention generator's index spaces and its
 * reductions (see codegen_attention.c): each thread's local tuples of a
 * matmul's layout folded into a thread base plus constants, and one
 * reduction as sim/attention_lanes.c's dist_reduce runs it -- the local
 * fold, a __shfl_xor_sync butterfly per reduced loop with lanes, the
 * workgroup-memory round when subgroups split a reduced loop. */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "codegen_att.h"

unsigned cg_att_mask_of(const int *dims, int n)
{
    unsigned m = 0;
    for (int i = 0; i < n; i++)
        m |= 1u << dims[i];
    return m;
}

aspace cg_att_space(const ls_att_matmul *mm, unsigned mask)
{
    aspace s = {mm, 0, {0}, 0};
    for (int i = 0; i < mm->rank; i++)
        if (mask >> mm->dim[i] & 1)
            s.loop[s.n++] = i;
    s.count = ls_att_local_count(&mm->layout, s.loop, s.n);
    return s;
}

/* Tuple f's constant offsets along the space's op dims (the thread's base
 * aside): b*O*T*E + o*T*E + e per loop. */
void cg_att_tuple_off(const aspace *s, int64_t f, int64_t *off)
{
    const ls_nested_layout *ly = &s->mm->layout;
    int64_t b[LS_MAX_RANK], o[LS_MAX_RANK], e[LS_MAX_RANK];
    ls_att_local_decode(ly, s->loop, s->n, f, b, o, e);
    for (int j = 0; j < s->n; j++) {
        int i = s->loop[j];
        off[s->mm->dim[i]] =
            (b[j] * ly->outer_tile[i] + o[j]) * ly->thread_tile[i] * ly->element_tile[i] + e[j];
    }
}

/* Whether tuple offsets off lie inside the tile along the space's dims:
 * 1 always, 0 never, 2 depending on the thread (the condition into buf). */
int cg_att_tuple_cond(const agen *g, const aspace *s, const int64_t *off, char *buf, size_t size)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int j = 0; j < s->n; j++) {
        int i = s->loop[j], d = s->mm->dim[i];
        int64_t bound = s->mm->bound[i];
        if (off[d] >= bound)
            return 0;
        if (g->maxbase[d] + off[d] >= bound && u < size)
            u += (size_t)snprintf(buf + u, size - u, "%sbs%d + %lld < %lld", u ? " && " : "", d,
                                  (long long)off[d], (long long)bound);
    }
    return u ? 2 : 1;
}

/* The tuple of space s whose offsets equal off on s's dims. */
int64_t cg_att_find(const aspace *s, const int64_t *off)
{
    int64_t t[LS_MAX_RANK];
    for (int64_t f = 0; f < s->count; f++) {
        cg_att_tuple_off(s, f, t);
        bool same = true;
        for (int j = 0; j < s->n && same; j++)
            same = t[s->mm->dim[s->loop[j]]] == off[s->mm->dim[s->loop[j]]];
        if (same)
            return f;
    }
    return -1;
}

/* "const ls_idx_t name = sum over the operand's dims of (origin + thread
 * base) x stride;" */
void cg_att_emit_base(const agen *g, const ls_dop_operand *op, const char *name, const char *ind)
{
    fprintf(g->f, "%sconst %s %s = 0", ind, g->idx, name);
    int64_t stride = 1;
    char terms[LS_MAX_RANK][96];
    for (int j = op->map_n; j-- > 0;) {
        int d = op->map[j];
        snprintf(terms[j], sizeof terms[j], " + (org%d + bs%d) * (%s)%lld", d, d, g->idx,
                 (long long)stride);
        stride *= op->dims[j];
    }
    for (int j = 0; j < op->map_n; j++)
        fputs(terms[j], g->f);
    fprintf(g->f, ";\n");
}

const ls_att_matmul *cg_att_base_matmul(const agen *g, int d, int *loop)
{
    const ls_att_matmul *mm = (g->nmask >> d & 1) ? &g->a->pv : &g->a->qk;
    *loop = ls_att_loop_of(mm, d);
    return mm;
}

/* The constant part of operand op's offset at tile offsets off. */
int64_t cg_att_const_offset(const ls_dop_operand *op, const int64_t *off)
{
    int64_t c = 0, stride = 1;
    for (int j = op->map_n; j-- > 0;) {
        c += off[op->map[j]] * stride;
        stride *= op->dims[j];
    }
    return c;
}

/* Operand k's element at the tile offsets off, as float. */
void cg_att_operand_at(const agen *g, int k, const int64_t *off, char *buf, size_t size)
{
    const ls_dop_operand *op = &g->o->operand[k];
    if (k < 3 && g->prom[k]) { /* from its workgroup buffer, at the padded offset */
        int64_t c = 0;
        for (int j = 0; j < op->map_n; j++)
            c += off[op->map[j]] * ls_plan_promote_stride(g->vp, k - 1, j);
        snprintf(buf, size, "%s(prom%d[pb%d + %lld])", cg_to_float(g->type[k]), k, k, (long long)c);
        return;
    }
    if (k < 3 && g->gather[k]) { /* the source's row the indices name, then the slice */
        int64_t cb = 0, cs = 0, bstride = 1, sstride = 1;
        for (int j = op->map_n; j-- > 0;) {
            if (j >= g->batch_rank[k]) {
                cs += off[op->map[j]] * sstride;
                sstride *= g->a->size[op->map[j]];
            } else {
                cb += off[op->map[j]] * bstride;
                bstride *= g->a->size[op->map[j]];
            }
        }
        snprintf(buf, size, "%s(in%d[(ls_idx_t)ix%d[gb%d + %lld] * %lld + gs%d + %lld])",
                 cg_to_float(g->type[k]), k, k, k, (long long)cb, (long long)g->slice[k], k,
                 (long long)cs);
        return;
    }
    int64_t c = cg_att_const_offset(op, off);
    if (k < 3 && g->vw[k] > 1 && c / g->vw[k] < g->ngroups[k] && g->vgroup[k][c / g->vw[k]]) {
        snprintf(buf, size, "%s(kv%d_%lld.e[%lld])", cg_to_float(g->type[k]), k,
                 (long long)(c / g->vw[k]), (long long)(c % g->vw[k]));
        return;
    }
    snprintf(buf, size, "%s(in%d[ab%d + %lld])", k < 3 ? cg_to_float(g->type[k]) : "", k, k,
             (long long)c);
}

static const char *comb_fn(rkind k)
{
    return k == K_MAX ? "ls_amax" : "ls_add";
}

/* Row-major position of offsets off over the space's dims, counting the
 * thread base: "((bs0 + 1) * 8 + (bs3 + 0) * 1)" */
static void out_pos(const aspace *s, const int64_t *off, char *buf, size_t size)
{
    size_t u = (size_t)snprintf(buf, size, "(0");
    int64_t stride = 1;
    for (int j = s->n; j-- > 0 && u < size;) {
        int i = s->loop[j], d = s->mm->dim[i];
        u += (size_t)snprintf(buf + u, size - u, " + (bs%d + %lld) * %lld", d, (long long)off[d],
                              (long long)stride);
        stride *= s->mm->bound[i];
    }
    if (u < size)
        snprintf(buf + u, size - u, ")");
}

/* A max over the thread's n tuples (n > 1) as LLVM folds the
 * vector.reduction it becomes on NVIDIA (ls_fold_shape_of, the engine's
 * local_max): its values in lm[] (a masked one the identity), then the
 * halves combined while more than one is left, then the identity's
 * combine (the multi_reduction's accumulator). */
static void emit_max_tree(agen *g, const aspace *rs, elem_fn fn, const char *dst, int64_t e,
                          const int64_t *out_off, const char *ident, const char *ind)
{
    FILE *f = g->f;
    fprintf(f, "%s{\n%s    float lm[%lld];\n", ind, ind, (long long)rs->count);
    for (int64_t j = 0; j < rs->count; j++) {
        int64_t off[LS_MAX_RANK];
        char cr[600], lhs[200], rhs[200];
        memcpy(off, out_off, sizeof off); /* output e's offsets, then tuple j's */
        cg_att_tuple_off(rs, j, off);
        int okr = cg_att_tuple_cond(g, rs, off, cr, sizeof cr);
        if (okr == 0) {
            fprintf(f, "%s    lm[%lld] = %s;\n", ind, (long long)j, ident);
            continue;
        }
        fn(g, off, lhs, rhs, sizeof lhs);
        if (okr == 2)
            fprintf(f, "%s    lm[%lld] = (%s) ? %s : %s;\n", ind, (long long)j, cr, lhs, ident);
        else
            fprintf(f, "%s    lm[%lld] = %s;\n", ind, (long long)j, lhs);
    }
    char in2[48];
    snprintf(in2, sizeof in2, "%s    ", ind);
    cg_emit_halving_fold(f, "ls_amax", "lm", NULL, rs->count, NULL, in2);
    fprintf(f, "%s    %s[%lld] = ls_amax(%s[%lld], lm[0]);\n%s}\n", ind, dst, (long long)e, dst,
            (long long)e, ind);
}

/* dst[e] = ident, then each thread's local fold over its reduced tuples:
 * a contraction's FMA chain, last first; a max over several, a tree
 * (emit_max_tree); else ascending from the identity. */
static void emit_local_fold(agen *g, const aspace *out, const aspace *rs, rkind k, elem_fn fn,
                            const char *dst, const char *ident)
{
    FILE *f = g->f;
    fprintf(f, "        float %s[%lld];\n", dst, (long long)out->count);
    for (int64_t e = 0; e < out->count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        char ce[600], cr[600];
        cg_att_tuple_off(out, e, off);
        int okc = cg_att_tuple_cond(g, out, off, ce, sizeof ce);
        fprintf(f, "        %s[%lld] = %s;\n", dst, (long long)e, ident);
        if (okc == 0)
            continue;
        if (okc == 2)
            fprintf(f, "        if (%s) {\n", ce);
        const char *ind = okc == 2 ? "            " : "        ";
        if (k == K_MAX && rs->count > 1)
            emit_max_tree(g, rs, fn, dst, e, off, ident, ind);
        for (int64_t j = 0; j < rs->count && !(k == K_MAX && rs->count > 1); j++) {
            int64_t r = k == K_CHAIN ? rs->count - 1 - j : j;
            cg_att_tuple_off(rs, r, off);
            int okr = cg_att_tuple_cond(g, rs, off, cr, sizeof cr);
            if (okr == 0)
                continue;
            char lhs[200], rhs[200];
            fn(g, off, lhs, rhs, sizeof lhs);
            if (okr == 2)
                fprintf(f, "%sif (%s)\n    ", ind, cr);
            if (k == K_CHAIN)
                fprintf(f, "%s%s[%lld] = ls_fma(%s, %s, %s[%lld]);\n", ind, dst, (long long)e, lhs,
                        rhs, dst, (long long)e);
            else
                fprintf(f, "%s%s[%lld] = %s(%s[%lld], %s);\n", ind, dst, (long long)e, comb_fn(k),
                        dst, (long long)e, lhs);
        }
        if (okc == 2)
            fprintf(f, "        }\n");
    }
}

/* One gpu.subgroup_reduce of each of the n values in dst, as NVIDIA
 * lowers it: an XOR butterfly of __shfl_xor_sync, every lane taking part. */
static void emit_shuffles(agen *g, const ls_subgroup_reduce *sr, int64_t n, rkind k,
                          const char *dst)
{
    FILE *f = g->f;
    fprintf(f,
            "        /* gpu.subgroup_reduce %s cluster(size = %lld, stride = %lld): XOR "
            "butterfly */\n",
            k == K_MAX ? "maximumf" : "add", (long long)sr->cluster_size,
            (long long)sr->cluster_stride);
    fprintf(f, "#pragma unroll\n        for (int q = 0; q < %lld; ++q) {\n", (long long)n);
    for (int s = 0; s < sr->n_steps; s++)
        fprintf(f, "            %s[q] = %s(%s[q], __shfl_xor_sync(0xffffffffu, %s[q], %lld));\n",
                dst, comb_fn(k), dst, dst, (long long)sr->steps[s].offset);
    fprintf(f, "        }\n");
}

/* A gpu.subgroup_reduce per reduced loop with lanes. */
static void emit_butterflies(agen *g, const ls_nested_layout *ly, const aspace *out,
                             const aspace *rs, rkind k, const char *dst)
{
    for (int j = 0; j < rs->n; j++) {
        int i = rs->loop[j];
        if (ly->thread_tile[i] <= 1)
            continue;
        ls_subgroup_reduce sr;
        memset(&sr, 0, sizeof sr);
        sr.cluster_size = ly->thread_tile[i];
        sr.cluster_stride = ly->thread_strides[i];
        ls_plan_lower_subgroup_reduce(&sr, g->t);
        emit_shuffles(g, &sr, out->count, k, dst);
    }
}

/* The workgroup-memory round when subgroups split the reduced loops into
 * nsplit partials an output: every holder writes its partial at its
 * output's row and its subgroup's slot (row-major over the split loops, as
 * the simulator's collect).  After the barrier, when a lane dim of the
 * reduced loops holds nsplit lanes, lane l reads slot (l / stride) %
 * nsplit and a gpu.subgroup_reduce of that cluster combines them, as IREE
 * lowers the read-back (docs/attention-lowering.md §5.2); otherwise every
 * thread folds its outputs' partials in turn. */
static void emit_round(agen *g, const ls_att_matmul *mm, const aspace *out, const aspace *rs,
                       int64_t nsplit, rkind k, const char *dst, const char *ident)
{
    FILE *f = g->f;
    const ls_nested_layout *ly = &mm->layout;
    int64_t cluster, stride, nout = 1;
    ls_plan_readback(ly, rs->loop, rs->n, nsplit, &cluster, &stride);
    for (int j = 0; j < out->n; j++)
        nout *= mm->bound[out->loop[j]];
    if (nout * nsplit > g->buf_floats)
        g->buf_floats = nout * nsplit;
    fprintf(f,
            "        /* subgroups split the reduced loop%s: %lld partials an output through "
            "workgroup memory, %s */\n",
            rs->n > 1 ? "s" : "", (long long)nsplit,
            cluster == 1 ? "folded in turn by every thread (no lane dim is wide enough)"
                         : "read back one a lane and reduced across the lanes");
    fprintf(f, "        __syncthreads();\n        {\n            const int sj = 0");
    int64_t mult = 1;
    for (int j = rs->n; j-- > 0;) {
        int i = rs->loop[j];
        if (ly->subgroup_tile[i] <= 1)
            continue;
        fprintf(f, " + (sg / %lld) %% %lld * %lld",
                (long long)(ly->subgroup_strides[i] ? ly->subgroup_strides[i] : 1),
                (long long)ly->subgroup_tile[i], (long long)mult);
        mult *= ly->subgroup_tile[i];
    }
    fprintf(f, ";\n");
    char pos[400], ce[600];
    for (int pass = 0; pass < 2; pass++) { /* the writes, then the read-back */
        if (pass == 1) {
            fprintf(f, "        }\n        __syncthreads();\n");
            if (cluster > 1) /* its own block: one reduce after another in a scope */
                fprintf(f, "        {\n        const int rj = lane / %lld %% %lld;\n",
                        (long long)stride, (long long)cluster);
        }
        for (int64_t e = 0; e < out->count; e++) {
            int64_t off[LS_MAX_RANK] = {0};
            cg_att_tuple_off(out, e, off);
            int okc = cg_att_tuple_cond(g, out, off, ce, sizeof ce);
            if (okc == 0)
                continue;
            out_pos(out, off, pos, sizeof pos);
            if (pass == 0) {
                fprintf(f, "            %s%s%sls_red_buf[%s * %lld + sj] = %s[%lld];\n",
                        okc == 2 ? "if (" : "", okc == 2 ? ce : "", okc == 2 ? ") " : "", pos,
                        (long long)nsplit, dst, (long long)e);
            } else if (cluster == 1) {
                fprintf(f, "        %s%s%s%s[%lld] = ", okc == 2 ? "if (" : "", okc == 2 ? ce : "",
                        okc == 2 ? ") " : "", dst, (long long)e);
                for (int64_t j = 0; j < nsplit; j++)
                    fprintf(f, "%s(", comb_fn(k));
                fprintf(f, "%s", ident);
                for (int64_t j = 0; j < nsplit; j++)
                    fprintf(f, ", ls_red_buf[%s * %lld + %lld])", pos, (long long)nsplit,
                            (long long)j);
                fprintf(f, ";\n");
            } else { /* every lane shuffles: an output outside the tile reads the identity */
                if (okc == 2)
                    fprintf(f, "        %s[%lld] = (%s) ? ls_red_buf[%s * %lld + rj] : %s;\n", dst,
                            (long long)e, ce, pos, (long long)nsplit, ident);
                else
                    fprintf(f, "        %s[%lld] = ls_red_buf[%s * %lld + rj];\n", dst,
                            (long long)e, pos, (long long)nsplit);
            }
        }
    }
    if (cluster > 1) {
        ls_subgroup_reduce sr;
        memset(&sr, 0, sizeof sr);
        sr.cluster_size = cluster;
        sr.cluster_stride = stride;
        ls_plan_lower_subgroup_reduce(&sr, g->t);
        emit_shuffles(g, &sr, out->count, k, dst);
        fprintf(f, "        }\n");
    }
}

aspace cg_att_emit_reduce(agen *g, const ls_att_matmul *mm, unsigned vals, unsigned red, rkind k,
                          elem_fn fn, const char *dst)
{
    aspace out = cg_att_space(mm, vals & ~red), rs = cg_att_space(mm, red);
    const char *ident = k == K_MAX ? "__uint_as_float(0xff800000u)" /* -inf */ : "0.0f";
    emit_local_fold(g, &out, &rs, k, fn, dst, ident);
    emit_butterflies(g, &mm->layout, &out, &rs, k, dst);
    int64_t nsplit = 1;
    for (int j = 0; j < rs.n; j++)
        nsplit *= mm->layout.subgroup_tile[rs.loop[j]];
    if (nsplit > 1)
        emit_round(g, mm, &out, &rs, nsplit, k, dst, ident);
    return out;
}
