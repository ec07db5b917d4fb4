/* func_kernels.h: the functional check's vectorised inner loops for float
 * sums of generated inputs (func_kernels.c).  Not installed. */
#ifndef LANESCOPE_FUNC_KERNELS_H
#define LANESCOPE_FUNC_KERNELS_H

#include <stdint.h>

/* Over the n indices at, at + stride, ...: adds to *sum the elements' bytes
 * h mod 256 (h = ls_input_hash(seed_hash, index)) and to *mag their
 * distances |h mod 256 - 128|.  A float sum's element is
 * (h mod 256 - 128) / 64 (ls_input_float), so the run's exact sum is
 * (*sum - 128 n) / 64 and its magnitude *mag / 64. */
void ls_fk_sum_run(uint64_t seed_hash, int64_t at, int64_t n, int64_t stride, uint64_t *sum,
                   uint64_t *mag);

/* One iteration of a float sum's accumulation over every thread: for each
 * register r in order, facc[acc_slot[r] x threads + t] += the element at
 * index base + rel[r x threads + t] where inside[r x threads + t] is -1,
 * fid where it is 0 -- in float, in the order the scalar loop adds. */
void ls_fk_sum_accumulate(uint64_t seed_hash, int64_t base, const int64_t *rel,
                          const int32_t *inside, const int64_t *acc_slot, int64_t regs,
                          int64_t threads, float fid, float *facc);

#endif
