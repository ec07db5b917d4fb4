/* swizzle.c: xor_shuffle / rotate_rows offset maps (see swizzle.h). */
#include <stdio.h>

#include "lanescope/swizzle.h"

int64_t ls_swizzle_blocks_per_row(const ls_swizzle *s)
{
    return s->row_width / s->access_width;
}

ls_status ls_swizzle_check(const ls_swizzle *s, const char *file, ls_diag *diag)
{
    int64_t n = ls_swizzle_blocks_per_row(s);
    if (s->kind == LS_SWIZZLE_XOR_SHUFFLE && (n & (n - 1)) != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, s->line, s->col,
                           "xor_shuffle with row_width %lld / access_width %lld = %lld blocks "
                           "per row: XOR only permutes a power-of-two number of blocks",
                           (long long)s->row_width, (long long)s->access_width, (long long)n);
    return LS_OK;
}

int64_t ls_swizzle_block(const ls_swizzle *s, int64_t row, int64_t j)
{
    int64_t n = ls_swizzle_blocks_per_row(s);
    if (s->kind == LS_SWIZZLE_XOR_SHUFFLE)
        return ((row / s->per_phase) % n) ^ j;
    return (row + j) % n;
}

int64_t ls_swizzle_block_inverse(const ls_swizzle *s, int64_t row, int64_t sj)
{
    int64_t n = ls_swizzle_blocks_per_row(s);
    if (s->kind == LS_SWIZZLE_XOR_SHUFFLE)
        return ((row / s->per_phase) % n) ^ sj; /* XOR by a fixed key is an involution */
    return ((sj - row) % n + n) % n;
}

static int64_t row_pitch(const ls_swizzle *s)
{
    return s->kind == LS_SWIZZLE_XOR_SHUFFLE ? s->row_stride : s->row_width;
}

static int64_t remap(const ls_swizzle *s, int64_t offset, int inverse)
{
    int64_t pitch = row_pitch(s);
    int64_t row = offset / pitch, col = offset % pitch;
    if (col >= s->row_width)
        return offset;
    int64_t j = col / s->access_width, within = col % s->access_width;
    int64_t nj = inverse ? ls_swizzle_block_inverse(s, row, j) : ls_swizzle_block(s, row, j);
    return row * pitch + nj * s->access_width + within;
}

int64_t ls_swizzle_apply(const ls_swizzle *s, int64_t offset)
{
    return remap(s, offset, 0);
}

int64_t ls_swizzle_invert(const ls_swizzle *s, int64_t offset)
{
    return remap(s, offset, 1);
}

int64_t ls_swizzle_period_rows(const ls_swizzle *s)
{
    int64_t n = ls_swizzle_blocks_per_row(s);
    return s->kind == LS_SWIZZLE_XOR_SHUFFLE ? n * s->per_phase : n;
}

void ls_swizzle_format(const ls_swizzle *s, char *buf, size_t size)
{
    if (s->kind == LS_SWIZZLE_XOR_SHUFFLE)
        snprintf(buf, size,
                 "#iree_codegen.xor_shuffle<row_width = %lld, access_width = %lld, row_stride = "
                 "%lld, per_phase = %lld>",
                 (long long)s->row_width, (long long)s->access_width, (long long)s->row_stride,
                 (long long)s->per_phase);
    else
        snprintf(buf, size, "#iree_codegen.rotate_rows<row_width = %lld, access_width = %lld>",
                 (long long)s->row_width, (long long)s->access_width);
}
