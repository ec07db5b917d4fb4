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
    const ls_plan *pl = e->plan;
    if (pl->extra_results > 0 || !pl->body_mul_one_alu)
        return LS_FMA_NONE;
    return ls_functional_fma(pl);
}

int64_t ls_engine_accumulate_cap(const engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t n_res = 1 + pl->extra_results;
    int64_t nb = pl->body_machine_alu_ops + pl->body_sfu_ops, nc = ls_engine_combine_alu(pl);
    return e->d->elems_per_iteration * (nb + n_res * nc) + pl->acc_registers * n_res * nc;
}

/* The body's ops for register r of iteration j (less the multiply an FMA
 * absorbs): the last one's index, or the first operand's when none. *extra:
 * the multiply's second operand when it reads an input directly. */
static int emit_body(engine *e, const int *ld, int64_t j, bool fused, int *extra)
{
    const ls_plan *pl = e->plan;
    int nb_alu = pl->body_machine_alu_ops, nb = nb_alu + pl->body_sfu_ops;
    /* the backend's order: ALU instructions, then the special-function ones
     * (src/math_lowering.c); the multiply an FMA absorbs is an ALU one */
    int nb_alu_issued = fused ? nb_alu - 1 : nb_alu, nb_issued = fused ? nb - 1 : nb;
    int v = ld[0];
    for (int o = 0; o < nb_issued; o++) {
        bool alu = o < nb_alu_issued;
        v = ls_engine_emit(e, alu ? I_ALU : I_SFU, LS_STAGE_LOAD_ACCUMULATE, o == 0 ? ld[0] : v,
                           o + 1 < pl->n_inputs ? ld[o + 1] : -1);
        e->code[v].iter_offset = (int)j;
    }
    /* op o of the chain reads input o + 1: the multiply, op nb - 1 */
    *extra = fused && nb < pl->n_inputs ? ld[nb] : -1;
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

void ls_engine_emit_accumulate(engine *e, int first_load, const int *in_off, int64_t loads)
{
    const ls_plan *pl = e->plan;
    int64_t u = e->unroll, n_res = 1 + pl->extra_results, regs = e->d->elems_per_iteration;
    int64_t nacc = pl->acc_registers;
    ls_fma_kind fk = timed_fma(e);
    bool packed = pl->inner_elems > 1, whole = e->d->local_reduce_all;
    int64_t *order = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *order);
    int64_t *acc_of = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *acc_of);
    issue_order(e, packed || whole, ls_fma_last_first(fk), order, acc_of);
    /* accumulator (a, x)'s last combine of each unrolled iteration; the
     * first iteration's read the last one's across the back edge (patched
     * once that is emitted) */
    size_t slots = (size_t)(nacc * n_res > 0 ? nacc * n_res : 1);
    int *last = ls_xcalloc((size_t)u * slots, sizeof *last);
    int *chain = ls_xcalloc(slots, sizeof *chain);
#define LAST(j, s) last[(size_t)(j)*slots + (size_t)(s)]
    for (int64_t j = 0; j < u; j++) {
        for (size_t s = 0; s < slots; s++)
            chain[s] = packed || whole || j == 0 ? -1 : LAST(j - 1, s);
        for (int64_t i = 0; i < regs; i++) {
            int64_t r = order[i];
            int ld[LS_MAX_INPUTS];
            for (int k = 0; k < pl->n_inputs; k++)
                ld[k] = pl->inputs[k].loads == 0
                            ? e->held[k] - 1 /* in registers: -1, or a fused kernel's result */
                            : first_load + (int)(j * loads) + in_off[k] +
                                  (int)ls_operand_load_of(e->d, &e->oregs[k], r);
            int extra;
            int v = emit_body(e, ld, j, fk != LS_FMA_NONE, &extra);
            for (int64_t x = 0; x < n_res; x++) { /* each result's own accumulator */
                int *c = &chain[acc_of[r] * n_res + x];
                if ((packed || whole) && *c < 0 && fk == LS_FMA_NONE &&
                    !identity_combine_issued(pl))
                    *c = v; /* the identity's combine folds away */
                else
                    *c = emit_combine(e, j, v, *c, extra);
            }
        }
        for (size_t s = 0; s < slots; s++)
            LAST(j, s) =
                packed ? emit_combine(e, j, chain[s], j == 0 ? -1 : LAST(j - 1, s), -1) : chain[s];
    }
    /* the back edge: iteration 0's combine into each accumulator reads the
     * last iteration's (u = 1: its own) */
    for (size_t s = 0; s < slots && !whole; s++) /* a combine's first instruction reads it */
        e->code[LAST(0, s) - (ls_engine_combine_alu(pl) - 1)].dep[1] = LAST(u - 1, s);
#undef LAST
    free(chain);
    free(last);
    free(order);
    free(acc_of);
}
