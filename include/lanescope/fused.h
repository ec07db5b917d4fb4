/* fused.h: a dispatch's reductions and stored elementwise ops as the one
 * kernel IREE's VectorDistribute pipeline builds for them.
 *
 * IREE configures every compute op of a reduction dispatch together
 * (ReductionConfigUtils.cpp, populateConfigInfo): the root's parallel dims
 * are the workgroup's, and each op that has dims of its own gets a
 * partial_reduction (a reduction) or serial (an elementwise op) tile over
 * them, from the same workgroup size and thread loads.  After tiling, each
 * op is a loop of its own over its tiles inside the one workgroup program,
 * in program order: a softmax is a loop finding the row's max, a loop
 * summing exp(x - max), and a loop writing exp(x - max) / sum, each
 * reading the row again.  A reduction's result is in every thread's
 * registers after its reduce, so a later loop reads it from there.
 *
 * ls_fused_build builds that kernel as a plan the engine runs: one phase
 * per loop, each with its own plan (a reduction's, or the elementwise op's
 * view: the op laid out as the reductions are), and the kernel's inputs,
 * every tensor some loop loads, each once.  A dispatch is fused only when
 * its loops share the workgroups, subgroups and tiles (what IREE's
 * heuristic gives them); otherwise the reason is given and each reduction
 * is timed as its own kernel.  docs/reduction-families.md, "Several
 * reductions in one dispatch", has the rules and what is left out.
 */
#ifndef LANESCOPE_FUSED_H
#define LANESCOPE_FUSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/import.h"
#include "lanescope/plan.h"

#define LS_FUSED_MAX_PHASES 8

typedef struct {
    const ls_plan *plan;  /* the loop's own plan */
    bool elementwise;     /* a stored elementwise op: its loop stores each tile */
    bool store;           /* a reduction whose result the dispatch stores */
    int problem;          /* a reduction's: the module's problem; else -1 */
    int elementwise_op;   /* an elementwise op's: ls_module.elementwise index; else -1 */
    /* the kernel input each input of plan is, -1 when it is not loaded */
    int operand[LS_MAX_INPUTS];
    /* input k held in registers: the phase whose result it is, else -1 */
    int held[LS_MAX_INPUTS];
    /* an elementwise op's stores per thread and iteration, and the bytes a
     * subgroup writes with each */
    int64_t stores, store_bytes;
    int64_t store_width;  /* elements a store writes, a thread */
    char store_type[200]; /* the stored vector, distributed ("" unknown) */
    /* an elementwise op's (epilogue's too) result dims as the kernel's
     * loops, outermost first (row-major) */
    int out_map[LS_MAX_RANK];
    int out_map_n;
    /* An elementwise op over the reduction's results only (its loops the
     * workgroup's): no loop; after the reduce that makes its operand, each
     * thread applies the body to its results and stores them
     * (epilogue_bytes a subgroup per result slot) */
    bool epilogue;
    int64_t epilogue_bytes;
    int epilogue_alu, epilogue_sfu; /* its body's instructions per result */
    /* A reduction's loop that also stores the result of an elementwise
     * producer the dispatch stores (IREE fuses the producer into the loop
     * and writes its tile there): its stores per thread and iteration, the
     * bytes of each, and which op (ls_module.elementwise index, else -1) */
    int producer_op;
    int64_t producer_stores, producer_store_bytes;
    char producer_what[96];
    /* that producer laid out as the reduction (its view plan, in this
     * kernel's view_plan) and its result's dims as the kernel's loops */
    const ls_plan *producer_plan;
    int producer_out_map[LS_MAX_RANK];
    int producer_out_map_n;
    char what[160];       /* "linalg.softmax#1.max", "the linalg.generic at 16:8" */
    /* An elementwise op whose loops or config are not the reductions'
     * (IREE gives each op of the dispatch its own lowering_config and
     * layout; they share only the workgroups): its view is over its own
     * loops, laid out by its own config (plan->derived, in this kernel's
     * view_derived), and reads a reduction's result only where every
     * thread holds it.  Threads its layout does not tell apart compute
     * the same elements; only the first of each such group writes (IREE's
     * transfer_write distribution guards the write), and that first group
     * is subgroups 0 .. writers - 1. */
    bool own_layout;
    int writers;          /* an elementwise op's writing subgroups (all of them: num_subgroups) */
} ls_fused_phase;

typedef struct ls_fused_kernel {
    int n_phases;
    ls_fused_phase phase[LS_FUSED_MAX_PHASES];
    /* What the engine runs: the first reduction's problem and plan with
     * every tensor the loops load as inputs; plan.fused points here. */
    ls_problem problem;
    ls_plan plan;
    /* the elementwise ops' views and plans (phase[].plan points here) */
    ls_problem view[LS_FUSED_MAX_PHASES];
    ls_plan view_plan[LS_FUSED_MAX_PHASES];
    /* an own-layout phase's layout (its view plan's derived) */
    ls_derived view_derived[LS_FUSED_MAX_PHASES];
    /* kernel input u is input input_operand[u] of phase input_phase[u]'s
     * plan: its loops, sizes and layout are that phase's */
    int input_phase[LS_MAX_INPUTS], input_operand[LS_MAX_INPUTS];
} ls_fused_kernel;

/* The one kernel of the dispatch of reduction `lead` (the dispatch's first
 * reduction; plans: every problem's plan, indexed as m->problems).  True
 * when the dispatch has more than one loop and they can run as one kernel;
 * false when it has one loop only (why is "") or with the reason in why.
 * k must stay where it is while k->plan is used. */
bool ls_fused_build(const ls_module *m, size_t lead, const ls_plan *plans, ls_fused_kernel *k,
                    char *why, size_t why_size);
/* As ls_fused_build, for one config given to every op of the dispatch (a
 * sweep's point): the reductions' plans were built with it, and each
 * elementwise op is tiled as the first reduction, whatever config the
 * input wrote on it. */
bool ls_fused_build_same_config(const ls_module *m, size_t lead, const ls_plan *plans,
                                ls_fused_kernel *k, char *why, size_t why_size);
/* The fewest bytes the kernel can move: every tensor it loads once, every
 * result it stores once. */
int64_t ls_fused_min_bytes(const ls_fused_kernel *k);

/* The loops, layout and operand index kernel input u is addressed in:
 * the phase plan that loads it (an own-layout phase's differ from the
 * kernel's). */
const ls_plan *ls_fused_input_space(const ls_fused_kernel *k, int u, int *operand);

/* The earlier kernel input that is the same tensor as input u, read in
 * another phase's loops (an own-layout phase's, fused.h): the same name,
 * type and elements; -1 when u is a tensor of its own.  Both read the same
 * memory. */
int ls_fused_input_alias(const ls_fused_kernel *k, int u);

/* Its loops: its phases but the epilogues. */
int ls_fused_loop_count(const ls_fused_kernel *k);

/* The kernel's loops in IREE's vocabulary, as `sim --dump-plan` prints
 * them after the reductions' own plans: an elementwise loop in full. */
void ls_fused_dump(const ls_fused_kernel *k, FILE *f);

/* The first reduction of problem i's dispatch (its kernel's lead): i
 * itself when i has no dispatch. */
size_t ls_fused_first(const ls_module *m, size_t i);

/* The loops the dispatch of reduction `lead` has: its reductions (each
 * result of a multi-result op one), the reducing ops lanescope does not
 * model, and the elementwise ops whose results it stores; 1 without a
 * dispatch. */
int ls_fused_loops(const ls_module *m, size_t lead);

/* Whether the dispatch stores value (a dispatch.tensor.store of it). */
bool ls_dispatch_stores(const ls_dispatch *d, const char *value);

#endif
