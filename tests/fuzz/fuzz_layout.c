/* fuzz_layout.c: libFuzzer target for the layout math: swizzles and
 * nested layouts built from attribute text whose numbers the input chooses
 * (small, powers of two, or any 32-bit value), through the attribute
 * parser and the same checks a user's IR meets.  What they accept must
 * hold the algebra the pictures and the engine rely on: a swizzle is a
 * permutation of each row that its inverse undoes; a nested layout's
 * compose and decompose are inverse, and register numbers round-trip. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/arena.h"
#include "lanescope/attrs.h"
#include "lanescope/swizzle.h"

static long long number(fz_bytes *b)
{
    switch (fz_byte(b) % 4) {
    case 0:
        return 1 + fz_byte(b) % 64;
    case 1:
        return 1LL << (fz_byte(b) % 31);
    case 2:
        return (long long)(fz_byte(b) | fz_byte(b) << 8 | fz_byte(b) << 16 |
                           (uint32_t)fz_byte(b) << 24);
    default:
        return fz_byte(b) % 5; /* zeros mean "default" in some fields */
    }
}

static void check_swizzle(fz_bytes *b)
{
    char text[256];
    if (fz_byte(b) & 1)
        snprintf(text, sizeof text, "#iree_codegen.xor_shuffle<%lld, %lld, %lld, %lld>", number(b),
                 number(b), number(b), number(b));
    else
        snprintf(text, sizeof text, "#iree_codegen.rotate_rows<%lld, %lld>", number(b), number(b));
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_diag_clear(&d);
    ls_swizzle s;
    ls_attr *at = ls_parse_attr_string(text, strlen(text), "fuzz", &a, NULL, &d);
    if (at != NULL && ls_swizzle_from_attr(at, "fuzz", &s, &d) == LS_OK &&
        ls_swizzle_check(&s, "fuzz", &d) == LS_OK) {
        int64_t pitch = s.kind == LS_SWIZZLE_XOR_SHUFFLE ? s.row_stride : s.row_width;
        int64_t rows = ls_swizzle_period_rows(&s);
        /* every offset of the first rows, and a few past the period */
        for (int64_t row = 0; row < rows + 2 && row < 64; row++) {
            int64_t base = (row < rows ? row : rows * 3 + row) * pitch;
            for (int64_t c = 0; c < pitch && c < 256; c++) {
                int64_t x = base + c, y = ls_swizzle_apply(&s, x);
                if (y / pitch != x / pitch || y < 0 || ls_swizzle_invert(&s, y) != x) {
                    fprintf(stderr, "%s: offset %lld -> %lld\n", text, (long long)x,
                            (long long)y);
                    __builtin_trap();
                }
            }
        }
    }
    ls_arena_fini(&a);
}

static void list(char *buf, size_t size, const char *key, const int64_t *v, int rank, bool comma)
{
    size_t at = strlen(buf);
    at += (size_t)snprintf(buf + at, size - at, "%s%s = [", comma ? ", " : "", key);
    for (int i = 0; i < rank; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%lld", i ? ", " : "", (long long)v[i]);
    snprintf(buf + at, size - at, "]");
}

static void check_nested(fz_bytes *b)
{
    int rank = 1 + (int)fz_below(b, 3);
    int64_t t[7][3];
    for (int k = 0; k < 7; k++)
        for (int i = 0; i < rank; i++)
            t[k][i] = k < 5 ? 1 + fz_byte(b) % 8 : fz_byte(b) % 20;
    static const char *const keys[7] = {"subgroup_tile", "batch_tile",       "outer_tile",
                                        "thread_tile",   "element_tile",     "subgroup_strides",
                                        "thread_strides"};
    char text[512] = "#iree_vector_ext.nested_layout<";
    for (int k = 0; k < 7; k++)
        list(text, sizeof text, keys[k], t[k], rank, k > 0);
    strcat(text, ">");
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_diag_clear(&d);
    ls_nested_layout l;
    ls_attr *at = ls_parse_attr_string(text, strlen(text), "fuzz", &a, NULL, &d);
    if (at != NULL && ls_nested_layout_from_attr(at, "fuzz", &l, &d) == LS_OK) {
        int64_t ext[3] = {1, 1, 1}, total = 1, regs = ls_nl_registers(&l);
        for (int i = 0; i < rank; i++)
            total *= ext[i] = ls_nl_extent(&l, i);
        for (int64_t x = 0; x < total && x < 4096; x++) {
            int64_t idx[3], back[3], r = x;
            for (int i = rank - 1; i >= 0; i--)
                idx[i] = r % ext[i], r /= ext[i];
            ls_nl_coord c, c2;
            if (!ls_nl_decompose(&l, idx, &c))
                __builtin_trap();
            ls_nl_compose(&l, &c, back);
            int64_t reg = ls_nl_register_of(&l, &c);
            if (reg < 0 || reg >= regs)
                __builtin_trap();
            ls_nl_register_coord(&l, reg, &c2);
            for (int i = 0; i < rank; i++)
                if (back[i] != idx[i] || c2.batch[i] != c.batch[i] || c2.outer[i] != c.outer[i] ||
                    c2.element[i] != c.element[i])
                    __builtin_trap();
        }
        int64_t past[3] = {ext[0], 0, 0};
        ls_nl_coord c;
        if (ls_nl_decompose(&l, past, &c)) /* outside the extent */
            __builtin_trap();
    }
    ls_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_bytes b = {data, size, 0};
    if (fz_byte(&b) & 1)
        check_swizzle(&b);
    else
        check_nested(&b);
    return 0;
}
