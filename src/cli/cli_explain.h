/* cli_explain.h: what the two halves of `lanescope explain` share -- the
 * options, the JSON helpers, and the nested-layout and swizzle reports
 * (cli_explain_layouts.c) the command (cli_explain.c) calls. */
#ifndef LANESCOPE_CLI_EXPLAIN_H
#define LANESCOPE_CLI_EXPLAIN_H

#include <json-c/json.h>
#include <stdio.h>

#include "cli.h"
#include "lanescope/attention.h"
#include "lanescope/import.h"
#include "lanescope/layout.h"

typedef enum { FMT_TEXT, FMT_MD, FMT_JSON } out_format;

typedef struct {
    out_format fmt;
    bool has_thread;
    int64_t thread;
    int64_t rows;      /* swizzle table rows; 0 = one period */
    int64_t hw_subgroups; /* nested layouts: subgroups on the hardware; 0 = as used */
    int64_t subgroup_size; /* 0 = from the input */
    int64_t workgroup_size;
    const char *target, *output;
    ls_cli_problem_flags pf; /* --shape ... or INPUT, and --config */
    ls_import_dims dims; /* --dim */
} opts;

static inline json_object *jlist(const int64_t *v, int n)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_int64(v[i]));
    return a;
}

static inline void jset(json_object *o, const char *k, json_object *v)
{
    json_object_object_add(o, k, v);
}

/* A thread of a reduction's workgroup: its subgroup and lane, their basis
 * coordinates, the layout's virtual ids and its register count. */
typedef struct {
    int64_t tid, sg, lane;
    int64_t lane_basis[LS_MAX_RANK + 1], sg_basis[LS_MAX_RANK + 1];
    int64_t lane_dims[LS_MAX_RANK], sg_dims[LS_MAX_RANK];
    int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY];
    int64_t n_regs;
} thread_info;
void explain_thread_info(const ls_problem *p, const ls_derived *d, int64_t tid,
                         thread_info *t);
/* Input k is named by the config's promote_operands. */
bool explain_promoted(const ls_problem *p, int k);
/* cli_explain_kernel.c: after a dispatch's last reduction (problem
 * `last`), the one kernel IREE builds for the dispatch, or why sim times
 * its reductions apart; nothing (NULL) for a dispatch of one loop. */
void explain_text_kernel(FILE *f, const ls_module *m, size_t last, const ls_derived *derived,
                         const opts *o);
json_object *explain_json_kernel(const ls_module *m, size_t last, const ls_derived *derived);
/* cli_explain_attention.c: an attention op, as text / markdown and JSON. */
void explain_text_attention(FILE *f, const ls_module *m, const ls_module_attention *ma,
                            const ls_attention *a, const opts *o);
json_object *explain_json_attention(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a);
/* cli_explain_json.c: a reduction as JSON. */
json_object *explain_json_problem(const ls_problem *p, const ls_derived *d, const opts *o);

/* cli_explain_layouts.c */
bool explain_layout_check(const ls_module_layout *ml, const char *file, const opts *o,
                          ls_diag *diag);
void explain_text_layout(FILE *f, const ls_module_layout *ml, const char *file, const opts *o);
json_object *explain_json_layout(const ls_module_layout *ml, const char *file, const opts *o);
void explain_text_swizzle(FILE *f, const ls_module_swizzle *ms, const char *file, const opts *o);
json_object *explain_json_swizzle(const ls_module_swizzle *ms, const char *file, const opts *o);

#endif
