/* stepper.h: step through one workgroup of a simulated reduction, for the
 * viewer and for teaching.
 *
 * The timeline is the engine's record of every instruction issue, barrier
 * release and finish of the chosen workgroup, taken from one deterministic
 * run; stepping forward or back moves along it (so stepping back costs
 * nothing and always shows exactly what stepping forward showed).  Lane
 * values and the shared-memory buffer at the current position come from
 * replaying that workgroup's functional model up to the matching point of
 * the plan (ls_functional_snapshot).
 */
#ifndef LANESCOPE_STEPPER_H
#define LANESCOPE_STEPPER_H

#include "lanescope/engine.h"
#include "lanescope/functional.h"

#define LS_STEPPER_MAX_RECORDS (1 << 22)

typedef enum { LS_STEP_EVENT, LS_STEP_INSTRUCTION, LS_STEP_STAGE, LS_STEP_BARRIER } ls_step_unit;

typedef struct ls_stepper ls_stepper;

/* Runs the engine once; plan and hw must outlive the stepper. */
ls_status ls_stepper_new(const ls_plan *plan, const ls_hw *hw, ls_input_source in,
                         int64_t workgroup, ls_stepper **out, ls_diag *diag);
/* The same with a record limit other than LS_STEPPER_MAX_RECORDS (the
 * limit's own test runs it at a workgroup's exact length). */
ls_status ls_stepper_new_capped(const ls_plan *plan, const ls_hw *hw, ls_input_source in,
                                int64_t workgroup, int64_t max_records, ls_stepper **out,
                                ls_diag *diag);
void ls_stepper_free(ls_stepper *st);

int64_t ls_stepper_length(const ls_stepper *st);
int64_t ls_stepper_position(const ls_stepper *st); /* -1: before the first record */
const ls_engine_record *ls_stepper_record(const ls_stepper *st, int64_t i);
/* Move to the next / previous record of the unit; false (and no move) at an end. */
bool ls_stepper_forward(ls_stepper *st, ls_step_unit unit);
bool ls_stepper_back(ls_stepper *st, ls_step_unit unit);

/* The plan point subgroup `subgroup` has reached at the current position. */
ls_func_point ls_stepper_point(const ls_stepper *st, int subgroup);
/* Lane values of the workgroup at that subgroup's point. */
ls_status ls_stepper_snapshot(const ls_stepper *st, int subgroup, ls_func_snapshot *out,
                              ls_diag *diag);

#endif
