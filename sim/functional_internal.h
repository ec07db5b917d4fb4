/* functional_internal.h: what functional.c, reference.c and argcmp.c share.  Not
 * installed. */
#ifndef LANESCOPE_FUNCTIONAL_INTERNAL_H
#define LANESCOPE_FUNCTIONAL_INTERNAL_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lanescope/functional.h"
#include "lanescope/value.h"

/* One gpu.subgroup_reduce over the lanes of one subgroup, v[lane] in
 * place (tmp: sg_size scratch); max_steps >= 0 stops after that many. */
void ls_func_run_reduce(const ls_subgroup_reduce *r, ls_combiner k, ls_elem_type t, ls_value *v,
                        ls_value *tmp, int64_t sg_size, int max_steps);
/* Linear position, over the parallel body dims' layout extents, of the
 * output result slot q of thread tid belongs to (slot_reg: each result
 * slot's first register). */
int64_t ls_func_parallel_pos(const ls_derived *d, const ls_problem *p, const int64_t *slot_reg,
                             int64_t tid, int64_t q);
/* The output coordinates (parallel loop dims in order, *no of them) that
 * result slot q of writer thread tid holds in workgroup wg_coord; false when
 * the slot is padding past the parallel bounds. */
bool ls_func_output_of(const ls_derived *d, const ls_problem *p, const int64_t *slot_reg,
                       int64_t tid, const int64_t *wg_coord, int64_t q, int64_t *out, int *no);

/* The fast path's combine of f32 values the generator made. */
static inline float ls_fast_combine(ls_combiner k, float a, float b)
{
    switch (k) {
    case LS_COMB_ADD: return a + b;
    case LS_COMB_MUL: return a * b;
    case LS_COMB_MINIMUMF:
    case LS_COMB_MINNUMF: return b < a ? b : a; /* the generator makes no NaN and no -0 */
    default: return b > a ? b : a;
    }
}

/* reference.c: ls_reference_output on the fast path (f32, no body, the
 * seeded generator), walked with index strides; depth as ls_ref_acc's. */
void ls_ref_fast_output(const ls_problem *p, uint64_t seed_hash, const int64_t *strides,
                        int64_t depth, const int64_t *out, ls_value *value, double *bound);

/* reference.c: the reference loop's accumulator, its rounding bound. */
/* A reference reduction's running state: exact (long double) for float add
 * and mul, with the magnitude the rounding bound needs; the combiner itself
 * otherwise (exact for integers, min/max and bitwise kinds). */
typedef struct {
    const ls_problem *p;
    bool approx;
    ls_value acc;
    long double exact, abs_sum;
    int64_t n;
    int low; /* a float sum's: ls_low_bit of every value so far, the least */
    /* the most roundings any value goes through in the computation
     * checked against this (the plan's summation depth, ls_plan_depth);
     * 0: unknown, n bounds it */
    int64_t depth;
    /* the computation checked fuses each value's product into its add (an
     * FMA: docs/reduction-families.md "Where IREE fuses a multiply and an
     * add"), so it skips the product's rounding that the values here went
     * through: one more rounding in the bound, and never the exact one */
    bool fused;
} ls_ref_acc;

double ls_ref_float_bound(const ls_problem *p, int64_t n, double magnitude);
/* The roundings a bound counts for n values combined at most depth deep
 * (0: unknown): the fewer. */
static inline int64_t ls_ref_steps(int64_t n, int64_t depth)
{
    return depth > 0 && depth < n ? depth : n;
}
/* ls_reference_output for a computation in which no value goes through
 * more than depth roundings (0: unknown): the bound of that depth (fused:
 * ls_ref_acc's). */
void ls_reference_output_depth(const ls_problem *p, ls_input_source in, const int64_t *out,
                               int64_t depth, bool fused, ls_value *value, double *bound);
/* The most roundings a value goes through in plan's reduction, whatever
 * the order within a thread: every element a thread combines, each step
 * of every gpu.subgroup_reduce, the partials of the subgroups combined one
 * by one, and the init. */
int64_t ls_plan_depth(const ls_plan *plan);
/* The exponent of the lowest set bit of d (d = k x 2^e with k odd: e);
 * INT_MAX for 0, INT_MIN for an infinity or NaN. */
static inline int ls_low_bit(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & ((UINT64_C(1) << 52) - 1);
    if (e == 0x7ff)
        return INT_MIN;
    if (e == 0 && m == 0)
        return INT_MAX;
    if (e != 0)
        m |= UINT64_C(1) << 52;
    return (e ? e : 1) - 1075 + __builtin_ctzll(m);
}
/* A float sum's bound, given the least low bit of its values and the
 * init: 0 (the sum is exact, in any order) when every partial sum is a
 * multiple of 2^low no larger than magnitude and so held exactly in
 * p's accumulator type; else ls_ref_float_bound's. */
double ls_ref_sum_bound(const ls_problem *p, int64_t n, double magnitude, int low);
void ls_ref_begin(ls_ref_acc *r, const ls_problem *p);
void ls_ref_end(const ls_ref_acc *r, ls_value *value, double *bound);
static inline void ls_ref_add(ls_ref_acc *r, ls_value v)
{
    r->n++;
    if (!r->approx) {
        r->acc = ls_combine(r->p->combiner, r->p->acc_type, r->acc, v);
        return;
    }
    long double d = ls_value_to_double(v, r->p->acc_type);
    if (r->p->combiner == LS_COMB_ADD) {
        int low = ls_low_bit((double)d);
        r->low = low < r->low ? low : r->low;
        r->exact += d;
        r->abs_sum += fabsl(d);
    } else {
        r->exact *= d;
    }
}


/* argcmp.c: the functional run and the snapshots of an arg_compare plan. */
/* a progress callback and its context, for the per-workgroup loops */
typedef struct {
    void (*fn)(void *ctx, int64_t done, int64_t total);
    void *ctx;
} ls_progress_fn;
ls_status ls_argcmp_run(const ls_plan *plan, ls_input_source in, int64_t first, int64_t last,
                        const ls_progress_fn *progress, ls_functional_result *res, ls_diag *diag);
void ls_argcmp_snapshot(const ls_plan *plan, ls_input_source in, int64_t workgroup,
                        const ls_func_point *at, ls_func_snapshot *out);

#endif
