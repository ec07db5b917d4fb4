/* targets.c: the IREE-visible fields of the targets lanescope knows by name.
 *
 * Source: IREE's KnownTargets.cpp (compiler/src/iree/compiler/Codegen/
 * Dialect/GPU/TargetUtils/: getCDNA1..4WgpDetails, getRDNA1..4WgpDetails,
 * getAmpere/Turing/Volta/PascalWgpDetails, getAMDGPUTargetDetails and
 * getNVIDIAGPUTargetDetails with their chip tables), read from its source
 * and as summarised in shared/reference/iree-reduction-lowering.md §5.  IREE has no sm_90 entry;
 * the sm_90/h100 row below is lanescope's own: Hopper keeps Ampere's
 * IREE-visible limits except for 227 KiB of opt-in shared memory per block
 * and 132 SMs (NVIDIA H100 SXM5 whitepaper); h200 is the same chip (H200
 * datasheet). gfx950 (CDNA4) uses the CDNA3
 * wgp limits with 160 KiB LDS (AMD CDNA4 ISA guide); no chip without a SKU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/attrs.h"

typedef struct {
    const char *names; /* '|'-separated aliases */
    ls_target t;
} known_target;

#define WG1024 {1024, 1024, 1024}

#define NV_COUNTS {0x7fffffff, 0xffff, 0xffff}

/* Fields: arch, sku, subgroup choices, max workgroup sizes, max threads,
 * workgroup memory, WGP count (0: no chip), max load bits, SIMDs per WGP,
 * the position (0, 0) and mma (0: ls_target_has_mma decides by arch).
 * The max workgroup counts (NVIDIA: 0x7fffffff, 0xffff, 0xffff) are not
 * kept: no reduction grid comes near them. */
#define CDNA(arch, sku, wgps, lds) {arch, sku, 1, {64}, WG1024, 1024, lds, wgps, 128, 4, 0, 0, 0}
#define RDNA(arch, sku, wgps, bits, simds) {arch, sku, 2, {32, 64}, WG1024, 1024, 65536, wgps, bits, simds, 0, 0, 0}
#define NV(arch, sku, smem, sms) {arch, sku, 1, {32}, WG1024, 1024, smem, sms, 0, 0, 0, 0, 0}

static const known_target known[] = {
    /* CDNA4 (getCDNA4WgpDetails; chips mi355x, mi350x: 256 CUs) */
    {"gfx950|cdna4", CDNA("gfx950", "", 0, 163840)},
    {"mi355x", CDNA("gfx950", "mi355x", 256, 163840)},
    {"mi350x", CDNA("gfx950", "mi350x", 256, 163840)},
    /* CDNA3 */
    {"gfx942|cdna3", CDNA("gfx942", "", 0, 65536)},
    {"mi300x", CDNA("gfx942", "mi300x", 304, 65536)},
    {"mi325x", CDNA("gfx942", "mi325x", 304, 65536)},
    {"mi300a", CDNA("gfx942", "mi300a", 228, 65536)},
    {"mi308x", CDNA("gfx942", "mi308x", 80, 65536)},
    /* CDNA2, CDNA1 */
    {"gfx90a|cdna2", CDNA("gfx90a", "", 0, 65536)},
    {"mi250x", CDNA("gfx90a", "mi250x", 220, 65536)},
    {"mi250", CDNA("gfx90a", "mi250", 208, 65536)},
    {"mi210", CDNA("gfx90a", "mi210", 104, 65536)},
    {"gfx908|cdna1", CDNA("gfx908", "", 0, 65536)},
    {"mi100", CDNA("gfx908", "mi100", 120, 65536)},
    /* RDNA4 (chips: CUs / 2 = WGPs) */
    {"gfx1201|gfx1200|rdna4", RDNA("gfx1201", "", 0, 128, 4)},
    {"rx9070xt", RDNA("gfx1201", "rx9070xt", 32, 128, 4)},
    {"rx9070", RDNA("gfx1201", "rx9070", 28, 128, 4)},
    {"r9700", RDNA("gfx1201", "r9700", 32, 128, 4)},
    {"rx9060xt", RDNA("gfx1200", "rx9060xt", 16, 128, 4)},
    /* RDNA3 */
    {"gfx1100|gfx1101|gfx1102|gfx1103|gfx1150|gfx1151|rdna3", RDNA("gfx1100", "", 0, 128, 4)},
    {"rx7900xtx", RDNA("gfx1100", "rx7900xtx", 48, 128, 4)},
    {"rx7900xt", RDNA("gfx1100", "rx7900xt", 42, 128, 4)},
    {"w7900", RDNA("gfx1100", "w7900", 48, 128, 4)},
    {"w7800", RDNA("gfx1100", "w7800", 35, 128, 4)},
    {"rx7800xt", RDNA("gfx1101", "rx7800xt", 30, 128, 4)},
    {"rx7700xt", RDNA("gfx1101", "rx7700xt", 27, 128, 4)},
    {"v710", RDNA("gfx1101", "v710", 27, 128, 4)},
    {"w7700", RDNA("gfx1101", "w7700", 24, 128, 4)},
    /* RDNA2, RDNA1: no load width or SIMD count in IREE's table */
    {"gfx1030|gfx1031|gfx1032|gfx1033|gfx1034|gfx1035|gfx1036|rdna2", RDNA("gfx1030", "", 0, 0, 0)},
    {"gfx1010|gfx1011|gfx1012|gfx1013|rdna1", RDNA("gfx1010", "", 0, 0, 0)},
    /* NVIDIA: Ampere (163 KiB), Turing (64 KiB), Volta (96 KiB), Pascal (48 KiB) */
    {"sm_80|ampere", NV("sm_80", "", 166912, 0)},
    {"sm_86", NV("sm_86", "", 166912, 0)},
    {"sm_87", NV("sm_87", "", 166912, 0)},
    {"a100", NV("sm_80", "a100", 166912, 108)},
    {"rtx3090ti", NV("sm_86", "rtx3090ti", 166912, 84)},
    {"rtx3090", NV("sm_86", "rtx3090", 166912, 82)},
    {"rtx3080ti", NV("sm_86", "rtx3080ti", 166912, 80)},
    {"rtx3080", NV("sm_86", "rtx3080", 166912, 68)},
    {"rtx3070ti", NV("sm_86", "rtx3070ti", 166912, 48)},
    {"rtx3070", NV("sm_86", "rtx3070", 166912, 46)},
    {"sm_75|turing", NV("sm_75", "", 65536, 0)},
    {"sm_70|volta", NV("sm_70", "", 98304, 0)},
    {"sm_72", NV("sm_72", "", 98304, 0)},
    {"sm_60|pascal", NV("sm_60", "", 49152, 0)},
    {"sm_61", NV("sm_61", "", 49152, 0)},
    {"sm_62", NV("sm_62", "", 49152, 0)},
    /* the reference's snapshot (§5): Ada 99 KiB, rtx4090 128 SMs; sm_120/121 */
    {"sm_89|ada", NV("sm_89", "", 101376, 0)},
    {"rtx4090", NV("sm_89", "rtx4090", 101376, 128)},
    {"sm_120|sm_121", {"sm_120", "", 1, {32}, {1024, 1024, 64}, 1024, 101376, 0, 0, 0, 0, 0, 0}},
    /* lanescope's own Hopper rows (see the top of this file) */
    {"sm_90|hopper", NV("sm_90", "", 232448, 0)},
    {"h100", NV("sm_90", "h100", 232448, 132)},
    {"h200", NV("sm_90", "h200", 232448, 132)},
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
    return "gfx950, cdna4, mi355x, mi350x, gfx942, cdna3, mi300x, mi325x, mi300a, mi308x, "
           "gfx90a, cdna2, mi250x, mi250, mi210, gfx908, mi100, gfx1201, gfx1200, rdna4, "
           "rx9070xt, rx9070, r9700, rx9060xt, gfx1100..gfx1151, rdna3, rx7900xtx, rx7900xt, "
           "w7900, w7800, rx7800xt, rx7700xt, v710, w7700, gfx1030..gfx1036, gfx1010..gfx1013, "
           "sm_60..sm_62, sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_120, "
           "sm_121, pascal, volta, turing, ampere, ada, hopper, a100, rtx3070..rtx3090ti, "
           "rtx4090, h100, h200";
}

bool ls_target_has_mma(const ls_target *t)
{
    if (t->mma != 0)
        return t->mma > 0;
    const char *a = t->arch;
    if (strncmp(a, "sm_", 3) == 0)
        return atoi(a + 3) >= 70; /* Volta's WMMA onwards; Pascal has none */
    if (strncmp(a, "gfx10", 5) == 0 && strlen(a) == 7)
        return false; /* RDNA1, RDNA2 */
    /* CDNA (gfx9xx), RDNA3/4 (gfx11xx, gfx12xx), gfx1250; an arch lanescope
     * does not know counts as having them, so the MMA route is refused by
     * name rather than guessed away */
    return true;
}
