/* value.h: element values of every type lanescope simulates, the 13
 * combining kinds with their true identities, and the counter-based input
 * generator.
 *
 * A value is its bit pattern in a uint64_t (low bits used).  f16 and bf16 are
 * emulated: every operation computes in float and rounds to nearest-even,
 * as the hardware does per instruction.  Integer arithmetic wraps at the
 * type's width.  The identities are the true ones (MINUI: all ones, MAXUI:
 * 0, MINSI: INT_MAX, MAXSI: INT_MIN, AND: all ones); IREE builds INT64_MAX /
 * INT64_MIN / 1 and truncates, which is wrong for narrow signed types and
 * AND (reference §4) -- ls_iree_identity gives IREE's value for comparison.
 *
 * i128 is carried as its low 64 bits, and ops wrap at 64: reduction mod
 * 2^64 commutes with add, sub and mul mod 2^128 and with the bitwise ops,
 * so those give exactly the low half of IREE's i128 result.  Whatever needs
 * the high half (an order, a division, a shift right, a float conversion)
 * is refused before it runs (ls_body_check, ls_problem_validate).
 */
#ifndef LANESCOPE_VALUE_H
#define LANESCOPE_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lanescope/problem.h"

typedef uint64_t ls_value;

uint64_t ls_value_mask(ls_elem_type t);
ls_value ls_identity(ls_combiner k, ls_elem_type t);
ls_value ls_iree_identity(ls_combiner k, ls_elem_type t);
ls_value ls_combine(ls_combiner k, ls_elem_type t, ls_value a, ls_value b);
/* Extension (arith.extf / arith.extsi) from one type to a wider one. */
ls_value ls_value_extend(ls_value v, ls_elem_type from, ls_elem_type to);
double ls_value_to_double(ls_value v, ls_elem_type t);
ls_value ls_value_from_double(double d, ls_elem_type t);
int64_t ls_value_to_int(ls_value v, ls_elem_type t); /* sign-extended */
/* Printable form ("1.5", "-3", "0x7f") into buf. */
void ls_value_format(ls_value v, ls_elem_type t, char *buf, int size);

/* f16 / bf16 <-> float, round to nearest even. */
uint16_t ls_f32_to_f16(float f);
float ls_f16_to_f32(uint16_t h);
uint16_t ls_f32_to_bf16(float f);
float ls_bf16_to_f32(uint16_t h);

/* A float's bits and back (an f32 ls_value holds its bits in the low 32). */
static inline uint32_t ls_f32_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

static inline float ls_f32_of_bits(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* splitmix64 finaliser: the generator's hash. */
static inline uint64_t ls_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Hash of input element `index` under a seed already passed through
 * ls_mix64: one multiply and one xor-shift, whose low bits (the ones the
 * generator uses) depend on bits 29 and up of the product.  Called twice per
 * element per functional check, so its cost matters. */
static inline uint64_t ls_input_hash(uint64_t seed_hash, uint64_t index)
{
    uint64_t z = (seed_hash ^ index) * 0x9e3779b97f4a7c15ull;
    return z ^ (z >> 29);
}

/* The float an input hash stands for (every float type holds it exactly):
 * multiples of 1/64 in [-2, 2), or for products mostly +-1 with rare 2 and
 * 0.5, so long products stay finite. */
static inline double ls_input_float(uint64_t h, ls_combiner k)
{
    if (k == LS_COMB_MUL) {
        uint64_t r = h % 1024;
        double d = r == 0 ? 2.0 : r == 1 ? 0.5 : 1.0;
        return (h >> 20) & 1 ? -d : d;
    }
    return (double)((int64_t)(h % 256) - 128) / 64.0;
}

/* Row index i of a gather's indices among n source rows (seed_hash as for
 * ls_input_hash): a permutation of [0, n) for i < n, so distinct batch
 * elements gather distinct rows, as a paged KV cache's page table gives
 * every page of every sequence its own; past n the rows repeat
 * (i mod n, permuted).  A pure function, as the generator's values are. */
int64_t ls_input_row(uint64_t seed_hash, int64_t i, int64_t n);

/* Input element `index` for a seed: a pure function (no array is held).
 * Ranges keep float sums exact-ish and products finite: see value.c. */
ls_value ls_input_value(uint64_t seed, uint64_t index, ls_elem_type t, ls_combiner k);
/* The same from the element's hash, ls_input_hash(ls_mix64(seed), index):
 * callers that draw many elements hash the seed once. */
ls_value ls_input_value_hashed(uint64_t h, ls_elem_type t, ls_combiner k);

/* Unit roundoff of a float type (2^-p), 0 for integers. */
double ls_unit_roundoff(ls_elem_type t);

#endif
