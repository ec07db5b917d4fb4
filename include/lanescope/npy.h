/* npy.h: NumPy .npy arrays as functional-model inputs.
 *
 * Reads format versions 1-3, C order, little-endian or byte-sized dtypes
 * <f2 <f4 <f8 |i1 <i2 <i4 <i8 (and the unsigned ones, taken as the same-width
 * integer type).  The header is parsed as the format defines it: the keys
 * descr, fortran_order and shape in any order, each exactly once, nothing
 * else; bytes after the array are an error, not ignored.  The array is held
 * in memory (the generator needs none); LS_NPY_MAX_BYTES limits it. */
#ifndef LANESCOPE_NPY_H
#define LANESCOPE_NPY_H

#include <stdint.h>

#include "lanescope/mlir.h"

#define LS_NPY_MAX_BYTES (INT64_C(4) << 30)

typedef struct {
    ls_elem_type type;
    int rank;
    int64_t shape[LS_MAX_SHAPE_RANK];
    int64_t count;
    unsigned char *data; /* owned; count elements of ls_elem_type_bits(type) / 8 bytes */
} ls_npy;

ls_status ls_npy_load(const char *path, ls_npy *out, ls_diag *diag);
/* The same from a whole file in memory (path names it in messages). */
ls_status ls_npy_parse(const unsigned char *buf, size_t len, const char *path, ls_npy *out,
                       ls_diag *diag);
void ls_npy_free(ls_npy *a);
/* Element i as a value of a.type (bit pattern, as value.h stores values). */
uint64_t ls_npy_get(const ls_npy *a, int64_t i);

#endif
