/* view_attention.c: `lanescope view` on an attention's kernel -- what
 * differs from a reduction's: the lanes panel shows the values each lane
 * carries between K2 steps (its running max and sum per key slot, its acc)
 * from ls_att_snapshot_at, the shared-memory panel the kernel's workgroup
 * buffers (promoted K and V, the merge's rounds) from its plan's facts,
 * and the caption explains each step of the K2 loop and of the merge.  The
 * timeline, traffic and whole-GPU panels are the engine's, as for a
 * reduction; the tile panel draws who owns each key of the step. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "view_internal.h"

enum { MAX_SLOTS = 4, MAX_ACC = 8 };

/* The K2 steps subgroup sg has completed at the position, and whether it
 * is past the merge (at its stores or done). */
static void progress_of(const ls_view *v, int sg, int64_t *steps, bool *merged)
{
    const ls_attention *a = v->att->a;
    ls_func_point pt = ls_stepper_point(v->st, sg);
    int64_t rec = ls_view_latest(v, sg);
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    bool in_loop = r == NULL || pt.stage == LS_STAGE_LOAD_ACCUMULATE;
    *steps = in_loop ? pt.iterations : a->iterations;
    *merged = !in_loop && (pt.stage == LS_STAGE_STORE || (r && r->kind == LS_REC_DONE));
}

struct ls_view_att_cache {
    bool valid;
    int64_t workgroup, steps;
    bool merged;
    ls_att_snapshot snap;
};

struct ls_view_att_cache *ls_view_att_cache_new(void)
{
    return ls_xcalloc(1, sizeof(struct ls_view_att_cache));
}

void ls_view_att_cache_free(struct ls_view_att_cache *c)
{
    if (c && c->valid)
        ls_att_snapshot_free(&c->snap);
    free(c);
}

/* The values of the view's workgroup at subgroup sg's position: computed
 * once per (workgroup, steps, merge) and kept in the view's cache (the
 * caller does not free it). */
static const ls_att_snapshot *snapshot_of(const ls_view *v, int sg, int64_t *steps, bool *merged,
                                          ls_diag *diag)
{
    const ls_view_attention *va = v->att;
    struct ls_view_att_cache *c = v->att_cache;
    progress_of(v, sg, steps, merged);
    if (c->valid && c->workgroup == v->workgroup && c->steps == *steps && c->merged == *merged)
        return &c->snap;
    if (c->valid)
        ls_att_snapshot_free(&c->snap);
    c->valid = false;
    if (ls_att_snapshot_at(va->m, va->ma, va->a, ls_plan_target_from_arch(v->hw->arch),
                           v->in.seed, v->workgroup, *steps, *merged, &c->snap, diag))
        return NULL;
    c->valid = true;
    c->workgroup = v->workgroup;
    c->steps = *steps;
    c->merged = *merged;
    return &c->snap;
}

/* Whether lane `lane` holds what a lower lane holds: the same position on
 * every QK loop but K1 (the max and sum drawn) and on every PV loop (the
 * acc) -- a replica of an unmapped basis entry, or of K1's lanes, whose
 * partial scores the contraction's reduce has made equal.  After the merge
 * the K2 loops are reduced too: every lane of a row holds the row's. */
static bool replica_lane(const ls_attention *a, int64_t lane, bool merged)
{
    const ls_attention_dims *ad = &a->dims;
    int64_t q[LS_MAX_BODY], p[LS_MAX_BODY], q2[LS_MAX_BODY], p2[LS_MAX_BODY];
    ls_nl_virtual_thread(&a->qk.layout, lane, q);
    ls_nl_virtual_thread(&a->pv.layout, lane, p);
    for (int64_t j = 0; j < lane; j++) {
        ls_nl_virtual_thread(&a->qk.layout, j, q2);
        ls_nl_virtual_thread(&a->pv.layout, j, p2);
        bool same = true;
        for (int i = 0; i < a->qk.rank && same; i++)
            same = ls_att_dim_in(ad->k1, ad->n_k1, a->qk.dim[i]) ||
                   (merged && ls_att_dim_in(ad->k2, ad->n_k2, a->qk.dim[i])) || q[i] == q2[i];
        for (int i = 0; i < a->pv.rank && same; i++)
            same = (merged && ls_att_dim_in(ad->k2, ad->n_k2, a->pv.dim[i])) || p[i] == p2[i];
        if (same)
            return true;
    }
    return false;
}

static void value_text(float f, char *buf, size_t size)
{
    if (isnan(f))
        snprintf(buf, size, "pad");
    else
        snprintf(buf, size, "%.4g", (double)f);
}

/* When the subgroup's latest instruction is a step of a gpu.subgroup_reduce
 * (QK's over K1's lanes, or the max, sum and acc's over K2's, in a step
 * or in the merge), the lanes it joins, as arcs, and the step's name after
 * the progress in out->step_name. */
static void step_arcs(const ls_view *v, ls_view_lanes *out)
{
    const ls_engine_record *r = ls_stepper_record(v->st, ls_view_latest(v, v->subgroup));
    if (!r || r->kind != LS_REC_ISSUE || !r->reduce || r->step < 0 ||
        r->step >= r->reduce->n_steps)
        return;
    const ls_subgroup_reduce *red = r->reduce;
    out->arcs = ls_xcalloc((size_t)(2 * out->lanes), sizeof *out->arcs);
    out->n_arcs = ls_view_step_arcs(red, r->step, out->lanes, out->arcs);
    for (int64_t i = 0; i < out->n_arcs; i++)
        out->flags[out->arcs[i].dst] |= LS_LANE_WRITTEN;
    const ls_reduce_step *st = &red->steps[r->step];
    size_t u = strlen(out->step_name);
    char how[64];
    ls_plan_step_name(st, how, sizeof how);
    snprintf(out->step_name + u, sizeof out->step_name - u,
             "; gpu.subgroup_reduce (cluster %lld, stride %lld) round %d of %d: %s",
             (long long)red->cluster_size, (long long)red->cluster_stride, r->step + 1,
             red->n_steps, how);
}

ls_status ls_view_attention_lanes(const ls_view *v, ls_view_lanes *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    const ls_attention *a = v->att->a;
    int64_t steps;
    bool merged;
    const ls_att_snapshot *sp = snapshot_of(v, v->subgroup, &steps, &merged, diag);
    if (!sp)
        return diag->status;
    const ls_att_snapshot snap = *sp;
    int64_t lanes = v->d->subgroup_size;
    int64_t ns = snap.state_per_thread < MAX_SLOTS ? snap.state_per_thread : MAX_SLOTS;
    int64_t na = snap.acc_per_thread < MAX_ACC ? snap.acc_per_thread : MAX_ACC;
    out->subgroup = v->subgroup;
    out->lanes = lanes;
    out->total_rows = 2 * snap.state_per_thread + snap.acc_per_thread;
    out->rows = 2 * ns + na;
    out->accumulators = true;
    out->text = ls_xcalloc((size_t)(out->rows * lanes) + 1, sizeof *out->text);
    out->values = ls_xcalloc((size_t)(out->rows * lanes) + 1, sizeof *out->values);
    out->flags = ls_xcalloc((size_t)lanes, sizeof *out->flags);
    out->row_names = ls_xcalloc((size_t)out->rows + 1, sizeof *out->row_names);
    for (int64_t l = 0; l < lanes; l++)
        out->flags[l] = replica_lane(a, l, merged) ? LS_LANE_DUP : 0;
    for (int64_t r = 0; r < out->rows; r++) {
        bool acc = r >= 2 * ns;
        int64_t j = acc ? r - 2 * ns : r / 2;
        snprintf(out->row_names[r], sizeof out->row_names[r], "%s %lld",
                 acc ? "acc" : r % 2 ? "sum" : "max", (long long)j);
        for (int64_t l = 0; l < lanes; l++) {
            int64_t tid = (int64_t)v->subgroup * lanes + l;
            float f = acc ? snap.acc[tid * snap.acc_per_thread + j]
                    : r % 2 ? snap.sum[tid * snap.state_per_thread + j]
                            : snap.max[tid * snap.state_per_thread + j];
            uint32_t bits;
            memcpy(&bits, &f, sizeof bits);
            out->values[r * lanes + l] = bits;
            value_text(f, out->text[r * lanes + l], sizeof out->text[r * lanes + l]);
        }
    }
    const char *what = merged      ? "after the merge: per row its max, sum and output acc"
                       : a->partial ? "each lane's running max and sum per key slot (S's "
                                      "layout), then its acc (PV's)"
                                    : "each lane's running max and sum per row, then its acc";
    snprintf(out->title, sizeof out->title, "subgroup %d of workgroup %lld, %s", v->subgroup,
             (long long)v->workgroup, what);
    char all[48]; /* "all 32 K2 steps", "the one K2 step" */
    if (a->iterations == 1)
        snprintf(all, sizeof all, "the one K2 step");
    else
        snprintf(all, sizeof all, "all %lld K2 steps", (long long)a->iterations);
    if (steps < a->iterations)
        snprintf(out->step_name, sizeof out->step_name,
                 "after %lld of %lld K2 steps (%lld keys a step)", (long long)steps,
                 (long long)a->iterations, (long long)ls_att_step_keys(a));
    else if (!merged && a->partial)
        snprintf(out->step_name, sizeof out->step_name,
                 "after %s: the key slots being merged (mergeReductions)", all);
    else
        snprintf(out->step_name, sizeof out->step_name, "after %s%s", all,
                 a->partial ? " and the merge" : "");
    step_arcs(v, out);
    return LS_OK;
}

/* ------------------------------------------------------------ words */

typedef ls_view_text text;
#define add ls_view_text_add /* the short name the templates below use */

/* Lane 5's (or the last lane's) first values at the position. */
static void example_values(const ls_view *v, int sg, text *t)
{
    int64_t steps;
    bool merged;
    ls_diag diag;
    ls_diag_clear(&diag);
    const ls_att_snapshot *sp = snapshot_of(v, sg, &steps, &merged, &diag);
    if (!sp) {
        add(t, " (Its values cannot be run: %s)", diag.msg);
        return;
    }
    const ls_att_snapshot snap = *sp;
    int64_t lane = v->d->subgroup_size > 5 ? 5 : v->d->subgroup_size - 1;
    int64_t tid = (int64_t)sg * v->d->subgroup_size + lane;
    char mx[32], sm[32], ac[32];
    value_text(snap.max[tid * snap.state_per_thread], mx, sizeof mx);
    value_text(snap.sum[tid * snap.state_per_thread], sm, sizeof sm);
    value_text(snap.acc[tid * snap.acc_per_thread], ac, sizeof ac);
    add(t, " Lane %lld of subgroup %d now carries, for its first %s, max %s (base 2), sum %s "
           "and acc %s (the lanes panel shows every lane).",
        (long long)lane, sg, merged || !v->att->a->partial ? "row" : "key slot", mx, sm, ac);
}

static const char *loop_work(int op)
{
    switch (op) {
    case 0: return "a global load of its keys, values or page indices for this step";
    case 2:
    case 3: return "a gpu.subgroup_reduce step: the QK contraction's partial scores combined "
                   "across the lanes that split K1 (or, on a reduction tile, the max, sum and "
                   "PV across K2's lanes)";
    case 5: return "a store into workgroup memory (a promoted key or value tile's copy, or a "
                   "round's partials)";
    case 6: return "a load from workgroup memory";
    case 8: return "an exp2 on the special-function unit (the softmax's norm or a key's P)";
    default: return "an ALU instruction: an FMA of a key's QK chain over the thread's K1 "
                    "elements, the mask, the max, a subtraction before an exp2, the sum, or "
                    "the acc's rescale and P x V update";
    }
}

void ls_view_attention_caption(const ls_view *v, char *buf, size_t size)
{
    text t = {buf, size, 0};
    buf[0] = 0;
    const ls_attention *a = v->att->a;
    const ls_derived *d = v->d;
    int64_t rec = ls_stepper_position(v->st);
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    int64_t keys = ls_att_step_keys(a);
    if (r == NULL) {
        add(&t,
            "Workgroup %lld of %lld is about to start %s: %lld threads in %lld subgroup%s of "
            "%lld lanes. Each of its %lld K2 steps brings %lld keys: every thread loads its "
            "keys and values, runs for each of its key slots the QK chain of FMAs over its K1 "
            "elements, then the online softmax (the max, two exp2s, the sum) and the P x V "
            "update of its acc%s. Press Right to step, Space to play, ? for the keys.",
            (long long)v->workgroup, (long long)d->total_workgroups, a->name,
            (long long)d->workgroup_size, (long long)d->num_subgroups,
            d->num_subgroups == 1 ? "" : "s", (long long)d->subgroup_size,
            (long long)a->iterations, (long long)keys,
            a->partial ? "; after the loop the key slots are merged across lanes and "
                         "subgroups (mergeReductions)"
                       : ", each step reduced over K2's lanes");
        return;
    }
    if (r->kind == LS_REC_BARRIER) {
        add(&t, "Barrier released: every subgroup of the workgroup has arrived (%s).",
            r->stage == LS_STAGE_LOAD_ACCUMULATE
                ? "inside the K2 loop: a promoted key or value tile is written, or read, "
                  "only when all have arrived"
                : "the merge's round through workgroup memory: the partials are written "
                  "before anyone reads them");
        return;
    }
    if (r->kind == LS_REC_DONE) {
        add(&t, "Subgroup %d has finished: its last instruction completed by cycle %lld.",
            r->subgroup, (long long)r->cycle);
        return;
    }
    switch (r->stage) {
    case LS_STAGE_LOAD_ACCUMULATE:
        add(&t, "K2 step %lld of %lld (keys %lld..%lld): subgroup %d issues %s.",
            (long long)r->iteration + 1, (long long)a->iterations,
            (long long)(r->iteration * keys), (long long)((r->iteration + 1) * keys - 1),
            r->subgroup, loop_work(r->op));
        break;
    case LS_STAGE_THREAD_REDUCE:
        add(&t, "Merge, in each thread: subgroup %d combines its own key slots -- the max over "
                "them, the weights exp2(max_k - max) of each slot, the weighted sums of its "
                "slots' sums and accs (%s).",
            r->subgroup, r->op == 8 ? "this one: an exp2 on the special-function unit"
                                    : "this one: an ALU instruction");
        break;
    case LS_STAGE_SUBGROUP_REDUCE:
        add(&t, "Merge, across lanes: subgroup %d %s -- a gpu.subgroup_reduce over the lanes "
                "that hold other key slots of the same row.",
            r->subgroup, r->op == 2 ? "exchanges values with a shuffle"
                         : r->op == 3 ? "combines values with a DPP step"
                                      : "combines an exchanged value");
        break;
    case LS_STAGE_CROSS_SUBGROUP:
        add(&t, "Merge, across subgroups: subgroup %d %s -- one round through a workgroup "
                "buffer: one writer per subgroup, a barrier, each thread reads the "
                "subgroups' partials back and reduces them.",
            r->subgroup, r->op == 5   ? "writes its partial"
                         : r->op == 6 ? "reads the partials back"
                                      : "reduces the partials");
        break;
    case LS_STAGE_ACC_COMBINE:
        add(&t, "Subgroup %d combines with the op's init%s.", r->subgroup,
            v->plan->attention && v->plan->attention->epilogue
                ? ", then the epilogue: 1 / sum (an arith.divf) and the multiply"
                : "");
        break;
    default:
        add(&t, "Store: subgroup %d writes its share of the workgroup's outputs.", r->subgroup);
        break;
    }
    example_values(v, r->subgroup, &t);
}

/* The figure's next note (cut at its line's length, as notes are). */
__attribute__((format(printf, 3, 4))) static void note(ls_figure *fig, int *n, const char *f, ...)
{
    if (*n >= LS_FIGURE_MAX_NOTES - 1)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(fig->notes[*n], sizeof fig->notes[0], f, ap);
    va_end(ap);
    (*n)++;
}

/* The workgroup buffers the kernel allocates (its plan's facts) and the
 * barrier state. */
ls_status ls_view_attention_smem(const ls_view *v, ls_figure *fig, ls_diag *diag)
{
    const ls_view_attention *va = v->att;
    ls_att_plan p;
    ls_att_plan_of(va->m, va->ma, va->view, &p);
    memset(fig, 0, sizeof *fig);
    snprintf(fig->title, sizeof fig->title, "workgroup memory of %s", va->a->name);
    int n = 0;
    for (int k = 0; k < p.plan->n_inputs; k++)
        if (p.plan->promote[k].on) {
            char ty[160];
            ls_plan_promote_type(p.plan, k, ty, sizeof ty);
            note(fig, &n, "%s, promoted: %s, %lld bytes, copied between two barriers each K2 "
                          "step",
                 p.plan->problem->inputs[k].name, ty, (long long)p.plan->promote[k].bytes);
        }
    const ls_att_plan_reduce *lists[2] = {p.step, p.merge};
    int counts[2] = {p.n_step, p.n_merge};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < counts[w]; i++) {
            const ls_att_plan_reduce *r = &lists[w][i];
            if (!r->buffer_rank)
                continue;
            char shape[96];
            size_t u = 0;
            for (int j = 0; j < r->buffer_rank && u < sizeof shape; j++)
                u += (size_t)snprintf(shape + u, sizeof shape - u, "%s%lld", j ? "x" : "",
                                      (long long)r->buffer_shape[j]);
            note(fig, &n, "%s's round (%s): %s x %s, %lld bytes, one writer per subgroup between "
                          "two barriers",
                 r->what, w ? "the merge" : "every K2 step", shape, p.work,
                 (long long)r->buffer_bytes);
        }
    if (n == 0)
        note(fig, &n, "none: no operand is promoted and no reduced loop is split across "
                      "subgroups");
    fig->n_notes = n;
    ls_view_barrier_panel(v, fig);
    (void)diag;
    return LS_OK;
}
