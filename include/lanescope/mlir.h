/* mlir.h: lexer and recursive-descent parser for MLIR attribute syntax.
 *
 * Covers the attribute grammar IREE's dialect attributes are printed in:
 * integers, floats, strings, arrays, dictionaries, bit-flag keywords
 * (a|b|c), `#dialect.name<params>` with keyed or positional parameters
 * (commas optional, as translation_info prints them), bare `<params>`,
 * `#alias` references, affine_map<...>, array<i32: ...>, shaped types and
 * opaque `dense<...>`-style bodies.  Every node keeps its line and column.
 *
 * Limits (checked, with the limit in the message): nesting depth
 * LS_MLIR_MAX_DEPTH, integers must fit int64.  The parser never recurses
 * deeper than the depth limit and never loops without consuming input, so
 * hostile text cannot crash or hang it.  All nodes live in a caller's arena.
 */
#ifndef LANESCOPE_MLIR_H
#define LANESCOPE_MLIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lanescope/arena.h"
#include "lanescope/diag.h"

#define LS_MLIR_MAX_DEPTH 64
#define LS_MAX_SHAPE_RANK 16

/* ---- lexer ---- */
typedef enum {
    LS_TOK_EOF,
    LS_TOK_IDENT,   /* bare-id: letters, digits, _ $ . */
    LS_TOK_HASH,    /* #name  (attribute alias or dialect attribute) */
    LS_TOK_PERCENT, /* %name  (SSA value) */
    LS_TOK_CARET,   /* ^name  (block) */
    LS_TOK_AT,      /* @name  (symbol) */
    LS_TOK_BANG,    /* !name  (type alias or dialect type) */
    LS_TOK_INT,
    LS_TOK_FLOAT,
    LS_TOK_STRING, /* text excludes the quotes, escapes kept raw */
    LS_TOK_ARROW,  /* -> */
    LS_TOK_PUNCT,  /* any other single character, in .punct */
    LS_TOK_ERROR   /* lexical error; message in the lexer's diag */
} ls_tok_kind;

typedef struct {
    ls_tok_kind kind;
    const char *text; /* points into the source */
    size_t len;
    int line, col;
    char punct;
} ls_token;

typedef struct {
    const char *src;
    size_t len, pos; /* pos: first byte after the current token */
    int line, col;   /* position of src[pos] */
    const char *file;
    ls_token tok; /* current token */
    ls_diag *diag;
} ls_lexer;

void ls_lexer_init(ls_lexer *lx, const char *src, size_t len, const char *file, ls_diag *diag);
/* Advance to the next token (skips blanks and // comments). */
void ls_lex_next(ls_lexer *lx);
/* True when the current token is punctuation c. */
bool ls_tok_is(const ls_token *t, char c);
/* True when the current token is an identifier spelled s. */
bool ls_tok_ident(const ls_token *t, const char *s);
/* True when the byte right after the current token is c (no blank between). */
bool ls_lex_adjacent(const ls_lexer *lx, char c);
/* With the current token followed directly by '<', skip the balanced <...>
 * body; body and blen receive its text without the brackets.  Advances past it. */
bool ls_lex_skip_angle(ls_lexer *lx, const char **body, size_t *blen);

/* ---- attribute tree ---- */
typedef enum {
    LS_AV_INT,
    LS_AV_FLOAT,
    LS_AV_STRING,
    LS_AV_BOOL,
    LS_AV_UNIT,
    LS_AV_IDENT,  /* keyword or bit-flags "a|b"; text in .s */
    LS_AV_ARRAY,  /* items */
    LS_AV_DICT,   /* keys + items */
    LS_AV_DIALECT,/* #name<params>: name in .s, params as keys (NULL = positional) + items */
    LS_AV_PARAMS, /* bare <params> */
    LS_AV_ALIAS,  /* unresolved #alias reference; name in .s */
    LS_AV_TYPE,   /* a type; text in .s; shaped types fill .shape */
    LS_AV_AFFINE_MAP,
    LS_AV_SYMBOL, /* @sym */
    LS_AV_OPAQUE  /* dense<...> and other bodies kept as text in .s */
} ls_attr_kind;

/* One result of an affine map: a dim, a dim times a positive constant (a
 * strided access, `d1 * 2`), a constant, or anything else. */
typedef enum { LS_AFF_DIM, LS_AFF_CONST, LS_AFF_COMPLEX, LS_AFF_SCALED } ls_aff_kind;
typedef struct {
    ls_aff_kind kind;
    int64_t value; /* dim index or constant */
    int64_t scale; /* LS_AFF_SCALED: the factor (DIM: 1) */
} ls_aff_expr;

typedef struct {
    int num_dims, num_syms, num_results;
    ls_aff_expr *results;
} ls_affine_map;

typedef enum {
    LS_ET_UNKNOWN = 0,
    LS_ET_I1, LS_ET_I8, LS_ET_I16, LS_ET_I32, LS_ET_I64,
    LS_ET_F16, LS_ET_BF16, LS_ET_F32, LS_ET_F64, LS_ET_INDEX,
    /* the 8-bit floats of FP8 inference (MLIR's Float8E*Type): OCP FN/E5M2
     * on NVIDIA and gfx950, the FNUZ variants on gfx942 */
    LS_ET_F8E4M3FN, LS_ET_F8E5M2, LS_ET_F8E4M3FNUZ, LS_ET_F8E5M2FNUZ,
    /* the packed types of weight-only and MX quantisation: i4 weights of a
     * dequantized matvec, OCP MX's f4E2M1FN elements with their
     * f8E8M0FNU (power-of-two) block scales */
    LS_ET_I4, LS_ET_F4E2M1FN, LS_ET_F8E8M0FNU,
    /* a 128-bit integer, of which lanescope carries the low 64 bits (value.h
     * says which operations that keeps exact) */
    LS_ET_I128
} ls_elem_type;

typedef struct {
    bool shaped;        /* tensor/vector/memref */
    char container[8];  /* "tensor", "vector", "memref" or "" */
    int rank;
    int64_t dims[LS_MAX_SHAPE_RANK]; /* -1 for '?' */
    ls_elem_type elem;
    const char *elem_text; /* spelled element type (arena) */
    bool too_many_dims; /* parse failed at the LS_MAX_SHAPE_RANK limit */
    /* parse failed at a dimension past INT64_MAX: its index, else -1 */
    int dim_overflow;
} ls_type_info;

typedef struct ls_attr ls_attr;
struct ls_attr {
    ls_attr_kind kind;
    int line, col;
    int64_t i;
    double f;
    const char *s;
    size_t n;
    ls_attr **items;
    const char **keys; /* DICT/DIALECT/PARAMS: key per item, or NULL for a positional item */
    ls_affine_map *map;
    ls_type_info *type;
};

/* A table of #alias = value definitions. */
typedef struct {
    const char *name; /* without '#' */
    ls_attr *value;   /* NULL when its definition failed to parse */
    ls_diag error;    /* why, for a later use of the alias */
    int line, col;
} ls_alias;

typedef struct {
    ls_alias *items;
    size_t n, cap;
} ls_alias_table;

void ls_alias_table_init(ls_alias_table *t);
void ls_alias_table_fini(ls_alias_table *t);
const ls_alias *ls_alias_find(const ls_alias_table *t, const char *name, size_t len);
void ls_alias_add(ls_alias_table *t, const ls_alias *a);

typedef struct {
    ls_lexer *lx;
    ls_arena *arena;
    const ls_alias_table *aliases; /* may be NULL */
    ls_diag *diag;
    int depth;
    /* !name = type definitions (value: an LS_AV_TYPE).  NULL: a bare !name
     * stays an opaque type; otherwise an undefined one is an error. */
    const ls_alias_table *type_aliases;
} ls_parser;

/* Parse one attribute value at the lexer's current token. NULL on error. */
ls_attr *ls_parse_attr(ls_parser *p);
/* Parse a type at the current token (f32, tensor<4x?xf16>, !dialect.type<...>);
 * a type alias !name is expanded through p->type_aliases (the result carries
 * the use's line and column). */
ls_attr *ls_parse_type(ls_parser *p);
/* Parse a whole string holding one attribute (trailing text is an error). */
ls_attr *ls_parse_attr_string(const char *text, size_t len, const char *file, ls_arena *arena,
                              const ls_alias_table *aliases, ls_diag *diag);

/* Interpret a type spelling: "f32", "tensor<4x8xf16>"... */
bool ls_type_info_parse(const char *text, size_t len, ls_arena *arena, ls_type_info *out);
ls_elem_type ls_elem_type_from_name(const char *s, size_t len);
const char *ls_elem_type_name(ls_elem_type t);
int ls_elem_type_bits(ls_elem_type t);
bool ls_elem_type_is_float(ls_elem_type t);
/* An element type a reduction's operand may hold in memory (not i1, index
 * or unknown), and the list of them for messages. */
bool ls_elem_type_is_data(ls_elem_type t);
#define LS_ELEM_TYPES_TEXT                                                                   \
    "f16, bf16, f32, f64, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, "  \
    "i8, i16, i32 and i64"

/* Dictionary / parameter lookup by key; NULL when absent. */
ls_attr *ls_attr_get(const ls_attr *a, const char *key);
/* Resolve alias references through the table (returns a itself otherwise). */
const char *ls_attr_kind_name(ls_attr_kind k);

#endif
