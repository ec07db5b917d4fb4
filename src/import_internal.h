/* import_internal.h: what the importer's files share (import.c reads the
 * file and the reductions; import_region.c the operand lists, regions and
 * bodies; import_dispatch.c the dispatch view for suggest; import_named.c
 * the named structured ops).  Not installed. */
#ifndef LANESCOPE_IMPORT_INTERNAL_H
#define LANESCOPE_IMPORT_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/import.h"

enum { MAX_OPERANDS = 8, MAX_STMTS = 64, MAX_FUSED = 64, MAX_CONSTANTS = 256, MAX_FUNC_ARGS = 64,
       MAX_OPAQUE = 256, MAX_GATHERS = 16 };

/* A function argument as its signature declares it. */
typedef struct {
    char name[64];
    ls_type_info type;
    const char *text; /* the spelled type (arena) */
    int line, col;
} func_arg;

/* SSA names defined at the top level of a function's body (the first
 * definition of each): an open-addressing hash set over the source text,
 * whose names point into it. */
typedef struct {
    const char *name;
    size_t len;
    int line, col;
} ssa_def;

typedef struct {
    ssa_def *slot; /* cap entries, NULL name: empty */
    size_t cap, n;
} ssa_set;

/* An elementwise linalg.generic whose result a later op reads: IREE fuses
 * it into its consumer's dispatch tile, so a consumer reduction inlines its
 * body and reads its inputs instead (import_body.c). */
typedef struct {
    char name[64];                    /* result SSA value */
    /* A producer lanescope cannot inline: a consumer reduction that reads
     * it stops with this reason rather than reading the value from memory,
     * which is not what IREE compiles. */
    bool failed;
    char why[600];
    int line, col;                    /* the producer op */
    int rank;
    int out_map[LS_MAX_RANK];         /* loop of each result dim (a permutation) */
    int n_inputs;
    ls_operand inputs[LS_MAX_INPUTS]; /* what it reads, maps over its own loops */
    ls_body body;                     /* the yielded value from those inputs */
} fused_producer;

/* %name = arith.constant <literal> : T outside any body. */
typedef struct {
    char name[64];
    ls_elem_type type;
    uint64_t bits;
} constant;

typedef struct {
    ls_lexer lx;
    ls_parser p;
    ls_arena arena;
    ls_alias_table aliases;
    ls_alias_table type_aliases; /* !name = type */
    ls_module *m;
    ls_diag *diag;
    const char *file;
    bool has_ti;
    ls_translation_info ti;
    char func[96];
    int op_index;
    fused_producer fused[MAX_FUSED];
    int n_fused;
    constant constants[MAX_CONSTANTS];
    int n_constants;
    constant fills[MAX_CONSTANTS]; /* linalg.fill results of a constant */
    int n_fills;
    int n_softmax; /* linalg.softmax ops decomposed so far */
    const ls_attr *seen_attrs[LS_IMPORT_MAX_ITEMS * 2];
    int n_seen;
    int flags;
    ls_dispatch *cur; /* the current function's dispatch, NULL until it has an op */
    /* values of the current function made by ops the importer passes over
     * (an iree_linalg_ext.gather, ...): not loads, so an attention reading
     * one is refused by name */
    struct {
        char name[48], kind[48];
        int line;
    } opaque[MAX_OPAQUE];
    int n_opaque;
    /* the current function's iree_linalg_ext.gather ops, by result */
    struct {
        char name[48];
        ls_module_gather g;
    } gathers[MAX_GATHERS];
    int n_gathers;
    int func_line, func_col;
    const char *forall_begin, *forall_end; /* text of the scf.forall region being read */
    func_arg func_args[MAX_FUNC_ARGS];     /* the current function's, when read whole */
    int n_func_args;
    ssa_set func_names;  /* defined at the top level of the current function's body */
    int brace_depth;     /* '{' the scan itself has passed and not closed */
    const char *func_body_at; /* the '{' of the current function's body */
    int func_depth;      /* brace_depth inside that body; -1: not in one */
    struct {
        const char *begin, *end;
    } *skipped;          /* text of alias definitions that did not parse */
    size_t n_skipped, cap_skipped;
    ls_import_dims dims;                   /* sizes for dynamic loop dims; 0: not given */
    bool dims_used[LS_MAX_RANK];           /* a --dim that bound some dynamic dim */
} importer;

/* The size a dynamic loop dimension d is bound to, or 0; called only for
 * a dim that is dynamic, so a binding returned is a --dim that was used. */
static inline int64_t dim_binding(importer *im, int d)
{
    if (d < 0 || d >= LS_MAX_RANK || im->dims.size[d] <= 0)
        return 0;
    im->dims_used[d] = true;
    return im->dims.size[d];
}

static inline bool failed(const importer *im)
{
    return im->diag->status != LS_OK;
}

static inline void next(importer *im)
{
    ls_lex_next(&im->lx);
}

static inline ls_token *tok(importer *im)
{
    return &im->lx.tok;
}

static inline ls_status syntax(importer *im, const char *what)
{
    char found[64];
    const ls_token *t = tok(im);
    if (t->kind == LS_TOK_EOF)
        snprintf(found, sizeof found, "end of input");
    else
        snprintf(found, sizeof found, "'%.*s'", t->len > 40 ? 40 : (int)t->len, t->text);
    return ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, t->line, t->col, "expected %s, found %s",
                       what, found);
}

static inline bool expect(importer *im, char c)
{
    if (!ls_tok_is(tok(im), c)) {
        char what[8] = {'\'', c, '\'', 0};
        syntax(im, what);
        return false;
    }
    next(im);
    return !failed(im);
}


/* ---- operand lists:  ins(%a, %b : T1, T2) ---- */

typedef struct {
    int n;
    char names[MAX_OPERANDS][64];
    ls_type_info types[MAX_OPERANDS];
    const char *type_text[MAX_OPERANDS]; /* as spelled (arena) */
    int name_line[MAX_OPERANDS], name_col[MAX_OPERANDS];
    int line, col;
} operand_list;

/* ---- regions: block arguments, simple statements, the yield ---- */

typedef struct {
    char res[64];
    char op[48];
    int n_args;
    char args[3][64];
    ls_elem_type from, to; /* ": T" (from = to = T) or ": A to B" (casts); of
                              ": A, B" the last (select's value type) */
    ls_elem_type first;    /* the first type listed (math.fpowi's float) */
    char from_text[16];    /* the spelling of from, for messages ("i4") */
    char pred[16];         /* first keyword after the op: cmpf/cmpi predicate */
    char lit[48];          /* a number literal (arith.constant, linalg.index), sign kept */
    int lit_line, lit_col;
    int arg_line[3], arg_col[3];
    int n_idx;             /* tensor.extract %t[%i, %j]: the index operands */
    char idx[LS_MAX_RANK][64];
    uint8_t fmf;        /* fastmath<...>: ls_body_fmf */
    char fmf_other[16]; /* its first flag lanescope does not model, "" none */
    int fmf_line, fmf_col;
    int line, col;
} stmt;

typedef struct {
    int n_args;
    char arg[MAX_OPERANDS][64];
    ls_type_info arg_type[MAX_OPERANDS]; /* as declared */
    const char *arg_type_text[MAX_OPERANDS];
    int arg_line[MAX_OPERANDS], arg_col[MAX_OPERANDS];
    int n_stmts;
    stmt stmts[MAX_STMTS];
    int n_yield;
    char yield[MAX_OPERANDS][64];
    int n_yield_types;                    /* linalg.yield %a : T: the T's */
    ls_elem_type yield_type[MAX_OPERANDS];
    int yield_type_line[MAX_OPERANDS], yield_type_col[MAX_OPERANDS];
    int yield_line, yield_col;
    char short_op[48]; /* linalg.reduce { arith.addf } */
} region;

static inline void copy_tok(char *dst, size_t size, const ls_token *t)
{
    snprintf(dst, size, "%.*s", t->len >= size ? (int)size - 1 : (int)t->len, t->text);
}

/* ---- import_region.c: operand lists, regions, body shapes ---- */
bool ls_imp_operands_ex(importer *im, const char *kw, bool allow_scalar, operand_list *out);
bool ls_imp_operands(importer *im, const char *kw, operand_list *out);
bool ls_imp_block_args(importer *im, region *r);
bool ls_imp_parse_region(importer *im, region *r);
const stmt *ls_imp_def_of(const region *r, const char *name);
/* The type rules MLIR's verifier applies to a region (hard errors: the IR
 * is invalid, not merely beyond lanescope): one block argument per operand
 * of its element type, every use of a value at the type it was defined
 * with, the yield giving each init's element type.  ins/outs NULL: the
 * region's own rules only (a comparator). */
bool ls_imp_verify_region(importer *im, const region *r, const operand_list *ins,
                          const operand_list *outs, const char *opname);
/* A use of a function argument (in ins/outs) at the type it was declared
 * with in the signature; false (and the error) when not. */
bool ls_imp_check_func_arg_use(importer *im, const char *name, const ls_type_info *t,
                               const char *text, int line, int col);
/* import_func.c: at the '@name' of a func.func, its arguments into
 * im->func_args; at a top-level `%name =`, the name recorded (false and
 * the error on a redefinition); a function's names forgotten. */
void ls_imp_func_signature(importer *im);
bool ls_imp_top_level_definition(importer *im, const ls_token *t);
void ls_imp_ssa_clear(ssa_set *set);
bool ls_imp_is_ext_op(const char *op);
bool ls_imp_is_cast_op(const char *op);
int ls_imp_uses_of(const region *r, const char *name);
const stmt *ls_imp_user_of(const region *r, const char *name);
/* matchReduction with one combiner: the init's block argument has one use,
 * an op whose single-use result is yielded at the init's position. */
bool ls_imp_single_combiner(const region *r, int n_inputs, int k);
/* The block argument a value is, directly or through one cast (-1: none). */
int ls_imp_arg_through_cast(const region *r, const char *v);
/* linalg's contraction body: yield(add(mul(cast(a), cast(b)), out)). */
bool ls_imp_contraction_body(const region *r);

/* ---- import.c: the reductions it records ---- */
bool ls_imp_take_op_attrs(importer *im, const ls_attr *dict, ls_problem *p);
ls_problem *ls_imp_new_problem(importer *im, int line, int col, const char *opname);
/* The simulator's own checks of a reduction op run against a private diag:
 * an op it cannot model is still a valid op of the dispatch, so the first
 * such problem is kept in the module (unsupported) and the import goes on. */
void ls_imp_begin_problem_checks(importer *im, ls_diag *saved_owner, ls_diag **saved);
void ls_imp_end_problem_checks(importer *im, ls_diag *local, ls_diag *saved);
void ls_imp_link_problem(importer *im, ls_dop *o);
/* Loop sizes from an operand's shape through its map (projected
 * permutations only); map/map_n get the loop dim of each operand dim. */
bool ls_imp_bind_map(importer *im, ls_problem *p, const ls_affine_map *am, int line, int col,
                     const ls_type_info *t, int *map, int *map_n, int64_t *scale,
                     int64_t *shape, const char *what);
/* The checks shared by every reduction op once its operands are bound:
 * every loop dim sized, reduction dims exactly those missing from the
 * init. */
bool ls_imp_check_loops(importer *im, ls_problem *p, const bool *in_input, int line, int col,
                        int maps_line, int maps_col);

/* ---- import_body.c: reduction bodies, fused producers, constants ---- */
/* Compile result res (of n_outs) of a reduction body: the combiner folding
 * that result's init (block argument ins->n + res) with a value computed
 * from the inputs, which becomes p->body over p->inputs (inputs produced by
 * fused elementwise ops are replaced by what those read).  The other
 * results' inits may not be read.  in_map[k] / in_map_n[k]: input k's loop
 * dims.  Sets p->combiner, n_inputs, inputs, body, extended. */
bool ls_imp_compile_reduction(importer *im, const region *r, const operand_list *ins,
                              int in_map[][LS_MAX_RANK], const int *in_map_n,
                              int64_t in_scale[][LS_MAX_RANK], int64_t in_shape[][LS_MAX_RANK],
                              int res, int n_outs, ls_problem *p, int line, int col);
/* Remember an elementwise generic's body for consumers to inline; silently
 * not recorded when its body is not one lanescope interprets (a consumer
 * reduction then reads its result as a plain input). */
void ls_imp_record_fused(importer *im, const char *result, int line, int col, const region *r,
                         const operand_list *ins, int rank, int maps[][LS_MAX_RANK],
                         const int *map_n);
/* An elementwise producer whose form (several results, maps that are not
 * plain loop dims...) lanescope cannot inline into a consumer. */
void ls_imp_record_unfusable(importer *im, const char *result, int line, int col,
                             const char *why);
/* The fused producer of a value, or NULL. */
const fused_producer *ls_imp_fused_of(const importer *im, const char *name);
/* At `arith.constant` after `%name =`: record the value. */
void ls_imp_constant(importer *im, const char *name);
/* At linalg.fill: remember `result` as filled with the constant `value`. */
void ls_imp_fill(importer *im, const char *result, const char *value);
/* Set p's init from the linalg.fill producing `init` (or mark it unknown). */
void ls_imp_set_init(importer *im, ls_problem *p, const char *init);
/* Compile arg_compare's comparator region: its two block arguments (of
 * type t) become INPUT 0 and 1, the yielded i1 the last instruction. */
bool ls_imp_compile_comparator(importer *im, const region *r, ls_elem_type t, ls_body *out,
                               int line, int col);
/* The constant a linalg.fill of type t wrote into `name`, or an
 * arith.constant's value and type; false when there is none. */
bool ls_imp_fill_of(const importer *im, const char *name, ls_elem_type t, uint64_t *bits);
bool ls_imp_constant_of(const importer *im, const char *name, ls_elem_type *t, uint64_t *bits);
/* Whether a number literal fits type t as MLIR reads it; why gets the
 * reason when not.  Unknown types and text that is not a number pass. */
bool ls_imp_literal_fits(const char *lit, ls_elem_type t, char *why, size_t size);
/* A literal's bit pattern in type t; false when it is not a number. */
bool ls_imp_literal_bits(const char *lit, ls_elem_type t, uint64_t *bits);
/* The init's element type is one lanescope reduces into; otherwise the
 * reason (IREE's own where its heuristic refuses the width) is set. */
bool ls_imp_init_type_ok(importer *im, const operand_list *outs);

/* ---- import_dispatch.c: every linalg op of a function, for suggest.h ---- */
ls_dispatch *ls_imp_cur_dispatch(importer *im, int line, int col);
int ls_imp_elem_bits_of(const char *t, bool *is_index);
bool ls_imp_name_has_prefix(const char *s, const char *prefix);
bool ls_imp_is_conv_name(const char *kind);
int ls_imp_find_producer(const ls_dispatch *d, const char *value, int *result);
ls_dop *ls_imp_add_dop(importer *im, const char *kind, int line, int col, int rank,
                       const bool *red, const ls_affine_map *const *maps,
                       const operand_list *ins, const operand_list *outs, const region *r,
                       const char *result, const char *text_at);

/* Read ops until the end of the current lexer's text. */
void ls_imp_scan_ops(importer *im);
/* The last pass (import_brackets.c): { } ( ) [ ] < > paired over the whole
 * text; one left open at the end, or a closer matching no opener, sets the
 * error naming where it opened. */
void ls_imp_check_brackets(importer *im, const char *text, size_t len);
/* import_generic.c: at linalg.generic / linalg.reduce (the op name token). */
void ls_imp_generic_op(importer *im, const char *result_name);
void ls_imp_reduce_op(importer *im, const char *result_name);
/* ---- import_softmax.c: linalg.softmax, decomposed as IREE does ---- */
void ls_imp_softmax_op(importer *im, const char *result_name);

/* ---- import_argcmp.c: iree_linalg_ext.arg_compare ---- */
void ls_imp_arg_compare_op(importer *im, const char *result_name);

/* import_attention.c: iree_linalg_ext.attention / online_attention, into
 * the dispatch view (for suggest) and recorded as not simulated. */
void ls_imp_attention_op(importer *im, const char *result_name);
/* import.c: `name = kind ...`, a value made by an op the importer passes
 * over (an attention reading it is refused by name, or, for a gather,
 * reads it through the gather). */
void ls_imp_note_opaque(importer *im, const char *name, const char *kind, int line);
/* At iree_linalg_ext.gather: its operands and dimension_map, kept for an
 * attention that reads its result (and the result left opaque). */
void ls_imp_gather_op(importer *im, const char *result_name);

/* ---- import_named.c: named structured ops ---- */
bool ls_imp_is_named_op(const ls_token *t);
void ls_imp_named_op(importer *im, const char *result_name);

#endif
