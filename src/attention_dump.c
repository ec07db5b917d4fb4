/* attention_dump.c: an attention's kernel in IREE's vocabulary, for
 * `lanescope sim --dump-plan` (text here, JSON in src/cli/plan_json.c):
 * the per-thread vectors as VectorDistribute prints them, the K2 loop, the
 * contract and the online softmax of one step, the reductions with their
 * gpu.subgroup_reduce ops and workgroup buffers, mergeReductions after a
 * partial loop, the epilogue and the stores.
 *
 * Every count here is the one the engine's program issues
 * (sim/engine_attention.c builds from the same kernel and reductions);
 * the vector types and the order of each value's dims follow IREE's
 * decomposition and partial tiling (docs/attention-lowering.md §2.2, §3,
 * §5): S over (batch, M, K2), with K2 among the batch dims after partial
 * tiling; the partial max, sum and acc with the K2 dims in front
 * (getPartialResultMap). */
#include <stdio.h>
#include <string.h>

#include "lanescope/attention.h"
#include "plan_internal.h"

typedef struct {
    int n;
    int d[2 * LS_MAX_RANK];
} dimlist;

static void push(dimlist *l, const int *d, int n)
{
    for (int i = 0; i < n && l->n < 2 * LS_MAX_RANK; i++)
        l->d[l->n++] = d[i];
}

/* The dims of map less those in `drop` (n_drop of them). */
static void push_map_less(dimlist *l, const ls_dop_operand *o, const int *drop, int n_drop)
{
    for (int j = 0; j < o->map_n; j++)
        if (o->map[j] >= 0 && !ls_att_dim_in(drop, n_drop, o->map[j]))
            push(l, &o->map[j], 1);
}

/* DistributeMultiReduction's buffer (docs/attention-lowering.md §5.2): the
 * subgroup tile on each reduced dim, the workgroup's full extent on the
 * others, in the reduction source's dim order. */
static void buffer_of(ls_att_plan_reduce *r, const ls_att_matmul *mm, const dimlist *src,
                      const int *reduced, int n_reduced, int64_t elem_bytes)
{
    if (!r->red->cross)
        return;
    int64_t n = 1;
    for (int j = 0; j < src->n; j++) {
        int i = ls_att_loop_of(mm, src->d[j]);
        int64_t e = i < 0                                          ? 1
                    : ls_att_dim_in(reduced, n_reduced, src->d[j]) ? mm->layout.subgroup_tile[i]
                                                                   : mm->bound[i];
        r->buffer_shape[r->buffer_rank++] = e;
        n *= e;
    }
    r->buffer_bytes = n * elem_bytes;
}

static void reduce_of(ls_att_plan_reduce *r, const char *what, const char *kind, int64_t values,
                      int64_t local_ops, const ls_att_reduction *red)
{
    memset(r, 0, sizeof *r);
    r->what = what;
    r->kind = kind;
    r->values = values;
    r->local_ops = local_ops;
    r->red = red;
    r->subgroup_reduces = values * ls_att_reduction_ops(red);
}

/* The reductions of a K2 step and of the merge after the loop: each one's
 * combines, its subgroup reduces and workgroup-memory buffer (s: the
 * scores' dims, st: the carried max's and sum's, acc: the accumulator's),
 * with the barriers and exp2s they bring. */
static void plan_reductions(ls_att_plan *out, const ls_attention *a, const ls_att_kernel *k,
                            const dimlist *s, const dimlist *st, const dimlist *acc, int64_t eb)
{
    const ls_attention_dims *ad = &a->dims;
    const ls_plan *pl = out->plan;
    int64_t rows = k->rows, slots = k->slots, nloc = k->nloc;
    /* S: the contraction over K1, its source S's dims then K1's */
    dimlist sk = *s;
    push(&sk, ad->k1, ad->n_k1);
    ls_att_plan_reduce *r = &out->step[out->n_step++];
    reduce_of(r, "S", "add", out->scores, out->scores * k->k1loc, &k->k1_red);
    buffer_of(r, &a->qk, &sk, ad->k1, ad->n_k1, eb);
    dimlist sk2 = *st, acck2 = *acc;
    push(&sk2, ad->k2, ad->n_k2);
    push(&acck2, ad->k2, ad->n_k2);
    if (!a->partial) { /* each step reduces the max, sum and PV over K2 */
        r = &out->step[out->n_step++];
        reduce_of(r, "max", "maximumf", rows, rows * (slots - 1), &k->qk2_red);
        buffer_of(r, &a->qk, &sk2, ad->k2, ad->n_k2, eb);
        r = &out->step[out->n_step++];
        reduce_of(r, "sum", "add", rows, rows * (slots - 1), &k->qk2_red);
        buffer_of(r, &a->qk, &sk2, ad->k2, ad->n_k2, eb);
        r = &out->step[out->n_step++];
        reduce_of(r, "acc", "add", rows * nloc, rows * nloc * slots, &k->pv2_red);
        buffer_of(r, &a->pv, &acck2, ad->k2, ad->n_k2, eb);
        out->exp2_step = rows + out->scores;
    } else { /* mergeReductions over the partials (K2 dims in front) */
        out->exp2_step = 2 * out->scores;
        r = &out->merge[out->n_merge++];
        reduce_of(r, "max", "maximumf", rows, rows * (slots - 1), &k->qk2_red);
        buffer_of(r, &a->qk, st, ad->k2, ad->n_k2, eb);
        if (k->sum_merge) {
            r = &out->merge[out->n_merge++];
            reduce_of(r, "sum", "add", rows, 2 * rows * slots, &k->qk2_red);
            buffer_of(r, &a->qk, st, ad->k2, ad->n_k2, eb);
        }
        r = &out->merge[out->n_merge++];
        reduce_of(r, "acc", "add", rows * nloc, 2 * rows * nloc * slots, &k->pv2_red);
        buffer_of(r, &a->pv, acc, ad->k2, ad->n_k2, eb);
        out->exp2_merge = out->scores;
    }
    out->barriers_step = pl->n_promoted > 0 ? 2 : 0;
    for (int i = 0; i < out->n_step; i++) {
        out->subgroup_reduces_step += out->step[i].subgroup_reduces;
        out->barriers_step += out->step[i].buffer_rank ? 2 : 0;
    }
    for (int i = 0; i < out->n_merge; i++) {
        out->subgroup_reduces_merge += out->merge[i].subgroup_reduces;
        out->barriers_merge += out->merge[i].buffer_rank ? 2 : 0;
    }
}

void ls_att_plan_of(const ls_module *m, const ls_module_attention *ma, const ls_att_view *v,
                    ls_att_plan *out)
{
    memset(out, 0, sizeof *out);
    const ls_plan *pl = ls_att_view_plan(v);
    const ls_att_kernel *k = pl->attention;
    const ls_attention *a = k->a;
    const ls_attention_dims *ad = &a->dims;
    const ls_dop *o = &m->dispatches[ma->dispatch].ops[ma->op];
    const ls_dop_operand *res = &o->operand[o->n_inputs];
    out->k = k;
    out->plan = pl;
    out->online = o->n_inits == 3;
    ls_elem_type et = out->online ? pl->problem->acc_type : LS_ET_F32;
    int64_t eb = ls_elem_type_bits(et) / 8;
    out->work_type = et;
    out->work = ls_elem_type_name(et);

    ls_att_vector_type(&a->qk, o->operand[0].map, o->operand[0].map_n, a->q_elem, out->q_vec,
                       sizeof out->q_vec);
    ls_att_vector_type(&a->qk, o->operand[1].map, o->operand[1].map_n, a->k_elem, out->k_vec,
                       sizeof out->k_vec);
    ls_att_vector_type(&a->pv, o->operand[2].map, o->operand[2].map_n, a->v_elem, out->v_vec,
                       sizeof out->v_vec);
    /* S: batch dims (K2 among them once partial tiling has put K2 in the
     * output), M, then K2 (AttentionOpDetail::getSMap) */
    dimlist s = {0};
    for (int d = 0; d < a->rank; d++)
        if (ls_att_dim_in(ad->batch, ad->n_batch, d) ||
            (a->partial && ls_att_dim_in(ad->k2, ad->n_k2, d)))
            push(&s, &d, 1);
    push(&s, ad->m, ad->n_m);
    if (!a->partial)
        push(&s, ad->k2, ad->n_k2);
    ls_att_vector_type(&a->qk, s.d, s.n, out->work, out->s_vec, sizeof out->s_vec);
    ls_att_vector_type(&a->pv, s.d, s.n, k->trunc_p ? a->v_elem : out->work, out->p_vec,
                       sizeof out->p_vec);
    /* the carried max and sum: the output's dims less N; the acc: the
     * output's; each with the K2 dims in front when partial */
    dimlist st = {0}, acc = {0};
    if (a->partial) {
        push(&st, ad->k2, ad->n_k2);
        push(&acc, ad->k2, ad->n_k2);
    }
    push_map_less(&st, res, ad->n, ad->n_n);
    push_map_less(&acc, res, NULL, 0);
    ls_att_vector_type(&a->qk, st.d, st.n, out->work, out->state_vec, sizeof out->state_vec);
    ls_att_vector_type(&a->pv, acc.d, acc.n, out->work, out->acc_vec, sizeof out->acc_vec);

    for (int j = 0; j < ad->n_k2; j++) {
        int d = ad->k2[j];
        if (a->k2_tile[d] == 0 || a->k2_tile[d] >= a->size[d])
            continue;
        out->loop_dim[out->n_loops] = d;
        out->loop_upper[out->n_loops] = a->size[d];
        out->loop_step[out->n_loops++] = a->k2_tile[d];
    }
    out->iterations = a->iterations;
    int64_t rows = k->rows, slots = k->slots, nloc = k->nloc;
    out->q_scale_ops = rows * k->k1loc;
    out->scores = rows * slots;
    out->chain = k->k1loc;
    out->mask_ops = k->mask_in >= 0 ? 2 : k->mask_computed ? k->mask_alu + k->mask_sfu + 2 : 0;

    plan_reductions(out, a, k, &s, &st, &acc, eb);
    out->store_vectors = k->store_vectors;
    out->store_width = rows * nloc / k->store_vectors;
    snprintf(out->out_elem, sizeof out->out_elem, "%s", res->elem);
}

/* A reduction's lines: its local combine, its subgroup_reduce ops, its
 * round through workgroup memory. */
static void dump_reduce(FILE *f, const char *in, const ls_att_plan *p, const ls_att_plan_reduce *r,
                        const char *local)
{
    char ty[64];
    bool widened = p->plan->shuffle_bits > ls_elem_type_bits(p->work_type);
    snprintf(ty, sizeof ty, "%s%s", p->work, widened ? " (widened to i32 for the shuffle)" : "");
    fprintf(f, "%s%s: %s; then per thread %lld value%s, %lld gpu.subgroup_reduce %s\n", in, r->what,
            local, (long long)r->values, r->values == 1 ? "" : "s",
            (long long)r->subgroup_reduces, r->kind);
    char in2[32];
    snprintf(in2, sizeof in2, "%s  ", in);
    ls_reduce_value v = {p->plan->target, p->work_type, LS_COMB_ADD, p->plan->shuffle_bits};
    bool known = ls_combiner_from_name(r->kind, &v.combiner);
    for (int j = 0; j < r->red->n; j++)
        ls_plan_dump_reduce(f, in2, &r->red->lane[j], r->kind, ty, known ? &v : NULL);
    if (!r->buffer_rank)
        return;
    char shape[160];
    size_t u = 0;
    for (int j = 0; j < r->buffer_rank && u < sizeof shape; j++)
        u += (size_t)snprintf(shape + u, sizeof shape - u, "%lldx", (long long)r->buffer_shape[j]);
    fprintf(f, "%s%%buf = memref.alloc() : memref<%s%s, #gpu.address_space<workgroup>> (%lld "
               "bytes)\n%sgpu.barrier\n%sscf.if (first thread of its duplication group) { "
               "vector.transfer_write partials -> %%buf }\n%sgpu.barrier\n%svector.transfer_read "
               "%%buf: %lld partial%s per thread\n",
            in2, shape, p->work, (long long)r->buffer_bytes, in2, in2, in2, in2,
            (long long)r->red->parts, r->red->parts == 1 ? "" : "s");
    if (r->red->back.cluster_size > 1)
        ls_plan_dump_reduce(f, in2, &r->red->back, r->kind, ty, known ? &v : NULL);
    else
        fprintf(f, "%s  (no reduced loop has lanes enough: %lld arith ops, the partials in "
                   "turn)\n",
                in2, (long long)(r->red->parts - 1));
}

static void dump_loads(FILE *f, const ls_att_plan *p)
{
    const ls_plan *pl = p->plan;
    const ls_att_kernel *k = p->k;
    for (int i = 0; i < pl->n_inputs; i++) {
        const ls_operand *in = &pl->problem->inputs[i];
        char dist[200], from[32] = "", at[96] = "";
        if (i == k->k_in || i == k->v_in)
            snprintf(dist, sizeof dist, "%s", i == k->k_in ? p->k_vec : p->v_vec);
        else
            ls_plan_input_vector_type(pl, i, dist, sizeof dist);
        if (pl->promote[i].on)
            snprintf(from, sizeof from, " from %%prom%d", i);
        if (pl->gather[i].on)
            snprintf(at, sizeof at, " at the rows input %d's indices name (transfer_gather, "
                                    "folded to reads)",
                     pl->gather[i].index_input);
        fprintf(f, "      input %d %s: %lld x vector.transfer_read vector<%lldx%s> per thread%s%s "
                   "(distributed %s)\n",
                i, in->name, (long long)pl->inputs[i].loads, (long long)pl->inputs[i].width,
                ls_elem_type_name(in->type), from, at, dist);
    }
}

/* How the backend computes the step's widenings and multiply-adds
 * (ls_att_kernel's k_ext, v_ext, p_ext, fuse_muladd). */
static const char *widening(const char *elem, ls_elem_type work, int ext)
{
    if (ext)
        return "an instruction an element";
    if (ls_elem_type_bits(ls_elem_type_from_name(elem, strlen(elem))) >= ls_elem_type_bits(work))
        return "none: already the work type";
    return "none: v_fma_mix_f32 reads the f16 value itself";
}

static void dump_widenings(FILE *f, const ls_att_kernel *k)
{
    const ls_attention *a = k->a;
    fprintf(f, "      (the backend: the key's %s widening %s; the value's %s widening %s",
            a->k_elem, widening(a->k_elem, k->work_type, k->k_ext), a->v_elem,
            widening(a->v_elem, k->work_type, k->v_ext));
    if (k->trunc_p)
        fprintf(f, ", P's widening back %s", k->p_ext ? "an instruction a key slot" : "folded too");
    fprintf(f, "; %s%s)\n",
            k->fuse_muladd ? "each multiply and the add of its product one FMA "
                             "(AllowFPOpFusion::Fast): the PV update is the rescale and one FMA, "
                             "the sum's one FMA"
                           : "the multiplies and adds apart, as NVPTX keeps them",
            k->pair_columns ? "; two neighbouring columns' rescales and updates one packed "
                              "instruction each (packed math: ls_plan_combine_pairs)"
                            : "");
}

/* How LLVM folds each row's local max over the thread's n values, as the
 * engine issues it (engine_attention.c's local_max): a few words after
 * the op count, "" for one value. */
static const char *max_fold(const ls_att_plan *p, int64_t n, char *buf, size_t size)
{
    ls_elem_type et = p->k->work_type;
    ls_thread_reduce_shape s = ls_fold_shape_of(p->plan->target, et, LS_COMB_MAXIMUMF, n);
    if (s.values < 2)
        return "";
    if (s.form == LS_TR_TREE)
        snprintf(buf, size,
                 ", a row's one vector.reduction: a balanced tree, %lld instructions "
                 "%lld deep",
                 (long long)s.instructions, (long long)s.depth);
    else if (s.form == LS_TR_PACKED_TREE)
        snprintf(buf, size,
                 ", a row's one vector.reduction: a tree of packed ops, %lld "
                 "instructions %lld deep",
                 (long long)s.instructions, (long long)s.depth);
    else if (s.combines < s.values - 1)
        snprintf(buf, size,
                 ", a row's one vector.reduction: a chain of v_max3_%s, two "
                 "combines an instruction: %lld instructions",
                 ls_elem_type_name(et), (long long)s.instructions);
    else
        snprintf(buf, size, ", a row's one vector.reduction: a chain of %lld instructions",
                 (long long)s.instructions);
    return buf;
}

static void dump_step(FILE *f, const ls_att_plan *p)
{
    const ls_att_kernel *k = p->k;
    const ls_attention *a = k->a;
    char local[400], fold[200];
    fprintf(f, "      %%s = vector.contract %%q', %%k -> %s: per S element (%lld per thread) a "
               "chain of %lld FMA%s after arith.extf (ContractToChainFMA)\n",
            p->s_vec, (long long)p->scores, (long long)p->chain, p->chain == 1 ? "" : "s");
    snprintf(local, sizeof local, "the thread's K1 elements in the chain above");
    dump_reduce(f, "      ", p, &p->step[0], local);
    if (k->mask_in >= 0)
        fprintf(f, "      %%s = arith.addf %%s, %%mask * log2e: %lld ops per S element\n",
                (long long)p->mask_ops);
    else if (k->mask_computed)
        fprintf(f, "      %%s = arith.addf %%s, mask computed by its linalg.generic from the "
                   "thread's key position: %lld ops per S element (the generic's %d, the scale "
                   "by log2e or the select, the add)\n",
                (long long)p->mask_ops, k->mask_alu + k->mask_sfu);
    if (a->partial) {
        fprintf(f, "      per key slot (%lld per thread; slots are K2's partial_reduction "
                   "positions, each its own online softmax):\n",
                (long long)p->scores);
        fprintf(f, "        %%max' = arith.maximumf %%max, %%s\n"
                   "        %%norm = math.exp2(%%max - %%max')\n"
                   "        %%p = math.exp2(%%s - %%max')\n"
                   "        %%sum = %%norm * %%sum + %%p\n");
    } else {
        fprintf(f, "      per row (%lld per thread), over K2:\n", (long long)k->rows);
        snprintf(local, sizeof local, "arith.maximumf over the thread's %lld key%s: %lld ops%s",
                 (long long)k->slots, k->slots == 1 ? "" : "s", (long long)p->step[1].local_ops,
                 max_fold(p, k->slots, fold, sizeof fold));
        dump_reduce(f, "        ", p, &p->step[1], local);
        fprintf(f, "        %%max' = arith.maximumf %%max, %%rowmax\n"
                   "        %%norm = math.exp2(%%max - %%max'); %%p = math.exp2(%%s - %%max') "
                   "per key\n");
        snprintf(local, sizeof local, "arith.addf over the thread's %lld key%s: %lld ops",
                 (long long)k->slots, k->slots == 1 ? "" : "s", (long long)p->step[2].local_ops);
        dump_reduce(f, "        ", p, &p->step[2], local);
        fprintf(f, "        %%sum = %%norm * %%sum + %%rowsum\n");
    }
    if (k->trunc_p)
        fprintf(f, "      %%p = arith.truncf %%p : %s to %s (P in V's type: %s)\n", p->work,
                a->v_elem, p->p_vec);
    if (a->partial) {
        fprintf(f, "      per key slot and output column (%lld per slot): %%acc = %%norm * %%acc "
                   "+ %%p * %%v (no vector.contract: K2 is a batch dim of the tiled PV)\n",
                (long long)k->nloc);
    } else {
        fprintf(f, "      %%pv = vector.contract %%p, %%v: per output column (%lld per row) a "
                   "chain of %lld FMA%s\n",
                (long long)k->nloc, (long long)k->slots, k->slots == 1 ? "" : "s");
        dump_reduce(f, "      ", p, &p->step[3], "the chain above");
        fprintf(f, "      %%acc = %%norm * %%acc + %%pv\n");
    }
    fprintf(f, "      math.exp2: %lld per thread this step, each %d ALU + %d special-function "
               "instruction%s (src/math_lowering.c)\n",
            (long long)p->exp2_step, k->exp2_alu, k->exp2_sfu, k->exp2_sfu == 1 ? "" : "s");
    dump_widenings(f, k);
}

static void dump_merge(FILE *f, const ls_att_plan *p)
{
    const ls_att_kernel *k = p->k;
    char local[400], fold[200];
    fprintf(f, "  [merge] mergeReductions after the loop (partial_reduction: the slots combined)\n");
    for (int i = 0; i < p->n_merge; i++) {
        const ls_att_plan_reduce *r = &p->merge[i];
        if (strcmp(r->what, "max") == 0)
            snprintf(local, sizeof local,
                     "vector.multi_reduction <maximumf> over the thread's "
                     "%lld slot%s: %lld ops%s",
                     (long long)k->slots, k->slots == 1 ? "" : "s", (long long)r->local_ops,
                     max_fold(p, k->slots, fold, sizeof fold));
        else
            snprintf(local, sizeof local, "vector.multi_reduction <add> of w * partial over the "
                                          "thread's slots: %lld ops",
                     (long long)r->local_ops);
        dump_reduce(f, "    ", p, r, local);
        fprintf(f, "      %%%s = arith.%s %%%s, %%%s_init\n", r->what,
                strcmp(r->what, "max") == 0 ? "maximumf" : "addf", r->what, r->what);
        if (strcmp(r->what, "max") != 0)
            continue;
        fprintf(f, "    weights: %%w = math.exp2(%%pmax - %%max) per slot: %lld per thread\n",
                (long long)p->exp2_merge);
        if (!k->sum_merge)
            fprintf(f, "    sum: no merge (the op's sum is not stored: IREE erases the dead "
                       "merge)\n");
    }
}

void ls_att_plan_dump(const ls_att_plan *p, FILE *f)
{
    const ls_plan *pl = p->plan;
    const ls_att_kernel *k = p->k;
    const ls_attention *a = k->a;
    const ls_derived *d = pl->derived;
    char buf[1024];
    fprintf(f, "plan for %s (%s target): workgroup of %lld threads = %lld subgroup%s x %lld, "
               "%lld workgroup%s\n",
            a->name, pl->amd ? "AMD" : "NVIDIA", (long long)d->workgroup_size,
            (long long)d->num_subgroups, d->num_subgroups == 1 ? "" : "s",
            (long long)d->subgroup_size, (long long)d->total_workgroups,
            d->total_workgroups == 1 ? "" : "s");
    ls_nested_layout_format(&a->qk.layout, buf, sizeof buf);
    fprintf(f, "  QK layout: %s\n", buf);
    ls_nested_layout_format(&a->pv.layout, buf, sizeof buf);
    fprintf(f, "  PV layout: %s\n", buf);
    if (ls_plan_target_replaces_minmax(pl->target))
        fprintf(f, "  (%s turns each maximumf below into maxnumf: ReplaceSlowMinMaxOps)\n",
                pl->amd ? "ConvertToROCDL" : "ConvertToNVVM, below sm_80,");
    fprintf(f, "  [setup]\n    %%q = vector.transfer_read Q: %s per thread\n", p->q_vec);
    fprintf(f, "    %%q' = arith.mulf %%q, scale * log2e (in the scale's type): %lld per thread\n",
            (long long)p->q_scale_ops);
    if (a->partial)
        fprintf(f, "    partial inits: %%acc = 0 : %s, %%max = lowest finite : %s, %%sum = 0 : "
                   "%s\n",
                p->acc_vec, p->state_vec, p->state_vec);
    else
        fprintf(f, "    %%acc, %%max, %%sum = the op's inits : %s, %s, %s\n", p->acc_vec,
                p->state_vec, p->state_vec);
    fprintf(f, "  [%s]\n", ls_stage_name(LS_STAGE_LOAD_ACCUMULATE));
    ls_plan_promote_dump_alloc(pl, f);
    for (int i = 0; i < p->n_loops; i++)
        fprintf(f, "    scf.for %%d%d = 0 to %lld step %lld {\n", p->loop_dim[i],
                (long long)p->loop_upper[i], (long long)p->loop_step[i]);
    if (p->n_loops == 0)
        fprintf(f, "    (no K2 loop: one step holds every key) {\n");
    fprintf(f, "      (%lld iteration%s over K2; the loop carries %%acc, %%max, %%sum)\n",
            (long long)p->iterations, p->iterations == 1 ? "" : "s");
    ls_plan_promote_dump_copy(pl, f);
    dump_loads(f, p);
    dump_step(f, p);
    fprintf(f, "      (per thread this step: %lld gpu.subgroup_reduce, %lld gpu.barrier)\n",
            (long long)p->subgroup_reduces_step, (long long)p->barriers_step);
    for (int i = 0; i < (p->n_loops ? p->n_loops : 1); i++)
        fprintf(f, "    }\n");
    if (a->partial) {
        dump_merge(f, p);
        fprintf(f, "    (per thread after the loop: %lld gpu.subgroup_reduce, %lld gpu.barrier)\n",
                (long long)p->subgroup_reduces_merge, (long long)p->barriers_merge);
    }
    fprintf(f, "  [epilogue]\n");
    if (k->epilogue)
        fprintf(f, "    %%r = arith.divf 1, %%sum (%d ALU + %d special-function); %%out = "
                   "arith.mulf %%acc, %%r: %lld per thread\n",
                k->div_alu, k->div_sfu, (long long)(k->rows * k->nloc));
    else
        fprintf(f, "    none (online_attention: the acc, max and sum are the results)\n");
    if (k->out_trunc)
        fprintf(f, "    %%out = arith.truncf %%out : %s to %s\n", p->work, p->out_elem);
    fprintf(f, "  [%s]\n    vector.transfer_write: %lld x vector<%lldx%s> per thread (each "
               "subgroup an equal share of the workgroup's %lld outputs)\n",
            ls_stage_name(LS_STAGE_STORE), (long long)p->store_vectors,
            (long long)p->store_width, p->out_elem, (long long)pl->stores_per_workgroup);
}
