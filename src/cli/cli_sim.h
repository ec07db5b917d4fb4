/* cli_sim.h: what `lanescope sim` prints (cli_sim_report.c): the text
 * report, the CSV rows and the JSON object of one reduction. */
#ifndef LANESCOPE_CLI_SIM_H
#define LANESCOPE_CLI_SIM_H

#include <json-c/json.h>
#include <stdio.h>

#include "lanescope/attention.h"
#include "lanescope/bottleneck.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/import.h"
#include "lanescope/problem.h"

/* How a result of a multi-result linalg.generic was timed: as IREE's one
 * kernel for all of them (ls_plan_fuse_results), by the run of result
 * `lead` (NULL: this result's own run). */
typedef struct {
    bool one_kernel;
    const char *lead;
    /* a dispatch's one kernel (fused.h): this reduction is one of its
     * loops, timed by the run of `lead` (NULL: this one's, the first) */
    const struct ls_fused_kernel *fused;
    /* a dispatch with several loops that are timed apart: why ("" else) */
    const char *apart;
} kernel_share;

void ls_sim_print_text(FILE *f, const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                       const ls_bottleneck *bn, const kernel_share *ks);
json_object *ls_sim_bottleneck_json(const ls_bottleneck *b);
void ls_sim_print_csv_header(FILE *f);
void ls_sim_print_csv(FILE *f, const ls_problem *p, const ls_hw *hw, const ls_sim_result *r);
json_object *ls_sim_json_result(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                                const ls_functional_result *fr, bool checked, int64_t seed,
                                const kernel_share *ks);
/* An op of a dispatch that its kernel runs and that sim does not time:
 * parallel loops only (an elementwise consumer, a softmax's division by the
 * sum), with a result the dispatch stores.  Bytes: what it reads from
 * memory (inputs no op of the dispatch computes) and writes; -1: a dynamic
 * size. */
typedef struct {
    const ls_dop *op;
    int64_t read_bytes, write_bytes;
} ls_sim_untimed;
/* Dispatch di's untimed ops into out[0 .. max); their count. */
int ls_sim_untimed_ops(const ls_module *m, int di, ls_sim_untimed *out, int max);
void ls_sim_print_untimed(FILE *f, const ls_sim_untimed *u, int n);
/* How the values of body b's math ops were computed (body.h's
 * ls_math_mode), when it has any: a user comparing outputs with IREE's
 * needs to know which are bit for bit. */
void ls_sim_print_math(FILE *f, const ls_body *b);
/* The same as JSON: {"mode", "as_target_code": [...], "correctly_rounded": [...]}. */
json_object *ls_sim_math_json(const ls_body *b);
json_object *ls_sim_untimed_json(const ls_sim_untimed *u, int n);

/* An arg_compare's check: values and indices, and the ties IREE's
 * lowering breaks its own way (functional.h: index_ties). */
void ls_sim_print_argcmp_check(FILE *f, const ls_problem *p, const ls_functional_result *fr,
                               const char *from);

/* `lanescope sim` for attention op i of m (cli_sim_attention.c): its
 * values checked (with check), reported as text on f or into the JSON
 * array arr (non-NULL), its plan first with dump.  0, or 1 with diag set. */
typedef struct {
    const char *target;
    bool check, force, quiet, csv;
    bool dump, dump_json; /* --dump-plan: the kernel's plan as text, or into the JSON */
    uint64_t seed;
    int64_t max_wg;
} ls_sim_attention_opts;
int ls_sim_attention(ls_module *m, size_t i, const ls_sim_attention_opts *o, FILE *f,
                     json_object *arr, ls_diag *diag);
/* Attention i of m laid out and seen by the engine: the machine (target,
 * else the input's, else by subgroup size), the op, its view.  *a (free)
 * and *v (ls_att_view_free) are the caller's, set or NULL even on error. */
ls_status ls_cli_attention_view(ls_module *m, size_t i, const char *target, ls_hw *hw,
                                ls_attention **a, ls_att_view **v, ls_diag *diag);

#endif
