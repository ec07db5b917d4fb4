/* plan_internal.h: what plan.c and plan_argcmp.c share.  Not installed. */
#ifndef LANESCOPE_PLAN_INTERNAL_H
#define LANESCOPE_PLAN_INTERNAL_H

#include "lanescope/plan.h"


/* The arg_compare fields of a plan whose generic part is built. */
ls_status ls_plan_argcmp(const ls_problem *p, const ls_derived *d, ls_plan_target t,
                         ls_plan *plan, ls_diag *diag);
/* The listing of an arg_compare plan (ls_plan_dump's). */
void ls_plan_argcmp_dump(const ls_plan *plan, FILE *f);
/* plan_promote.c: the promote fields' lines in the listing (the
 * allocations before the loop, the copy at the top of its body). */
void ls_plan_promote_dump_alloc(const ls_plan *plan, FILE *f);
void ls_plan_promote_dump_copy(const ls_plan *plan, FILE *f);
/* The three-input SASS instruction ptxas fuses two of the plan's combines
 * into on NVIDIA (plan.combine_fuses3, ls_plan_fold_fuses3): IADD3, LOP3,
 * IMNMX or VHMNMX (plan_thread_reduce.c). */
const char *ls_plan_ptxas_fused_name(const ls_plan *plan);
/* The text of one gpu.subgroup_reduce and its steps; with `v`, each AMD
 * step followed by what LLVM compiles it into for v's target, type and
 * combiner (ls_plan_dpp_step_alu). */
void ls_plan_dump_reduce(FILE *f, const char *indent, const ls_subgroup_reduce *r, const char *kind,
                         const char *ty, const ls_reduce_value *v);

#endif
