/* engine_accumulate.c: the LOAD_ACCUMULATE stage's ALU work in the
 * engine's template -- per register the body's ops, and the combines into
 * the accumulators, with the dependences IREE's lowering gives them:
 *
 *  - Unpacked (every register its own accumulator): each register's value
 *    is combined into its accumulator, which chains on itself across
 *    iterations.  On AMD a contraction's multiply and that add are one FMA
 *    (ls_functional_fma: ROCMTarget.cpp's AllowFPOpFusion = Fast).
 *  - Packed inner dims (GPUPackPartialReductions): DistributeMultiReduction
 *    and DistributeContract reduce a thread's inner elements from the
 *    combiner's identity and only then combine the result with the loop's
 *    accumulator (GPUNestedLayoutDistributionPatterns.cpp).  So the chain
 *    over the inner elements does not hang off the accumulator; one combine
 *    per accumulator and iteration does.  A contraction's inner chain is
 *    ContractToChainFMA's (LLVMGPUVectorLowering.cpp): one math.fma per
 *    element, last element first, from 0.
 *  - No partial_reduction (ls_derived.local_reduce_all): the local
 *    reduce takes all of an output's registers of the iteration from the
 *    identity -- a contraction's as ContractToChainFMA's chain -- and its
 *    result is the output's value: no combine after it, and nothing
 *    carried from one iteration to the next (the reduction level's loop
 *    folds the reduced value into its own carried one, after the subgroup
 *    reduce).
 *
 * Order of issue: the lowered IR's.  The packed chains step through the
 * inner elements, each step over every accumulator (ContractToChainFMA's
 * fmas and the multi_reduction's InnerParallel lowering are vector ops
 * over the accumulators), then the combines with the accumulators.
 * docs/timing-model.md, "The accumulate stage". */
#include <stdlib.h>
#include <string.h>

#include "lanescope/functional.h"
#include "lanescope/layout.h"

#include "engine_internal.h"

/* The combine of a packed chain's first element with the identity:
 * LLVM folds x + -0.0, x * 1.0, max(x, -inf), integer x + 0 and the
 * like away, but not a float add of +0.0 -- MLIR's additive identity
 * (arith::getIdentityValueAttr), which x + 0.0 does not equal for
 * x = -0.0.  ls_identity gives the same +0.0. */
static bool identity_combine_issued(const ls_plan *pl)
{
    const ls_problem *p = pl->problem;
    return p->combiner == LS_COMB_ADD && ls_elem_type_is_float(p->acc_type);
}

/* Whether the body's last multiply and the combine issue as one FMA in
 * this plan's kernel: where the lowering fuses them, the multiply is one
 * ALU instruction, and no other result of the kernel reads the product
 * (the timing keeps such a product apart). */
static ls_fma_kind timed_fma(const engine *e)
{
    return ls_plan_body_fma_timed(e->plan) ? ls_functional_fma(e->plan) : LS_FMA_NONE;
}

int64_t ls_engine_accumulate_cap(const engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t n_res = 1 + pl->extra_results;
    int64_t nb = pl->body_machine_alu_ops + pl->body_sfu_ops, nc = ls_engine_combine_alu(pl);
    /* (the hoisted ops before the loop: at most one body a register) */
    return e->d->elems_per_iteration * (2 * nb + n_res * nc) + pl->acc_registers * n_res * nc;
}

int ls_engine_emit_register_body(engine *e, const int *ld, int64_t j, ls_body_issue_counts c,
                                 int paired)
{
    const ls_plan *pl = e->plan;
    /* the backend's order: ALU instructions, then the special-function
     * ones (src/math_lowering.c); what the register issues at all is
     * src/body_issue.c's: not the multiply an FMA absorbs, nor on AMD the
     * f16 extensions v_fma_mix_f32 reads itself, nor what is hoisted out
     * of the loop or computed once for the registers that read the same
     * operand elements (a later register's op reads the load, not the
     * first one's result: one ALU latency early at most) */
    int v = ld[0];
    for (int o = 0; o < c.alu + c.sfu; o++) {
        bool alu = o < c.alu;
        v = ls_engine_emit(e, alu ? I_ALU : I_SFU, LS_STAGE_LOAD_ACCUMULATE, o == 0 ? ld[0] : v,
                           o + 1 < pl->n_inputs ? ld[o + 1] : -1);
        e->code[v].iter_offset = (int)j;
        if (alu && o < paired) /* the second half of its neighbour's packed op */
            e->code[v].issues = 0;
    }
    return v;
}

/* The body's ops for register r of iteration j (ls_engine_emit_register_
 * body): the last one's index, or the first operand's when none. *extra:
 * the multiply's second operand when it reads an input directly. */
static int emit_body(engine *e, const int *ld, int64_t j, bool fused, ls_body_issue_counts c,
                     int paired, int *extra)
{
    const ls_plan *pl = e->plan;
    int nb = pl->body_machine_alu_ops + pl->body_sfu_ops;
    int v = ls_engine_emit_register_body(e, ld, j, c, paired);
    /* op o of the chain reads input o + 1: the multiply, op nb - 1 */
    *extra = fused && nb < pl->n_inputs ? ld[nb] : -1;
    if (fused && c.alu + c.sfu == 0 && nb > 0 && pl->n_inputs > 1) /* all folded or shared */
        *extra = ld[1];
    return v;
}

/* The combine (or FMA) of value v (and, for an FMA, the multiply's other
 * operand `extra`) into acc; acc -1: none yet (patched after). */
static int emit_combine(engine *e, int64_t j, int v, int acc, int extra)
{
    int first = e->ncode;
    int c = ls_engine_emit_combine_op(e, LS_STAGE_LOAD_ACCUMULATE, v, acc);
    e->code[first].dep[2] = extra;
    for (int x = first; x <= c; x++)
        e->code[x].iter_offset = (int)j;
    return c;
}

/* The registers of an iteration in the order their combines issue:
 * grouped (packed, or local_reduce_all), step i of every accumulator's
 * chain, accumulators in order (a contraction's FMA chain takes each
 * accumulator's registers last first); otherwise the registers in order.
 * acc[]: each one's accumulator. */
static void issue_order(const engine *e, bool grouped, bool reversed, int64_t *order, int64_t *acc)
{
    const ls_plan *pl = e->plan;
    int64_t regs = e->d->elems_per_iteration, nacc = pl->acc_registers > 0 ? pl->acc_registers : 1;
    for (int64_t r = 0; r < regs; r++) {
        int64_t q;
        ls_register_slots(e->d, pl->problem, r, &acc[r], &q);
        order[r] = r;
    }
    if (!grouped)
        return;
    /* each accumulator's registers, ascending (a counting sort): group a
     * is reg[first[a] .. first[a] + n[a]) */
    int64_t *first = ls_xcalloc((size_t)nacc + 1, sizeof *first);
    int64_t *n = ls_xcalloc((size_t)nacc, sizeof *n);
    int64_t *reg = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *reg);
    for (int64_t r = 0; r < regs; r++)
        first[acc[r] + 1]++;
    for (int64_t a = 0; a < nacc; a++)
        first[a + 1] += first[a];
    int64_t steps = 0, m = 0;
    for (int64_t r = 0; r < regs; r++) {
        int64_t a = acc[r];
        reg[first[a] + n[a]++] = r;
        steps = n[a] > steps ? n[a] : steps;
    }
    for (int64_t i = 0; i < steps; i++)
        for (int64_t a = 0; a < nacc; a++)
            if (i < n[a])
                order[m++] = reg[first[a] + (reversed ? n[a] - 1 - i : i)];
    free(reg);
    free(n);
    free(first);
}

/* A chain of combines into one value -- a loop-carried accumulator, or a
 * packed (or whole) reduce's chain of the iteration -- as the lowered code
 * has it.  Where LLVM fuses two dependent combines into one three-operand
 * instruction (plan.combine_fuses3: v_max3_f32, v_add3_u32, ...), the
 * chain holds an operand back until the next one arrives and joins both
 * in one instruction. */
typedef struct {
    int val;   /* the chain's value: an instruction, CARRIED, or -1 (none yet) */
    int pend;  /* an operand held back for the next combine, -1: none */
    int first; /* the first instruction that read CARRIED, -1: none yet */
    /* a grouped fold LLVM compiles as a tree (fold_tree): the group's
     * values, folded at the iteration's end */
    int *vals;
    int64_t nv;
} chain;

#define CARRIED (-2) /* the loop's accumulator, from the previous trip */

/* v (with w, a fused third operand, or the FMA's `extra`) into c */
static void chain_emit(engine *e, int64_t j, chain *c, int v, int w, int extra)
{
    int first = e->ncode;
    int x = emit_combine(e, j, v, c->val == CARRIED ? -1 : c->val, extra);
    if (w >= 0)
        e->code[first].dep[2] = w;
    if (c->val == CARRIED && c->first < 0)
        c->first = first;
    c->val = x;
}

static void chain_add(engine *e, int64_t j, chain *c, int v, int extra, bool fuse)
{
    if (!fuse) {
        chain_emit(e, j, c, v, -1, extra);
    } else if (c->pend < 0) {
        c->pend = v;
    } else {
        chain_emit(e, j, c, c->pend, v, -1);
        c->pend = -1;
    }
}

/* c's value, an operand held back combined in */
static int chain_flush(engine *e, int64_t j, chain *c)
{
    if (c->pend >= 0) {
        chain_emit(e, j, c, c->pend, -1, -1);
        c->pend = -1;
    }
    return c->val;
}

/* The groups' collected values folded as LLVM compiles them, level by
 * level across the groups (ls_engine_emit_folds); a group of one value
 * is that value.  Each group's result into root; with `open`, a root
 * ptxas leaves for the join to take in is LS_FOLD_OPEN, its operands in
 * open. */
static void fold_collected(engine *e, int64_t j, chain *c, size_t groups, int *root, int *open)
{
    ls_thread_reduce_shape *sh = ls_xcalloc(groups, sizeof *sh);
    int **v = ls_xcalloc(groups, sizeof *v);
    for (size_t g = 0; g < groups; g++) {
        sh[g] = ls_plan_fold_shape(e->plan, c[g].nv);
        v[g] = c[g].vals;
    }
    int first = e->ncode;
    ls_engine_emit_folds(e, LS_STAGE_LOAD_ACCUMULATE, sh, v, (int64_t)groups, root, open);
    for (int i = first; i < e->ncode; i++)
        e->code[i].iter_offset = (int)j;
    for (size_t g = 0; g < groups; g++)
        if (c[g].nv == 0)
            root[g] = -1;
    free(v);
    free(sh);
}

/* Packed math (plan.combine_pairs): a step's vector op over the
 * accumulators computes two of them an instruction.  The combine just
 * emitted at [first, e->ncode) for accumulator a at step `step` is the
 * second half of its even partner a - 1's, emitted just before at the same
 * step: it keeps its own operands but takes no issue slot (issues 0). */
typedef struct {
    int64_t acc, step;
    int n;       /* instructions the combine took */
    int64_t run; /* ls_plan_pair_run of the accumulators */
} last_combine;

static void pair_with(engine *e, last_combine *prev, int64_t a, int64_t step, int first)
{
    int n = e->ncode - first;
    if (n == 1 && ls_plan_pairs_previous(prev->run, a) && prev->acc == a - 1 &&
        prev->step == step && prev->n == 1)
        e->code[first].issues = 0;
    *prev = (last_combine){a, step, n, prev->run};
}

/* Iteration j's registers: each one's body, then its combine into its
 * chain (one per accumulator and result), in issue order.  stepc: per
 * accumulator, the chain steps issued in this iteration (zeroed). */
static void emit_iteration(engine *e, int64_t j, const int *first_in, const int64_t *order,
                           const int64_t *acc_of, chain *acc, chain *inner, bool fuse,
                           int64_t *stepc, last_combine *lc, bool *body_done, ls_body_issue *bi)
{
    const ls_plan *pl = e->plan;
    ls_fma_kind fk = timed_fma(e);
    bool grouped = pl->inner_elems > 1 || e->d->local_reduce_all;
    int64_t n_res = 1 + pl->extra_results, regs = e->d->elems_per_iteration;
    /* packed math in the body: the second of two neighbouring registers
     * (ls_plan_pair_run) issues its paired ops with the first's; not the
     * multiply an FMA absorbs */
    int64_t run = ls_plan_pair_run(pl, false); /* 1: no two pair */
    memset(body_done, 0, (size_t)(regs > 0 ? regs : 1) * sizeof *body_done);
    ls_body_issue_next_iteration(bi);
    for (int64_t i = 0; i < regs; i++) {
        int64_t r = order[i];
        int ld[LS_MAX_INPUTS];
        for (int k = 0; k < pl->n_inputs; k++)
            ld[k] = pl->inputs[k].loads == 0
                        ? e->held[k] - 1 /* in registers: -1, or a fused kernel's result */
                        : first_in[k] + (int)ls_operand_load_of(e->d, &e->oregs[k], r);
        int64_t partner = ls_plan_pairs_previous(run, r)                       ? r - 1
                          : r + 1 < regs && ls_plan_pairs_previous(run, r + 1) ? r + 1
                                                                               : -1;
        bool second = partner >= 0 && body_done[partner];
        body_done[r] = true;
        ls_body_issue_counts bc = ls_body_issue_register(bi, r);
        int extra;
        int v = emit_body(e, ld, j, fk != LS_FMA_NONE, bc, second ? bc.pairable : 0, &extra);
        for (int64_t x = 0; x < n_res; x++) { /* each result's own accumulator */
            chain *c = grouped ? &inner[acc_of[r] * n_res + x] : &acc[acc_of[r] * n_res + x];
            int first = e->ncode;
            if (c->vals)
                c->vals[c->nv++] = v; /* folded at the iteration's end */
            else if (grouped && c->val < 0 && c->pend < 0 && fk == LS_FMA_NONE &&
                     !identity_combine_issued(pl))
                c->val = v; /* the identity's combine folds away */
            else
                chain_add(e, j, c, v, extra, fuse);
            if (lc && !c->vals) /* pairing: one result (ls_engine_emit_accumulate) */
                pair_with(e, lc, acc_of[r], stepc[acc_of[r]]++, first);
        }
    }
}

void ls_engine_emit_hoisted(engine *e, const ls_body_issue *bi)
{
    const ls_plan *pl = e->plan;
    for (int k = 0; k < LS_MAX_INPUTS; k++) { /* loop-invariant inputs' loads */
        e->pre_load[k] = k < pl->n_inputs && pl->inputs[k].hoisted ? e->ncode : -1;
        for (int64_t l = 0; e->pre_load[k] >= 0 && l < pl->inputs[k].loads; l++) {
            int i = ls_engine_emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
        }
    }
    int alu, sfu;
    ls_body_issue_hoisted(bi, &alu, &sfu);
    int v = -1; /* the first held or loop-invariant value they read */
    for (int k = 0; k < pl->n_inputs && v < 0; k++)
        if (pl->inputs[k].loads == 0)
            v = e->held[k] - 1;
        else if (e->pre_load[k] >= 0)
            v = e->pre_load[k] + (int)pl->inputs[k].loads - 1;
    for (int o = 0; o < alu + sfu; o++)
        v = ls_engine_emit(e, o < alu ? I_ALU : I_SFU, LS_STAGE_LOAD_ACCUMULATE, v, -1);
}

void ls_engine_emit_accumulate(engine *e, ls_body_issue *bi, int first_load, const int *in_off,
                               int64_t loads)
{
    const ls_plan *pl = e->plan;
    int64_t u = e->unroll, n_res = 1 + pl->extra_results, regs = e->d->elems_per_iteration;
    int64_t nacc = pl->acc_registers;
    ls_fma_kind fk = timed_fma(e);
    bool packed = pl->inner_elems > 1, whole = e->d->local_reduce_all;
    bool fuse = pl->combine_fuses3 && fk == LS_FMA_NONE;
    int64_t *order = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *order);
    int64_t *acc_of = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *acc_of);
    issue_order(e, packed || whole, ls_fma_last_first(fk), order, acc_of);
    /* per accumulator and result: the loop-carried chain (its first
     * combine reads the last one across the back edge, patched once that
     * is emitted), and the iteration's packed (or whole) chain */
    size_t slots = (size_t)(nacc * n_res > 0 ? nacc * n_res : 1);
    chain *acc = ls_xcalloc(slots, sizeof *acc), *inner = ls_xcalloc(slots, sizeof *inner);
    for (size_t s = 0; s < slots; s++)
        acc[s] = (chain){CARRIED, -1, -1, NULL, 0};
    /* packed math pairs the accumulators of one result's vector ops (a
     * fused chain's too: sm_90's VHMNMX over f16x2) */
    bool pairs = ls_plan_pairs_accumulators(pl);
    int64_t run = ls_plan_pair_run(pl, true);
    /* On NVIDIA (run > 0) a multi_reduction's chain over a thread's
     * registers is each accumulator's own vector.reduction (the
     * InnerReduction reorder of LLVMGPUVectorLowering.cpp, then
     * LLVMGPUVectorMultiReductionLowering.cpp): an ordered scalar chain
     * that nothing pairs without the SLP vectorizer.  Only an FMA chain
     * (ContractToChainFMA) steps over the accumulators' vector; the joins
     * into the accumulators are elementwise. */
    bool chain_pairs = pairs && (run == 0 || !(packed || whole) || fk != LS_FMA_NONE);
    bool *body_done = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *body_done);
    int64_t *stepc = ls_xcalloc(slots, sizeof *stepc);
    /* tree folds (ls_plan_loop_fold_tree): each accumulator's registers'
     * values, for each result, in a buffer of the iteration's registers
     * (slot = accumulator x results + result, as the chains) */
    bool tree = (packed || whole) && ls_plan_loop_fold_tree(pl, NULL);
    int64_t *group_n = ls_xcalloc(slots, sizeof *group_n);
    for (int64_t r = 0; r < regs; r++)
        for (int64_t x = 0; x < n_res; x++)
            group_n[acc_of[r] * n_res + x]++;
    int *vals = tree ? ls_xcalloc((size_t)(regs * n_res), sizeof *vals) : NULL;
    int *roots = tree ? ls_xcalloc(slots, sizeof *roots) : NULL;
    /* ptxas takes a fold's open root into the join into the accumulator,
     * one three-input instruction (ls_fused_fold), where the joins are
     * scalar ones (ls_plan_loop_join_takes_root) */
    int *open =
        tree && ls_plan_loop_join_takes_root(pl) ? ls_xcalloc(2 * slots, sizeof *open) : NULL;
    for (int64_t j = 0; j < u; j++) {
        int first_in[LS_MAX_INPUTS];
        for (int k = 0; k < pl->n_inputs; k++) /* a loop-invariant input's, before the loop */
            first_in[k] =
                e->pre_load[k] >= 0 ? e->pre_load[k] : first_load + (int)(j * loads) + in_off[k];
        for (size_t s = 0, at = 0; s < slots; s++) {
            inner[s] = (chain){-1, -1, -1, tree ? vals + at : NULL, 0};
            at += tree ? (size_t)group_n[s] : 0;
            stepc[s] = 0;
        }
        last_combine lc = {-1, -1, 0, run};
        emit_iteration(e, j, first_in, order, acc_of, acc, inner, fuse, stepc,
                       chain_pairs ? &lc : NULL, body_done, bi);
        lc = (last_combine){-1, -1, 0, run};
        if (tree)
            fold_collected(e, j, inner, slots, roots, open);
        for (size_t s = 0; s < slots && (packed || whole); s++) {
            int t = tree ? roots[s] : chain_flush(e, j, &inner[s]);
            if (whole)
                continue;
            int first = e->ncode; /* the packed chain's value into the accumulator */
            if (t == LS_FOLD_OPEN) {
                chain_flush(e, j, &acc[s]);
                chain_emit(e, j, &acc[s], open[2 * s], open[2 * s + 1], -1);
                continue;
            }
            chain_add(e, j, &acc[s], t, -1, fuse);
            if (pairs)
                pair_with(e, &lc, (int64_t)s, 0, first);
        }
    }
    free(open);
    free(roots);
    free(vals);
    free(group_n);
    free(stepc);
    free(body_done);
    /* the back edge: the trip's first combine into each accumulator reads
     * the last one (u = 1 and one combine: its own); an operand a fused
     * chain held back is combined in first, two accumulators an
     * instruction where they pair */
    last_combine lc = {-1, -1, 0, run};
    for (size_t s = 0; s < slots && !whole; s++) {
        int first = e->ncode;
        int last = chain_flush(e, u - 1, &acc[s]);
        if (pairs)
            pair_with(e, &lc, (int64_t)s, -1, first);
        if (acc[s].first >= 0)
            e->code[acc[s].first].dep[1] = last;
    }
    free(inner);
    free(acc);
    free(order);
    free(acc_of);
}
