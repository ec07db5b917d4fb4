/* mlir_types.c: MLIR's builtin element and shaped types as lanescope
 * reads them (element width, float or integer, tensor/vector/memref shapes
 * with dynamic dims) and the alias tables (#name = ..., !name = ...). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/mlir.h"

/* ------------------------------------------------------------ types */

static const struct {
    const char *name;
    ls_elem_type t;
    int bits;
    bool is_float;
} elem_types[] = {
    {"i1", LS_ET_I1, 1, false},      {"i8", LS_ET_I8, 8, false},
    {"i16", LS_ET_I16, 16, false},   {"i32", LS_ET_I32, 32, false},
    {"i64", LS_ET_I64, 64, false},   {"f16", LS_ET_F16, 16, true},
    {"bf16", LS_ET_BF16, 16, true},  {"f32", LS_ET_F32, 32, true},
    {"f64", LS_ET_F64, 64, true},    {"index", LS_ET_INDEX, 64, false},
    {"f8E4M3FN", LS_ET_F8E4M3FN, 8, true},     {"f8E5M2", LS_ET_F8E5M2, 8, true},
    {"f8E4M3FNUZ", LS_ET_F8E4M3FNUZ, 8, true}, {"f8E5M2FNUZ", LS_ET_F8E5M2FNUZ, 8, true},
    {"i4", LS_ET_I4, 4, false},      {"f4E2M1FN", LS_ET_F4E2M1FN, 4, true},
    {"f8E8M0FNU", LS_ET_F8E8M0FNU, 8, true},
    {"i128", LS_ET_I128, 128, false},
};

ls_elem_type ls_elem_type_from_name(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof elem_types / sizeof elem_types[0]; i++)
        if (strlen(elem_types[i].name) == len && memcmp(elem_types[i].name, s, len) == 0)
            return elem_types[i].t;
    return LS_ET_UNKNOWN;
}

const char *ls_elem_type_name(ls_elem_type t)
{
    for (size_t i = 0; i < sizeof elem_types / sizeof elem_types[0]; i++)
        if (elem_types[i].t == t)
            return elem_types[i].name;
    return "?";
}

int ls_elem_type_bits(ls_elem_type t)
{
    for (size_t i = 0; i < sizeof elem_types / sizeof elem_types[0]; i++)
        if (elem_types[i].t == t)
            return elem_types[i].bits;
    return 0;
}

bool ls_elem_type_is_float(ls_elem_type t)
{
    for (size_t i = 0; i < sizeof elem_types / sizeof elem_types[0]; i++)
        if (elem_types[i].t == t)
            return elem_types[i].is_float;
    return false;
}

bool ls_elem_type_is_data(ls_elem_type t)
{
    return t != LS_ET_UNKNOWN && t != LS_ET_I1 && t != LS_ET_INDEX;
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

bool ls_type_info_parse(const char *text, size_t len, ls_arena *arena, ls_type_info *out)
{
    memset(out, 0, sizeof *out);
    out->dim_overflow = -1;
    while (len && isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    static const char *containers[] = {"tensor", "vector", "memref"};
    for (size_t k = 0; k < 3; k++) {
        size_t cn = strlen(containers[k]);
        if (starts_with(text, len, containers[k]) && len > cn + 1 && text[cn] == '<' &&
            text[len - 1] == '>') {
            out->shaped = true;
            snprintf(out->container, sizeof out->container, "%s", containers[k]);
            text += cn + 1;
            len -= cn + 2;
            break;
        }
    }
    size_t i = 0;
    if (out->shaped) {
        for (;;) {
            while (i < len && isspace((unsigned char)text[i]))
                i++;
            int64_t dim;
            size_t j = i;
            bool scalable = j < len && text[j] == '[';
            if (scalable)
                j++;
            if (j < len && isdigit((unsigned char)text[j])) {
                dim = 0;
                while (j < len && isdigit((unsigned char)text[j])) {
                    int d = text[j] - '0';
                    if (dim > (INT64_MAX - d) / 10) {
                        /* a dimension only when an 'x' follows the digits;
                         * MLIR's shapes hold int64 sizes */
                        while (j < len && isdigit((unsigned char)text[j]))
                            j++;
                        if (j < len && text[j] == (scalable ? ']' : 'x'))
                            out->dim_overflow = out->rank;
                        return false;
                    }
                    dim = dim * 10 + d;
                    j++;
                }
            } else if (j < len && text[j] == '?') {
                dim = -1;
                j++;
            } else {
                break;
            }
            if (scalable) {
                if (j >= len || text[j] != ']')
                    return false;
                j++;
            }
            if (j >= len || text[j] != 'x')
                break; /* not a dimension after all: it is the element type */
            if (out->rank >= LS_MAX_SHAPE_RANK) {
                out->too_many_dims = true;
                return false;
            }
            out->dims[out->rank++] = dim;
            i = j + 1;
        }
    }
    size_t e = i;
    int depth = 0;
    while (e < len && !(depth == 0 && text[e] == ',')) {
        if (text[e] == '<')
            depth++;
        else if (text[e] == '>')
            depth--;
        e++;
    }
    size_t s = i;
    while (e > s && isspace((unsigned char)text[e - 1]))
        e--;
    if (e == s)
        return false;
    out->elem = ls_elem_type_from_name(text + s, e - s);
    out->elem_text = arena ? ls_arena_strndup(arena, text + s, e - s) : NULL;
    return true;
}

/* ------------------------------------------------------------ aliases */

void ls_alias_table_init(ls_alias_table *t)
{
    memset(t, 0, sizeof *t);
}

void ls_alias_table_fini(ls_alias_table *t)
{
    free(t->items);
    memset(t, 0, sizeof *t);
}

const ls_alias *ls_alias_find(const ls_alias_table *t, const char *name, size_t len)
{
    if (t == NULL)
        return NULL;
    /* Last definition wins, as a redefinition shadows the earlier one. */
    for (size_t i = t->n; i-- > 0;)
        if (strlen(t->items[i].name) == len && memcmp(t->items[i].name, name, len) == 0)
            return &t->items[i];
    return NULL;
}

void ls_alias_add(ls_alias_table *t, const ls_alias *a)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->items = ls_xrealloc(t->items, t->cap * sizeof *t->items);
    }
    t->items[t->n++] = *a;
}

