/* cli.h: helpers shared by the lanescope subcommands (output capture,
 * atomic file writes, flag parsing) and the subcommand entry points. */
#ifndef LANESCOPE_CLI_H
#define LANESCOPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/atomic.h"
#include "lanescope/diag.h"
#include "lanescope/hwmodel.h"
#include "lanescope/import.h"
#include "lanescope/plan.h"

/* Output collected in memory so a failure leaves nothing half-written. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} ls_out;

void ls_out_open(ls_out *o);
/* Close and deliver: to path atomically (temp file + rename), or stdout when
 * path is NULL or "-".  Returns 0, or 1 after printing a one-line error. */
int ls_out_commit(ls_out *o, const char *path);
void ls_out_discard(ls_out *o);

/* Parse an integer flag value into *out, within min..max; prints
 * "lanescope CMD: --flag: ..." on error.  A flag whose *out was set by an
 * earlier call (the flag given twice) is refused with both values: one
 * command a process, so out names the flag. */
bool ls_flag_int(const char *cmd, const char *flag, const char *value, int64_t min, int64_t max,
                 int64_t *out);
/* A flag that takes one value: *slot = value, or, when it was given
 * already, "lanescope CMD: FLAG given twice ('a', then 'b')" and false
 * (never the last one silently winning). */
bool ls_flag_once(const char *cmd, const char *flag, const char **slot, const char *value);
/* --dim N=SIZE (repeatable): SIZE for dynamic loop dim dN of the ops read
 * (ls_import_dims); prints "lanescope CMD: --dim: ..." on error. */
bool ls_flag_dim(const char *cmd, const char *value, ls_import_dims *dims);
/* Print "lanescope CMD: file:line:col: message" for a diag to stderr. */
void ls_cli_report(const char *cmd, const ls_diag *d);
/* Monotonic seconds, for progress lines (the simulator never reads a clock). */
double ls_cli_now(void);
/* Progress of a long run (cli_progress.c): redrawn on a terminal after a
 * second; elsewhere a line every LANESCOPE_PROGRESS_SECONDS (default 10,
 * 0: one per percent); nothing with quiet. */
typedef struct {
    const char *cmd, *subject, *unit;
    double start, last, every;
    int last_pct;
    bool tty, quiet, shown;
} ls_cli_progress;
void ls_cli_progress_init(ls_cli_progress *p, const char *cmd, const char *subject,
                          const char *unit, bool quiet);
void ls_cli_progress_update(ls_cli_progress *p, int64_t done, int64_t total);
/* Clears the terminal line (call before printing anything else). */
void ls_cli_progress_end(ls_cli_progress *p);
/* ls_cli_progress_update as the engine's and the check's progress callback
 * (ctx: the ls_cli_progress). */
void ls_cli_progress_cb(void *ctx, int64_t done, int64_t total);
/* Print "lanescope CMD: message" to stderr. */
void ls_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The machine a --target means, the same in every command: a built-in model
 * (h100, h200, a100, mi300x, mi355x, rx7900xtx) or .hw file with its own
 * target; an IREE target name or an .mlir file with an #iree_gpu.target,
 * modelled by ls_hw_for_target (hw->note says what is estimated); with no
 * --target the input's target, else a model by subgroup size (64: mi300x,
 * else h100).  *t is the IREE target when *has_t. */
ls_status ls_cli_hw(const ls_module *m, const char *target, int64_t subgroup_size, ls_hw *hw,
                    ls_target *t, bool *has_t, ls_diag *diag);
/* The hardware model for reduction p: --target when given, else the
 * file's #iree_gpu.target, else by subgroup size (64: mi300x, 32: h100);
 * a problem without a target takes the model's IREE-visible limits.
 * Every body of m (and p's) then computes its math ops as the target's
 * compiled code does (ls_module_set_math). */
ls_status ls_cli_model(const ls_module *m, ls_problem *p, const char *target, ls_hw *hw,
                       ls_diag *diag);

/* A problem from --shape/--iter/--type/--combiner.  lenient (suggest,
 * sweep's flags): '?' sizes (stored as 0) and any iN / fN width, returned
 * through in_bits/out_bits (0: the problem's own types).  "flags" names it. */
bool ls_cli_flags_problem(const char *shape, const char *iter, const char *type,
                          const char *combiner, bool lenient, ls_problem *p, int *in_bits,
                          int *out_bits, ls_diag *diag);
/* A problem stated without an INPUT, and --config for every reduction
 * (cli_problem.c): explain, sim and draw read these the same way.  The
 * LS_CLI_OPT_* values are getopt_long ids no command uses for another
 * option; LS_CLI_PROBLEM_LONGOPTS lists the five for a longopts table. */
typedef struct {
    const char *config, *shape, *iter, *type, *combiner;
    int import_flags; /* ls_module_parse_ex flags for INPUT (explain: LS_IMPORT_ATTENTION) */
} ls_cli_problem_flags;
enum { LS_CLI_OPT_CONFIG = 0x1000, LS_CLI_OPT_SHAPE, LS_CLI_OPT_ITER, LS_CLI_OPT_TYPE,
       LS_CLI_OPT_COMBINER };
#define LS_CLI_PROBLEM_LONGOPTS                                                                  \
    {"config", required_argument, NULL, LS_CLI_OPT_CONFIG},                                     \
        {"shape", required_argument, NULL, LS_CLI_OPT_SHAPE},                                   \
        {"iter", required_argument, NULL, LS_CLI_OPT_ITER},                                     \
        {"type", required_argument, NULL, LS_CLI_OPT_TYPE},                                     \
        {"combiner", required_argument, NULL, LS_CLI_OPT_COMBINER}
/* The five ids as the case labels of a getopt switch. */
#define LS_CLI_PROBLEM_CASES                                                                     \
    case LS_CLI_OPT_CONFIG:                                                                     \
    case LS_CLI_OPT_SHAPE:                                                                      \
    case LS_CLI_OPT_ITER:                                                                       \
    case LS_CLI_OPT_TYPE:                                                                       \
    case LS_CLI_OPT_COMBINER
/* Option id `which` with its value: 1 taken, 0 not one of these, -1 refused
 * (given twice; the message is printed). */
int ls_cli_problem_flag(const char *cmd, ls_cli_problem_flags *pf, int which, const char *arg);
/* Before loading: INPUT and --shape together, or --iter/--type/--combiner
 * without --shape, are refused with a message (false). */
bool ls_cli_problem_source(const char *cmd, const char *input, const ls_cli_problem_flags *pf);
/* The module: INPUT's (with dims), or the one problem the flags state; then
 * --config given to every reduction. */
ls_status ls_cli_problem_load(const char *input, const ls_cli_problem_flags *pf,
                              const ls_import_dims *dims, ls_module *m, ls_diag *diag);

/* "s" for a count other than one: "%lld workgroup%s", n, ls_s(n). */
static inline const char *ls_s(long long n)
{
    return n == 1 ? "" : "s";
}

/* Where p's config came from, for reports: "input", "--config" or
 * "iree-default" (IREE's heuristic, the input having none). */
const char *ls_cli_config_source(const ls_problem *p);

/* --target: a built-in name or a file with an #iree_gpu.target. */
bool ls_cli_target(const char *spec, ls_target *t, ls_diag *diag);
/* Problem i of m has no lowering_config: give it the one IREE's heuristic
 * chooses for its target (p->target must be set), from the dispatch the
 * importer recorded.  An error says why IREE would reject it. */
ls_status ls_cli_suggest_config(ls_module *m, ls_problem *p, ls_diag *diag);

int ls_cmd_explain(int argc, char **argv);
int ls_cmd_suggest(int argc, char **argv);
int ls_cmd_sweep(int argc, char **argv);
int ls_cmd_draw(int argc, char **argv);
int ls_cmd_sim(int argc, char **argv);
int ls_cmd_measure(int argc, char **argv);
int ls_cmd_calibrate(int argc, char **argv);
int ls_cmd_compare(int argc, char **argv);
int ls_cmd_view(int argc, char **argv);

/* A bundled example by file name: $LANESCOPE_EXAMPLES, the installed
 * examples, then the source tree's; NULL when none has it (cli_view.c). */
const char *ls_cli_bundled_example(const char *name, char *buf, size_t size);

/* `sim --dump-plan=json`: the plan's facts (plan_json.c). */
struct json_object;
struct json_object *ls_cli_plan_json(const ls_plan *plan);
/* The same for an attention's kernel (attention.h's ls_att_plan). */
struct ls_att_plan;
struct json_object *ls_cli_attention_plan_json(const struct ls_att_plan *p);
/* A JSON report's root object: "schema": "lanescope/NAME" and "version"
 * first (docs/json.md; the schemas are in docs/schema/). */
#define LS_JSON_SCHEMA_VERSION 1
struct json_object *ls_cli_json_root(const char *name);

#endif
