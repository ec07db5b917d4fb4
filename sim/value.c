/* value.c: typed values, combiners, identities and the input generator
 * (see value.h).  Pure functions of their arguments: no state, no clock. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lanescope/value.h"

uint64_t ls_value_mask(ls_elem_type t)
{
    int b = ls_elem_type_bits(t);
    return b >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << b) - 1;
}

/* ---- f16 / bf16 ---- */

uint16_t ls_f32_to_f16(float f)
{
    uint32_t x = ls_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;
    if (exp == 0xff) /* inf / nan */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal or zero */
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++; /* may carry into the exponent, which is the right rounding */
    return (uint16_t)h;
}

float ls_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        if (man == 0) {
            x = sign;
        } else {
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (man << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    return ls_f32_of_bits(x);
}

uint16_t ls_f32_to_bf16(float f)
{
    uint32_t x = ls_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return (uint16_t)(x >> 16);
}

float ls_bf16_to_f32(uint16_t h)
{
    return ls_f32_of_bits((uint32_t)h << 16);
}

/* ---- 8- and 4-bit floats ---- */

/* The small float formats MLIR names, as APFloat defines them
 * (llvm/lib/Support/APFloat.cpp): E4M3FN has no infinity and one NaN
 * pattern per sign (S.1111.111), max 448; E5M2 is IEEE-like with
 * infinities; the FNUZ variants have no infinity, no negative zero, NaN is
 * 0x80, and their bias is one larger (8 and 16).  Overflow on conversion
 * gives infinity where the format has one and NaN where it has not
 * (APFloat's handleOverflow through makeInf).  OCP MX's E2M1 (f4E2M1FN)
 * has neither infinity nor NaN: its 16 patterns are +-{0, 0.5, 1, 1.5, 2,
 * 3, 4, 6}, and a value past 6 saturates to 6 (see f8_from_double). */
typedef struct {
    int bits, mbits, bias;
    bool ieee;   /* E5M2: infinities and NaN at the top exponent */
    bool fnuz;   /* NaN is 0x80, no -0 */
    bool no_nan; /* E2M1: every pattern is a finite number */
    double max;
} f8_format;

static const f8_format *f8_of(ls_elem_type t)
{
    static const f8_format e4m3fn = {8, 3, 7, false, false, false, 448.0};
    static const f8_format e5m2 = {8, 2, 15, true, false, false, 57344.0};
    static const f8_format e4m3fnuz = {8, 3, 8, false, true, false, 240.0};
    static const f8_format e5m2fnuz = {8, 2, 16, false, true, false, 57344.0};
    static const f8_format e2m1fn = {4, 1, 1, false, false, true, 6.0};
    switch (t) {
    case LS_ET_F8E4M3FN: return &e4m3fn;
    case LS_ET_F8E5M2: return &e5m2;
    case LS_ET_F8E4M3FNUZ: return &e4m3fnuz;
    case LS_ET_F8E5M2FNUZ: return &e5m2fnuz;
    case LS_ET_F4E2M1FN: return &e2m1fn;
    default: return NULL;
    }
}

static double f8_to_double(const f8_format *f, uint8_t b)
{
    int ebits = f->bits - 1 - f->mbits, emax = (1 << ebits) - 1;
    uint8_t sign_bit = (uint8_t)(1u << (f->bits - 1));
    int e = (b >> f->mbits) & emax, m = b & ((1 << f->mbits) - 1);
    bool neg = b & sign_bit;
    if (f->fnuz && b == sign_bit)
        return NAN;
    if (f->ieee && e == emax)
        return m ? NAN : neg ? -INFINITY : INFINITY;
    if (!f->ieee && !f->fnuz && !f->no_nan && e == emax && m == (1 << f->mbits) - 1)
        return NAN;
    double mag = e == 0 ? ldexp(m, 1 - f->bias - f->mbits)
                        : ldexp((1 << f->mbits) + m, e - f->bias - f->mbits);
    return neg ? -mag : mag;
}

static uint8_t f8_nan(const f8_format *f)
{
    return f->fnuz ? 0x80 : f->ieee ? 0x7e : 0x7f;
}

static double round_to_format(double d, int p, int emin, double max);

static uint8_t f8_from_double(const f8_format *f, double d)
{
    uint8_t sign_bit = (uint8_t)(1u << (f->bits - 1));
    if (f->no_nan) {
        /* No NaN or infinity to give: a magnitude past 6 saturates to 6
         * (APFloat's handleOverflow for a FiniteOnly format) and NaN
         * becomes +6, as MLIR's expansion of truncf to f4E2M1FN
         * (Arith/Transforms/ExpandOps.cpp) clamps with minnumf/maxnumf.
         * Ties go to even here, as APFloat rounds; that expansion rounds
         * them up (1.25 -> 1.5), which the generator's inputs never meet. */
        if (isnan(d))
            d = f->max;
        if (fabs(d) > f->max)
            d = copysign(f->max, d);
    }
    if (isnan(d))
        return f8_nan(f);
    double r = round_to_format(d, f->mbits + 1, 1 - f->bias, f->max);
    if (isinf(r))
        return f->ieee ? (uint8_t)(signbit(d) ? 0xfc : 0x7c) : f8_nan(f);
    uint8_t sign = signbit(r) && !(f->fnuz && r == 0) ? sign_bit : 0;
    double a = fabs(r);
    if (a == 0)
        return sign;
    int e = ilogb(a);
    if (e < 1 - f->bias) /* subnormal: a multiple of the smallest step */
        return sign | (uint8_t)llround(ldexp(a, f->bias - 1 + f->mbits));
    int m = (int)llround(ldexp(a, f->mbits - e)) - (1 << f->mbits);
    return sign | (uint8_t)((e + f->bias) << f->mbits) | (uint8_t)m;
}

/* f8E8M0FNU, OCP MX's block scale (APFloat's semFloat8E8M0FNU): no sign,
 * no significand, no zero; pattern e is 2^(e - 127) and 0xff is NaN.  A
 * value rounds to the nearest power of two, m x 2^e with m >= 1.5 going up
 * (the tie too: the one significand bit is always odd); anything below
 * 2^-127, zero included, gives 2^-127; from 1.5 x 2^127 on, and for NaN
 * and infinity, NaN.  The sign is ignored, as APFloat's convert does.
 * (The scale of arith.scaling_extf is truncated instead: see body.c.) */
static double e8m0_to_double(uint8_t b)
{
    return b == 0xff ? NAN : ldexp(1.0, (int)b - 127);
}

static uint8_t e8m0_from_double(double d)
{
    d = fabs(d);
    if (isnan(d) || isinf(d))
        return 0xff;
    if (d == 0)
        return 0;
    int e;
    double m = frexp(d, &e); /* d = m * 2^e, m in [0.5, 1) */
    e = m >= 0.75 ? e : e - 1;
    if (e < -127)
        return 0;
    return e > 127 ? 0xff : (uint8_t)(e + 127);
}

/* ---- conversions ---- */

/* Round d once to a p-bit significand with minimum normal exponent emin
 * (ties to even), then saturate to infinity above max.  Computing f16/bf16
 * sums and products exactly in double and rounding here once matches a
 * hardware f16/bf16 instruction; going through float would round twice. */
static double round_to_format(double d, int p, int emin, double max)
{
    if (d == 0 || isnan(d) || isinf(d))
        return d;
    int e = ilogb(d);
    if (e < emin)
        e = emin;
    double quantum = ldexp(1.0, e - (p - 1));
    double r = nearbyint(d / quantum) * quantum;
    if (fabs(r) > max)
        return copysign(INFINITY, d);
    return r;
}

double ls_value_to_double(ls_value v, ls_elem_type t)
{
    switch (t) {
    case LS_ET_F16: return ls_f16_to_f32((uint16_t)v);
    case LS_ET_BF16: return ls_bf16_to_f32((uint16_t)v);
    case LS_ET_F32: return ls_f32_of_bits((uint32_t)v);
    case LS_ET_F64: {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    case LS_ET_F8E8M0FNU: return e8m0_to_double((uint8_t)v);
    default:
        if (f8_of(t))
            return f8_to_double(f8_of(t), (uint8_t)(v & ls_value_mask(t)));
        return (double)ls_value_to_int(v, t);
    }
}

ls_value ls_value_from_double(double d, ls_elem_type t)
{
    switch (t) {
    /* A double that is exactly a float (every f16/bf16 operand, their sums
     * and products mostly) rounds once through the float conversion; the
     * others go through round_to_format so they are not rounded twice. */
    case LS_ET_F16:
        if ((double)(float)d == d)
            return ls_f32_to_f16((float)d);
        return ls_f32_to_f16((float)round_to_format(d, 11, -14, 65504.0));
    case LS_ET_BF16:
        if ((double)(float)d == d)
            return ls_f32_to_bf16((float)d);
        return ls_f32_to_bf16((float)round_to_format(d, 8, -126, ldexp(255.0, 120)));
    case LS_ET_F32: return ls_f32_bits((float)d);
    case LS_ET_F64: {
        ls_value v;
        memcpy(&v, &d, 8);
        return v;
    }
    case LS_ET_F8E8M0FNU: return e8m0_from_double(d);
    default:
        if (f8_of(t))
            return f8_from_double(f8_of(t), d);
        /* An integer type: callers give integral values in range, but an
         * importer may ask for a float identity (+-inf) of a type that
         * validation refuses later; the cast of NaN or of a value past
         * int64 is undefined, so those saturate (NaN: 0) */
        if (isnan(d))
            return 0;
        if (!(d >= -0x1p63 && d < 0x1p63))
            return d < 0 ? (UINT64_C(1) << 63) & ls_value_mask(t) : ls_value_mask(t) >> 1;
        return (ls_value)(int64_t)d & ls_value_mask(t);
    }
}

int64_t ls_value_to_int(ls_value v, ls_elem_type t)
{
    int b = ls_elem_type_bits(t);
    if (b >= 64)
        return (int64_t)v;
    uint64_t m = UINT64_C(1) << (b - 1);
    v &= ls_value_mask(t);
    return (int64_t)((v ^ m) - m);
}

ls_value ls_value_extend(ls_value v, ls_elem_type from, ls_elem_type to)
{
    if (from == to)
        return v;
    if (ls_elem_type_is_float(from))
        return ls_value_from_double(ls_value_to_double(v, from), to);
    return (ls_value)ls_value_to_int(v, from) & ls_value_mask(to);
}

void ls_value_format(ls_value v, ls_elem_type t, char *buf, int size)
{
    if (ls_elem_type_is_float(t))
        snprintf(buf, (size_t)size, "%.9g", ls_value_to_double(v, t));
    else
        snprintf(buf, (size_t)size, "%lld", (long long)ls_value_to_int(v, t));
}

double ls_unit_roundoff(ls_elem_type t)
{
    switch (t) {
    case LS_ET_F16: return ldexp(1.0, -11);
    case LS_ET_BF16: return ldexp(1.0, -8);
    case LS_ET_F32: return ldexp(1.0, -24);
    case LS_ET_F64: return ldexp(1.0, -53);
    default: return f8_of(t) ? ldexp(1.0, -(f8_of(t)->mbits + 1)) : 0;
    }
}

/* ---- identities and combiners ---- */

/* A format without infinities (the FN / FNUZ 8-bit floats): min and max
 * start from the largest finite value instead, which every value but NaN
 * beats, as an infinity would. */
static bool no_inf(ls_elem_type t)
{
    return f8_of(t) && !f8_of(t)->ieee;
}

ls_value ls_identity(ls_combiner k, ls_elem_type t)
{
    uint64_t m = ls_value_mask(t);
    int b = ls_elem_type_bits(t);
    switch (k) {
    case LS_COMB_ADD:
    case LS_COMB_OR:
    case LS_COMB_XOR:
    case LS_COMB_MAXUI: return ls_elem_type_is_float(t) ? ls_value_from_double(0.0, t) : 0;
    case LS_COMB_MUL: return ls_elem_type_is_float(t) ? ls_value_from_double(1.0, t) : 1;
    case LS_COMB_MINUI:
    case LS_COMB_AND: return m;
    case LS_COMB_MINSI: return m >> 1;                        /* INT_MAX of the width */
    case LS_COMB_MAXSI: return (UINT64_C(1) << (b - 1)) & m; /* INT_MIN of the width */
    case LS_COMB_MINIMUMF:
    case LS_COMB_MINNUMF: return ls_value_from_double(no_inf(t) ? f8_of(t)->max : INFINITY, t);
    case LS_COMB_MAXIMUMF:
    case LS_COMB_MAXNUMF: return ls_value_from_double(no_inf(t) ? -f8_of(t)->max : -INFINITY, t);
    default: return 0;
    }
}

ls_value ls_iree_identity(ls_combiner k, ls_elem_type t)
{
    if (ls_elem_type_is_float(t))
        return ls_identity(k, t);
    uint64_t m = ls_value_mask(t);
    switch (k) {
    case LS_COMB_MINUI:
    case LS_COMB_MINSI: return (uint64_t)INT64_MAX & m; /* truncated: -1 for narrow types */
    case LS_COMB_MAXUI:
    case LS_COMB_MAXSI: return (uint64_t)INT64_MIN & m; /* truncated: 0 for narrow types */
    case LS_COMB_AND: return 1;
    default: return ls_identity(k, t);
    }
}

static double fmin_ieee(double a, double b, bool propagate_nan)
{
    if (isnan(a) || isnan(b))
        return propagate_nan ? NAN : (isnan(a) ? b : a);
    if (a == b) /* -0 < +0 for minimum */
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static double fmax_ieee(double a, double b, bool propagate_nan)
{
    if (isnan(a) || isnan(b))
        return propagate_nan ? NAN : (isnan(a) ? b : a);
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

ls_value ls_combine(ls_combiner k, ls_elem_type t, ls_value a, ls_value b)
{
    if (t == LS_ET_F32 && (k == LS_COMB_ADD || k == LS_COMB_MUL)) {
        /* the case below without the trips through double (the functional
         * check's reduction steps are mostly this): the same float op */
        float x = ls_f32_of_bits((uint32_t)a), y = ls_f32_of_bits((uint32_t)b);
        return ls_f32_bits(k == LS_COMB_ADD ? x + y : x * y);
    }
    if (ls_elem_type_is_float(t)) {
        /* f32 ops in float; f16/bf16 in float then rounded; f64 in double. */
        double x = ls_value_to_double(a, t), y = ls_value_to_double(b, t), r;
        switch (k) {
        case LS_COMB_ADD: /* f16/bf16: exact in double, rounded once below */
            r = t == LS_ET_F32 ? (double)((float)x + (float)y) : x + y;
            break;
        case LS_COMB_MUL:
            r = t == LS_ET_F32 ? (double)((float)x * (float)y) : x * y;
            break;
        case LS_COMB_MINIMUMF: r = fmin_ieee(x, y, true); break;
        case LS_COMB_MINNUMF: r = fmin_ieee(x, y, false); break;
        case LS_COMB_MAXIMUMF: r = fmax_ieee(x, y, true); break;
        case LS_COMB_MAXNUMF: r = fmax_ieee(x, y, false); break;
        default: r = x; break;
        }
        return ls_value_from_double(r, t);
    }
    uint64_t m = ls_value_mask(t);
    int64_t sa = ls_value_to_int(a, t), sb = ls_value_to_int(b, t);
    uint64_t ua = a & m, ub = b & m;
    switch (k) {
    case LS_COMB_ADD: return (ua + ub) & m;
    case LS_COMB_MUL: return (ua * ub) & m;
    case LS_COMB_MINUI: return ua < ub ? ua : ub;
    case LS_COMB_MAXUI: return ua > ub ? ua : ub;
    case LS_COMB_MINSI: return (uint64_t)(sa < sb ? sa : sb) & m;
    case LS_COMB_MAXSI: return (uint64_t)(sa > sb ? sa : sb) & m;
    case LS_COMB_AND: return ua & ub;
    case LS_COMB_OR: return ua | ub;
    case LS_COMB_XOR: return ua ^ ub;
    default: return ua;
    }
}

/* ---- generator ---- */

ls_value ls_input_value(uint64_t seed, uint64_t index, ls_elem_type t, ls_combiner k)
{
    return ls_input_value_hashed(ls_input_hash(ls_mix64(seed), index), t, k);
}

ls_value ls_input_value_hashed(uint64_t h, ls_elem_type t, ls_combiner k)
{
    /* 8-bit floats hold only 2 or 3 significand bits: multiples of 1/8
     * (E4M3) or 1/4 (E5M2) in [-2, 2), which they hold exactly.  Products
     * keep the +-1, 2, 0.5 of every float type. */
    if (t == LS_ET_F8E8M0FNU) /* a block scale: 2^-2 .. 2^2 */
        return (ls_value)(125 + h % 5);
    if (t == LS_ET_F4E2M1FN || t == LS_ET_I4) /* all 16 patterns are numbers */
        return h & 0xf;
    if (f8_of(t) && k != LS_COMB_MUL) {
        int steps = 1 << f8_of(t)->mbits;
        return ls_value_from_double((double)((int64_t)(h % (uint64_t)(4 * steps)) - 2 * steps) / steps, t);
    }
    if (ls_elem_type_is_float(t))
        return ls_value_from_double(ls_input_float(h, k), t);
    switch (k) {
    case LS_COMB_ADD: return (uint64_t)((int64_t)(h % 201) - 100) & ls_value_mask(t);
    case LS_COMB_MUL: return (uint64_t)((int64_t)(h % 7) - 3) & ls_value_mask(t);
    default: return h & ls_value_mask(t); /* full range: exercises signedness */
    }
}

/* A Feistel network over the smallest even number of bits that holds n,
 * walked again until the result falls below n (cycle-walking): a bijection
 * on [0, n) whose rounds are splitmix hashes. */
int64_t ls_input_row(uint64_t seed_hash, int64_t i, int64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t x = (uint64_t)(i % n);
    int bits = 2;
    while (bits < 62 && (UINT64_C(1) << bits) < (uint64_t)n)
        bits += 2;
    int half = bits / 2;
    uint64_t lo_mask = (UINT64_C(1) << half) - 1;
    do {
        uint64_t l = x >> half, r = x & lo_mask;
        for (int round = 0; round < 4; round++) {
            /* splitmix's full avalanche: ls_input_hash's low bits are
             * near-affine in a small r, which makes the network affine */
            uint64_t f = ls_mix64(seed_hash ^ (uint64_t)round << 56 ^ r) & lo_mask;
            uint64_t t = l ^ f;
            l = r;
            r = t;
        }
        x = l << half | r;
    } while (x >= (uint64_t)n); /* each walk leaves [0, n) at most 3 times in 4 */
    return (int64_t)x;
}
