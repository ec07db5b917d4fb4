/* fused_internal.h: what fused.c (the kernel, its reductions' loops) and
 * fused_elementwise.c (its elementwise ops' loops) share. */
#ifndef LANESCOPE_FUSED_INTERNAL_H
#define LANESCOPE_FUSED_INTERNAL_H

#include "lanescope/fused.h"

/* why = the formatted reason; false, for `return ls_fused_refuse(...)`. */
bool ls_fused_refuse(char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same workgroups, subgroups and tiles. */
bool ls_fused_same_geometry(const ls_derived *a, const ls_derived *b);

/* Elementwise op e as loop ph of kernel k after the reductions led by lead
 * (same_config: only in the reductions' layout); false with why. */
bool ls_fused_elementwise_phase(const ls_module *m, const ls_module_elementwise *e,
                                const ls_plan *lead, bool same_config, ls_fused_kernel *k,
                                ls_fused_phase *ph, char *why, size_t n);
/* e over the reductions' results only: a fused epilogue (ph). */
bool ls_fused_epilogue_phase(const ls_module *m, const ls_module_elementwise *e,
                             const ls_plan *lead, ls_fused_kernel *k, ls_fused_phase *ph, char *why,
                             size_t n);

#endif
