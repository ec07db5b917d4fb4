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
#include <string.h>

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

/* What decides a fold's form: the combine's instruction count on the
 * target, whether AMD fuses two of them (v_max3_f32), whether the type's
 * op is packed two lanes a register, and whether the fold is ordered. */
typedef struct {
    bool amd, ordered, fuses3, pairs, amd_mul;
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
    if (t->pairs && s.values >= 4 && is_pow2(s.values)) {
        /* the registers' tree, then the last register's two lanes: on AMD
         * an integer multiply first moves the high half down
         * (v_alignbit_b32 on gfx9) */
        int64_t regs = s.values / 2;
        s.form = LS_TR_PACKED_TREE;
        s.packed = regs - 1;
        s.halves_alu = t->amd_mul ? 2 : 1;
        s.instructions = s.packed + s.halves_alu;
        s.combines = s.instructions;
        s.depth = tree_depth(regs) + s.halves_alu;
        return s;
    }
    if (!t->amd) {
        s.form = LS_TR_TREE;
        s.instructions = s.combines = ops;
        s.depth = tree_depth(s.values);
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
    fold_traits t = {
        plan->amd,           is_ordered(p->acc_type, p->combiner),    plan->combine_fuses3,
        plan->combine_pairs, plan->amd && p->combiner == LS_COMB_MUL, plan->combine_alu};
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
                     alu == 1 && !fuses3 && ls_plan_combine_pairs(target, type, k),
                     target.amd && k == LS_COMB_MUL,
                     alu};
    return fold_shape(&t, values);
}

ls_thread_reduce_shape ls_plan_thread_reduce_shape(const ls_plan *plan)
{
    int64_t q = plan->results_per_thread;
    return ls_plan_fold_shape(plan, q > 0 ? plan->local_reduce_ops / q + 1 : 1);
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
                "the %lld registers holding two lanes, then %lld on the last one's halves: "
                "%lld instructions, %lld deep; llc-22)\n",
                indent, (long long)s->values, in, (long long)s->packed,
                packed_name(plan, name, sizeof name), (long long)(s->values / 2),
                (long long)s->halves_alu, (long long)s->instructions, (long long)s->depth);
        break;
    case LS_TR_TREE:
        fprintf(f,
                "%s(one vector.reduction of %lld values: llvm.vector.reduce.%s, unordered; LLVM "
                "folds it as a balanced tree: %lld instructions, %lld deep; llc-22)\n",
                indent, (long long)s->values, in, (long long)s->instructions, (long long)s->depth);
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
        break;
    }
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
        snprintf(buf, size, "a balanced tree: %lld instructions, %lld deep",
                 (long long)s->instructions, (long long)s->depth);
        break;
    case LS_TR_CHAIN:
        snprintf(buf, size, "a chain: %lld instruction%s, one after the other",
                 (long long)s->instructions, s->instructions == 1 ? "" : "s");
        break;
    }
    return buf;
}
