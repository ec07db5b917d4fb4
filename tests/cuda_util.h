/* cuda_util.h: what the CUDA generator's test files share: NVRTC to PTX
 * with an empty log, substring counts, plans lowered for sm_90, and the
 * emulated check that must pass as generated and fail when sabotaged. */
#ifndef LANESCOPE_TESTS_CUDA_UTIL_H
#define LANESCOPE_TESTS_CUDA_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/measure.h"
#include "testutil.h"

static inline ls_nvrtc *nvrtc(void)
{
    static ls_nvrtc *n;
    static bool tried;
    if (!tried) {
        ls_diag d;
        ls_diag_clear(&d);
        tried = true;
        if (ls_nvrtc_open(&n, &d) != LS_OK) {
            /* a build with the CUDA path must find NVRTC; one without skips */
            ck_assert_msg(!ls_cuda_built(), "NVRTC not found in a CUDA build: %s", d.msg);
            fprintf(stderr, "test_cuda: %s -- NVRTC checks skipped\n", d.msg);
        }
    }
    return n;
}

/* Compile to PTX; the log must be empty.  Returns the PTX (caller frees) or NULL. */
static inline char *ptx_of(const char *src, const char *what)
{
    ls_nvrtc *n = nvrtc();
    if (!n)
        return NULL;
    char *ptx = NULL, *log = NULL;
    size_t size;
    ls_diag d;
    ls_diag_clear(&d);
    ls_status st = ls_nvrtc_compile(n, src, "kernel.cu", "sm_90", false, &ptx, &size, &log, &d);
    if (st != LS_OK || !log || log[0]) { /* Check's messages are short: the details go here */
        fprintf(stderr, "--- %s: NVRTC log:\n%s\n--- source:\n%s\n", what, log ? log : d.msg,
                src);
        ck_abort_msg("%s: NVRTC %s (log and source on stderr)", what,
                     st != LS_OK ? "failed" : "warned");
    }
    free(log);
    return ptx;
}

static inline int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
        n++;
    return n;
}

typedef struct {
    ls_module *m;
    ls_derived d;
    ls_plan plan;
} loaded;

static inline void load_plan(loaded *x, const char *example, const char *arch)
{
    ls_diag d;
    x->m = load_example(example, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_uint_ge(x->m->n_problems, 1);
    ls_problem *p = &x->m->problems[0];
    ck_assert_int_eq(ls_derive(p, &x->d, &d), LS_OK);
    ck_assert_int_eq(ls_plan_build(p, &x->d, ls_plan_target_from_arch(arch), &x->plan, &d), LS_OK);
}

/* As emulate_then_sabotage, with the inputs given (intermediates bound). */
static inline void emulate_then_sabotage_in(const ls_plan *plan, char *src,
                                            const ls_cuda_launch *L, ls_input_source in,
                                            int64_t outputs, const char *good, const char *bad)
{
    ls_diag d;
    ls_diag_clear(&d);
    int64_t checked;
    double ratio;
    ck_assert_msg(ls_cuda_emulate_source(plan, src, L, in, &checked, &ratio, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert_int_eq(checked, outputs);
    char *at = strstr(src, good);
    ck_assert_msg(at != NULL, "no '%s' in the source", good);
    ck_assert_uint_eq(strlen(good), strlen(bad));
    memcpy(at, bad, strlen(bad));
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_cuda_emulate_source(plan, src, L, in, &checked, &ratio, &d),
                     LS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(d.msg, "the generated kernel's output"));
}

static inline void emulate_then_sabotage(const ls_plan *plan, char *src, const ls_cuda_launch *L,
                                         uint64_t seed, int64_t outputs, const char *good,
                                         const char *bad)
{
    emulate_then_sabotage_in(plan, src, L, (ls_input_source){seed, NULL, {NULL}}, outputs, good,
                             bad);
}

/* p lowered for NVIDIA (sm_90): translation_info of wg threads in subgroups
 * of 32, derived and planned. */
static inline void plan_nvidia(ls_problem *p, int64_t wg, ls_derived *dv, ls_plan *plan)
{
    ls_diag d;
    ls_diag_clear(&d);
    p->has_ti = true;
    p->ti.has_subgroup_size = p->ti.has_workgroup_size = true;
    p->ti.subgroup_size = 32;
    p->ti.workgroup_size[0] = wg;
    p->ti.workgroup_size[1] = p->ti.workgroup_size[2] = 1;
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch("sm_90"), plan, &d) == LS_OK,
                  "%s", d.msg);
}

/* A dispatch's first reduction planned for sm_90 with a workgroup of wg
 * threads (the module and *dv are the caller's to free). */
static inline ls_module *nvidia_plan_of(const char *text, int64_t wg, ls_derived **dv, ls_plan *plan)
{
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    *dv = ls_xcalloc(1, sizeof **dv);
    plan_nvidia(&m->problems[0], wg, *dv, plan);
    return m;
}

/* The end of a dispatch text: an f32 sum's region, the result's type. */
#define ADDF_F32_BODY(type)                                                                      \
    "  ^bb0(%a: f32, %b: f32):\n    %s = arith.addf %a, %b : f32\n    linalg.yield %s : f32\n"     \
    "  } -> " type "\n  return\n}\n"

#endif
