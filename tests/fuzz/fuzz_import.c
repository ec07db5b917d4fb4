/* fuzz_import.c: libFuzzer target for the attribute parser and the importer.
 * Every input runs through ls_module_parse and, when it yields reductions,
 * through validation, layout derivation and -- for small problems -- the
 * plan, the timing engine and the functional model.  Crashes, leaks, hangs,
 * UB and wrong reduction values are what the fuzzer looks for. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "lanescope/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ls_diag_clear(&d);
    ls_module_parse((const char *)data, size, "fuzz.mlir", m, &d);
    if (d.status == LS_OK) {
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        for (size_t i = 0; i < m->n_problems; i++) {
            ls_diag dd;
            ls_diag_clear(&dd);
            if (ls_derive(&m->problems[i], dv, &dd) == LS_OK)
                fz_simulate(&m->problems[i], dv, m->problems[i].inputs[0].map_n % 2 == 0);
        }
        free(dv);
    }
    ls_arena a;
    ls_arena_init(&a);
    ls_diag_clear(&d);
    ls_parse_attr_string((const char *)data, size, "fuzz", &a, NULL, &d);
    ls_arena_fini(&a);
    free(m);
    return 0;
}
