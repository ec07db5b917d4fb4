/* engine_program.c: what one subgroup of the engine executes -- the
 * template of instructions built from a plan (loads, body ops, combines,
 * shuffle/DPP steps, barriers, workgroup-memory accesses, stores; the
 * arg_compare variant), and the cross-subgroup buffer's addresses per lane
 * with their bank-conflict degrees.  engine.c runs the template once per
 * resident subgroup and iteration. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* A result's span in template order, [first, last], and its instruction. */
typedef struct {
    int first, last, id;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->first != y->first ? (x->first > y->first) - (x->first < y->first)
                                : (x->id > y->id) - (x->id < y->id);
}

/* A min-heap of (key, entry): the busy entries by the end of their span,
 * the free ones by their number. */
typedef struct {
    int key, ent;
} keyed;

static void keyed_push(keyed *h, int *n, keyed v)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].key > v.key) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static keyed keyed_pop(keyed *h, int *n)
{
    keyed top = h[0], v = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].key < h[c].key)
            c++;
        if (v.key <= h[c].key)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
    return top;
}

/* ------------------------------------------------------------- scoreboard
 *
 * A subgroup's scoreboard holds the completion cycle of each result some
 * later instruction reads.  Indexing it by template entry costs ncode
 * entries a subgroup (hundreds of KB to MB for a full GPU's residents,
 * which the host caches cannot hold); a step reads only live results, so
 * entries are shared as a register allocator shares registers: each
 * result occupies an entry from its instruction to its last reader, a
 * result read across the loop's back edge or made before the loop and
 * read in it for the whole loop, and results whose spans do not overlap
 * share one.
 *
 * Why the cycles cannot change: a reader finds its producer's latest
 * write, as before, because no other result is written into the entry
 * within the span.  Before its producer's first write (a loop-carried
 * read in iteration 0) it used to find 0; now it may find an earlier
 * result's cycle -- but that result's last reader has issued, and a
 * reader issues only once its operands are complete, so that cycle is at
 * most the current one, and ready = max(t, ...) ignores it.  A result no
 * one reads goes to the sink entry (1), never read; dep -1 reads the zero
 * entry (0), never written.  Sets rd[] and wr of every instruction and
 * e->sb_entries; plain: an entry per instruction instead (tests). */
void ls_engine_assign_scoreboard(engine *e, bool plain)
{
    if (plain) {
        for (int r = 0; r < e->ncode; r++) {
            e->code[r].wr = 2 + r;
            for (int k = 0; k < LS_TINST_DEPS; k++)
                e->code[r].rd[k] = e->code[r].dep[k] < 0 ? 0 : 2 + e->code[r].dep[k];
        }
        e->sb_entries = 2 + e->ncode;
        return;
    }
    int n = e->ncode;
    int *first = ls_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *first);
    int *last = ls_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *last);
    for (int p = 0; p < n; p++) {
        first[p] = p;
        last[p] = -1; /* no reader */
    }
    for (int r = 0; r < n; r++)
        for (int k = 0; k < LS_TINST_DEPS; k++) {
            int p = e->code[r].dep[k];
            if (p < 0)
                continue;
            /* r's loop (a fused kernel has several, one after another) */
            int rl = e->code[r].loop, lb = rl >= 0 ? e->loops[rl].begin : 0,
                le = rl >= 0 ? e->loops[rl].end : 0;
            bool r_in = rl >= 0, same = r_in && e->code[p].loop == rl;
            if (r > p && r_in && !same) { /* made before the loop, read in every iteration */
                if (le - 1 > last[p])
                    last[p] = le - 1;
            } else if (r > p) {
                if (r > last[p])
                    last[p] = r;
            } else if (same) { /* read in the next iteration */
                first[p] = lb < first[p] ? lb : first[p];
                last[p] = le - 1 > last[p] ? le - 1 : last[p];
            } else { /* read before it is written, outside the loop: its own entry */
                first[p] = 0;
                last[p] = n;
            }
        }
    /* Interval partitioning: spans in order of first use, each taking an
     * entry whose last span ended strictly before it begins (a min-heap
     * of the busy entries' ends), else a new one -- as few entries as any
     * assignment can have, in O(n log n). */
    span *sp = ls_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *sp);
    int m = 0;
    for (int p = 0; p < n; p++)
        if (last[p] >= 0)
            sp[m++] = (span){first[p], last[p], p};
    qsort(sp, (size_t)m, sizeof *sp, span_cmp);
    keyed *busy = ls_xmalloc((size_t)(m > 0 ? m : 1) * sizeof *busy);
    keyed *free_ent = ls_xmalloc((size_t)(m > 0 ? m : 1) * sizeof *free_ent);
    int nbusy = 0, nfree = 0, nent = 0;
    for (int p = 0; p < n; p++)
        e->code[p].wr = 1;
    for (int i = 0; i < m; i++) {
        while (nbusy > 0 && busy[0].key < sp[i].first) {
            int x = keyed_pop(busy, &nbusy).ent;
            keyed_push(free_ent, &nfree, (keyed){x, x});
        }
        /* the lowest free entry: entries in use stay packed at the front of
         * the subgroup's scoreboard, in as few host cache lines as can be */
        int x = nfree > 0 ? keyed_pop(free_ent, &nfree).ent : nent++;
        e->code[sp[i].id].wr = 2 + x;
        keyed_push(busy, &nbusy, (keyed){sp[i].last, x});
    }
    for (int r = 0; r < n; r++)
        for (int k = 0; k < LS_TINST_DEPS; k++) {
            int p = e->code[r].dep[k];
            e->code[r].rd[k] = p < 0 ? 0 : e->code[p].wr;
        }
    e->sb_entries = 2 + nent;
    free(first);
    free(last);
    free(sp);
    free(busy);
    free(free_ent);
}

void ls_engine_one_loop(engine *e)
{
    e->loops[0] = (eloop){e->loop_begin, e->loop_end, 0, e->iterations, e->unroll};
    e->n_loops = 1;
    for (int i = 0; i < e->ncode; i++)
        e->code[i].loop = i >= e->loop_begin && i < e->loop_end ? 0 : -1;
}

/* ------------------------------------------------------------- template */

static int emit(engine *e, ikind k, ls_stage st, int dep0, int dep1)
{
    if (e->code == NULL) /* a counting pass (ls_engine_build_template_attention) */
        return e->ncode++;
    tinst *t = &e->code[e->ncode];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->stage = st;
    t->dep[0] = dep0;
    t->dep[1] = dep1;
    t->dep[2] = -1;
    t->load = -1;
    t->result = -1;
    t->step = -1;
    t->red = NULL;
    t->issues = 1;
    return e->ncode++;
}

int ls_engine_combine_alu(const ls_plan *pl)
{
    return pl->combine_alu > 1 ? pl->combine_alu : 1;
}

/* One combine of two accumulator values (dep0, dep1; self_dep1: the
 * combine's own result, carried from the previous trip): the plan's
 * combine_alu dependent ALU instructions, the first reading the operands.
 * Returns the last, which holds the result. */
static int emit_combine_op(engine *e, ls_stage st, int dep0, int dep1, bool self_dep1)
{
    int n = ls_engine_combine_alu(e->plan);
    if (self_dep1)
        dep1 = e->ncode + n - 1;
    int x = emit(e, I_ALU, st, dep0, dep1);
    for (int i = 1; i < n; i++)
        x = emit(e, I_ALU, st, x, -1);
    return x;
}

int ls_engine_emit_combine_op(engine *e, ls_stage st, int dep0, int dep1)
{
    return emit_combine_op(e, st, dep0, dep1, false);
}

int ls_engine_emit(engine *e, ikind k, ls_stage st, int dep0, int dep1)
{
    return emit(e, k, st, dep0, dep1);
}

/* LLVM's code-size estimate of one iteration of the loop (CodeMetrics with
 * TTI::TCK_CodeSize, llvm/lib/Transforms/Scalar/LoopUnrollPass.cpp's
 * UnrollCostEstimator): per transfer_read an address (GEP, 1) and the
 * load, then per vector of the iteration the body's elementwise ops and
 * the combine into the accumulator (a packed contraction: its FMA chain,
 * then one add per accumulator), then the loop's own increment (an i64
 * add, 2), compare and branch.  A math op counts what the IR holds when
 * LLVM unrolls: on NVIDIA the polynomial MathTransform wrote
 * (ls_body_ir_ops), on ROCm one call.  NVPTX (NVPTXTargetTransformInfo.cpp falls
 * back on BasicTTIImpl): a vector op costs 1, a load the legal pieces it
 * splits into (32 bits each before sm_100: v2f16, v4i8 or one f32);
 * AMDGPU (AMDGPUTargetTransformInfo.cpp): a load costs 1, an op the
 * 32-bit pieces it works on. */
static int64_t loop_ir_size(const ls_plan *pl, bool nvptx)
{
    int64_t size = 4, vectors = 0, width = 1, bits = 32;
    for (int k = 0; k < pl->n_inputs; k++) {
        int64_t loads = pl->inputs[k].hoisted ? 0 : pl->inputs[k].loads; /* before the loop */
        int64_t pieces = (pl->inputs[k].width * pl->inputs[k].elem_bits + 31) / 32;
        size += loads * (1 + (nvptx ? pieces : 1));
        if (loads > vectors) {
            vectors = loads;
            width = pl->inputs[k].width;
            bits = pl->inputs[k].elem_bits;
        }
    }
    int64_t op = nvptx ? 1 : (width * bits + 31) / 32;
    /* LoopUnroll runs after LICM and GVN: the ops the compiled loop does
     * not hold per register -- shared by registers that read the same
     * operand elements, hoisted out of the loop -- are not in it.  Their
     * share of the body's instructions (src/body_issue.c) stands for their
     * share of its IR. */
    int64_t body_ir = pl->body_ir_ops;
    if (!pl->argcmp && body_ir > 0) {
        ls_body_issue_totals t;
        ls_body_issue_totals_of(pl, ls_plan_body_fma_timed(pl), &t);
        int64_t all = t.alu + t.sfu + t.shared + t.hoisted + t.folded;
        if (all > 0)
            body_ir = (body_ir * (all - t.shared - t.hoisted) + all - 1) / all;
    }
    /* A packed contraction's multiply and add are one math.fma already
     * (ContractToChainFMA runs before LLVM): the combine is in the body's
     * multiply, and each accumulator adds its chain's result once, a
     * scalar op (AMDGPU: its 32-bit pieces) */
    if (ls_functional_fma(pl) == LS_FMA_CHAIN) {
        int64_t add = nvptx ? 1 : (ls_elem_type_bits(pl->problem->acc_type) + 31) / 32;
        return size + vectors * body_ir * op + pl->acc_registers * add;
    }
    /* a contract chain's result is the output's value: no add after it */
    if (ls_functional_fma(pl) == LS_FMA_CONTRACT)
        return size + vectors * body_ir * op;
    return size + vectors * (body_ir + 1) * op;
}

/* The largest count from 1 to n that divides trips. */
static int64_t divisor_at_most(int64_t trips, int64_t n)
{
    while (n > 1 && trips % n != 0)
        n--;
    return n > 1 ? n : 1;
}

int64_t ls_engine_unroll(const ls_plan *pl, const ls_hw *hw)
{
    const ls_derived *d = pl->derived;
    int64_t trips = pl->iterations, u = 1;
    /* an attention's loop body (a chain over K1, two exp2s, the PV
     * updates) passes LLVM's partial threshold: kept rolled */
    if (pl->argcmp || pl->attention || pl->n_promoted > 0 || d->serial_reduce || trips <= 1 ||
        hw->unroll_partial_threshold <= 0)
        return 1;
    /* llvm/lib/Transforms/Scalar/LoopUnrollPass.cpp, computeUnrollCount for
     * a constant trip count: unrolled completely when the whole loop's size
     * stays under Threshold; else partially, by the count whose body fits
     * PartialThreshold, lowered until it divides the trip count.  The size
     * of n iterations is (size - BEInsns) x n + BEInsns. */
    int64_t be = hw->unroll_be_insns, size = loop_ir_size(pl, hw->arch[0] != 'g');
    if (size <= be)
        size = be + 1;
    int64_t body = size - be;
    if (trips <= (hw->unroll_threshold - be - 1) / body) {
        u = trips; /* (size - be) x trips + be < Threshold */
    } else if (trips <= (hw->unroll_partial_threshold - be) / body) {
        u = trips;
    } else {
        /* Count <= 1: LLVM tries 8, 4, 2 with a remainder loop; the engine
         * runs whole bodies only, so the loop stays rolled (the model's
         * one departure, docs/timing-model.md) */
        int64_t pt = hw->unroll_partial_threshold > be + 1 ? hw->unroll_partial_threshold : be + 1;
        u = divisor_at_most(trips, (pt - be) / body);
    }
    /* The registers: every load of the unrolled body is in flight at once.
     * A compiler short of registers keeps fewer loads ahead; the model
     * keeps fewer iterations in the body. */
    ls_plan_regs regs;
    while (u > 1 && hw->max_regs_per_thread > 0) {
        ls_plan_registers(pl, u, &regs);
        if (regs.total <= hw->max_regs_per_thread)
            break;
        u = divisor_at_most(trips, u / 2);
    }
    return u;
}

int64_t ls_engine_template_cap(const engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t q_n = pl->results_per_thread, u = e->unroll;
    int64_t nc = ls_engine_combine_alu(pl);
    int64_t per_q = 4 +
                    (2 * ls_engine_exchange_pieces(pl) + nc + LS_DPP_STEP_ALU_MAX) * LS_MAX_STEPS *
                        (pl->n_subgroup_reduces + 1) +
                    8 + nc;
    /* a multi-result generic's other results, in this kernel
     * (ls_plan_fuse_results): their combines, reduces and stores */
    int64_t n_res = 1 + pl->extra_results;
    int64_t loads = 0;
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].loads;
    int64_t copies = 0;
    for (int k = 0; k < pl->n_inputs; k++)
        copies += pl->promote[k].on ? 2 * pl->promote[k].copy_loads : 0;
    /* each term is bounded (registers <= 2^20, copies by the workgroup
     * memory <= 2^32 bytes checked before, the unrolled body by LLVM's
     * thresholds in ls_engine_unroll), the sum may still pass the int
     * that indexes the program */
    int64_t cap = u * (loads + ls_engine_accumulate_cap(e) + e->loop_stores) + copies +
                  n_res * (pl->local_reduce_ops * nc + q_n * per_q) + 18;
    return cap > INT32_MAX ? -1 : cap;
}

void ls_engine_build_template(engine *e)
{
    int64_t cap = ls_engine_template_cap(e);
    if (cap < 0) {
        e->ncode = -1;
        return;
    }
    e->code = ls_xcalloc((size_t)cap, sizeof *e->code);
    ls_engine_append_template(e);
}

void ls_engine_append_template(engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t q_n = pl->results_per_thread, u = e->unroll;
    int64_t n_res = 1 + pl->extra_results, loads = 0; /* an iteration's, in the loop */
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].hoisted ? 0 : pl->inputs[k].loads;
    /* LOAD_ACCUMULATE: every input's loads of an iteration, then per
     * register the body's ops and the combines (engine_accumulate.c).  An
     * unrolled body (u iterations) issues the loads of all its iterations
     * first, as the compiler schedules them (loads are independent; the
     * combines wait), then the combines in iteration order.  Before it,
     * the body's ops on values held from before the loop, which LICM
     * hoists out of it. */
    ls_body_issue *bi = ls_body_issue_new(pl, ls_plan_body_fma_timed(pl));
    ls_engine_emit_hoisted(e, bi);
    e->loop_begin = e->ncode;
    /* promote_operands (plan_promote.c): barrier, the copy's global loads
     * and buffer writes, barrier; the compute reads then come from the
     * buffer. */
    if (pl->n_promoted > 0) {
        emit(e, I_BARRIER, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
        for (int k = 0; k < pl->n_inputs; k++)
            for (int64_t l = 0; pl->promote[k].on && l < pl->promote[k].copy_loads; l++) {
                int i = emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
                e->code[i].load = (int)l;
                e->code[i].operand = k;
                e->code[i].copy = true;
                int s = emit(e, I_SMEM_ST, LS_STAGE_LOAD_ACCUMULATE, i, -1);
                e->code[s].load = (int)l;
                e->code[s].operand = k;
                e->code[s].promote = true;
            }
        emit(e, I_BARRIER, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
    }
    int first_load = e->ncode; /* iteration j's input k: first_load + j * loads + in_off[k] */
    int in_off[LS_MAX_INPUTS];
    for (int64_t j = 0; j < u; j++) {
        int off = 0;
        for (int k = 0; k < pl->n_inputs; k++) {
            in_off[k] = off;
            if (pl->inputs[k].hoisted)
                continue; /* loaded before the loop */
            off += (int)pl->inputs[k].loads;
            for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
                int i = emit(e, pl->promote[k].on ? I_SMEM_LD : I_GLOAD, LS_STAGE_LOAD_ACCUMULATE,
                             -1, -1);
                e->code[i].load = (int)l;
                e->code[i].operand = k;
                e->code[i].promote = pl->promote[k].on;
                e->code[i].iter_offset = (int)j;
            }
        }
    }
    ls_engine_emit_accumulate(e, bi, first_load, in_off, loads);
    ls_body_issue_free(bi);
    /* a stored producer fused into the loop writes its tile each
     * iteration, once the body has computed it */
    for (int64_t j = 0; j < u; j++)
        for (int64_t st = 0; st < e->loop_stores; st++) {
            int w = emit(e, I_GSTORE, LS_STAGE_STORE, e->ncode - 1, -1);
            e->code[w].iter_offset = (int)j;
            e->code[w].store_bytes = e->loop_store_bytes;
            e->code[w].store_ticks = e->loop_store_ticks;
        }
    e->loop_end = e->ncode;
    int last_loop = e->ncode - 1;
    /* THREAD_REDUCE: one fold per result slot (q_n a result, for each of
     * the kernel's results: slot s is result s / q_n's slot s % q_n). */
    int64_t slots = q_n * n_res;
    int *qlast = ls_xcalloc((size_t)slots, sizeof *qlast);
    ls_engine_emit_thread_reduce(e, last_loop, slots, qlast);
    for (int r = 0; r < pl->n_subgroup_reduces; r++)
        for (int64_t q = 0; q < slots; q++)
            qlast[q] = ls_engine_emit_reduce(e, &pl->subgroup_reduces[r], LS_STAGE_SUBGROUP_REDUCE,
                                             qlast[q]);
    if (pl->cross_subgroup) {
        int b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < slots; q++) {
            int s = emit(e, I_SMEM_ST, LS_STAGE_CROSS_SUBGROUP, qlast[q], b);
            e->code[s].result = (int)(q % q_n);
        }
        b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < slots; q++) {
            int s = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            e->code[s].result = (int)(q % q_n);
            qlast[q] = ls_engine_emit_reduce(e, &pl->cross_reduce, LS_STAGE_CROSS_SUBGROUP, s);
        }
    }
    bool serial = e->d->serial_reduce;
    for (int64_t q = 0; q < slots; q++) {
        /* serial: the carried value is the previous iteration's own result */
        qlast[q] = emit_combine_op(e, LS_STAGE_ACC_COMBINE, qlast[q], -1, serial);
    }
    if (serial) /* the reduction tiling level: every stage runs in the loop */
        e->loop_end = e->ncode;
    e->last_result = slots > 0 ? qlast[slots - 1] : e->ncode - 1;
    for (int64_t q = 0; q < slots && !e->no_store; q++) {
        int s = emit(e, I_GSTORE, LS_STAGE_STORE, qlast[q], -1);
        e->code[s].result = (int)(q % q_n);
    }
    free(qlast);
}

/* An arg_compare (plan.h): the partial generic's per-element index
 * arithmetic, comparator and two selects; the merge's local compares; the
 * lane combines (ballot or butterfly); two buffers; two stores per output.
 * Its compares chain through the value select, the index select hangs off
 * the compare. */
static int emit_compare(engine *e, ls_stage st, int cand, int best)
{
    int c = cand;
    for (int o = 0; o < e->plan->cmp_ops; o++)
        c = emit(e, I_ALU, st, o == 0 ? cand : c, o == 0 ? best : -1);
    return c;
}

/* One select of the value (which 0) or the index (1) by compare c between
 * v and the other operand: select_alu instructions, each reading both (a
 * 64-bit select on AMD is a v_cndmask_b32 per half); the last one's index. */
static int emit_select(engine *e, ls_stage st, int c, int v, int which)
{
    int n = e->plan->select_alu[which] > 1 ? e->plan->select_alu[which] : 1, x = -1;
    for (int i = 0; i < n; i++)
        x = emit(e, I_ALU, st, c, v);
    return x;
}

static int emit_lane_combine(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev)
{
    const ls_plan *pl = e->plan;
    if (!pl->ballot) {
        for (int i = 0; i < r->n_steps; i++) {
            int sv = emit(e, I_SHUFFLE, st, prev, -1);
            int si = emit(e, I_SHUFFLE, st, prev, -1);
            e->code[sv].step = e->code[si].step = i;
            e->code[si].index = true;
            int c = emit_compare(e, st, prev, sv);
            prev = emit_select(e, st, c, sv, 0);
            e->code[prev].step = i;
            e->code[prev].step_end = true; /* the stepper counts one combine per step */
            e->code[prev].after_move = true;
            emit_select(e, st, c, si, 1);
        }
        return prev;
    }
    if (pl->problem->argcmp.transform >= 0)
        prev = emit(e, I_ALU, st, prev, -1); /* U(value) */
    int red = ls_engine_emit_reduce(e, r, st, prev);
    int x = emit(e, I_ALU, st, red, prev);          /* cmp oeq */
    x = emit(e, I_ALU, st, x, -1);                  /* gpu.ballot */
    if (r->cluster_stride > 1)
        x = emit(e, I_ALU, st, x, -1);              /* arith.andi with the cluster mask */
    x = emit(e, I_ALU, st, x, -1);                  /* math.cttz */
    if (e->d->subgroup_size > 32)
        x = emit(e, I_ALU, st, x, -1);              /* arith.trunci */
    int si = emit(e, I_SHUFFLE, st, x, -1);         /* gpu.shuffle idx of the index */
    e->code[si].index = true;
    if (pl->ballot_shuffles > 1)
        return emit(e, I_SHUFFLE, st, x, -1);       /* and of the value */
    return si;
}

void ls_engine_build_template_argcmp(engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t q_n = pl->results_per_thread, regs = e->d->elems_per_iteration, loads = 0;
    int64_t red_regs = q_n ? pl->acc_registers / q_n : 0;
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].loads;
    int sel = pl->select_alu[0] + pl->select_alu[1]; /* each at least 1 */
    int64_t per_combine = 2 * LS_MAX_STEPS * (pl->cmp_ops + 2 + sel) + 16;
    int64_t cap = loads + regs * (pl->index_ops + pl->cmp_ops + sel + 1) +
                  q_n * red_regs * (pl->cmp_ops + sel) +
                  q_n * (pl->n_subgroup_reduces + 1) * per_combine + q_n * (pl->cmp_ops + 16) + 16;
    if (cap > INT32_MAX) { /* as in ls_engine_build_template: about 2^35 at most */
        e->ncode = -1;
        return;
    }
    e->code = ls_xcalloc((size_t)cap, sizeof *e->code);
    e->loop_begin = 0;
    int first_load[LS_MAX_INPUTS];
    for (int k = 0; k < pl->n_inputs; k++) {
        first_load[k] = e->ncode;
        for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
            int i = emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
        }
    }
    /* per register: index ops, compare, select value, select index; the
     * value select of the previous iteration is the compare's other operand */
    int sv_n = pl->select_alu[0] > 1 ? pl->select_alu[0] : 1;
    int per_reg = pl->index_ops + pl->cmp_ops + sel, base = e->ncode;
    for (int64_t r = 0; r < regs; r++) {
        int ld = first_load[0] + (int)ls_operand_load_of(e->d, &e->oregs[0], r);
        int idx = pl->n_inputs > 1
                      ? first_load[1] + (int)ls_operand_load_of(e->d, &e->oregs[1], r)
                      : -1;
        for (int o = 0; o < pl->index_ops; o++)
            idx = emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, idx, -1);
        int selv = base + (int)r * per_reg + pl->index_ops + pl->cmp_ops + sv_n - 1;
        int c = emit_compare(e, LS_STAGE_LOAD_ACCUMULATE, ld, selv);
        emit_select(e, LS_STAGE_LOAD_ACCUMULATE, c, selv, 0);
        emit_select(e, LS_STAGE_LOAD_ACCUMULATE, c, idx, 1);
    }
    e->loop_end = e->ncode;
    int last_loop = e->ncode - 1;
    int *qlast = ls_xcalloc((size_t)q_n, sizeof *qlast);
    for (int64_t q = 0; q < q_n; q++) { /* the merge's local step, the inits first */
        int prev = last_loop;
        for (int64_t o = 0; o < red_regs; o++) {
            int c = emit_compare(e, LS_STAGE_THREAD_REDUCE, prev, -1);
            prev = emit_select(e, LS_STAGE_THREAD_REDUCE, c, prev, 0);
            emit_select(e, LS_STAGE_THREAD_REDUCE, c, -1, 1);
        }
        qlast[q] = prev;
    }
    for (int r = 0; r < pl->n_subgroup_reduces; r++)
        for (int64_t q = 0; q < q_n; q++)
            qlast[q] = emit_lane_combine(e, &pl->subgroup_reduces[r], LS_STAGE_SUBGROUP_REDUCE,
                                         qlast[q]);
    if (pl->cross_subgroup) {
        int b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++)
            for (int h = 0; h < 2; h++) {
                int s = emit(e, I_SMEM_ST, LS_STAGE_CROSS_SUBGROUP, qlast[q], b);
                e->code[s].result = (int)q;
                e->code[s].index = h == 1;
            }
        b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++) {
            int sv = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            int si = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            e->code[sv].result = e->code[si].result = (int)q;
            e->code[si].index = true;
            int64_t slots = pl->read_cluster > 1 ? 1 : pl->buffer_shape[pl->buffer_rank - 1] -
                                                           pl->buffer_pad;
            int prev = sv;
            for (int64_t o = 0; o < slots; o++) { /* folded into the inits */
                int c = emit_compare(e, LS_STAGE_CROSS_SUBGROUP, prev, -1);
                prev = emit_select(e, LS_STAGE_CROSS_SUBGROUP, c, prev, 0);
                emit_select(e, LS_STAGE_CROSS_SUBGROUP, c, si, 1);
            }
            qlast[q] = pl->read_cluster > 1
                           ? emit_lane_combine(e, &pl->cross_reduce, LS_STAGE_CROSS_SUBGROUP, prev)
                           : prev;
        }
    }
    for (int64_t q = 0; q < q_n; q++)
        for (int h = 0; h < 2; h++) {
            int s = emit(e, I_GSTORE, LS_STAGE_STORE, qlast[q], -1);
            e->code[s].result = (int)q;
            e->code[s].index = h == 1;
        }
    free(qlast);
}

void ls_result_slot_registers(const ls_derived *d, const ls_problem *p, int64_t *slot_reg)
{
    /* the last register feeding each slot, scanning down: its first one */
    for (int64_t r = ls_nl_registers(&d->layout); r-- > 0;) {
        int64_t a, q;
        ls_register_slots(d, p, r, &a, &q);
        slot_reg[q] = r;
    }
}

int ls_smem_access(const ls_plan *pl, int64_t reg, bool read, int64_t *lanes, int64_t *addr)
{
    const ls_derived *d = pl->derived;
    const ls_problem *p = pl->problem;
    const ls_nested_layout *l = &d->layout;
    int64_t row = pl->buffer_shape[pl->buffer_rank - 1];
    int64_t nslots = 1;
    for (int k = 0; k < l->rank; k++)
        if (!d->body_inner[k] && p->is_reduction[d->body_origin[k]])
            nslots *= l->subgroup_tile[k];
    int n = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY], pos = 0, slot = 0;
        ls_nl_virtual_thread(l, ln, vt);
        ls_nl_virtual_subgroup(l, 0, vs);
        bool writer = ln < d->layout_lanes;
        ls_nl_coord c;
        ls_nl_register_coord(l, reg, &c);
        memcpy(c.thread, vt, sizeof vt);
        memcpy(c.subgroup, vs, sizeof vs);
        int64_t body[LS_MAX_BODY];
        ls_nl_compose(l, &c, body);
        for (int k = 0; k < l->rank; k++) {
            if (d->body_inner[k])
                continue;
            if (p->is_reduction[d->body_origin[k]])
                writer &= vt[k] == 0;
            else
                pos = pos * ls_nl_extent(l, k) + body[k];
        }
        int64_t a;
        if (!read) {
            if (!writer)
                continue;
            a = (pos * row + slot) * pl->acc_elem_bytes;
        } else {
            int64_t cpos = (ln / pl->read_stride) % pl->read_cluster;
            if (pl->read_cluster > 1 && cpos >= nslots)
                continue; /* masked */
            a = (pos * row + (pl->read_cluster > 1 ? cpos : 0)) * pl->acc_elem_bytes;
        }
        if (lanes)
            lanes[n] = ln;
        addr[n++] = a;
    }
    return n;
}

void ls_promote_access_banks(const ls_plan *plan, const ls_hw *hw, int k, int64_t a,
                             int64_t *cycles, int64_t *worst)
{
    const ls_promote *pr = &plan->promote[k];
    int64_t sg = plan->derived->subgroup_size;
    int64_t cap =
        2 * (pr->copy_width > plan->inputs[k].width ? pr->copy_width : plan->inputs[k].width) + 1;
    int64_t *lanes = ls_xcalloc((size_t)sg, sizeof *lanes),
            *addr = ls_xcalloc((size_t)sg, sizeof *addr);
    int64_t *at = ls_xcalloc((size_t)sg, sizeof *at);
    int64_t *rel = ls_xcalloc((size_t)cap, sizeof *rel),
            *bytes = ls_xcalloc((size_t)cap, sizeof *bytes);
    int n = ls_plan_promote_offsets(plan, k, a, sg, lanes, addr);
    int64_t pieces = ls_plan_promote_pieces(plan, k, a, rel, bytes);
    *cycles = 0;
    *worst = 1;
    for (int64_t q = 0; q < pieces && n > 0; q++) {
        for (int i = 0; i < n; i++)
            at[i] = addr[i] + rel[q];
        int64_t deg =
            ls_bank_conflict_degree(lanes, at, n, bytes[q], hw->smem_banks, hw->smem_bank_bytes);
        *cycles += deg;
        *worst = deg > *worst ? deg : *worst;
    }
    if (*cycles < pieces) /* no lane takes part: each piece still takes its cycle */
        *cycles = pieces;
    free(rel);
    free(bytes);
    free(at);
    free(lanes);
    free(addr);
}

/* Conflict degrees of a promoted input's buffer accesses (the copy
 * stores, then the compute reads), as ls_promote_access_banks gives them. */
static void promote_degrees(engine *e, int k)
{
    const ls_plan *pl = e->plan;
    int64_t accesses = pl->promote[k].copy_loads + pl->inputs[k].loads;
    e->promote_degree[k] = ls_xcalloc((size_t)(2 * accesses), sizeof(int64_t));
    for (int64_t a = 0; a < accesses; a++)
        ls_promote_access_banks(pl, e->hw, k, a, &e->promote_degree[k][2 * a],
                                &e->promote_degree[k][2 * a + 1]);
}

/* Conflict degrees of the cross-subgroup buffer accesses, per result slot. */
void ls_engine_smem_degrees(engine *e)
{
    const ls_plan *pl = e->plan;
    const ls_derived *d = e->d;
    int64_t nq = pl->results_per_thread;
    for (int k = 0; k < pl->n_inputs; k++)
        if (pl->promote[k].on)
            promote_degrees(e, k);
    e->smem_degree = ls_xcalloc((size_t)(2 * nq), sizeof *e->smem_degree);
    for (int64_t i = 0; i < 2 * nq; i++)
        e->smem_degree[i] = 1;
    if (!pl->cross_subgroup)
        return;
    int64_t *addr = ls_xcalloc((size_t)d->subgroup_size, sizeof *addr);
    int64_t *lanes = ls_xcalloc((size_t)d->subgroup_size, sizeof *lanes);
    int64_t *slot_reg = ls_xcalloc((size_t)nq, sizeof *slot_reg);
    ls_result_slot_registers(d, e->p, slot_reg);
    for (int64_t q = 0; q < nq; q++)
        for (int rd = 0; rd < 2; rd++) {
            int n = ls_smem_access(pl, slot_reg[q], rd == 1, lanes, addr);
            e->smem_degree[rd * nq + q] =
                n ? ls_bank_conflict_degree(lanes, addr, n, pl->acc_elem_bytes,
                                            e->hw->smem_banks, e->hw->smem_bank_bytes)
                  : 1;
        }
    free(lanes);
    free(addr);
    free(slot_reg);
}

