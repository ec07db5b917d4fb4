/* calib.h: what the calibration's parts share (private to src/cuda): the
 * index of each microbenchmark source in ls_calib_sources(). */
#ifndef LANESCOPE_CUDA_CALIB_H
#define LANESCOPE_CUDA_CALIB_H

#include "lanescope/calibrate.h"

enum { S_CLOCK, S_CHASE, S_SMEM, S_DEP, S_SHFL, S_BARRIER, S_STREAM, S_EMPTY, S_N };

/* src with newlines and '#' blanked, so it fits one line of a model file. */
void ls_calib_one_line(char *dst, size_t size, const char *src);

#endif
