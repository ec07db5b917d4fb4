/* plan_thread_reduce.c: a thread's folds of its own values -- the
 * accumulate loop's fold of a register group and the thread reduce -- as
 * LLVM compiles them.  Each result's vector.multi_reduction over a
 * thread's registers becomes one vector.reduction of a 1-D vector
 * (LLVMGPUVectorMultiReductionLowering.cpp, after the InnerReduction
 * reorder), which MLIR's VectorToLLVM lowers to an llvm.vector.reduce.*
 * intrinsic.  An fadd or fmul one is ordered (IREE passes no
 * reassociateFPReductions: ConvertToNVVM.cpp, ConvertToROCDL.cpp): a
 * chain.  The others (integers, min and max) are unordered, and the
 * SelectionDAG splits the vector in halves while the half-width op is
 * legal: a tree of packed ops over the registers that hold two lanes,
 * then one op on the last register's halves; a scalar type is a balanced
 * tree on NVIDIA (where ptxas fuses some of an integer tree's adds into
 * IADD3: not modelled, tools/amd-dpp-counts.py --sass).  On AMD a scalar
 * fold stays a chain (fusing pairs into v_max3_f32, v_add3_u32:
 * plan.combine_fuses3), and so does a combine of several instructions
 * anywhere.  Measured with llc-22 on <n x T>
 * reductions (tools/amd-dpp-counts.py --folds): docs/timing-model.md,
 * "Folds: a vector.reduction as LLVM compiles it". */
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/body.h"
#include "lanescope/layout.h"
#include "lanescope/plan.h"
#include "plan_internal.h"

static bool is_pow2(int64_t n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

/* levels of a balanced tree folding n values two at a time */
static int64_t tree_depth(int64_t n)
{
    int64_t d = 0;
    for (int64_t m = n; m > 1; m = (m + 1) / 2)
        d++;
    return d;
}

void ls_fused_fold_init(ls_fused_fold *f, const int *v, int64_t n)
{
    f->width = 1;
    while (f->width < n)
        f->width *= 2;
    size_t w = (size_t)f->width;
    f->val = ls_xcalloc(w, sizeof *f->val);
    f->a = ls_xcalloc(w, sizeof *f->a);
    f->b = ls_xcalloc(w, sizeof *f->b);
    f->depth = ls_xcalloc(w, sizeof *f->depth);
    for (int64_t i = 0; i < f->width; i++)
        f->val[i] = i < n ? v[i] : LS_FOLD_ABSENT;
}

void ls_fused_fold_free(ls_fused_fold *f)
{
    free(f->val);
    free(f->a);
    free(f->b);
    free(f->depth);
}

static int max_int(int x, int y)
{
    return x > y ? x : y;
}

/* value i written (an open op as a two-input instruction) */
static void close_value(ls_fused_fold *f, int64_t i, ls_fold_emit_fn emit, void *ctx)
{
    if (f->val[i] == LS_FOLD_OPEN)
        f->val[i] = emit(ctx, f->a[i], f->b[i], -1);
}

/* Whether level value i (< half) becomes an op that takes one in: both
 * present, one of them open. */
static bool takes_in(const ls_fused_fold *f, int64_t i, int64_t h)
{
    int x = f->val[i], y = f->val[i + h];
    return x != LS_FOLD_ABSENT && y != LS_FOLD_ABSENT && (x == LS_FOLD_OPEN || y == LS_FOLD_OPEN);
}

/* Of value i and i + h, the open op taken in: the deeper one. */
static int64_t taken_in(const ls_fused_fold *f, int64_t i, int64_t h)
{
    int64_t j = i + h;
    bool oi = f->val[i] == LS_FOLD_OPEN, oj = f->val[j] == LS_FOLD_OPEN;
    return oi && (!oj || f->depth[i] >= f->depth[j]) ? i : j;
}

void ls_fused_fold_close(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx)
{
    int64_t h = f->width / 2;
    for (int64_t i = 0; i < h; i++)
        if (takes_in(f, i, h)) {
            int64_t in = taken_in(f, i, h);
            close_value(f, in == i ? i + h : i, emit, ctx);
        }
}

bool ls_fused_fold_level(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx)
{
    if (f->width < 2)
        return false;
    ls_fused_fold_close(f, emit, ctx);
    int64_t h = f->width / 2;
    for (int64_t i = 0; i < h; i++) {
        int64_t j = i + h;
        if (f->val[j] == LS_FOLD_ABSENT)
            continue;
        if (f->val[i] == LS_FOLD_ABSENT) {
            f->val[i] = f->val[j];
            f->a[i] = f->a[j];
            f->b[i] = f->b[j];
            f->depth[i] = f->depth[j];
            continue;
        }
        if (f->val[i] != LS_FOLD_OPEN && f->val[j] != LS_FOLD_OPEN) {
            /* an op nothing has taken in yet */
            f->a[i] = f->val[i];
            f->b[i] = f->val[j];
            f->depth[i] = 1 + max_int(f->depth[i], f->depth[j]);
            f->val[i] = LS_FOLD_OPEN;
            continue;
        }
        /* the open op's operands and the other (written by the close) */
        int64_t in = f->val[i] == LS_FOLD_OPEN ? i : j, other = in == i ? j : i;
        int x = f->a[in], y = f->b[in], z = f->val[other];
        int d = 1 + max_int(f->depth[in] - 1, f->depth[other]);
        f->val[i] = emit(ctx, x, y, z);
        f->depth[i] = d;
    }
    f->width = h;
    return h > 1;
}

int ls_fused_fold_root(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx, int open[2])
{
    while (ls_fused_fold_level(f, emit, ctx))
        ;
    if (f->val[0] == LS_FOLD_OPEN && open) {
        open[0] = f->a[0];
        open[1] = f->b[0];
        return LS_FOLD_OPEN;
    }
    close_value(f, 0, emit, ctx);
    return f->val[0];
}

/* The plan's side of a fused tree: ids are instructions, each with its
 * depth, counted (n values take under 2n ids: the leaves, then at most
 * n - 1 ops). */
typedef struct {
    int n, *depth;
    int64_t fused;
} fold_counter;

static int count_emit(void *ctx, int a, int b, int c)
{
    fold_counter *k = ctx;
    int d = max_int(k->depth[a], max_int(k->depth[b], c >= 0 ? k->depth[c] : 0));
    k->fused += c >= 0;
    k->depth[k->n] = d + 1;
    return k->n++;
}

/* ptxas's fused tree over n values: its instructions, those that take an
 * op in, its depth, and whether its root stays open */
static void fused_tree(int64_t n, int64_t *instructions, int64_t *fused, int64_t *depth,
                       bool *root_open)
{
    /* the leaves: ids 0 .. n - 1, depth 0 */
    fold_counter k = {(int)n, ls_xcalloc((size_t)(2 * n), sizeof(int)), 0};
    int *v = ls_xcalloc((size_t)n, sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (int)i;
    int leaves = k.n, open[2];
    ls_fused_fold f;
    ls_fused_fold_init(&f, v, n);
    int root = ls_fused_fold_root(&f, count_emit, &k, open);
    *root_open = root == LS_FOLD_OPEN;
    if (*root_open)
        root = count_emit(&k, open[0], open[1], -1);
    *instructions = k.n - leaves;
    *fused = k.fused;
    *depth = n > 1 ? k.depth[root] : 0;
    ls_fused_fold_free(&f);
    free(v);
    free(k.depth);
}

/* What decides a fold's form: the combine's instruction count on the
 * target, whether AMD fuses two of them (v_max3_f32), whether the type's
 * op is packed two lanes a register, whether the fold is ordered, and
 * whether ptxas fuses the tree's ops (ls_plan_fold_fuses3). */
typedef struct {
    bool amd, ordered, fuses3, pairs, amd_mul, tree3;
    int combine_alu;
} fold_traits;

static ls_thread_reduce_shape fold_shape(const fold_traits *t, int64_t values)
{
    ls_thread_reduce_shape s;
    memset(&s, 0, sizeof s);
    s.values = values > 1 ? values : 1;
    int64_t ops = s.values - 1;
    s.form = LS_TR_CHAIN;
    s.combines = t->fuses3 ? (ops + 1) / 2 : ops;
    s.instructions = s.combines * (t->combine_alu > 1 ? t->combine_alu : 1);
    s.depth = s.instructions;
    if (ops < 1 || t->combine_alu != 1 || t->ordered)
        return s;
    /* NVIDIA packs any even count (ptxas: 6, 10, 12 and 14 halves cost
     * what 3, 5, 6 and 7 registers' tree does, tools/amd-dpp-counts.py
     * --sass-folds); AMD was measured on powers of two */
    if (t->pairs && s.values >= 4 && (is_pow2(s.values) || (!t->amd && s.values % 2 == 0))) {
        /* the registers' tree, then the last register's two lanes: on AMD
         * an integer multiply first moves the high half down
         * (v_alignbit_b32 on gfx9) */
        int64_t regs = s.values / 2;
        s.form = LS_TR_PACKED_TREE;
        s.packed = regs - 1;
        s.halves_alu = t->amd_mul ? 2 : 1;
        s.depth = tree_depth(regs) + s.halves_alu;
        if (t->tree3) { /* VHMNMX: the halves' op is the open root */
            bool open;
            s.fuses3 = true;
            fused_tree(regs, &s.packed, &s.fused, &s.depth, &open);
            s.depth += s.halves_alu;
            s.root_open = true;
        }
        s.instructions = s.packed + s.halves_alu;
        s.combines = s.instructions;
        return s;
    }
    if (!t->amd) {
        s.form = LS_TR_TREE;
        s.instructions = s.combines = ops;
        s.depth = tree_depth(s.values);
        if (t->tree3) {
            s.fuses3 = true;
            fused_tree(s.values, &s.instructions, &s.fused, &s.depth, &s.root_open);
            s.combines = s.instructions;
        }
    }
    return s;
}

static bool is_ordered(ls_elem_type type, ls_combiner k)
{
    return ls_elem_type_is_float(type) && (k == LS_COMB_ADD || k == LS_COMB_MUL);
}

ls_thread_reduce_shape ls_plan_fold_shape(const ls_plan *plan, int64_t values)
{
    const ls_problem *p = plan->problem;
    /* the plan's own traits: a multi-result kernel's are its results'
     * together (ls_plan_fuse_results), an arg_compare's none */
    fold_traits t = {plan->amd,
                     is_ordered(p->acc_type, p->combiner),
                     plan->combine_fuses3,
                     plan->combine_pairs,
                     plan->amd && p->combiner == LS_COMB_MUL,
                     plan->combine_alu == 1 &&
                         ls_plan_fold_fuses3(plan->target, p->acc_type, p->combiner),
                     plan->combine_alu};
    /* a multi-result kernel's results are timed as result 0's: unless
     * every result folds alike, their folds stay chains, which each is or
     * costs as many instructions as */
    if (p->argcmp.on || (plan->extra_results > 0 && !plan->results_fold_alike))
        t.ordered = true;
    return fold_shape(&t, values);
}

ls_thread_reduce_shape ls_fold_shape_of(ls_plan_target target, ls_elem_type type, ls_combiner k,
                                        int64_t values)
{
    int alu = ls_plan_combine_alu(target, type, k);
    bool fuses3 = alu == 1 && ls_plan_combine_fuses3(target, type, k);
    fold_traits t = {target.amd,
                     is_ordered(type, k),
                     fuses3,
                     alu == 1 && (!fuses3 || !target.amd) && ls_plan_combine_pairs(target, type, k),
                     target.amd && k == LS_COMB_MUL,
                     alu == 1 && ls_plan_fold_fuses3(target, type, k),
                     alu};
    ls_thread_reduce_shape s = fold_shape(&t, values);
    s.root_open = false; /* its consumer is not the plan's join */
    return s;
}

ls_thread_reduce_shape ls_plan_thread_reduce_shape(const ls_plan *plan)
{
    int64_t q = plan->results_per_thread;
    ls_thread_reduce_shape s = ls_plan_fold_shape(plan, q > 0 ? plan->local_reduce_ops / q + 1 : 1);
    s.root_open = false; /* what reads it is a shuffle */
    return s;
}

bool ls_plan_loop_join_takes_root(const ls_plan *plan)
{
    return !plan->derived->local_reduce_all && !ls_plan_pairs_accumulators(plan);
}

int64_t ls_plan_loop_fold_values(const ls_plan *plan)
{
    int64_t q = plan->results_per_thread > 0 ? plan->results_per_thread : 1;
    return plan->inner_elems > 1 ? plan->inner_elems : plan->derived->elems_per_iteration / q;
}

bool ls_plan_loop_folds_reduce(const ls_plan *plan)
{
    const ls_problem *p = plan->problem;
    const ls_body *b = &p->body;
    /* a contraction's (a multiply into an add: ReductionToContract) is
     * ContractToChainFMA's or the outer-product lowering's chain */
    bool contraction = p->combiner == LS_COMB_ADD && b->n > 0 &&
                       (b->inst[b->n - 1].op == LS_BOP_MULF || b->inst[b->n - 1].op == LS_BOP_MULI);
    return !contraction && (plan->inner_elems > 1 || plan->derived->local_reduce_all);
}

bool ls_plan_loop_fold_tree(const ls_plan *plan, ls_thread_reduce_shape *s)
{
    ls_thread_reduce_shape f = ls_plan_fold_shape(plan, ls_plan_loop_fold_values(plan));
    f.root_open = f.root_open && ls_plan_loop_join_takes_root(plan);
    if (s)
        *s = f;
    return !plan->argcmp && ls_plan_loop_folds_reduce(plan) && f.form != LS_TR_CHAIN;
}

/* The llvm.vector.reduce intrinsic MLIR's VectorToLLVM lowers a
 * vector.reduction of k to (ConvertVectorToLLVM.cpp). */
static const char *intrinsic(ls_combiner k, bool is_float)
{
    switch (k) {
    case LS_COMB_ADD: return is_float ? "fadd" : "add";
    case LS_COMB_MUL: return is_float ? "fmul" : "mul";
    case LS_COMB_MINUI: return "umin";
    case LS_COMB_MINSI: return "smin";
    case LS_COMB_MAXUI: return "umax";
    case LS_COMB_MAXSI: return "smax";
    case LS_COMB_MINIMUMF: return "fminimum";
    case LS_COMB_MINNUMF: return "fmin";
    case LS_COMB_MAXIMUMF: return "fmaximum";
    case LS_COMB_MAXNUMF: return "fmax";
    case LS_COMB_AND: return "and";
    case LS_COMB_OR: return "or";
    case LS_COMB_XOR: return "xor";
    case LS_COMB_COUNT: break;
    }
    return "?";
}

/* The packed instruction of a packed tree's levels (the targets and types
 * ls_plan_combine_pairs pairs and no fadd/fmul: AMD's i16 ops, NVIDIA's
 * f16 and bf16 min and max). */
static const char *packed_name(const ls_plan *plan, char *buf, size_t size)
{
    ls_combiner k = plan->problem->combiner;
    bool max =
        k == LS_COMB_MAXSI || k == LS_COMB_MAXUI || k == LS_COMB_MAXIMUMF || k == LS_COMB_MAXNUMF;
    if (!plan->amd) {
        bool nan = k == LS_COMB_MAXIMUMF || k == LS_COMB_MINIMUMF;
        snprintf(buf, size, "%s%s.%sx2", max ? "max" : "min", nan ? ".NaN" : "",
                 ls_elem_type_name(plan->problem->acc_type));
    } else if (k == LS_COMB_ADD || k == LS_COMB_MUL) {
        snprintf(buf, size, "%s", k == LS_COMB_ADD ? "v_pk_add_u16" : "v_pk_mul_lo_u16");
    } else {
        bool u = k == LS_COMB_MAXUI || k == LS_COMB_MINUI;
        snprintf(buf, size, "v_pk_%s_%s16", max ? "max" : "min", u ? "u" : "i");
    }
    return buf;
}

const char *ls_plan_ptxas_fused_name(const ls_plan *plan)
{
    switch (plan->problem->combiner) {
    case LS_COMB_ADD: return "IADD3";
    case LS_COMB_AND:
    case LS_COMB_OR:
    case LS_COMB_XOR: return "LOP3";
    default: return ls_elem_type_is_float(plan->problem->acc_type) ? "VHMNMX" : "IMNMX";
    }
}

void ls_plan_dump_fold(const ls_plan *plan, const ls_thread_reduce_shape *s, const char *indent,
                       FILE *f)
{
    if (s->values < 2)
        return;
    const ls_problem *p = plan->problem;
    const char *in = intrinsic(ls_combiner_as_compiled(plan->target, p->combiner),
                               ls_elem_type_is_float(p->acc_type));
    char name[32];
    switch (s->form) {
    case LS_TR_PACKED_TREE:
        fprintf(f,
                "%s(one vector.reduction of %lld values: llvm.vector.reduce.%s, unordered; LLVM "
                "folds the vector's halves while the half-width op is legal -- %lld %s over "
                "the %lld registers holding two lanes%s, then %lld on the last one's halves: "
                "%lld instructions, %lld deep; llc-22",
                indent, (long long)s->values, in, (long long)s->packed,
                packed_name(plan, name, sizeof name), (long long)(s->values / 2),
                s->fuses3 ? " (after ptxas's fusing)" : "", (long long)s->halves_alu,
                (long long)s->instructions, (long long)s->depth);
        break;
    case LS_TR_TREE:
        fprintf(f,
                "%s(one vector.reduction of %lld values: llvm.vector.reduce.%s, unordered; LLVM "
                "folds it as a balanced tree%s: %lld instructions, %lld deep; llc-22",
                indent, (long long)s->values, in, s->fuses3 ? ", ptxas fuses some" : "",
                (long long)s->instructions, (long long)s->depth);
        break;
    case LS_TR_CHAIN:
        if (p->argcmp.on)
            break;
        fprintf(f,
                "%s(one vector.reduction of %lld values: llvm.vector.reduce.%s, %s: %lld "
                "instruction%s, %lld deep)\n",
                indent, (long long)s->values, in,
                is_ordered(p->acc_type, p->combiner)
                    ? "ordered (IREE sets no reassociateFPReductions), a chain"
                : plan->extra_results > 0
                    ? "a chain (a multi-result kernel's folds are timed as result 0's)"
                : plan->combine_fuses3
                    ? (plan->amd ? "a chain, each two combines one instruction (llc-22)"
                                 : "a chain, each two combines one instruction (ptxas)")
                : plan->amd ? "a chain on AMD (llc-22)"
                            : "a chain",
                (long long)s->instructions, s->instructions == 1 ? "" : "s", (long long)s->depth);
        return;
    }
    if (s->fuses3 && (s->fused > 0 || s->root_open)) /* ptxas's three-input instructions */
        fprintf(f,
                "; in ptxas's SASS %lld of them %s, each taking an op of the tree in%s: "
                "tools/amd-dpp-counts.py --sass-folds",
                (long long)s->fused, ls_plan_ptxas_fused_name(plan),
                !s->root_open                  ? ""
                : s->form == LS_TR_PACKED_TREE ? ", and the join takes the halves' op in"
                                               : ", and the join takes the root in");
    fprintf(f, ")\n");
}

const char *ls_plan_fold_brief(const ls_plan *plan, const ls_thread_reduce_shape *s, char *buf,
                               size_t size)
{
    char name[32];
    switch (s->form) {
    case LS_TR_PACKED_TREE:
        snprintf(buf, size,
                 "a tree of packed %s over the registers holding two lanes, then one op on the "
                 "last one's halves: %lld instructions, %lld deep",
                 packed_name(plan, name, sizeof name), (long long)s->instructions,
                 (long long)s->depth);
        break;
    case LS_TR_TREE:
        snprintf(buf, size, "a balanced tree: %lld instructions%s, %lld deep",
                 (long long)s->instructions, s->fuses3 ? " (ptxas fuses pairs)" : "",
                 (long long)s->depth);
        break;
    case LS_TR_CHAIN:
        snprintf(buf, size, "a chain: %lld instruction%s, one after the other",
                 (long long)s->instructions, s->instructions == 1 ? "" : "s");
        break;
    }
    return buf;
}
