/* import_values.c: the values a dispatch spells out -- arith.constant and
 * linalg.fill results, number literals checked against their types as MLIR
 * checks them, and a reduction's init (its fill's value, or unknown) and
 * init element type. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "lanescope/value.h"

bool ls_imp_fill_of(const importer *im, const char *name, ls_elem_type t, uint64_t *bits)
{
    for (int i = im->n_fills; i-- > 0;)
        if (strcmp(im->fills[i].name, name) == 0 && im->fills[i].type == t) {
            *bits = im->fills[i].bits;
            return true;
        }
    return false;
}

bool ls_imp_constant_of(const importer *im, const char *name, ls_elem_type *t, uint64_t *bits)
{
    for (int i = im->n_constants; i-- > 0;)
        if (strcmp(im->constants[i].name, name) == 0) {
            *t = im->constants[i].type;
            *bits = im->constants[i].bits;
            return true;
        }
    return false;
}

bool ls_imp_init_type_ok(importer *im, const operand_list *outs)
{
    ls_elem_type t = outs->types[0].elem;
    const char *text = outs->types[0].elem_text ? outs->types[0].elem_text : "?";
    int bits = ls_elem_type_bits(t);
    if (ls_elem_type_is_data(t) && bits >= 8 && t != LS_ET_F8E8M0FNU)
        return true;
    if (t == LS_ET_UNKNOWN && (text[0] == 'i' || text[0] == 'f')) {
        bool is_index;
        bits = ls_imp_elem_bits_of(text, &is_index);
    }
    /* ReductionConfigUtils.cpp (setReductionVectorDistributionConfig): a
     * width that is not a power of two of at least 4 bits, or wider than
     * the largest load (128 bits on every target IREE describes), gets no
     * reduction config at all. */
    if (bits > 0 && (t == LS_ET_UNKNOWN || t == LS_ET_I1) &&
        ((bits & (bits - 1)) != 0 || bits < 4 || bits > 128))
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                           "IREE's reduction heuristic rejects this dispatch: the init holds "
                           "%d-bit %s elements, and reduction distribution needs a power of two "
                           "of at least 4 bits that fits the 128-bit largest load",
                           bits, text) == LS_OK;
    return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, outs->line, outs->col,
                       "the init holds %s: lanescope reduces into 8- to 128-bit types (%s)", text,
                       "f16, bf16, f32, f64, the 8-bit floats but f8E8M0FNU, i8, i16, i32, i64 "
                       "and i128") == LS_OK;
}

bool ls_imp_literal_bits(const char *lit, ls_elem_type t, uint64_t *bits)
{
    if (lit == NULL || !lit[0])
        return false;
    if (t == LS_ET_I1 && (strcmp(lit, "true") == 0 || strcmp(lit, "false") == 0)) {
        *bits = lit[0] == 't';
        return true;
    }
    char *end;
    errno = 0;
    if (ls_elem_type_is_float(t)) {
        if (lit[0] == '0' && (lit[1] == 'x' || lit[1] == 'X')) {
            /* MLIR spells a float by its bit pattern in hex (0xFF800000 = -inf) */
            unsigned long long v = strtoull(lit, &end, 16);
            if (*end || errno)
                return false;
            *bits = (uint64_t)v & ls_value_mask(t);
            return true;
        }
        double d = strtod(lit, &end);
        if (*end)
            return false;
        *bits = ls_value_from_double(d, t);
        return true;
    }
    bool neg = lit[0] == '-';
    unsigned long long v = strtoull(neg ? lit + 1 : lit, &end, 0);
    if (*end || errno || t == LS_ET_UNKNOWN)
        return false;
    *bits = (neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v) & ls_value_mask(t);
    return true;
}

/* MLIR's checks of a number literal against its type
 * (AsmParser/AttributeParser.cpp): a decimal float must fit a double and,
 * here, the type too (MLIR would round 1e39 : f32 to +inf silently: a
 * value no one wrote); a hex float is the type's bit pattern, so it fits
 * its width; a float type takes no decimal integer (write 1.0) and an
 * integer type no float; an integer fits its width, signed or unsigned
 * (i8: -128 to 255).  Unknown types and non-numbers pass. */
bool ls_imp_literal_fits(const char *lit, ls_elem_type t, char *why, size_t size)
{
    if (lit == NULL || !lit[0] || t == LS_ET_UNKNOWN || strcmp(lit, "true") == 0 ||
        strcmp(lit, "false") == 0)
        return true;
    const char *tn = ls_elem_type_name(t);
    bool neg = lit[0] == '-';
    const char *mag = neg ? lit + 1 : lit;
    bool hex = mag[0] == '0' && (mag[1] == 'x' || mag[1] == 'X');
    bool is_float_lit = !hex && strpbrk(mag, ".eE") != NULL;
    char *end;
    errno = 0;
    if (ls_elem_type_is_float(t)) {
        if (hex) {
            unsigned long long v = strtoull(mag, &end, 16);
            int bits = ls_elem_type_bits(t);
            if (neg)
                snprintf(why, size, "a hexadecimal float literal takes no '-' (it is the bit "
                                    "pattern: set the sign bit)");
            else if (errno || *end || (bits < 64 && v >> bits))
                snprintf(why, size, "the hexadecimal bit pattern is wider than %s's %d bits", tn,
                         bits);
            else
                return true;
            return false;
        }
        if (!is_float_lit) {
            snprintf(why, size, "a decimal integer is not a %s literal (write %s.0)", tn, lit);
            return false;
        }
        double d = strtod(mag, &end);
        if (*end)
            return true; /* not a number: the reader says so where it reads it */
        if (isinf(d)) {
            snprintf(why, size, "it is too large for any float type");
            return false;
        }
        if (!isfinite(ls_value_to_double(ls_value_from_double(d, t), t))) {
            snprintf(why, size, "it is past the largest finite %s", tn);
            return false;
        }
        return true;
    }
    if (is_float_lit) {
        snprintf(why, size, "a float literal is not a value of the integer type %s", tn);
        return false;
    }
    unsigned long long v = strtoull(mag, &end, 0);
    if (*end)
        return true;
    int bits = ls_elem_type_bits(t);
    bool fits = errno == 0 && (bits >= 64 ? (!neg || v <= (1ull << 63))
                                          : neg ? v <= (1ull << (bits - 1)) : v >> bits == 0);
    if (!fits)
        snprintf(why, size, "it is outside %s's range, %lld to %llu", tn,
                 bits >= 64 ? (long long)INT64_MIN : -(1ll << (bits - 1)),
                 bits >= 64 ? (unsigned long long)UINT64_MAX : (1ull << bits) - 1);
    return fits;
}

void ls_imp_constant(importer *im, const char *name)
{
    /* at arith.constant */
    next(im);
    char lit[48] = "";
    bool minus = false;
    int lit_line = tok(im)->line, lit_col = tok(im)->col;
    if (ls_tok_is(tok(im), '-')) {
        minus = true;
        next(im);
    }
    if (tok(im)->kind == LS_TOK_INT || tok(im)->kind == LS_TOK_FLOAT ||
        ls_tok_ident(tok(im), "true") || ls_tok_ident(tok(im), "false")) {
        snprintf(lit, sizeof lit, "%s%.*s", minus ? "-" : "",
                 tok(im)->len > 44 ? 44 : (int)tok(im)->len, tok(im)->text);
        next(im);
    }
    if (!lit[0] || !ls_tok_is(tok(im), ':'))
        return;
    next(im);
    if (tok(im)->kind != LS_TOK_IDENT)
        return;
    ls_elem_type t = ls_elem_type_from_name(tok(im)->text, tok(im)->len);
    next(im);
    char why[160];
    if (!ls_imp_literal_fits(lit, t, why, sizeof why)) {
        ls_diag_set(im->diag, LS_ERR_INVALID, im->file, lit_line, lit_col,
                    "arith.constant %s : %s: the literal does not fit the type: %s", lit,
                    ls_elem_type_name(t), why);
        return;
    }
    uint64_t bits;
    if (t == LS_ET_UNKNOWN || !ls_imp_literal_bits(lit, t, &bits))
        return;
    if (im->n_constants == MAX_CONSTANTS) { /* the oldest go: bodies use nearby ones */
        memmove(im->constants, im->constants + 1, sizeof im->constants - sizeof im->constants[0]);
        im->n_constants--;
    }
    constant *c = &im->constants[im->n_constants++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->type = t;
    c->bits = bits;
}

void ls_imp_fill(importer *im, const char *result, const char *value)
{
    for (int i = im->n_constants; i-- > 0;)
        if (strcmp(im->constants[i].name, value) == 0) {
            if (im->n_fills == MAX_CONSTANTS) {
                memmove(im->fills, im->fills + 1, sizeof im->fills - sizeof im->fills[0]);
                im->n_fills--;
            }
            constant *c = &im->fills[im->n_fills++];
            *c = im->constants[i];
            snprintf(c->name, sizeof c->name, "%s", result);
            return;
        }
}

void ls_imp_set_init(importer *im, ls_problem *p, const char *init)
{
    p->has_init = ls_imp_fill_of(im, init, p->acc_type, &p->init);
    p->init_unknown = !p->has_init;
}
