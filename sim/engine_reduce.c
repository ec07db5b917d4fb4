/* engine_reduce.c: a gpu.subgroup_reduce in the engine's template -- an
 * XOR butterfly's shuffle and combine per step, or on AMD each DPP step as
 * LLVM compiles it for the value's type and combine (the instructions
 * tools/amd-dpp-counts.py measured: src/amd_dpp_counts.c), each marked
 * with its step for the stepper and the view.  docs/timing-model.md,
 * "DPP steps as compiled". */
#include <stdlib.h>

#include "engine_internal.h"

/* Mark x as part of step i of r: its lane move, an instruction LLVM adds
 * before the move or after it, and (end) the one holding the step's value. */
static void mark_step(engine *e, int x, const ls_subgroup_reduce *r, int i, bool after, bool end)
{
    if (e->code) {
        e->code[x].step = i;
        e->code[x].red = r;
        e->code[x].after_move = after;
        e->code[x].step_end = end;
    }
}

/* n dependent ALU instructions of step i after x, the first also reading
 * y (-1: none); after: they follow the step's lane move */
static int alu_after(engine *e, const ls_subgroup_reduce *r, int i, ls_stage st, int n, int x,
                     int y, bool after)
{
    for (int k = 0; k < n; k++) {
        x = ls_engine_emit(e, I_ALU, st, x, k == 0 ? y : -1);
        mark_step(e, x, r, i, after, false);
    }
    return x;
}

/* p lane moves of step i reading x */
static int moves(engine *e, const ls_subgroup_reduce *r, int i, ls_stage st, ikind k, int p, int x)
{
    int m = x;
    for (int q = 0; q < p; q++) {
        m = ls_engine_emit(e, k, st, x, -1);
        mark_step(e, m, r, i, false, false);
    }
    return m;
}

/* Step i of a DPP-lowered reduce as LLVM compiles it: n instructions
 * (ls_plan_dpp_step_alu), p 32-bit pieces.  A DPP or permlane move whose
 * combine LLVM folded into it (n == p: v_add_f32_dpp) is the step; else
 * the move writes its old operand, so the running value is copied first,
 * and the rest (quieting a maxnum's operand, a bf16 promotion, the
 * combine) follows the move.  A readlane has no copy (a pair reads lanes
 * 31 and 63); a swizzle goes through the workgroup-memory crossbar, as a
 * ds_bpermute does, and its n are the instructions besides it. */
static int emit_measured_step(engine *e, const ls_subgroup_reduce *r, int i, ls_stage st, int prev,
                              int n, int p)
{
    const ls_reduce_step *s = &r->steps[i];
    int x;
    if (s->kind == LS_STEP_SWIZZLE || s->kind == LS_STEP_READLANE) {
        x = moves(e, r, i, st, s->kind == LS_STEP_SWIZZLE ? I_SHUFFLE : I_DPP, p, prev);
        int rest = n - (s->kind == LS_STEP_SWIZZLE ? 0 : p), y = -1;
        if (s->lane_b >= 0) { /* the second lane's readlanes */
            y = alu_after(e, r, i, st, p, prev, -1, true);
            rest -= p;
        }
        x = alu_after(e, r, i, st, rest, x, y, true);
    } else if (n <= p) { /* folded */
        x = moves(e, r, i, st, I_DPP, p, prev);
    } else {
        /* the old operand's copies (as many as the count leaves beside the
         * moves and the combine), the moves, the rest */
        int copies = n - p - 1 < p ? n - p - 1 : p;
        int c = alu_after(e, r, i, st, copies, prev, -1, false);
        x = moves(e, r, i, st, I_DPP, p, c);
        x = alu_after(e, r, i, st, n - p - copies, x, prev, true);
    }
    mark_step(e, x, r, i, e->code && e->code[x].kind == I_ALU, true);
    return x;
}

/* One level of group g's fold: a chain's next combine, or a tree's pairs
 * (an odd one out waits for the next level); n[g] drops. */
static void fold_level(engine *e, ls_stage st, ls_thread_reduce_form form, int *v, int64_t *n)
{
    if (form == LS_TR_CHAIN) {
        v[0] = ls_engine_emit(e, I_ALU, st, v[0], v[1]);
        for (int64_t i = 1; i + 1 < *n; i++)
            v[i] = v[i + 1];
        --*n;
        return;
    }
    int64_t m = 0;
    for (int64_t i = 0; i + 1 < *n; i += 2)
        v[m++] = ls_engine_emit(e, I_ALU, st, v[i], v[i + 1]);
    if (*n % 2)
        v[m++] = v[*n - 1];
    *n = m;
}

/* ls_fused_fold's writer: an ALU instruction of the fold's stage */
typedef struct {
    engine *e;
    ls_stage st;
} fold_writer;

static int write_fused(void *ctx, int a, int b, int c)
{
    fold_writer *w = ctx;
    int x = ls_engine_emit(w->e, I_ALU, w->st, a, b);
    if (w->e->code)
        w->e->code[x].dep[2] = c;
    return x;
}

void ls_engine_emit_folds(engine *e, ls_stage st, const ls_thread_reduce_shape *s, int **v,
                          int64_t groups, int *root, int *open)
{
    size_t ng = (size_t)(groups > 0 ? groups : 1);
    int64_t *n = ls_xcalloc(ng, sizeof *n), halves = 0;
    ls_fused_fold *ff = ls_xcalloc(ng, sizeof *ff);
    fold_writer w = {e, st};
    for (int64_t g = 0; g < groups; g++) {
        n[g] = s[g].values;
        if (s[g].form == LS_TR_PACKED_TREE) { /* a register is ready with its later lane */
            n[g] = s[g].values / 2;
            for (int64_t i = 0; i < n[g]; i++)
                v[g][i] = v[g][2 * i] > v[g][2 * i + 1] ? v[g][2 * i] : v[g][2 * i + 1];
        }
        if (s[g].fuses3)
            ls_fused_fold_init(&ff[g], v[g], n[g]);
        halves = s[g].halves_alu > halves ? s[g].halves_alu : halves;
    }
    for (bool more = true; more;) {
        more = false;
        for (int64_t g = 0; g < groups; g++) /* every fold's ops not taken in, first */
            if (s[g].fuses3 && ff[g].width > 1)
                ls_fused_fold_close(&ff[g], write_fused, &w);
        for (int64_t g = 0; g < groups; g++)
            if (s[g].fuses3) {
                more |= ls_fused_fold_level(&ff[g], write_fused, &w);
            } else if (n[g] > 1) {
                fold_level(e, st, s[g].form, v[g], &n[g]);
                more |= n[g] > 1;
            }
    }
    /* ptxas's open root: a scalar tree's last op, a packed one's halves
     * (their operands to the consumer, where it takes them in) */
    for (int64_t g = 0; g < groups; g++) {
        if (!s[g].fuses3)
            continue;
        int ops[2] = {-1, -1};
        bool keep = open && s[g].root_open && s[g].form == LS_TR_TREE;
        v[g][0] = ls_fused_fold_root(&ff[g], write_fused, &w, keep ? ops : NULL);
        if (keep) {
            open[2 * g] = ops[0];
            open[2 * g + 1] = ops[1];
        }
    }
    for (int64_t h = 0; h < halves; h++) /* the halves: (a lane move,) the op */
        for (int64_t g = 0; g < groups; g++) {
            if (h >= s[g].halves_alu)
                continue;
            if (open && s[g].root_open && h + 1 == s[g].halves_alu) {
                open[2 * g] = v[g][0];
                open[2 * g + 1] = -1;
                v[g][0] = LS_FOLD_OPEN;
            } else {
                v[g][0] = ls_engine_emit(e, I_ALU, st, v[g][0], -1);
            }
        }
    for (int64_t g = 0; g < groups; g++) {
        root[g] = v[g][0];
        if (s[g].fuses3)
            ls_fused_fold_free(&ff[g]);
    }
    free(ff);
    free(n);
}

void ls_engine_emit_thread_reduce(engine *e, int last, int64_t slots, int *root)
{
    ls_thread_reduce_shape s = ls_plan_thread_reduce_shape(e->plan);
    if (s.form == LS_TR_CHAIN) { /* each combine on the one before */
        for (int64_t q = 0; q < slots; q++) {
            int prev = last;
            for (int64_t o = 0; o < s.combines; o++)
                prev = ls_engine_emit_combine_op(e, LS_STAGE_THREAD_REDUCE, prev, -1);
            root[q] = prev;
        }
        return;
    }
    /* every value is ready when the loop is (it ends with the
     * accumulators' last update); the slots' folds interleave */
    ls_thread_reduce_shape *sh = ls_xcalloc((size_t)slots, sizeof *sh);
    int **v = ls_xcalloc((size_t)slots, sizeof *v);
    for (int64_t q = 0; q < slots; q++) {
        sh[q] = s;
        v[q] = ls_xcalloc((size_t)s.values, sizeof **v);
        for (int64_t i = 0; i < s.values; i++)
            v[q][i] = last;
    }
    ls_engine_emit_folds(e, LS_STAGE_THREAD_REDUCE, sh, v, slots, root, NULL);
    for (int64_t q = 0; q < slots; q++)
        free(v[q]);
    free(v);
    free(sh);
}

/* The 32-bit lane moves one exchange of the shuffled value takes.  A wider
 * value moves in 32-bit pieces: GPUShuffleOpLowering (mlir's
 * LowerGpuOpsToROCDLOps.cpp) decomposes it into one ds_bpermute per
 * dword, and LLVM legalizes a wider llvm.amdgcn.update.dpp or readlane
 * into 32-bit ones (gfx90a/gfx942's 64-bit DPP move takes only
 * row_newbcast, which the reduction does not use). */
int ls_engine_exchange_pieces(const ls_plan *pl)
{
    return pl->shuffle_bits > 32 ? pl->shuffle_bits / 32 : 1;
}

/* r's steps on the running value prev: an XOR butterfly's shuffle and
 * combine per step; on AMD each DPP step as LLVM compiles it for the
 * value's type and combine (emit_measured_step), or, where that was not
 * measured, a move and a combine. */
int ls_engine_emit_reduce_as(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev,
                             ls_elem_type type, ls_combiner k)
{
    int p = ls_engine_exchange_pieces(e->plan);
    for (int i = 0; i < r->n_steps; i++) {
        const ls_reduce_step *s = &r->steps[i];
        int n = s->kind == LS_STEP_SHUFFLE_XOR
                    ? -1
                    : ls_plan_dpp_step_alu(ls_plan_target_of(e->plan), type, k, s);
        if (n >= 0) {
            prev = emit_measured_step(e, r, i, st, prev, n, p);
            continue;
        }
        int x = moves(e, r, i, st, s->kind == LS_STEP_SHUFFLE_XOR ? I_SHUFFLE : I_DPP, p, prev);
        if (s->kind == LS_STEP_SWIZZLE || (s->kind == LS_STEP_READLANE && s->lane_b < 0)) {
            prev = x; /* a broadcast: no combine */
        } else {
            prev = ls_engine_emit_combine_op(e, st, x, prev);
            for (int c = x + 1; c < prev; c++) /* a promoted combine's first instructions */
                mark_step(e, c, r, i, true, false);
        }
        mark_step(e, prev, r, i, prev != x, true);
    }
    return prev;
}

int ls_engine_emit_reduce(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev)
{
    const ls_problem *pb = e->plan->problem;
    return ls_engine_emit_reduce_as(e, r, st, prev, pb->acc_type, pb->combiner);
}
