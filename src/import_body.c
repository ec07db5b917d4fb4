/* import_body.c: compile a linalg body into an ls_body (body.h).
 *
 * A reduction body is `yield(combine(f(inputs...), init))`: the combiner
 * (linalg::getCombinerOpKind's kinds) folds the init in once, and f -- any
 * tree of arith / math ops, constants and linalg.index -- is compiled into
 * the program the lanes and the reference both run.  Inputs produced by an
 * elementwise linalg.generic in the same dispatch are inlined: IREE tiles
 * and fuses such producers into the consumer (the dispatch is formed around
 * the reduction root, and GPUApplyTilingLevel fuses producers of its
 * operands), so the tile reads the producer's inputs, never its result.
 * Their maps are composed through the consumer's: producer loop l, which
 * writes result dim j (l = out_map[j]), is the consumer loop the consumer's
 * operand map gives for dim j.
 */
#include <math.h>
#include <stdarg.h>

#include "import_internal.h"
#include "lanescope/value.h"

typedef struct {
    importer *im;
    const region *r;
    int n_in;                     /* block arguments that are inputs */
    const char *out_arg;          /* the init's block argument */
    int res, n_outs;              /* which result of how many the body yields */
    const operand_list *ins;
    int (*in_map)[LS_MAX_RANK];   /* per input: loop dims */
    const int *in_map_n;
    int64_t (*in_scale)[LS_MAX_RANK], (*in_shape)[LS_MAX_RANK]; /* strided dims, or NULL */
    int memo_stmt[MAX_STMTS];     /* statement -> instruction + 1 */
    int memo_arg[MAX_OPERANDS];   /* input block argument -> instruction + 1 */
    ls_body *body;
    int n_leaves;
    ls_operand leaves[LS_MAX_INPUTS];
    int rank;                     /* loops of the op (linalg.index bound) */
    /* A comparator region: its block arguments are read as INPUT 0, 1, ...
     * of type raw_type themselves (no operand list behind them). */
    int n_raw;
    ls_elem_type raw_type;
} builder;

static int fail_at(builder *b, int line, int col, ls_status st, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail_at(builder *b, int line, int col, ls_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!failed(b->im))
        ls_diag_vset(b->im->diag, st, b->im->file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

static int emit(builder *b, const ls_body_inst *in, int line, int col)
{
    if (b->body->n >= LS_MAX_BODY_INSTS)
        return fail_at(b, line, col, LS_ERR_LIMIT,
                       "the body has more than %d ops (fused producers included); the limit is "
                       "%d",
                       LS_MAX_BODY_INSTS, LS_MAX_BODY_INSTS);
    ls_body_inst *o = &b->body->inst[b->body->n];
    *o = *in;
    o->line = line;
    o->col = col;
    return b->body->n++;
}

static ls_body_inst blank(ls_body_opcode op, ls_elem_type t)
{
    ls_body_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)op;
    in.type = (uint8_t)t;
    in.src = (uint8_t)t;
    in.a = in.b = in.c = -1;
    return in;
}

static bool same_map(const ls_operand *o, const int *map, const int64_t *scale, int n)
{
    if (o->map_n != n)
        return false;
    for (int j = 0; j < n; j++)
        if (o->map[j] != map[j] || o->scale[j] != (scale ? scale[j] : 0))
            return false;
    return true;
}

/* The instruction reading tensor `name` through `map` (one per distinct
 * tensor and map: x*x reads x once). */
static int leaf(builder *b, const char *name, ls_elem_type t, const int *map,
                const int64_t *scale, const int64_t *shape, int map_n, int line, int col)
{
    int k = 0;
    while (k < b->n_leaves && !(strcmp(b->leaves[k].name, name) == 0 &&
                                same_map(&b->leaves[k], map, scale, map_n)))
        k++;
    if (k == b->n_leaves) {
        if (b->n_leaves >= LS_MAX_INPUTS)
            return fail_at(b, line, col, LS_ERR_LIMIT,
                           "the reduction reads more than %d tensors (fused producers' inputs "
                           "included); the limit is %d",
                           LS_MAX_INPUTS, LS_MAX_INPUTS);
        ls_operand *o = &b->leaves[b->n_leaves++];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", name);
        int res, at = b->im->cur ? ls_imp_find_producer(b->im->cur, name, &res) : -1;
        if (at >= 0 && b->im->cur->ops[at].problem >= 0) {
            /* %0#1 of a multi-result generic: its result 1's problem */
            int first = b->im->cur->ops[at].problem;
            o->intermediate = true;
            o->producer = first + (res < b->im->m->problems[first].n_results ? res : 0);
        }
        o->type = t;
        o->map_n = map_n;
        memcpy(o->map, map, sizeof(int) * (size_t)map_n);
        if (scale) {
            memcpy(o->scale, scale, sizeof(int64_t) * (size_t)map_n);
            memcpy(o->shape, shape, sizeof(int64_t) * (size_t)map_n);
        }
    }
    for (int i = 0; i < b->body->n; i++)
        if (b->body->inst[i].op == LS_BOP_INPUT && b->body->inst[i].index == k)
            return i;
    ls_body_inst in = blank(LS_BOP_INPUT, t);
    in.index = k;
    return emit(b, &in, line, col);
}

static bool type_ok(builder *b, ls_elem_type t, const char *text, int line, int col)
{
    if (t != LS_ET_UNKNOWN)
        return true;
    fail_at(b, line, col, LS_ERR_INVALID,
            "element type %s is not one lanescope models (" LS_ELEM_TYPES_TEXT
            ", i1 and index)",
            text[0] ? text : "(none given)");
    return false;
}

/* Input k of the op: a fused producer's body, or a tensor read. */
static int input(builder *b, int k, int line, int col)
{
    if (b->memo_arg[k])
        return b->memo_arg[k] - 1;
    const char *name = b->ins->names[k];
    const fused_producer *f = ls_imp_fused_of(b->im, name);
    int at;
    bool strided = false;
    for (int j = 0; b->in_scale && j < b->in_map_n[k]; j++)
        strided |= b->in_scale[k][j] > 1;
    if (f && (f->failed || f->rank != b->in_map_n[k] || strided))
        return fail_at(b, line, col, LS_ERR_INVALID,
                       "%s is computed in this dispatch by the elementwise op at %d:%d, which "
                       "IREE fuses into this reduction; lanescope cannot inline it: %s",
                       name, f->line, f->col,
                       f->failed ? f->why
                                 : "the reduction reads it through a strided or rank-changing map");
    if (f) {
        int loop[LS_MAX_RANK];
        for (int j = 0; j < f->rank; j++)
            loop[f->out_map[j]] = b->in_map[k][j];
        int local[LS_MAX_BODY_INSTS];
        at = -1;
        for (int i = 0; i < f->body.n && !failed(b->im); i++) {
            ls_body_inst in = f->body.inst[i];
            if (in.op == LS_BOP_INPUT) {
                const ls_operand *src = &f->inputs[in.index];
                int map[LS_MAX_RANK];
                for (int j = 0; j < src->map_n; j++)
                    map[j] = loop[src->map[j]];
                at = leaf(b, src->name, src->type, map, NULL, NULL, src->map_n, in.line,
                          in.col);
            } else {
                if (in.op == LS_BOP_INDEX)
                    in.index = loop[in.index];
                in.a = in.a >= 0 ? (int16_t)local[in.a] : -1;
                in.b = in.b >= 0 ? (int16_t)local[in.b] : -1;
                in.c = in.c >= 0 ? (int16_t)local[in.c] : -1;
                at = emit(b, &in, in.line, in.col);
            }
            if (at < 0)
                return -1;
            local[i] = at;
        }
    } else {
        if (!type_ok(b, b->ins->types[k].elem, b->ins->types[k].elem_text ?
                         b->ins->types[k].elem_text : "", line, col))
            return -1;
        at = leaf(b, name, b->ins->types[k].elem, b->in_map[k],
                  b->in_scale ? b->in_scale[k] : NULL, b->in_shape ? b->in_shape[k] : NULL,
                  b->in_map_n[k], line, col);
    }
    if (at >= 0)
        b->memo_arg[k] = at + 1;
    return at;
}

static int value(builder *b, const char *name, int line, int col, int depth);

/* A statement's fastmath flags: none and `contract` (which IREE's FMA
 * fusion reads) are modelled; any other is refused with its reason. */
static bool fastmath_ok(builder *b, const stmt *s)
{
    if (!s->fmf_other[0])
        return true;
    fail_at(b, s->fmf_line, s->fmf_col, LS_ERR_INVALID,
            "fastmath<%s> on %s: lanescope simulates the strict IR and reads only `contract` "
            "(IREE's FMA fusion); %s lets LLVM approximate or reorder in ways it does not "
            "reproduce, so remove it (or keep only contract)",
            s->fmf_other, s->op, s->fmf_other);
    return false;
}

/* Result b->res computed from result j's init: an argmax written as a
 * generic, where the index follows the value. */
static int coupled(builder *b, int j, int line, int col)
{
    return fail_at(b, line, col, LS_ERR_INVALID,
                   "result %d reads %s, the init of result %d: the results are reduced together "
                   "(an argmax written as a generic; iree_linalg_ext.arg_compare is the form "
                   "lanescope models), and lanescope models results that each fold only their "
                   "own init",
                   b->res, b->r->arg[b->n_in + j], j);
}

/* Whether value `name` of the region is computed from block argument arg
 * (seen[]: statements already walked, so shared operands cost nothing). */
static bool reads_arg(const region *r, const char *name, const char *arg, bool *seen)
{
    if (strcmp(name, arg) == 0)
        return true;
    const stmt *s = ls_imp_def_of(r, name);
    if (s == NULL || seen[s - r->stmts])
        return false;
    seen[s - r->stmts] = true;
    for (int k = 0; k < s->n_args; k++)
        if (reads_arg(r, s->args[k], arg, seen))
            return true;
    return false;
}

/* tensor.extract %t[%i, %j] whose indices are the loop coordinates
 * (linalg.index results): a read of %t through that map, as IREE's
 * gather-like producers that index by the loops amount to.  Indices
 * computed from data are a true gather, which is not modelled. */
static int extract(builder *b, const stmt *s)
{
    if (s->n_args != 1 || s->n_idx < 1 || s->n_idx > LS_MAX_RANK)
        return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                       "tensor.extract: expected %%tensor[%%i, ...] with 1 to %d indices",
                       LS_MAX_RANK);
    if (!type_ok(b, s->from, s->from_text, s->line, s->col))
        return -1;
    int map[LS_MAX_RANK];
    for (int j = 0; j < s->n_idx; j++) {
        const stmt *d = ls_imp_def_of(b->r, s->idx[j]);
        char *end;
        long dim = d && strcmp(d->op, "linalg.index") == 0 ? strtol(d->lit, &end, 10) : -1;
        if (dim < 0 || dim >= b->rank)
            return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                           "tensor.extract at index %s, which is not a linalg.index of the "
                           "loops: a data-dependent gather, which lanescope does not model",
                           s->idx[j]);
        map[j] = (int)dim;
    }
    int si = (int)(s - b->r->stmts);
    int at = leaf(b, s->args[0], s->from, map, NULL, NULL, s->n_idx, s->line, s->col);
    if (at >= 0)
        b->memo_stmt[si] = at + 1;
    return at;
}

static int statement(builder *b, const stmt *s, int depth)
{
    int si = (int)(s - b->r->stmts);
    if (b->memo_stmt[si])
        return b->memo_stmt[si] - 1;
    ls_body_inst in;
    if (strcmp(s->op, "arith.constant") == 0) {
        if (!type_ok(b, s->from, s->from_text, s->line, s->col))
            return -1;
        in = blank(LS_BOP_CONST, s->from);
        if (!ls_imp_literal_bits(s->lit, s->from, &in.imm))
            return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                           "arith.constant %s: expected a number literal of type %s",
                           s->lit[0] ? s->lit : "(none)", ls_elem_type_name(s->from));
    } else if (strcmp(s->op, "tensor.extract") == 0) {
        return extract(b, s);
    } else if (strcmp(s->op, "linalg.index") == 0) {
        char *end;
        long d = strtol(s->lit, &end, 10);
        if (!s->lit[0] || *end || d < 0 || d >= b->rank)
            return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                           "linalg.index %s: expected a loop dimension below %d", s->lit,
                           b->rank);
        in = blank(LS_BOP_INDEX, LS_ET_INDEX);
        in.index = (int32_t)d;
    } else {
        ls_body_opcode op;
        if (!ls_body_opcode_from_name(s->op, &op))
            return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                           "%s in the body is not an arith/math op lanescope interprets", s->op);
        int ar = ls_body_opcode_arity(op);
        if (s->n_args != ar)
            return fail_at(b, s->line, s->col, LS_ERR_INVALID, "%s has %d operands; expected %d",
                           s->op, s->n_args, ar);
        if (!type_ok(b, s->first, s->from_text, s->line, s->col) ||
            !type_ok(b, s->from, s->from_text, s->line, s->col) ||
            !type_ok(b, s->to, "", s->line, s->col))
            return -1;
        if (!fastmath_ok(b, s))
            return -1;
        in = blank(op, op == LS_BOP_FPOWI ? s->first : s->to);
        in.fmf = s->fmf;
        /* scaling_extf's `: A, S to R`: the value's type A is the source */
        in.src = (uint8_t)(op == LS_BOP_SCALING_EXTF ? s->first : s->from);
        if (op == LS_BOP_CMPF || op == LS_BOP_CMPI) {
            ls_body_pred pr;
            if (!ls_body_pred_from_name(s->pred, op == LS_BOP_CMPF, &pr))
                return fail_at(b, s->line, s->col, LS_ERR_INVALID,
                               "%s: '%s' is not a predicate of it", s->op, s->pred);
            in.pred = (uint8_t)pr;
            in.type = LS_ET_I1;
        }
        int16_t *opnd[3] = {&in.a, &in.b, &in.c};
        for (int k = 0; k < ar; k++) {
            int v = value(b, s->args[k], s->line, s->col, depth + 1);
            if (v < 0)
                return -1;
            *opnd[k] = (int16_t)v;
        }
    }
    int at = emit(b, &in, s->line, s->col);
    if (at >= 0)
        b->memo_stmt[si] = at + 1;
    return at;
}

static int value(builder *b, const char *name, int line, int col, int depth)
{
    if (depth > MAX_STMTS)
        return fail_at(b, line, col, LS_ERR_INVALID, "the body's values form a cycle");
    if (b->out_arg && strcmp(name, b->out_arg) == 0)
        return fail_at(b, line, col, LS_ERR_INVALID,
                       "the init %s is read before the combiner folds it in; lanescope models "
                       "bodies that use the init once, in the combining op",
                       name);
    for (int j = 0; j < b->n_outs; j++)
        if (j != b->res && strcmp(b->r->arg[b->n_in + j], name) == 0)
            return coupled(b, j, line, col);
    for (int k = 0; k < b->n_raw; k++)
        if (strcmp(b->r->arg[k], name) == 0) {
            if (b->memo_arg[k])
                return b->memo_arg[k] - 1;
            ls_body_inst in = blank(LS_BOP_INPUT, b->raw_type);
            in.index = k;
            int at = emit(b, &in, line, col);
            if (at >= 0)
                b->memo_arg[k] = at + 1;
            return at;
        }
    for (int k = 0; k < b->n_in; k++)
        if (strcmp(b->r->arg[k], name) == 0)
            return input(b, k, line, col);
    const stmt *s = ls_imp_def_of(b->r, name);
    if (s)
        return statement(b, s, depth);
    for (int i = b->im->n_constants; i-- > 0;)
        if (strcmp(b->im->constants[i].name, name) == 0) {
            ls_body_inst in = blank(LS_BOP_CONST, b->im->constants[i].type);
            in.imm = b->im->constants[i].bits;
            return emit(b, &in, line, col);
        }
    return fail_at(b, line, col, LS_ERR_INVALID,
                   "%s is defined outside the body and is not an arith.constant lanescope can "
                   "read",
                   name);
}

static void builder_init(builder *b, importer *im, const region *r, const operand_list *ins,
                         int in_map[][LS_MAX_RANK], const int *in_map_n, ls_body *body, int rank)
{
    memset(b, 0, sizeof *b);
    b->im = im;
    b->r = r;
    b->ins = ins;
    b->n_in = ins->n;
    b->in_map = in_map;
    b->in_map_n = in_map_n;
    b->body = body;
    b->rank = rank;
    memset(body, 0, sizeof *body);
}

/* The value a generic's body folds into init res: the yield's defining
 * op must be a combiner (p->combiner) of the init argument and that value,
 * which is compiled (its instruction index, -1 after an error). */
static int combined_value(builder *b, const region *r, int n_ins, int res, int n_outs,
                          ls_problem *p)
{
    b->out_arg = r->arg[n_ins + res];
    /* before the combiner's shape: an argmax's index is a select */
    for (int j = 0; j < n_outs; j++) {
        bool seen[MAX_STMTS] = {false};
        if (j != res && reads_arg(r, r->yield[res], r->arg[n_ins + j], seen)) {
            coupled(b, j, r->yield_line, r->yield_col);
            return -1;
        }
    }
    const stmt *c = ls_imp_def_of(r, r->yield[res]);
    if (c == NULL) {
        fail_at(b, r->yield_line, r->yield_col, LS_ERR_INVALID,
                "the yielded value %s is not computed in the body", r->yield[res]);
        return -1;
    }
    if (!ls_combiner_from_op(c->op, &p->combiner)) {
        fail_at(b, c->line, c->col, LS_ERR_INVALID,
                "the yielded value comes from %s, which is not a combining op (addf/addi, "
                "mulf/muli, min/max variants, andi, ori, xori)",
                c->op);
        return -1;
    }
    if (c->n_args != 2) {
        fail_at(b, c->line, c->col, LS_ERR_INVALID, "%s has %d operands; expected 2", c->op,
                c->n_args);
        return -1;
    }
    if (!fastmath_ok(b, c))
        return -1;
    int side = strcmp(c->args[1], b->out_arg) == 0   ? 1
               : strcmp(c->args[0], b->out_arg) == 0 ? 0
                                                     : -1;
    if (side < 0) {
        fail_at(b, c->line, c->col, LS_ERR_INVALID,
                "%s does not combine with the init argument %s; not a reduction lanescope "
                "models",
                c->op, b->out_arg);
        return -1;
    }
    return value(b, c->args[1 - side], c->line, c->col, 0);
}

bool ls_imp_compile_reduction(importer *im, const region *r, const operand_list *ins,
                              int in_map[][LS_MAX_RANK], const int *in_map_n,
                              int64_t in_scale[][LS_MAX_RANK], int64_t in_shape[][LS_MAX_RANK],
                              int res, int n_outs, ls_problem *p, int line, int col)
{
    builder *b = ls_xcalloc(1, sizeof *b);
    builder_init(b, im, r, ins, in_map, in_map_n, &p->body, p->rank);
    b->in_scale = in_scale;
    b->in_shape = in_shape;
    b->res = res;
    b->n_outs = n_outs;
    bool ok = false;
    int root = -1;
    if (r->short_op[0]) {
        if (!ls_combiner_from_op(r->short_op, &p->combiner)) {
            fail_at(b, line, col, LS_ERR_INVALID,
                    "'%s' is not a combining op lanescope models (addf/addi, mulf/muli, min/max "
                    "variants, andi, ori, xori)",
                    r->short_op);
            goto done;
        }
        root = input(b, 0, line, col);
    } else {
        if (r->n_args != ins->n + n_outs || r->n_yield != n_outs) {
            fail_at(b, line, col, LS_ERR_INVALID,
                    "reduction body has %d block arguments and yields %d values; the op has %d "
                    "inputs and %d init%s",
                    r->n_args, r->n_yield, ins->n, n_outs, n_outs == 1 ? "" : "s");
            goto done;
        }
        root = combined_value(b, r, ins->n, res, n_outs, p);
    }
    if (root < 0)
        goto done;
    /* The value folded in must be the last instruction: drop anything
     * computed after it (memoised operands appear before their users, so
     * only dead code can follow). */
    p->body.n = root + 1;
    int bad;
    const char *why;
    if (!ls_body_check(&p->body, &bad, &why)) {
        fail_at(b, p->body.inst[bad].line, p->body.inst[bad].col, LS_ERR_INVALID, "%s: %s",
                ls_body_opcode_name((ls_body_opcode)p->body.inst[bad].op), why);
        goto done;
    }
    /* IREE fuses the reduced addf of a mulf into one FMA before it lowers
     * the reduction (LLVMGPUVectorLowering.cpp, SetMulAddFMF) */
    if (p->combiner == LS_COMB_ADD)
        ls_body_fuse_reduced_muladd(&p->body);
    if (b->n_leaves == 0 && ins->n > 0) {
        /* The body reads no tensor (linalg.index only, say): input 0 stays
         * the op's operand, not loaded (the plan sees it unreferenced). */
        ls_operand *o = &b->leaves[b->n_leaves++];
        memset(o, 0, sizeof *o);
        snprintf(o->name, sizeof o->name, "%s", ins->names[0]);
        o->type = ins->types[0].elem;
        o->map_n = in_map_n[0];
        memcpy(o->map, in_map[0], sizeof(int) * (size_t)in_map_n[0]);
        if (in_scale) {
            memcpy(o->scale, in_scale[0], sizeof(int64_t) * (size_t)in_map_n[0]);
            memcpy(o->shape, in_shape[0], sizeof(int64_t) * (size_t)in_map_n[0]);
        }
    }
    p->n_inputs = b->n_leaves;
    memcpy(p->inputs, b->leaves, sizeof b->leaves);
    /* The plain forms keep their classic description: the input itself, or
     * its arith.extf / arith.extsi. */
    const ls_body_inst *in = p->body.inst;
    if (p->n_inputs == 1 && p->body.n == 1) {
        p->body.n = 0;
    } else if (p->n_inputs == 1 && p->body.n == 2 && in[0].op == LS_BOP_INPUT &&
               (in[1].op == LS_BOP_EXTF || in[1].op == LS_BOP_EXTSI)) {
        p->body.n = 0;
        p->extended = true;
    }
    ok = true;
done:
    free(b);
    return ok && !failed(im);
}

bool ls_imp_compile_comparator(importer *im, const region *r, ls_elem_type t, ls_body *out,
                               int line, int col)
{
    static const operand_list none;
    builder *b = ls_xcalloc(1, sizeof *b);
    builder_init(b, im, r, &none, NULL, NULL, out, 0);
    b->n_raw = 2;
    b->raw_type = t;
    bool ok = false;
    int at = -1;
    if (r->n_args != 2 || r->n_yield != 1) {
        fail_at(b, line, col, LS_ERR_INVALID,
                "the comparator region has %d block arguments and yields %d values; "
                "arg_compare's takes two (candidate, best) and yields one i1",
                r->n_args, r->n_yield);
        goto done;
    }
    /* Both arguments first, so INPUT 0 and 1 are instructions 0 and 1 even
     * when the comparator reads one of them only. */
    if (value(b, r->arg[0], line, col, 0) != 0 || value(b, r->arg[1], line, col, 0) != 1 ||
        (at = value(b, r->yield[0], r->yield_line, r->yield_col, 0)) < 0)
        goto done;
    out->n = at + 1;
    int bad;
    const char *why;
    if (!ls_body_check(out, &bad, &why)) {
        fail_at(b, out->inst[bad].line, out->inst[bad].col, LS_ERR_INVALID, "%s: %s",
                ls_body_opcode_name((ls_body_opcode)out->inst[bad].op), why);
        goto done;
    }
    if (out->inst[at].type != LS_ET_I1) {
        fail_at(b, r->yield_line, r->yield_col, LS_ERR_INVALID,
                "the comparator yields %s; arg_compare's yields an i1",
                ls_elem_type_name((ls_elem_type)out->inst[at].type));
        goto done;
    }
    ok = true;
done:
    free(b);
    return ok && !failed(im);
}


static void keep_fused(importer *im, const fused_producer *f)
{
    if (im->n_fused == MAX_FUSED) { /* keep the latest: consumers follow producers */
        memmove(im->fused, im->fused + 1, sizeof im->fused - sizeof im->fused[0]);
        im->n_fused--;
    }
    im->fused[im->n_fused++] = *f;
}

void ls_imp_record_unfusable(importer *im, const char *result, int line, int col,
                             const char *why)
{
    if (result == NULL)
        return;
    fused_producer *f = ls_xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", result);
    snprintf(f->why, sizeof f->why, "%s", why);
    f->failed = true;
    f->line = line;
    f->col = col;
    keep_fused(im, f);
    free(f);
}

void ls_imp_record_fused(importer *im, const char *result, int line, int col, const region *r,
                         const operand_list *ins, int rank, int maps[][LS_MAX_RANK],
                         const int *map_n)
{
    if (result == NULL)
        return;
    const char *why = NULL;
    if (r->n_yield != 1)
        why = "it yields several values";
    else if (r->n_args != ins->n + 1)
        why = "its region's block arguments are not one per input and one for the init";
    else if (ins->n > MAX_OPERANDS - 1)
        why = "it has more inputs than lanescope inlines";
    else if (map_n[ins->n] != rank)
        why = "its result's indexing map does not name every loop";
    bool seen[LS_MAX_RANK] = {false};
    for (int j = 0; !why && j < rank; j++) {
        int l = maps[ins->n][j];
        if (l < 0 || l >= rank || seen[l])
            why = "its result's indexing map is not a permutation of its loops";
        else
            seen[l] = true;
    }
    for (int k = 0; !why && k < ins->n; k++)
        for (int j = 0; j < map_n[k]; j++)
            if (maps[k][j] < 0)
                why = "an input's indexing map has a result that is not a loop dimension";
    if (why)
        return ls_imp_record_unfusable(im, result, line, col, why);
    fused_producer *f = ls_xcalloc(1, sizeof *f);
    builder *b = ls_xcalloc(1, sizeof *b);
    builder_init(b, im, r, ins, maps, map_n, &f->body, rank);
    b->out_arg = r->arg[ins->n];
    /* A failure here is not the file's error until a reduction reads the
     * producer (an unused elementwise op may hold anything). */
    ls_diag local, *saved = im->diag;
    ls_diag_clear(&local);
    im->diag = &local;
    int root = value(b, r->yield[0], r->yield_line, r->yield_col, 0);
    im->diag = saved;
    snprintf(f->name, sizeof f->name, "%s", result);
    f->line = line;
    f->col = col;
    if (root >= 0 && local.status == LS_OK) {
        f->body.n = root + 1;
        f->rank = rank;
        memcpy(f->out_map, maps[ins->n], sizeof f->out_map);
        f->n_inputs = b->n_leaves;
        memcpy(f->inputs, b->leaves, sizeof b->leaves);
    } else {
        f->failed = true;
        if (local.line > 0)
            snprintf(f->why, sizeof f->why, "%d:%d: %s", local.line, local.col, local.msg);
        else
            snprintf(f->why, sizeof f->why, "%s", local.msg);
    }
    keep_fused(im, f);
    free(b);
    free(f);
}

const fused_producer *ls_imp_fused_of(const importer *im, const char *name)
{
    for (int i = im->n_fused; i-- > 0;)
        if (strcmp(im->fused[i].name, name) == 0)
            return &im->fused[i];
    return NULL;
}

