/* codegen_reduce.c: the stages after the loop (see codegen.c): the thread
 * reduce, gpu.subgroup_reduce as an XOR butterfly, the cross-subgroup
 * buffer with its two barriers, the combine with the init and the store by
 * the first thread of each duplicate set. */
#include <stdio.h>
#include <string.h>

#include "lanescope/functional.h"
#include "lanescope/value.h"
#include "codegen.h"

static void emit_reduce_steps(gen *g, const ls_subgroup_reduce *r, const char *v, const char *ind)
{
    for (int i = 0; i < r->n_steps; i++)
        fprintf(g->f, "%s%s = ls_combine(%s, ls_shfl_xor(%s, %lld));\n", ind, v, v, v,
                (long long)r->steps[i].offset);
}

/* res = the registers' multi_reduction into their slots, from the
 * identity; a fold LLVM compiles as a tree (ls_plan_thread_reduce_shape)
 * in halves, in place (the identity's combine folds away) */
static void emit_thread_reduce(gen *g)
{
    if (ls_plan_thread_reduce_shape(g->plan).form != LS_TR_CHAIN) {
        cg_emit_group_folds(g, "acc", g->res_slot, g->nacc, g->nres, "res", "    ");
        return;
    }
    for (int64_t q = 0; q < g->nres; q++)
        fprintf(g->f, "    res[%lld] = ident;\n", (long long)q);
    for (int64_t a = 0; a < g->nacc; a++)
        fprintf(g->f, "    res[%lld] = ls_combine(res[%lld], acc[%lld]);\n",
                (long long)g->res_slot[a], (long long)g->res_slot[a], (long long)a);
}

void cg_emit_reduces(gen *g)
{
    FILE *f = g->f;
    const ls_plan *pl = g->plan;
    if (g->d->local_reduce_all) {
        fprintf(f,
                "\n    /* [thread reduce] none: the local %s left one value per output */\n"
                "    ls_acc_t res[%lld];\n",
                g->fma == LS_FMA_CONTRACT ? "contraction" : "reduce", (long long)g->nres);
        for (int64_t a = 0; a < g->nacc; a++)
            fprintf(f, "    res[%lld] = acc[%lld];\n", (long long)g->res_slot[a], (long long)a);
    } else {
        fprintf(f,
                "\n    /* [thread reduce] vector.multi_reduction over the reduced registers "
                "*/\n    ls_acc_t res[%lld];\n",
                (long long)g->nres);
        emit_thread_reduce(g);
    }
    fprintf(f, "\n    /* [subgroup reduce]%s */\n",
            pl->n_subgroup_reduces ? "" : " none: no reduced dim has more than one lane");
    for (int i = 0; i < pl->n_subgroup_reduces; i++) {
        const ls_subgroup_reduce *r = &pl->subgroup_reduces[i];
        fprintf(f, "    /* gpu.subgroup_reduce %s cluster(size = %lld, stride = %lld): XOR "
                   "butterfly */\n",
                ls_combiner_name(g->p->combiner), (long long)r->cluster_size,
                (long long)r->cluster_stride);
        fprintf(f, "#pragma unroll\n    for (int q = 0; q < %lld; ++q) {\n", (long long)g->nres);
        emit_reduce_steps(g, r, "res[q]", "        ");
        fprintf(f, "    }\n");
    }
}

void cg_cross_layout(const gen *g, int *red, int *nred, int64_t *nslots, int64_t *npos,
                     char *wcond, size_t wsize, char *slot, size_t ssize)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    const ls_nested_layout *l = g->l;
    *nred = 0;
    *nslots = *npos = 1;
    for (int k = 0; k < l->rank; k++) {
        if (d->body_inner[k])
            continue;
        if (p->is_reduction[d->body_origin[k]]) {
            red[(*nred)++] = k;
            *nslots *= l->subgroup_tile[k];
        } else {
            *npos *= ls_nl_extent(l, k);
        }
    }
    char v[64];
    size_t u = (size_t)snprintf(wcond, wsize, "lane < %lld && sg < %lld",
                                (long long)d->layout_lanes, (long long)d->layout_subgroups);
    size_t s = (size_t)snprintf(slot, ssize, "0");
    for (int r = 0; r < *nred; r++) {
        cg_virt(l, red[r], false, v, sizeof v);
        if (strcmp(v, "0") != 0 && u < wsize)
            u += (size_t)snprintf(wcond + u, wsize - u, " && %s == 0", v);
        cg_virt(l, red[r], true, v, sizeof v);
        if (s < ssize)
            s += (size_t)snprintf(slot + s, ssize - s, " * %lld + %s",
                                  (long long)l->subgroup_tile[red[r]], v);
    }
}

/* The cross-subgroup buffer: rows of [slots + padding] per parallel position. */
void cg_emit_cross_subgroup(gen *g, int64_t *smem_bytes)
{
    FILE *f = g->f;
    const ls_plan *pl = g->plan;
    const ls_problem *p = g->p;
    const ls_nested_layout *l = g->l;
    *smem_bytes = 0;
    if (!pl->cross_subgroup) {
        fprintf(f, "\n    /* [cross-subgroup] none: no reduced dim is split across subgroups */\n");
        return;
    }
    int red[LS_MAX_BODY], nred;
    int64_t nslots, npos;
    char wcond[512], slot[512], v[64];
    cg_cross_layout(g, red, &nred, &nslots, &npos, wcond, sizeof wcond, slot, sizeof slot);
    int64_t row = nslots + pl->buffer_pad;
    *smem_bytes = npos * row * pl->acc_elem_bytes;
    fprintf(f, "\n    /* [cross-subgroup] memref<%lldx%lldx%s, workgroup>: %lld slot%s + %lld "
               "padding per row (%lld bytes) */\n",
            (long long)npos, (long long)row, ls_elem_type_name(p->acc_type), (long long)nslots,
            nslots == 1 ? "" : "s", (long long)pl->buffer_pad, (long long)*smem_bytes);
    fprintf(f, "    __shared__ ls_acc_t buf[%lld];\n", (long long)(npos * row));
    fprintf(f, "    __syncthreads(); /* gpu.barrier: the buffer may still be read */\n");
    (void)v;
    fprintf(f, "    if (%s) { /* first thread of its cluster writes its partial */\n", wcond);
    fprintf(f, "        const int slot = %s;\n", slot);
    for (int64_t q = 0; q < g->nres; q++) {
        int64_t cpos;
        char tpos[512];
        cg_parallel_pos_parts(g, q, &cpos, tpos, sizeof tpos);
        fprintf(f, "        buf[(%s + %lld) * %lld + slot] = res[%lld];\n", tpos, (long long)cpos,
                (long long)row, (long long)q);
    }
    fprintf(f, "    }\n    __syncthreads(); /* gpu.barrier: the partials are visible */\n");
    if (pl->read_cluster == 1) {
        fprintf(f, "    /* no lane dim holds %lld slots: every lane folds the row */\n",
                (long long)nslots);
    } else {
        fprintf(f, "    /* lanes read their slot of the row (padding = identity) */\n");
        fprintf(f, "    int rem = lane / %lld %% %lld;\n    (void)rem;\n",
                (long long)pl->read_stride, (long long)pl->read_cluster);
        char in[512], sl[512];
        size_t a = (size_t)snprintf(in, sizeof in, "true");
        size_t b = (size_t)snprintf(sl, sizeof sl, "0");
        for (int r = 0; r < nred; r++) {
            int64_t tile = 1;
            while (tile < l->subgroup_tile[red[r]])
                tile <<= 1;
            fprintf(f, "    const int c%d = rem %% %lld;\n    rem /= %lld;\n", r, (long long)tile,
                    (long long)tile);
            if (a < sizeof in)
                a += (size_t)snprintf(in + a, sizeof in - a, " && c%d < %lld", r,
                                      (long long)l->subgroup_tile[red[r]]);
            if (b < sizeof sl)
                b += (size_t)snprintf(sl + b, sizeof sl - b, " * %lld + c%d",
                                      (long long)l->subgroup_tile[red[r]], r);
        }
        fprintf(f, "    const bool inside = %s;\n    const int rslot = inside ? %s : 0;\n", in, sl);
    }
    for (int64_t q = 0; q < g->nres; q++) {
        int64_t cpos;
        char tpos[512];
        cg_parallel_pos_parts(g, q, &cpos, tpos, sizeof tpos);
        fprintf(f, "    {\n        const ls_acc_t *rowp = buf + (%s + %lld) * %lld;\n", tpos,
                (long long)cpos, (long long)row);
        if (pl->read_cluster == 1) {
            fprintf(f, "        ls_acc_t v = ident;\n");
            for (int64_t k = 0; k < nslots; k++)
                fprintf(f, "        v = ls_combine(v, rowp[%lld]);\n", (long long)k);
        } else {
            fprintf(f, "        ls_acc_t v = inside ? rowp[rslot] : ident;\n");
            fprintf(f, "        /* gpu.subgroup_reduce cluster(size = %lld, stride = %lld) */\n",
                    (long long)pl->cross_reduce.cluster_size,
                    (long long)pl->cross_reduce.cluster_stride);
            emit_reduce_steps(g, &pl->cross_reduce, "v", "        ");
        }
        fprintf(f, "        res[%lld] = v;\n    }\n", (long long)q);
    }
}

/* The threads that store: the first of each duplicate set, lane 0 and
 * subgroup 0 of their cluster along every reduced dim. */
void cg_store_writer(const gen *g, char *wcond, size_t size)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    const ls_nested_layout *l = g->l;
    char v[64];
    size_t u = (size_t)snprintf(wcond, size, "lane < %lld && sg < %lld",
                                (long long)d->layout_lanes, (long long)d->layout_subgroups);
    for (int k = 0; k < l->rank; k++) {
        if (!p->is_reduction[d->body_origin[k]])
            continue;
        for (int sgp = 0; sgp < 2; sgp++) {
            cg_virt(l, k, sgp == 1, v, sizeof v);
            if (strcmp(v, "0") != 0 && u < size)
                u += (size_t)snprintf(wcond + u, size - u, " && %s == 0", v);
        }
    }
}

/* Result slot q's output element: its bounds condition ("" when always
 * inside) and its offset into the row-major output. */
void cg_store_target(const gen *g, int64_t q, char *cond, size_t csize, char *off, size_t osize)
{
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    /* output strides: row-major over the output operand's dims */
    int64_t ostride[LS_MAX_RANK] = {0}, s = 1;
    for (int j = p->out_map_n - 1; j >= 0; j--) {
        ostride[p->out_map[j]] = s;
        s *= p->size[p->out_map[j]];
    }
    int64_t rp[LS_MAX_BODY], rx[LS_MAX_RANK];
    cg_reg_part(g, g->slot_reg[q], rp);
    cg_body_to_loop(g, rp, rx);
    size_t a = 0, b = (size_t)snprintf(off, osize, "0");
    cond[0] = 0;
    for (int k = 0; k < d->body_rank; k++)
        if (!p->is_reduction[d->body_origin[k]] && g->max_tb[k] + rp[k] >= d->body_bound[k] &&
            a < csize)
            a += (size_t)snprintf(cond + a, csize - a, "%stb%d + %lld < %lld", a ? " && " : "", k,
                                  (long long)rp[k], (long long)d->body_bound[k]);
    for (int i = 0; i < p->rank; i++) {
        if (p->is_reduction[i])
            continue;
        if (g->max_origin[i] + g->max_tx[i] + rx[i] >= p->size[i] && a < csize)
            a += (size_t)snprintf(cond + a, csize - a, "%swg%d * %lld + tx%d + %lld < %lld",
                                  a ? " && " : "", i, (long long)d->wg_tile[i], i,
                                  (long long)rx[i], (long long)p->size[i]);
        if (b < osize)
            b += (size_t)snprintf(off + b, osize - b, " + (wg%d * %lld + tx%d + %lld) * %lld", i,
                                  (long long)d->wg_tile[i], i, (long long)rx[i],
                                  (long long)ostride[i]);
    }
}

void cg_emit_store(gen *g)
{
    FILE *f = g->f;
    const ls_derived *d = g->d;
    const ls_problem *p = g->p;
    char init[96];
    cg_literal(p->acc_type, ls_problem_init(p), init, sizeof init);
    if (!d->serial_reduce) { /* a serial loop's carried value started at the init */
        fprintf(f, "\n    /* [acc combine] %%r = %s(%%r, %%init): the init is %s */\n",
                ls_combiner_name(p->combiner),
                p->has_init ? "the value of its linalg.fill" : "the identity");
        for (int64_t q = 0; q < g->nres; q++)
            fprintf(f, "    res[%lld] = ls_combine(res[%lld], %s);\n", (long long)q,
                    (long long)q, init);
    }
    char wcond[1024];
    cg_store_writer(g, wcond, sizeof wcond);
    fprintf(f, "\n    /* [store] one thread per output element */\n    if (%s) {\n", wcond);
    for (int64_t q = 0; q < g->nres; q++) {
        char cond[1024], off[1024];
        cg_store_target(g, q, cond, sizeof cond, off, sizeof off);
        if (cond[0])
            fprintf(f, "        if (%s)\n    ", cond);
        fprintf(f, "        out[%s] = res[%lld];\n", off, (long long)q);
    }
    fprintf(f, "    }\n");
}

