/* view_caption.c: the words of `lanescope view` -- the status line, the
 * caption that explains the current step to someone meeting GPU reductions
 * for the first time (one template per kind of step, filled with the
 * actual lane ids, rounds, strides and values), and the key table.
 *
 * The example lane of a caption is lane 5 (or the last lane of a smaller
 * subgroup): a fixed choice, so the text of a step never depends on where
 * the mouse was.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "view_internal.h"

const char *const ls_view_help[] = {
    "Right, n\tnext event (issue, barrier release, finish)",
    "Shift+Right\tnext instruction",
    "Ctrl+Right\tnext stage",
    "Left / Shift+Left / Ctrl+Left\tthe same, backwards",
    "Home / End\tback to the start / run to the end",
    "Space\tplay / pause;  < > slower / faster",
    "Tab, 1..6\tpanels: tile, lanes, shared memory, timeline, traffic, whole GPU",
    "[ ]\tprevious / next subgroup",
    "{ }\tprevious / next workgroup",
    "o O\tnext / previous reduction of a multi-op dispatch",
    "i\tthe tile as each input the plan loads (a contraction's two), then the iteration space",
    "+ - wheel, 0\tzoom, fit;  drag to pan",
    "mouse\twhat is under it: owner, lane, register, value, bank",
    "s\tsave the view as PNG",
    "?\tthis help",
    "q, Esc\tquit",
    NULL};

/* Append to a caption buffer; cutting it short is the intent. */
typedef ls_view_text text;
#define add ls_view_text_add /* the short name the templates below use */

void ls_view_text_add(ls_view_text *t, const char *f, ...)
{
    if (t->len >= t->size)
        return;
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, f, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
    if (t->len >= t->size)
        t->len = t->size - 1;
}

static const char *op_name(int op)
{
    static const char *names[] = {"global load",        "ALU",
                                  "shuffle",            "DPP",
                                  "barrier",            "shared-memory store",
                                  "shared-memory load", "global store",
                                  "special-function op"};
    return op >= 0 && op < 9 ? names[op] : "?";
}

void ls_view_instruction_name(const ls_view *v, int64_t rec, char *buf, size_t size)
{
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    if (r == NULL) {
        snprintf(buf, size, "(start)");
        return;
    }
    if (r->kind == LS_REC_BARRIER) {
        snprintf(buf, size, "barrier release");
        return;
    }
    if (r->kind == LS_REC_DONE) {
        snprintf(buf, size, "S%d finished", r->subgroup);
        return;
    }
    ls_view_step s;
    ls_view_step_of(v, rec, &s);
    if (s.r && s.exchange) {
        const ls_reduce_step *st = &s.r->steps[s.step];
        char how[64];
        if (s.combine && st->kind == LS_STEP_DPP)
            snprintf(buf, size, "S%d: %s with the %s folded in (round %d)", r->subgroup,
                     ls_plan_step_name(st, how, sizeof how), ls_combiner_name(v->p->combiner),
                     s.step + 1);
        else
            snprintf(buf, size, "S%d: %s", r->subgroup, ls_plan_step_name(st, how, sizeof how));
    } else if (s.r && s.combine) {
        snprintf(buf, size, "S%d: %s (round %d)", r->subgroup,
                 ls_combiner_name(v->p->combiner), s.step + 1);
    } else if (s.r) {
        snprintf(buf, size, "S%d: ALU %s the lane move (round %d)", r->subgroup,
                 r->after_move ? "after" : "before", s.step + 1);
    } else {
        snprintf(buf, size, "S%d: %s", r->subgroup, op_name(r->op));
    }
}

void ls_view_status_line(const ls_view *v, char *buf, size_t size)
{
    ls_view_state s;
    ls_view_get_state(v, &s);
    char ins[96];
    ls_view_instruction_name(v, s.position, ins, sizeof ins);
    char op[48] = "";
    if (s.n_ops > 1) /* a multi-op dispatch: which reduction, as --index counts */
        snprintf(op, sizeof op, "op %d/%d   ", s.op, s.n_ops);
    snprintf(buf, size,
             "cycle %lld   %s   %s   |   %ssubgroup %d/%d   workgroup %lld/%lld   |   position "
             "%lld of %lld   |   %s %g ev/s",
             (long long)s.cycle, s.record ? ls_stage_name(s.stage) : "not started", ins, op,
             s.subgroup, s.subgroups, (long long)s.workgroup, (long long)s.workgroups,
             (long long)s.position + 1, (long long)s.length, s.playing ? "playing" : "paused",
             s.speed);
}

/* ------------------------------------------------------------ numbers */

static int64_t example_lane(const ls_view *v)
{
    return v->d->subgroup_size > 5 ? 5 : v->d->subgroup_size - 1;
}

/* Register/slot `row` of lane `lane` of subgroup sg at the position. */
static bool lane_value(const ls_view *v, int sg, int64_t lane, int64_t row, char *buf,
                       size_t size)
{
    ls_func_snapshot snap;
    ls_diag diag;
    ls_diag_clear(&diag);
    memset(&snap, 0, sizeof snap);
    if (ls_stepper_snapshot(v->st, sg, &snap, &diag)) {
        ls_func_snapshot_free(&snap);
        return false;
    }
    int64_t tid = sg * v->d->subgroup_size + lane;
    bool ok = row < snap.per_thread && tid < snap.threads;
    if (ok)
        ls_view_value_text(v, snap.values[tid * snap.per_thread + row], buf, size);
    ls_func_snapshot_free(&snap);
    return ok;
}

/* The element lane `lane` of subgroup sg reads with load nth of input k
 * in iteration it, and its value in the input's type. */
static bool load_example(const ls_view *v, int k, int sg, int64_t lane, int64_t it, int64_t nth,
                         char *at, size_t at_size, char *val, size_t val_size)
{
    ls_operand_regs o;
    ls_operand_regs_of(v->d, v->p, k, &o);
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK], x[LS_MAX_RANK];
    ls_workgroup_coord(v->d, v->workgroup, wgc);
    ls_iteration_coord(v->d, v->p, it, itc);
    bool valid;
    ls_thread_element(v->d, v->p, sg * v->d->subgroup_size + lane, wgc, itc,
                      ls_operand_register(v->d, &o, nth, 0), x, &valid);
    if (!valid)
        return false;
    ls_format_list(at, at_size, x, v->p->rank);
    ls_value_format(ls_operand_value(v->p, v->in, k, x), v->p->inputs[k].type, val, (int)val_size);
    return true;
}

/* How many loads of record rec's input its subgroup issued before it in
 * the same iteration (or, before the loop, among the hoisted loads). */
static int64_t nth_load(const ls_view *v, int64_t rec)
{
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    int64_t n = 0;
    for (int64_t i = rec - 1; i >= 0; i--) {
        const ls_engine_record *q = ls_stepper_record(v->st, i);
        if (q->subgroup != r->subgroup || q->kind != LS_REC_ISSUE)
            continue;
        if (q->iteration != r->iteration || q->stage != LS_STAGE_LOAD_ACCUMULATE)
            break;
        n += q->op == 0 && q->operand == r->operand;
    }
    return n;
}

/* ------------------------------------------------------------ templates */

static void cap_start(const ls_view *v, text *t)
{
    const ls_derived *d = v->d;
    add(t,
        "Workgroup %lld of %lld is about to start: %lld threads in %lld subgroup%s of %lld lanes. "
        "Each thread loads its share of the tile and accumulates it over %lld loop iteration%s; "
        "then the lanes, and the subgroups, combine their partial %ss into the workgroup's "
        "outputs. Press Right to step, Space to play, ? for the keys.",
        (long long)v->workgroup, (long long)d->total_workgroups, (long long)d->workgroup_size,
        (long long)d->num_subgroups, d->num_subgroups == 1 ? "" : "s",
        (long long)d->subgroup_size, (long long)v->plan->iterations,
        v->plan->iterations == 1 ? "" : "s", ls_combiner_name(v->p->combiner));
}

static void cap_load(const ls_view *v, const ls_engine_record *r, int64_t rec, text *t)
{
    const ls_plan *pl = v->plan;
    int k = r->operand >= 0 && r->operand < pl->n_inputs ? r->operand : 0;
    int64_t lane = example_lane(v), nth = nth_load(v, rec), w = pl->inputs[k].width;
    const char *name = v->p->inputs[k].name[0] ? v->p->inputs[k].name : "the input";
    if (pl->inputs[k].hoisted)
        add(t,
            "Load, before the loop: subgroup %d reads %s (input %d) once, load %lld of %lld -- "
            "it reads no dim the loop steps, so the compiled code hoists the read out of the "
            "loop; every lane reads %lld element%s of %s with one vector load from global "
            "memory.",
            r->subgroup, name, k, (long long)nth + 1, (long long)pl->inputs[k].loads, (long long)w,
            w == 1 ? "" : "s", ls_elem_type_name(v->p->inputs[k].type));
    else
        add(t,
            "Load, iteration %lld of %lld: subgroup %d issues load %lld of %lld of %s (input "
            "%d) -- every lane reads %lld element%s of %s with one vector load from global "
            "memory.",
            (long long)r->iteration + 1, (long long)pl->iterations, r->subgroup, (long long)nth + 1,
            (long long)pl->inputs[k].loads, name, k, (long long)w, w == 1 ? "" : "s",
            ls_elem_type_name(v->p->inputs[k].type));
    char at[128], val[48];
    if (load_example(v, k, r->subgroup, lane, r->iteration, nth, at, sizeof at, val, sizeof val))
        add(t, " Lane %lld reads element %s = %s.", (long long)lane, at, val);
    else
        add(t, " Lane %lld's element is padding (outside the problem): it reads nothing.",
            (long long)lane);
    add(t, " The data arrives %lld cycles later (cycle %lld); independent loads overlap.",
        (long long)(r->ready - r->cycle), (long long)r->ready);
}

static void cap_alu(const ls_view *v, const ls_engine_record *r, text *t)
{
    char val[48] = "?";
    int64_t lane = example_lane(v);
    const char *comb = ls_combiner_name(v->p->combiner);
    switch (r->stage) {
    case LS_STAGE_LOAD_ACCUMULATE: {
        lane_value(v, r->subgroup, lane, 0, val, sizeof val);
        /* how the combine is lowered (ls_functional_fma, local_reduce_all) */
        ls_fma_kind fk = ls_functional_fma(v->plan);
        char fold[512], how[200];
        ls_thread_reduce_shape shape;
        bool tree = ls_plan_loop_fold_tree(v->plan, &shape);
        /* what the combine reads: an element, or the vectors a tree folds */
        const char *taken = tree && fk == LS_FMA_NONE && !v->d->local_reduce_all
                                ? "its loaded vectors"
                                : "a loaded element";
        if (fk == LS_FMA_CONTRACT)
            snprintf(fold, sizeof fold,
                     "chains it into its output's accumulator with one FMA, acc = fma(a, b, acc), "
                     "last register first from 0 (IREE's local contraction, ContractToChainFMA): "
                     "the chain is the output's value, no thread reduce follows");
        else if (fk == LS_FMA_CHAIN)
            snprintf(fold, sizeof fold,
                     "chains each accumulator's %lld packed elements with one FMA each, last "
                     "first from 0, then adds the chain to the accumulator (ContractToChainFMA)",
                     (long long)v->plan->inner_elems);
        else if (v->d->local_reduce_all)
            snprintf(fold, sizeof fold,
                     "folds it into its output's accumulator, acc = %s(acc, x), from the identity "
                     "in every iteration (IREE's local reduce): that is the output's value, no "
                     "thread reduce follows",
                     comb);
        else if (tree)
            snprintf(fold, sizeof fold,
                     "folds each accumulator's %lld packed elements as %s, then joins that into "
                     "the accumulator, acc = %s(acc, fold)%s",
                     (long long)shape.values, ls_plan_fold_brief(v->plan, &shape, how, sizeof how),
                     comb,
                     shape.root_open ? " (ptxas takes the fold's last op into the join: one "
                                       "three-input instruction)"
                                     : "");
        else
            snprintf(fold, sizeof fold, "folds it into its accumulator, acc = %s(acc, %s)", comb,
                     v->plan->body_machine_alu_ops > 0 ? "body(x)" : "x");
        if (v->plan->body_machine_alu_ops > 0) /* the body's instructions, then the combine */
            add(t,
                "Accumulate, iteration %lld: subgroup %d computes the body on %s "
                "(%d ALU instruction%s per element, as the target lowers its ops) and %s, in "
                "registers, lane by lane. Lane %lld's first accumulator holds %s.",
                (long long)r->iteration + 1, r->subgroup, taken, v->plan->body_machine_alu_ops,
                v->plan->body_machine_alu_ops == 1 ? "" : "s", fold, (long long)lane, val);
        else
            add(t,
                "Accumulate, iteration %lld: subgroup %d takes %s and %s, in registers, lane "
                "by lane. Lane %lld's first accumulator holds %s.",
                (long long)r->iteration + 1, r->subgroup, taken, fold, (long long)lane, val);
        break;
    }
    case LS_STAGE_THREAD_REDUCE: {
        char how[200];
        ls_thread_reduce_shape s = ls_plan_thread_reduce_shape(v->plan);
        lane_value(v, r->subgroup, lane, 0, val, sizeof val);
        add(t,
            "Thread reduce: each lane of subgroup %d combines its own %lld accumulators along the "
            "reduced dims into %lld value%s (one per output it helps with), with %s and no "
            "communication; LLVM compiles each fold as %s. Lane %lld now holds %s.",
            r->subgroup, (long long)v->plan->acc_registers, (long long)v->plan->results_per_thread,
            v->plan->results_per_thread == 1 ? "" : "s", comb,
            ls_plan_fold_brief(v->plan, &s, how, sizeof how), (long long)lane, val);
        break;
    }
    case LS_STAGE_ACC_COMBINE: {
        char init[48];
        ls_view_value_text(v, ls_problem_init(v->p), init, sizeof init);
        lane_value(v, r->subgroup, lane, 0, val, sizeof val);
        add(t,
            "Combine with the init: the reduced value is combined once with the output's "
            "initial value (%s, what linalg.fill wrote): r = %s(r, %s). Lane %lld's first "
            "result is %s.",
            init, comb, init, (long long)lane, val);
        break;
    }
    default:
        add(t, "Subgroup %d issues an ALU instruction of the %s stage.", r->subgroup,
            ls_stage_name(r->stage));
    }
}

static void dpp_words(ls_dpp_ctrl c, text *t)
{
    switch (c) {
    case LS_DPP_QUAD_PERM_1032: add(t, "swaps neighbours inside each group of 4 lanes"); break;
    case LS_DPP_QUAD_PERM_2301: add(t, "swaps pairs inside each group of 4 lanes"); break;
    case LS_DPP_ROW_HALF_MIRROR: add(t, "mirrors each group of 8 lanes"); break;
    case LS_DPP_ROW_MIRROR: add(t, "mirrors each row of 16 lanes"); break;
    case LS_DPP_ROW_BCAST_15: add(t, "sends lane 15 of each row of 16 into the next row"); break;
    case LS_DPP_ROW_BCAST_31: add(t, "sends lane 31 into the upper two rows"); break;
    case LS_DPP_PERMLANEX16: add(t, "swaps values across the two rows of 16"); break;
    }
}

static void cap_exchange(const ls_view *v, const ls_engine_record *r, const ls_view_step *s,
                         text *t)
{
    const ls_reduce_step *st = &s->r->steps[s->step];
    int64_t lane = example_lane(v), sg_size = v->d->subgroup_size, src = -1;
    ls_view_arc *arcs = ls_xcalloc((size_t)(2 * sg_size), sizeof *arcs);
    int64_t n = ls_view_step_arcs(s->r, s->step, sg_size, arcs);
    for (int64_t i = 0; i < n && src < 0; i++)
        if (arcs[i].dst == lane)
            src = arcs[i].src;
    free(arcs);
    const char *who = s->reduce < 0 ? "Across subgroups, second butterfly" : "Subgroup reduce";
    if (!s->exchange && !s->combine) {
        add(t,
            "%s, step %d of %d (subgroup %d): an instruction LLVM adds around the lane move "
            "(docs/timing-model.md, \"DPP steps as compiled\"): %s. The values change at "
            "the step's combine.",
            who, s->step + 1, s->r->n_steps, r->subgroup,
            r->after_move ? "after it, quieting a max's moved operand (IEEE mode), a step of a "
                            "promoted bf16 combine, or a second readlane"
                          : "before it, a copy of the running value, which the move overwrites "
                            "(its old operand)");
        return;
    }
    char val[48] = "?";
    lane_value(v, r->subgroup, lane, s->slot, val, sizeof val);
    if (st->kind == LS_STEP_SHUFFLE_XOR) {
        int bit = (int)log2((double)st->offset);
        int64_t group = (int64_t)1 << (s->step + 1);
        add(t, "%s, round %d of %d (subgroup %d, result slot %lld): every lane ", who,
            s->step + 1, s->r->n_steps, r->subgroup, (long long)s->slot);
        if (!s->combine)
            add(t, "fetches, through the shuffle unit, the value held by the lane whose id "
                   "differs in bit %d (xor %lld): lane %lld <- lane %lld.",
                bit, (long long)st->offset, (long long)lane, (long long)src);
        else
            add(t, "combines its value with its partner's, with %s: lane %lld (with lane %lld) "
                   "now holds %s. After this round each group of %lld lanes of the cluster of "
                   "%lld holds the same partial %s.",
                ls_combiner_name(v->p->combiner), (long long)lane, (long long)src, val,
                (long long)group, (long long)s->r->cluster_size, ls_combiner_name(v->p->combiner));
    } else if (st->kind == LS_STEP_DPP) {
        add(t, "%s, DPP step %d of %d (subgroup %d): %s ", who, s->step + 1, s->r->n_steps,
            r->subgroup, ls_plan_dpp_name(st->dpp));
        dpp_words(st->dpp, t);
        if (!s->combine && src >= 0)
            add(t, "; AMD's data-parallel primitive reads a neighbour's register inside the "
                   "instruction itself, no shuffle unit: lane %lld <- lane %lld.",
                (long long)lane, (long long)src);
        else if (!s->combine)
            add(t,
                "; AMD's data-parallel primitive reads a neighbour's register inside the "
                "instruction itself, no shuffle unit; lane %lld is not written this step.",
                (long long)lane);
        else if (s->exchange && src >= 0)
            add(t,
                "; LLVM folds the move into the %s itself (one DPP instruction): lane %lld "
                "combined lane %lld's value and now holds %s.",
                ls_combiner_name(v->p->combiner), (long long)lane, (long long)src, val);
        else if (src >= 0)
            add(t, "; lane %lld combined lane %lld's value and now holds %s.", (long long)lane,
                (long long)src, val);
        else
            add(t, "; lane %lld is not written this step and keeps %s.", (long long)lane, val);
    } else if (st->kind == LS_STEP_SWIZZLE) {
        add(t,
            "%s, step %d of %d (subgroup %d): swizzle -- through the workgroup-memory "
            "crossbar every lane reads lane %lld of its 32, which holds the 32 lanes' total "
            "(lane %lld: %s).",
            who, s->step + 1, s->r->n_steps, r->subgroup, (long long)st->offset, (long long)lane,
            val);
    } else {
        add(t, "%s, step %d of %d (subgroup %d): readlane -- every lane reads the value of "
               "lane %lld, which holds the total, so all lanes end with the same result (lane "
               "%lld: %s).",
            who, s->step + 1, s->r->n_steps, r->subgroup, (long long)st->lane_a, (long long)lane,
            val);
    }
}

static void cap_smem(const ls_view *v, const ls_engine_record *r, const ls_view_step *s, text *t)
{
    const ls_plan *pl = v->plan;
    int64_t nq = pl->results_per_thread > 0 ? pl->results_per_thread : 1;
    int64_t *slot_reg = ls_xcalloc((size_t)nq, sizeof *slot_reg);
    int64_t *lanes = ls_xcalloc((size_t)v->d->subgroup_size, sizeof *lanes);
    int64_t *addr = ls_xcalloc((size_t)v->d->subgroup_size, sizeof *addr);
    ls_result_slot_registers(v->d, v->p, slot_reg);
    int64_t q = s->smem_slot % nq;
    int n = ls_smem_access(pl, slot_reg[q], r->op == 6, lanes, addr);
    int64_t deg = n ? ls_bank_conflict_degree(lanes, addr, n, pl->acc_elem_bytes,
                                              v->hw->smem_banks, v->hw->smem_bank_bytes)
                    : 0;
    if (r->op == 5)
        add(t,
            "Write to shared memory: subgroup %d stores its partial result of slot %lld into the "
            "workgroup buffer (its own column), one writer lane per group of lanes holding the "
            "same value: %d lane%s write, bank conflict degree %lld (%lld cycle%s).",
            r->subgroup, (long long)q, n, n == 1 ? "" : "s", (long long)deg, (long long)deg,
            deg == 1 ? "" : "s");
    else
        add(t,
            "Read back: subgroup %d reads every subgroup's partial of slot %lld from the buffer "
            "(missing ones read as the identity): %d lanes, bank conflict degree %lld. A second, "
            "short butterfly then combines them.",
            r->subgroup, (long long)q, n, (long long)deg);
    free(slot_reg);
    free(lanes);
    free(addr);
}

static void cap_barrier(const ls_view *v, const ls_engine_record *r, int64_t rec, text *t)
{
    int64_t ns = v->d->num_subgroups, arrived = 0;
    for (int64_t i = rec; i >= 0; i--) {
        const ls_engine_record *q = ls_stepper_record(v->st, i);
        if (q->kind == LS_REC_BARRIER)
            break;
        arrived += q->kind == LS_REC_ISSUE && q->op == 4;
    }
    if (r->kind == LS_REC_BARRIER)
        add(t,
            "Barrier release: all %lld subgroups have arrived, so the barrier lets them go on "
            "together at cycle %lld. Everything written to shared memory before it is now "
            "visible to every subgroup.",
            (long long)ns, (long long)r->cycle);
    else
        add(t,
            "Barrier wait: subgroup %d arrives at the barrier and waits until all %lld subgroups "
            "of the workgroup arrive (%lld of %lld so far), so no one reads the buffer before it "
            "is written.",
            r->subgroup, (long long)ns, (long long)arrived, (long long)ns);
}

void ls_view_caption(const ls_view *v, char *buf, size_t size)
{
    if (v->att) {
        ls_view_attention_caption(v, buf, size);
        return;
    }
    text t = {buf, size, 0};
    buf[0] = 0;
    int64_t rec = ls_stepper_position(v->st);
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    if (r == NULL) {
        cap_start(v, &t);
        return;
    }
    ls_view_step s;
    ls_view_step_of(v, rec, &s);
    if (r->kind == LS_REC_BARRIER || (r->kind == LS_REC_ISSUE && r->op == 4)) {
        cap_barrier(v, r, rec, &t);
    } else if (r->kind == LS_REC_DONE) {
        add(&t, "Subgroup %d has finished: its last instruction completed by cycle %lld.",
            r->subgroup, (long long)r->cycle);
    } else if (s.r) {
        cap_exchange(v, r, &s, &t);
    } else if (r->op == 0) {
        cap_load(v, r, rec, &t);
    } else if (r->op == 5 || r->op == 6) {
        cap_smem(v, r, &s, &t);
    } else if (r->op == 8) {
        add(&t,
            "Special-function op, iteration %lld: subgroup %d issues one of the body's %d "
            "transcendental instruction%s per element (a math op as the target lowers it) to "
            "its scheduler's special-function unit",
            (long long)r->iteration + 1, r->subgroup, v->plan->body_sfu_ops,
            v->plan->body_sfu_ops == 1 ? "" : "s");
        if (v->hw->sfu_interval > 0)
            add(&t, ", which takes one every %lld cycles; the result is ready at cycle %lld.",
                (long long)v->hw->sfu_interval, (long long)r->ready);
        else
            add(&t, "; this model has none, so it is timed as an ALU instruction.");
    } else if (r->op == 7) {
        add(&t,
            "Store: subgroup %d writes its results to global memory. The store is guarded: of "
            "the lanes holding the same output value only one writes it; the workgroup writes "
            "%lld output%s in all.",
            r->subgroup, (long long)v->plan->stores_per_workgroup,
            v->plan->stores_per_workgroup == 1 ? "" : "s");
    } else {
        cap_alu(v, r, &t);
    }
}
