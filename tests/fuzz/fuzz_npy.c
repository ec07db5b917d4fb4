/* fuzz_npy.c: libFuzzer target for the .npy reader.  An array it accepts
 * must be whole: its element count is the product of its shape and every
 * element is readable. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "lanescope/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ls_npy a;
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_npy_parse(data, size, "fuzz.npy", &a, &d) != LS_OK) {
        if (a.data != NULL)
            __builtin_trap(); /* a refused file leaves nothing allocated */
        return 0;
    }
    int64_t count = 1;
    for (int i = 0; i < a.rank; i++)
        count *= a.shape[i];
    if (count != a.count || (int64_t)(ls_elem_type_bits(a.type) / 8) * count > (int64_t)size)
        __builtin_trap();
    uint64_t sum = 0;
    for (int64_t i = 0; i < a.count; i++)
        sum += ls_npy_get(&a, i);
    ls_npy_free(&a);
    return (int)(sum & 0); /* read every element, for ASan to see */
}
