/* body_issue.h: which of a reduction body's machine instructions each of a
 * thread's registers issues in one iteration of the loop, as the compiled
 * code computes them:
 *   - folded: the multiply an FMA absorbs, the f16 extensions
 *     v_fma_mix_f32 reads itself (plan.h);
 *   - hoisted: an op whose operands are all values held in registers from
 *     before the loop (a fused reduction's result: a softmax's max, a
 *     norm's variance) or constants is loop-invariant, and MLIR's and
 *     LLVM's loop-invariant code motion move it out of the loop;
 *   - shared: registers that read the same elements of the op's operands
 *     compute the same value, and the compiled code computes it once (a
 *     matvec's vector, which every row of a thread reads, is widened once
 *     a step: IREE's PromoteContractOperands extends the contraction's own
 *     operand, and CSE merges the per-row copies of anything else);
 *   - paired: packed math, two neighbouring registers' op in one
 *     instruction (ls_plan_pair_run, ls_body_op_pairs).
 * The engine (sim/engine_accumulate.c), --dump-plan and the JSON read it. */
#ifndef LANESCOPE_BODY_ISSUE_H
#define LANESCOPE_BODY_ISSUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/plan.h"

typedef struct ls_body_issue ls_body_issue;

/* What one register issues: ALU and special-function instructions, and of
 * the ALU ones those that pair with a neighbour's. */
typedef struct {
    int alu, sfu, pairable;
} ls_body_issue_counts;

/* A tracker for plan's body; fused: the engine fuses the last multiply
 * with the combine (its FMA). */
ls_body_issue *ls_body_issue_new(const ls_plan *plan, bool fused);
void ls_body_issue_free(ls_body_issue *s);
/* Start an iteration: nothing computed yet. */
void ls_body_issue_next_iteration(ls_body_issue *s);
/* What register reg (an index of the iteration's registers) issues, given
 * the registers issued before it this iteration; records it. */
ls_body_issue_counts ls_body_issue_register(ls_body_issue *s, int64_t reg);

/* The hoisted ops' instructions a thread issues once, before the loop:
 * each op once for every distinct value among its registers. */
void ls_body_issue_hoisted(const ls_body_issue *s, int *alu, int *sfu);

/* Per iteration and thread: the body's instructions issued (ALU, SFU),
 * and those the shared, hoisted and folded rules saved against one body
 * per register; before_loop: what the hoisted ops issue instead, once. */
typedef struct {
    int64_t alu, sfu;
    int64_t shared, hoisted, folded;
    int64_t before_loop; /* the hoisted ops' instructions, issued once */
    /* of alu, the second halves of packed pairs (ls_plan_pair_run: a
     * register and the one before it), which take no issue slot */
    int64_t paired;
} ls_body_issue_totals;
void ls_body_issue_totals_of(const ls_plan *plan, bool fused, ls_body_issue_totals *t);

/* --dump-plan's line saying what a thread's registers issue of the body
 * an iteration, where that is less than one body a register; nothing
 * otherwise. */
void ls_plan_dump_body_issue(const ls_plan *plan, bool fused, FILE *f);

#endif
