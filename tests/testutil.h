/* testutil.h: helpers shared by the Check suites (module loading, a tiny
 * deterministic PRNG for property tests, the main() every suite uses). */
#ifndef LANESCOPE_TESTUTIL_H
#define LANESCOPE_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/import.h"
#include "lanescope/layout.h"

static inline ls_module *load_text(const char *text, ls_diag *d)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(d);
    ls_module_parse(text, strlen(text), "test.mlir", m, d);
    return m;
}

static inline ls_module *load_example(const char *name, ls_diag *d)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", LS_TEST_EXAMPLES, name);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(d);
    ls_module_load(path, m, d);
    return m;
}

/* Check writes a mark point for every ck_assert; inner loops of property
 * tests call into Check only when something fails. */
#define REQUIRE(cond, ...)                                                                       \
    do {                                                                                         \
        if (!(cond))                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                           \
    } while (0)

/* splitmix64: fixed seeds make the property tests reproducible. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}


static inline void split_pow2(uint64_t *rng, int64_t total, int n, int64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = 1;
    while (total > 1) {
        out[rng_range(rng, 0, n - 1)] *= 2;
        total /= 2;
    }
}

static inline void random_perm(uint64_t *rng, int n, int64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_range(rng, 0, i);
        int64_t t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

/* A random valid problem + config: rank 1-3, parallel sizes up to max_par,
 * reduction sizes up to max_red, lane and subgroup counts split over random
 * dims with random mappings, sometimes duplicated lanes or subgroups, ragged
 * tiles and chunks.  false when the draw fails validation. */
static inline bool random_problem(uint64_t *rng, ls_problem *p, int64_t max_par, int64_t max_red)
{
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "random");
    p->rank = (int)rng_range(rng, 1, 3);
    p->n_inputs = 1;
    p->inputs[0].type = p->acc_type = LS_ET_F32;
    bool any = false;
    for (int i = 0; i < p->rank; i++) {
        p->is_reduction[i] = rng_range(rng, 0, 1);
        any |= p->is_reduction[i];
    }
    if (!any)
        p->is_reduction[p->rank - 1] = true;
    int64_t sg = rng_range(rng, 0, 1) ? 64 : 32;
    int64_t lanes = sg >> rng_range(rng, 0, 2), sgs = INT64_C(1) << rng_range(rng, 0, 2);
    ls_lowering_config *c = &p->config;
    p->has_config = true;
    c->workgroup.present = c->thread.present = c->partial_reduction.present = true;
    c->workgroup.n = c->thread.n = c->partial_reduction.n = p->rank;
    c->lane_basis.present = c->subgroup_basis.present = true;
    c->lane_basis.counts.n = c->lane_basis.mapping.n = p->rank;
    c->subgroup_basis.counts.n = c->subgroup_basis.mapping.n = p->rank;
    split_pow2(rng, lanes, p->rank, c->lane_basis.counts.v);
    split_pow2(rng, sgs, p->rank, c->subgroup_basis.counts.v);
    random_perm(rng, p->rank, c->lane_basis.mapping.v);
    random_perm(rng, p->rank, c->subgroup_basis.mapping.v);
    for (int i = 0; i < p->rank; i++) {
        if (!p->is_reduction[i]) {
            p->size[i] = rng_range(rng, 1, max_par);
            c->workgroup.v[i] = rng_range(rng, 0, p->size[i] + 2);
            p->out_map[p->out_map_n++] = i;
        } else {
            p->size[i] = rng_range(rng, 1, max_red);
            int64_t t = INT64_C(1) << rng_range(rng, 0, 3);
            int64_t pr = rng_range(rng, 0, 3) == 0 ? 0 : t * rng_range(rng, 1, 40);
            c->thread.v[i] = rng_range(rng, 0, 4) == 0 ? 0 : t;
            c->partial_reduction.v[i] = pr;
        }
        p->inputs[0].map[p->inputs[0].map_n++] = i;
    }
    p->has_ti = true;
    p->ti.has_subgroup_size = p->ti.has_workgroup_size = true;
    p->ti.subgroup_size = sg;
    p->ti.workgroup_size[0] = sg * sgs * (rng_range(rng, 0, 3) == 0 ? 2 : 1);
    p->ti.workgroup_size[1] = p->ti.workgroup_size[2] = 1;
    ls_diag d;
    ls_diag_clear(&d);
    return ls_problem_validate(p, &d) == LS_OK;
}

/* Give a random problem combiner k and an element type drawn from types
 * (a float type for float-only kinds, an integer one for integer-only
 * kinds), sometimes an f16/i8 input widened by extf/extsi, sometimes a
 * transposed input map. */
static inline void random_kind_and_type(uint64_t *rng, ls_problem *p, ls_combiner k,
                                        const ls_elem_type *types, int n_types)
{
    ls_elem_type t = types[rng_range(rng, 0, n_types - 1)];
    bool fl = ls_elem_type_is_float(t);
    if ((fl && ls_combiner_is_int_only(k)) || (!fl && ls_combiner_is_float_only(k)))
        t = fl ? LS_ET_I32 : LS_ET_F32;
    p->combiner = k;
    p->acc_type = p->inputs[0].type = t;
    if ((t == LS_ET_F32 || t == LS_ET_I32) && rng_range(rng, 0, 2) == 0) {
        /* extsi from i8; extf from f16, or from an 8-bit float where the
         * caller's types have one */
        ls_elem_type f8 = LS_ET_F16;
        for (int i = 0; i < n_types; i++)
            if (ls_elem_type_is_float(types[i]) && ls_elem_type_bits(types[i]) == 8)
                f8 = types[i];
        p->inputs[0].type = t == LS_ET_I32 ? LS_ET_I8 : rng_range(rng, 0, 1) ? LS_ET_F16 : f8;
        p->extended = true;
    }
    if (p->rank > 1 && rng_range(rng, 0, 1)) { /* transposed input map */
        int a = p->inputs[0].map[0];
        p->inputs[0].map[0] = p->inputs[0].map[p->rank - 1];
        p->inputs[0].map[p->rank - 1] = a;
    }
}

/* A hardware model with round numbers (1 GHz, so bytes per cycle are GB/s
 * / 1000; latencies of 4, 30, 100, 500 cycles), WGPS WGPs and GBPS GB/s of
 * DRAM (both string literals), no launch cost and none of the optional
 * mechanisms: the base of the engine tests' hand counts. */
#define LS_TEST_ROUND_MODEL(WGPS, GBPS)                                                          \
    "name = round\narch = sm_0\n"                                                                \
    "wgp_count = " WGPS " # source: test\nclock_mhz = 1000 # source: test\n"                      \
    "subgroup_size = 64 # source: test\nschedulers_per_wgp = 1 # source: test\n"                 \
    "max_threads_per_wgp = 2048 # source: test\nmax_subgroups_per_wgp = 64 # source: test\n"     \
    "max_workgroups_per_wgp = 32 # source: test\nsmem_bytes_per_wgp = 65536 # source: test\n"    \
    "smem_banks = 32 # source: test\nsmem_bank_bytes = 4 # source: test\n"                       \
    "smem_latency = 30 # source: test\nalu_latency = 4 # source: test\n"                         \
    "shuffle_latency = 20 # source: test\nshuffle_interval = 1 # source: test\n"                 \
    "dpp_latency = 8 # source: test\nbarrier_latency = 10 # source: test\n"                      \
    "l2_bytes = 1048576 # source: test\nl2_ways = 16 # source: test\n"                           \
    "l2_line_bytes = 128 # source: test\nsector_bytes = 32 # source: test\n"                     \
    "l2_latency = 100 # source: test\ndram_latency = 500 # source: test\n"                       \
    "dram_gbps = " GBPS " # source: test: GB/s at 1 GHz\n"                                        \
    "launch_us = 0 # source: test: cycles alone\n"

#define LS_TEST_MAIN(make_suite)                                                                 \
    int main(void)                                                                               \
    {                                                                                            \
        SRunner *sr = srunner_create(make_suite());                                              \
        srunner_run_all(sr, CK_NORMAL);                                                          \
        int failed = srunner_ntests_failed(sr);                                                  \
        srunner_free(sr);                                                                        \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                             \
    }

#endif
