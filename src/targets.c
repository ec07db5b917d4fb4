/* targets.c: the IREE-visible fields of the targets lanescope knows by name.
 *
 * Source: IREE's KnownTargets.cpp (getCDNA3WgpDetails, getRDNA3WgpDetails,
 * getAmpereWgpDetails and the chip tables), as summarised in
 * shared/reference/iree-reduction-lowering.md §5.  IREE has no sm_90 entry;
 * the sm_90/h100 row below is lanescope's own: Hopper keeps Ampere's
 * IREE-visible limits except for 227 KiB of opt-in shared memory per block
 * and 132 SMs (NVIDIA H100 SXM5 whitepaper); h200 is the same chip (H200
 * datasheet). gfx950 (CDNA4) uses the CDNA3
 * wgp limits with 160 KiB LDS (AMD CDNA4 ISA guide); no chip without a SKU.
 */
#include <stdio.h>
#include <string.h>

#include "lanescope/attrs.h"

typedef struct {
    const char *names; /* '|'-separated aliases */
    ls_target t;
} known_target;

#define WG1024 {1024, 1024, 1024}

static const known_target known[] = {
    {"gfx942|cdna3", {"gfx942", "", 1, {64}, WG1024, 1024, 65536, 0, 128, 4, 0, 0}},
    {"mi300x", {"gfx942", "mi300x", 1, {64}, WG1024, 1024, 65536, 304, 128, 4, 0, 0}},
    {"mi325x", {"gfx942", "mi325x", 1, {64}, WG1024, 1024, 65536, 304, 128, 4, 0, 0}},
    {"mi300a", {"gfx942", "mi300a", 1, {64}, WG1024, 1024, 65536, 228, 128, 4, 0, 0}},
    {"gfx950|cdna4", {"gfx950", "", 1, {64}, WG1024, 1024, 163840, 0, 128, 4, 0, 0}},
    {"gfx1100|rdna3", {"gfx1100", "", 2, {32, 64}, WG1024, 1024, 65536, 0, 128, 4, 0, 0}},
    {"rx7900xtx", {"gfx1100", "rx7900xtx", 2, {32, 64}, WG1024, 1024, 65536, 48, 128, 4, 0, 0}},
    {"sm_80|ampere", {"sm_80", "", 1, {32}, WG1024, 1024, 166912, 0, 0, 0, 0, 0}},
    {"a100", {"sm_80", "a100", 1, {32}, WG1024, 1024, 166912, 108, 0, 0, 0, 0}},
    {"sm_90|hopper", {"sm_90", "", 1, {32}, WG1024, 1024, 232448, 0, 0, 0, 0, 0}},
    {"h100", {"sm_90", "h100", 1, {32}, WG1024, 1024, 232448, 132, 0, 0, 0, 0}},
    {"h200", {"sm_90", "h200", 1, {32}, WG1024, 1024, 232448, 132, 0, 0, 0, 0}},
};

bool ls_target_lookup(const char *name, ls_target *out)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *p = known[i].names;
        while (*p) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            if (len == n && strncmp(p, name, n) == 0) {
                *out = known[i].t;
                return true;
            }
            p += len + (bar != NULL);
        }
    }
    return false;
}

const char *ls_target_names(void)
{
    return "gfx942, cdna3, mi300x, mi325x, mi300a, gfx950, cdna4, gfx1100, rdna3, rx7900xtx, "
           "sm_80, ampere, a100, sm_90, hopper, h100, h200";
}
