/* reference.c: the scalar reference the functional check compares with --
 * operand addressing and generated input values, the op's own loop over
 * the reduction in exact arithmetic where the type rounds, the rounding
 * bound a float result is held to, the value check itself, and the same
 * reference walked with index strides for the functional run's fast path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "func_kernels.h"
#include "functional_internal.h"

int64_t ls_operand_index(const ls_problem *p, int k, const int64_t *x)
{
    /* Operand dim j is loop dim map[j]; operand shape = sizes of those dims. */
    const ls_operand *o = &p->inputs[k];
    int64_t idx = 0;
    for (int j = 0; j < o->map_n; j++)
        idx = idx * ls_operand_dim(p, k, j) + x[o->map[j]] * (o->scale[j] ? o->scale[j] : 1);
    return idx;
}

int64_t ls_operand_dim(const ls_problem *p, int k, int j)
{
    const ls_operand *o = &p->inputs[k];
    return o->shape[j] ? o->shape[j] : p->size[o->map[j]];
}

void ls_operand_strides(const ls_problem *p, int k, int64_t *strides)
{
    const ls_operand *o = &p->inputs[k];
    int64_t s = 1;
    for (int i = 0; i < p->rank; i++)
        strides[i] = 0;
    for (int j = o->map_n - 1; j >= 0; j--) {
        strides[o->map[j]] += s * (o->scale[j] ? o->scale[j] : 1);
        s *= ls_operand_dim(p, k, j);
    }
}

int64_t ls_operand_elements(const ls_problem *p, int k)
{
    int64_t n = 1;
    for (int j = 0; j < p->inputs[k].map_n; j++)
        n *= ls_operand_dim(p, k, j);
    return n;
}

int64_t ls_input_index(const ls_problem *p, const int64_t *x)
{
    return ls_operand_index(p, 0, x);
}

void ls_input_strides(const ls_problem *p, int64_t *strides)
{
    ls_operand_strides(p, 0, strides);
}

uint64_t ls_operand_seed(uint64_t seed, int k)
{
    return k == 0 ? seed : seed + (uint64_t)k * 0x632be59bd9b4e019ull;
}

ls_value ls_operand_value(const ls_problem *p, ls_input_source in, int k, const int64_t *x)
{
    int64_t idx = ls_operand_index(p, k, x);
    if (in.values[k])
        return in.values[k][idx];
    if (in.npy && k == 0)
        return ls_npy_get(in.npy, idx);
    return ls_input_value(ls_operand_seed(in.seed, k), (uint64_t)idx, p->inputs[k].type,
                          p->combiner);
}

ls_value ls_problem_init(const ls_problem *p)
{
    /* an arg_compare's init is its fill's, or the comparator's identity */
    return p->has_init || p->argcmp.on ? p->init : ls_identity(p->combiner, p->acc_type);
}

ls_value ls_problem_element_at(const ls_problem *p, ls_input_source in, const int64_t *x,
                               ls_value *scratch)
{
    if (p->body.n == 0)
        return ls_value_extend(ls_operand_value(p, in, 0, x), p->inputs[0].type, p->acc_type);
    ls_value v[LS_MAX_INPUTS];
    for (int k = 0; k < p->n_inputs; k++)
        v[k] = ls_operand_value(p, in, k, x);
    return ls_body_eval(&p->body, v, x, scratch);
}

ls_value ls_problem_element(const ls_problem *p, ls_input_source in, const int64_t *x)
{
    ls_value scratch[LS_MAX_BODY_INSTS];
    return ls_problem_element_at(p, in, x, scratch);
}

ls_status ls_npy_check(const ls_npy *a, const ls_problem *p, const char *path, ls_diag *diag)
{
    if (a->type != p->inputs[0].type)
        return ls_diag_set(diag, LS_ERR_INVALID, path, 0, 0,
                           "the array holds %s but %s reads %s", ls_elem_type_name(a->type),
                           p->name, ls_elem_type_name(p->inputs[0].type));
    bool same = a->rank == p->inputs[0].map_n;
    for (int j = 0; same && j < p->inputs[0].map_n; j++)
        same = a->shape[j] == ls_operand_dim(p, 0, j);
    if (!same) {
        char want[160], got[160];
        size_t u = 0, v = 0;
        for (int j = 0; j < p->inputs[0].map_n; j++)
            u += (size_t)snprintf(want + u, sizeof want - u, "%s%lld", j ? "x" : "",
                                  (long long)ls_operand_dim(p, 0, j));
        for (int j = 0; j < a->rank && v < sizeof got; j++)
            v += (size_t)snprintf(got + v, sizeof got - v, "%s%lld", j ? "x" : "",
                                  (long long)a->shape[j]);
        return ls_diag_set(diag, LS_ERR_INVALID, path, 0, 0,
                           "the array's shape is %s but %s's input is %s", a->rank ? got : "()",
                           p->name, want);
    }
    return LS_OK;
}

/* (1+u)^n - 1 bounds the relative growth of every partial sum or product,
 * whatever the order; n*u/(1-n*u) is its usual form but only holds for
 * n*u < 1 (bf16 sums pass that at 256 elements). */
double ls_ref_float_bound(const ls_problem *p, int64_t n, double magnitude)
{
    double u = ls_unit_roundoff(p->acc_type);
    double steps = (double)n + 8; /* + the identity/init combines and the final rounding */
    return expm1(steps * log1p(u)) * magnitude;
}

double ls_ref_sum_bound(const ls_problem *p, int64_t n, double magnitude, int low)
{
    /* p bits of significand hold k x 2^low exactly for |k| <= 2^p, down
     * to the smallest subnormal and up to the largest finite value */
    int bits, least;
    double largest;
    switch (p->acc_type) {
    case LS_ET_F16: bits = 11, least = -24, largest = 65504.0; break;
    case LS_ET_BF16: bits = 8, least = -133, largest = 3.3895313892515355e38; break;
    case LS_ET_F32: bits = 24, least = -149, largest = 3.4028234663852886e38; break;
    case LS_ET_F64: bits = 53, least = -1074, largest = 1.7976931348623157e308; break;
    default: bits = 0, least = 0, largest = 0; break;
    }
    if (bits > 0 && low != INT_MIN && (low == INT_MAX || low >= least) && magnitude <= largest &&
        (low == INT_MAX || magnitude <= ldexp(1.0, bits + (low < 900 ? low : 900))))
        return 0;
    return ls_ref_float_bound(p, n, magnitude);
}

void ls_ref_begin(ls_ref_acc *r, const ls_problem *p)
{
    r->p = p;
    r->approx = ls_elem_type_is_float(p->acc_type) &&
                (p->combiner == LS_COMB_ADD || p->combiner == LS_COMB_MUL);
    r->acc = ls_problem_init(p);
    r->exact = ls_value_to_double(r->acc, p->acc_type);
    r->abs_sum = fabsl(r->exact);
    r->n = 0;
    r->low = ls_low_bit((double)r->exact);
    r->depth = 0;
    r->fused = false;
}

int64_t ls_plan_depth(const ls_plan *plan)
{
    const ls_derived *d = plan->derived;
    int64_t depth;
    if (!ls_mul_ok(d->total_iterations, d->elems_per_iteration, &depth) || depth > INT64_MAX / 4)
        return 0;
    for (int i = 0; i < plan->n_subgroup_reduces; i++)
        depth += plan->subgroup_reduces[i].n_steps;
    return depth + d->num_subgroups + 2;
}

void ls_ref_end(const ls_ref_acc *r, ls_value *value, double *bound)
{
    *bound = 0;
    *value = r->acc;
    if (r->approx) {
        /* each value goes through at most depth roundings, when known */
        int64_t steps = ls_ref_steps(r->n, r->depth);
        if (r->fused)
            *bound = ls_ref_float_bound(r->p, steps + 1, (double)r->abs_sum);
        else
            *bound = r->p->combiner == LS_COMB_ADD
                         ? ls_ref_sum_bound(r->p, steps, (double)r->abs_sum, r->low)
                         : ls_ref_float_bound(r->p, steps, (double)fabsl(r->exact));
        *value = ls_value_from_double((double)r->exact, r->p->acc_type);
    }
}

void ls_reference_output(const ls_problem *p, ls_input_source in, const int64_t *out,
                         ls_value *value, double *bound)
{
    ls_reference_output_depth(p, in, out, 0, false, value, bound);
}

void ls_reference_output_depth(const ls_problem *p, ls_input_source in, const int64_t *out,
                               int64_t depth, bool fused, ls_value *value, double *bound)
{
    if (p->argcmp.on) { /* the value result; ls_argcmp_reference gives both */
        ls_value index;
        ls_argcmp_reference(p, in, out, value, &index);
        *bound = 0;
        return;
    }
    int64_t x[LS_MAX_RANK] = {0};
    int red[LS_MAX_RANK], nred = 0;
    int64_t n = 1;
    for (int i = 0, j = 0; i < p->rank; i++) {
        if (p->is_reduction[i]) {
            red[nred++] = i;
            n *= p->size[i];
        } else {
            x[i] = out[j++];
        }
    }
    ls_ref_acc r;
    ls_ref_begin(&r, p);
    r.depth = depth;
    r.fused = fused;
    for (int64_t lin = 0; lin < n; lin++) {
        int64_t rem = lin;
        for (int q = nred - 1; q >= 0; q--) {
            x[red[q]] = rem % p->size[red[q]];
            rem /= p->size[red[q]];
        }
        ls_ref_add(&r, ls_problem_element(p, in, x));
    }
    ls_ref_end(&r, value, bound);
}

bool ls_value_check(ls_elem_type t, ls_value v, ls_value ref, double bound, double *max_ratio)
{
    double dv = ls_value_to_double(v, t), dr = ls_value_to_double(ref, t);
    if (isnan(dv) || isnan(dr))
        return isnan(dv) && isnan(dr); /* NaN inputs (from .npy) propagate */
    if (bound > 0) {
        double diff = fabs(dv - dr);
        bool ok = diff <= bound || (isinf(dv) && dv == dr);
        if (ok && diff / bound > *max_ratio)
            *max_ratio = diff / bound;
        return ok;
    }
    return (v & ls_value_mask(t)) == (ref & ls_value_mask(t)) ||
           (ls_elem_type_is_float(t) && dv == dr);
}

/* Reference for one output on the fast path: the same values as
 * ls_reference_output, walked with index strides.  Sums of the generator's
 * 1/64-grid values are exact in double, so `exact` is exact. */
void ls_ref_fast_output(const ls_problem *p, uint64_t seed_hash, const int64_t *strides,
                        int64_t depth, const int64_t *out, ls_value *value, double *bound)
{
    int red[LS_MAX_RANK], nred = 0;
    int64_t base = 0, n = 1, coord[LS_MAX_RANK] = {0};
    for (int i = 0, j = 0; i < p->rank; i++) {
        if (p->is_reduction[i]) {
            red[nred++] = i;
            n *= p->size[i];
        } else {
            base += out[j++] * strides[i];
        }
    }
    ls_combiner k = p->combiner;
    /* Sums start at the init; min/max fold it in last, through ls_combine,
     * since fast_combine assumes no NaN and IREE's maxnumf fills are NaN. */
    ls_value init = ls_problem_init(p);
    double exact = ls_value_to_double(init, LS_ET_F32), abs_sum = fabs(exact);
    float ext = (float)ls_value_to_double(ls_identity(k, LS_ET_F32), LS_ET_F32);
    int64_t idx = base;
    int last = nred - 1;
    int64_t inner = p->size[red[last]], istride = strides[red[last]];
    for (int64_t done = 0; done < n; done += inner) {
        int64_t at = idx;
        if (k == LS_COMB_ADD) {
            /* A sum's element is (h mod 256 - 128) / 64 (ls_input_float):
             * the run's sum and magnitude are integers over 64, kept as
             * integers (exact, and no conversion per element) */
            uint64_t sum = 0, mag = 0;
            ls_fk_sum_run(seed_hash, at, inner, istride, &sum, &mag);
            exact += ((double)sum - 128.0 * (double)inner) / 64.0;
            abs_sum += (double)mag / 64.0;
        }
        for (int64_t c = 0; k != LS_COMB_ADD && c < inner; c++, at += istride) {
            double d = ls_input_float(ls_input_hash(seed_hash, (uint64_t)at), k);
            if (k == LS_COMB_MUL)
                exact *= d;
            else
                ext = ls_fast_combine(k, ext, (float)d);
        }
        /* odometer over the outer reduction dims */
        for (int r = last - 1; r >= 0; r--) {
            idx += strides[red[r]];
            if (++coord[r] < p->size[red[r]])
                break;
            idx -= coord[r] * strides[red[r]];
            coord[r] = 0;
        }
    }
    if (k == LS_COMB_ADD || k == LS_COMB_MUL) {
        /* the generator's values are multiples of 1/64 (low bit -6 at least) */
        int low = ls_low_bit(ls_value_to_double(init, LS_ET_F32));
        int64_t steps = ls_ref_steps(n, depth);
        *bound = k == LS_COMB_ADD ? ls_ref_sum_bound(p, steps, abs_sum, low < -6 ? low : -6)
                                  : ls_ref_float_bound(p, steps, fabs(exact));
        *value = ls_value_from_double(exact, LS_ET_F32);
    } else {
        *bound = 0;
        *value = ls_combine(k, LS_ET_F32, ls_value_from_double(ext, LS_ET_F32), init);
    }
}
