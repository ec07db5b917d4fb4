/* swizzle.h: #iree_codegen.xor_shuffle and #iree_codegen.rotate_rows as
 * functions on flat element offsets, and their inverses.
 *
 * The memory is viewed as rows; an access block is access_width contiguous
 * elements; N = row_width / access_width blocks per row.  Block j of row i
 * moves to block
 *   xor_shuffle: ((i / per_phase) % N) XOR j      (rows are row_stride apart;
 *                elements past row_width in a row are left in place)
 *   rotate_rows: (i + j) % N                       (rows are row_width apart)
 * Elements keep their position inside the block.  xor_shuffle needs N to be
 * a power of two to be a permutation; ls_swizzle_check says so.
 */
#ifndef LANESCOPE_SWIZZLE_H
#define LANESCOPE_SWIZZLE_H

#include <stddef.h>
#include <stdint.h>

#include "lanescope/attrs.h"
#include "lanescope/diag.h"

/* Problems that make the swizzle not a permutation, as a diag. */
ls_status ls_swizzle_check(const ls_swizzle *s, const char *file, ls_diag *diag);
int64_t ls_swizzle_blocks_per_row(const ls_swizzle *s);
/* Block index after swizzling for block j of row i, and the inverse. */
int64_t ls_swizzle_block(const ls_swizzle *s, int64_t row, int64_t j);
int64_t ls_swizzle_block_inverse(const ls_swizzle *s, int64_t row, int64_t swizzled_j);
/* Flat element offset -> swizzled flat offset, and back. */
int64_t ls_swizzle_apply(const ls_swizzle *s, int64_t offset);
int64_t ls_swizzle_invert(const ls_swizzle *s, int64_t offset);
/* Rows after which the pattern repeats. */
int64_t ls_swizzle_period_rows(const ls_swizzle *s);

/* The attribute in IREE's syntax, every parameter spelled out. */
void ls_swizzle_format(const ls_swizzle *s, char *buf, size_t size);

#endif
