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
