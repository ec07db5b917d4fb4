/* plan.c: problem + derived layout -> the per-workgroup SIMT program (see plan.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/attention.h"
#include "lanescope/body_issue.h"
#include "lanescope/functional.h"
#include "plan_internal.h"

ls_plan_target ls_plan_target_from_arch(const char *arch)
{
    ls_plan_target t = {false, 0, false, "", 0};
    snprintf(t.arch, sizeof t.arch, "%s", arch);
    if (strncmp(arch, "gfx", 3) == 0) {
        t.amd = true;
        /* gfx9xx / gfx90a: major 9; gfx10xx, gfx11xx, gfx12xx: 10..12 */
        size_t n = strlen(arch + 3);
        t.gfx_major = n >= 4 ? (arch[3] - '0') * 10 + (arch[4] - '0') : arch[3] - '0';
        /* LLVM's AMDGPU: FeatureBF16ConversionInsts, gfx950's alone */
        t.bf16_cvt = strncmp(arch, "gfx950", 6) == 0;
    }
    return t;
}

const char *ls_stage_name(ls_stage s)
{
    static const char *names[] = {"load+accumulate", "thread reduce", "subgroup reduce",
                                  "cross-subgroup", "acc combine", "store"};
    return (unsigned)s < LS_STAGE_COUNT ? names[s] : "?";
}

/* XOR butterfly from the stride upward (createSubgroupShuffleReduction), or
 * the DPP sequence of createSubgroupDPPReduction for stride-1 clusters on
 * AMD (mlir/lib/Dialect/GPU/Transforms/SubgroupReduceLowering.cpp, the
 * revision IREE pins; docs/iree-lowering.md): two quad_perms, the row
 * half mirror and mirror; across rows gfx9's row_bcast_15 (row mask 0xa),
 * RDNA's permlanex16 (wave32: then readlane 31); across halves gfx9's
 * row_bcast_31 and readlane 63, RDNA's readlanes 31 and 63 combined.  A
 * 32-lane cluster of a 64-lane gfx9 subgroup ends with a swizzle that
 * hands each half lane 31's value (and_mask 0, or_mask 31). */
static ls_reduce_step *add_step(ls_subgroup_reduce *r, ls_step_kind kind)
{
    ls_reduce_step *s = &r->steps[r->n_steps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->lane_b = -1;
    return s;
}

void ls_plan_lower_subgroup_reduce(ls_subgroup_reduce *r, ls_plan_target t)
{
    r->n_steps = 0;
    r->dpp = t.amd && r->cluster_stride == 1 && r->cluster_size > 1;
    if (!r->dpp) {
        for (int64_t off = r->cluster_stride; off < r->cluster_stride * r->cluster_size; off <<= 1)
            add_step(r, LS_STEP_SHUFFLE_XOR)->offset = off;
        return;
    }
    static const struct {
        int64_t min_cluster;
        ls_dpp_ctrl ctrl;
    } rows[] = {{2, LS_DPP_QUAD_PERM_1032},
                {4, LS_DPP_QUAD_PERM_2301},
                {8, LS_DPP_ROW_HALF_MIRROR},
                {16, LS_DPP_ROW_MIRROR}};
    for (int i = 0; i < 4; i++)
        if (r->cluster_size >= rows[i].min_cluster)
            add_step(r, LS_STEP_DPP)->dpp = rows[i].ctrl;
    bool gfx9 = t.gfx_major == 9;
    if (r->cluster_size >= 32) {
        add_step(r, LS_STEP_DPP)->dpp = gfx9 ? LS_DPP_ROW_BCAST_15 : LS_DPP_PERMLANEX16;
        if (!gfx9 && t.wave == 32) /* the value made uniform */
            add_step(r, LS_STEP_READLANE)->lane_a = 31;
    }
    if (r->cluster_size >= 64) {
        if (gfx9) {
            add_step(r, LS_STEP_DPP)->dpp = LS_DPP_ROW_BCAST_31;
            add_step(r, LS_STEP_READLANE)->lane_a = 63; /* broadcast lane 63 */
        } else {
            ls_reduce_step *s = add_step(r, LS_STEP_READLANE); /* combine lanes 31 and 63 */
            s->lane_a = 31;
            s->lane_b = 63;
        }
    } else if (r->cluster_size == 32 && gfx9) {
        /* after row_bcast_15 only rows 1 and 3 hold their 32 lanes' value */
        add_step(r, LS_STEP_SWIZZLE)->offset = 31;
    }
}

/* The accumulators of a thread: its registers without the packed inner
 * dims, the results it holds, the local reduce's combines. */
static void plan_accumulators(const ls_problem *p, const ls_derived *d, ls_plan *plan)
{
    const ls_nested_layout *l = &d->layout;
    /* Accumulator: the layout without the packed inner dims.  Every product
     * below is of a thread's registers (ls_derive: at most 2^20), or, for
     * the buffer, of extents (subgroups x lanes x registers, at most 2^36)
     * and subgroup tiles (at most 65536, each rounded up to a power of
     * two: `need` < 2^24). */
    plan->acc_registers = 1;
    plan->inner_elems = 1;
    plan->results_per_thread = 1;
    int64_t red_regs = 1;
    for (int k = 0; k < d->body_rank; k++) {
        int64_t regs = l->batch_tile[k] * l->outer_tile[k] * l->element_tile[k];
        if (d->body_inner[k]) {
            plan->inner_elems *= regs;
            continue;
        }
        plan->acc_registers *= regs;
        if (p->is_reduction[d->body_origin[k]])
            red_regs *= regs;
        else
            plan->results_per_thread *= regs;
    }
    if (d->local_reduce_all) {
        /* DistributeMultiReduction's / DistributeContract's local reduce
         * leaves one value per output: it is the accumulate stage, nothing
         * is left for the thread reduce */
        plan->acc_registers = plan->results_per_thread;
        red_regs = 1;
    }
    plan->local_reduce_ops = plan->results_per_thread * (red_regs - 1);
}

/* The cross-subgroup stage when a reduced dim is split over subgroups:
 * the padded workgroup-memory buffer, its read-back's cluster and its
 * reduce, the two barriers. */
static void plan_cross_subgroup(const ls_problem *p, const ls_derived *d, ls_plan_target t,
                                ls_plan *plan)
{
    const ls_nested_layout *l = &d->layout;
    int acc_bits = ls_elem_type_bits(p->acc_type);
    int64_t need = 1;
    for (int k = 0; k < d->body_rank; k++)
        if (!d->body_inner[k] && p->is_reduction[d->body_origin[k]] && l->subgroup_tile[k] > 1) {
            plan->cross_subgroup = true;
            need *= ls_pow2ceil(l->subgroup_tile[k]);
        }
    if (plan->cross_subgroup) {
        int64_t elems = 1;
        for (int k = 0; k < d->body_rank; k++) {
            if (d->body_inner[k])
                continue;
            bool red = p->is_reduction[d->body_origin[k]];
            int64_t extent = red ? l->subgroup_tile[k] : d->body_bound[k];
            plan->buffer_shape[plan->buffer_rank++] = extent;
        }
        /* GPUReduceBankConflicts pads the innermost dim by 64 bits, in
         * whole elements (padAlloc: 64 / bitwidth), so not at all for
         * i128. */
        plan->buffer_pad = 64 / acc_bits;
        plan->buffer_shape[plan->buffer_rank - 1] += plan->buffer_pad;
        for (int k = 0; k < plan->buffer_rank; k++)
            elems *= plan->buffer_shape[k];
        plan->buffer_bytes = elems * plan->acc_elem_bytes;
        int red[LS_MAX_BODY], n_red = 0;
        for (int k = 0; k < d->body_rank; k++)
            if (!d->body_inner[k] && p->is_reduction[d->body_origin[k]])
                red[n_red++] = k;
        ls_plan_readback(l, red, n_red, need, &plan->read_cluster, &plan->read_stride);
        ls_subgroup_reduce *r = &plan->cross_reduce;
        r->body_dim = -1;
        r->cluster_size = plan->read_cluster;
        r->cluster_stride = plan->read_stride;
        ls_plan_lower_subgroup_reduce(r, t);
        plan->barriers = 2; /* reuse guard before the writes, visibility after */
    }
}

ls_status ls_plan_build(const ls_problem *p, const ls_derived *d, ls_plan_target t, ls_plan *plan,
                        ls_diag *diag)
{
    memset(plan, 0, sizeof *plan);
    plan->problem = p;
    plan->derived = d;
    plan->amd = t.amd;
    plan->gfx_major = t.gfx_major;
    plan->bf16_cvt = t.bf16_cvt;
    t.wave = (int)d->subgroup_size;
    plan->target = t;
    plan->combine_alu = ls_plan_combine_alu(t, p->acc_type, p->combiner);
    plan->combine_fuses3 =
        plan->combine_alu == 1 && ls_plan_combine_fuses3(t, p->acc_type, p->combiner);
    /* AMD has no three-input packed op; sm_90's VHMNMX is both: a chain of
     * f16x2 max fuses two steps (tools/amd-dpp-counts.py --sass) */
    plan->combine_pairs = plan->combine_alu == 1 && (!plan->combine_fuses3 || !t.amd) &&
                          ls_plan_combine_pairs(t, p->acc_type, p->combiner);
    const ls_nested_layout *l = &d->layout;
    int in_bits = ls_elem_type_bits(p->inputs[0].type), acc_bits = ls_elem_type_bits(p->acc_type);
    if (acc_bits > 32 && !t.amd && !d->tile_and_fuse) /* TileAndFuse: no shuffle at all */
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s reductions need shuffles wider than 32 bits; IREE lowers them "
                           "only on AMD targets (DistributeMultiReduction bails out otherwise)",
                           ls_elem_type_name(p->acc_type));
    plan->load_elem_bytes = in_bits / 8;
    plan->acc_elem_bytes = acc_bits / 8;
    plan->shuffle_bits = acc_bits < 32 ? 32 : acc_bits;
    plan->iterations = d->total_iterations;
    plan->n_inputs = p->n_inputs;
    for (int k = 0; k < p->n_inputs; k++) {
        ls_operand_regs o;
        ls_operand_regs_of(d, p, k, &o);
        /* A reduction's result from earlier in the dispatch is already in
         * every thread's registers: nothing to load. */
        bool read = p->body.n == 0;
        for (int i = 0; i < p->body.n; i++)
            read |= p->body.inst[i].op == LS_BOP_INPUT && p->body.inst[i].index == k;
        plan->inputs[k].loads = p->inputs[k].intermediate || !read ? 0 : o.loads;
        plan->inputs[k].width = o.width;
        plan->inputs[k].elem_bits = ls_elem_type_bits(p->inputs[k].type);
    }
    if (ls_plan_promote(p, d, plan, diag))
        return diag->status;
    /* loop-invariant inputs, read once before the loop (plan.h) */
    for (int k = 0; k < p->n_inputs && d->total_iterations > 1 && !p->argcmp.on; k++) {
        bool invariant = plan->inputs[k].loads > 0 && !plan->promote[k].on;
        for (int j = 0; j < p->inputs[k].map_n && invariant; j++) {
            int dim = p->inputs[k].map[j]; /* the loop steps the dims with iterations */
            invariant = dim < 0 || d->iterations[dim] <= 1;
        }
        plan->inputs[k].hoisted = invariant;
    }
    /* input 0's figures, which single-input consumers read */
    plan->loads_per_iteration = plan->inputs[0].loads;
    plan->load_width = plan->inputs[0].width;
    plan->body_alu_ops = ls_body_alu_ops(&p->body);
    plan->body_transcendental_ops = ls_body_transcendental_ops(&p->body);
    ls_body_machine_ops(&p->body, t, &plan->body_machine_alu_ops, &plan->body_sfu_ops);
    plan->body_mul_one_alu = ls_body_mul_one_alu(&p->body, p->acc_type, t);
    plan->body_ir_ops = ls_body_ir_ops(&p->body, t);
    plan->body_pair_alu = ls_body_paired_ops(&p->body, t, &plan->body_mul_pairs);

    plan_accumulators(p, d, plan);
    /* v_fma_mix_f32 where LLVM picks it: a scalar FMA, or any FMA on a
     * target without packed f32 math; gfx90a/gfx94x/gfx95x widen the f16
     * values and pair the accumulators in v_pk_fma_f32 (llc-22) */
    plan->body_fma_mix_exts =
        plan->body_mul_one_alu && (!ls_plan_target_packed_f32(t) || plan->acc_registers <= 1)
            ? ls_body_fma_mix_exts(&p->body, t)
            : 0;

    /* One gpu.subgroup_reduce per reduced dim with thread_tile > 1, ascending. */
    for (int k = 0; k < d->body_rank; k++) {
        if (d->body_inner[k] || !p->is_reduction[d->body_origin[k]] || l->thread_tile[k] <= 1)
            continue;
        ls_subgroup_reduce *r = &plan->subgroup_reduces[plan->n_subgroup_reduces++];
        r->body_dim = k;
        r->cluster_size = l->thread_tile[k];
        r->cluster_stride = l->thread_strides[k];
        ls_plan_lower_subgroup_reduce(r, t);
    }

    plan_cross_subgroup(p, d, t, plan);
    int64_t outputs = 1; /* min(tile, size) over parallel dims: <= the space's count */
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            outputs *= d->wg_tile[i] < p->size[i] ? d->wg_tile[i] : p->size[i];
    plan->stores_per_workgroup = outputs;
    return p->argcmp.on ? ls_plan_argcmp(p, d, t, plan, diag) : LS_OK;
}

void ls_plan_readback(const ls_nested_layout *l, const int *dims, int n, int64_t need,
                      int64_t *cluster, int64_t *stride)
{
    *cluster = 1;
    *stride = 1;
    for (int j = 0; j < n; j++)
        if (l->thread_tile[dims[j]] >= need) {
            *cluster = need;
            *stride = l->thread_strides[dims[j]] ? l->thread_strides[dims[j]] : 1;
            return;
        }
}

const char *ls_plan_dpp_name(ls_dpp_ctrl c)
{
    static const char *n[] = {
        "quad_perm [1,0,3,2]",         "quad_perm [2,3,0,1]", "row_half_mirror", "row_mirror",
        "row_bcast_15 (row_mask 0xa)", "row_bcast_31",        "permlanex16"};
    return (unsigned)c <= LS_DPP_PERMLANEX16 ? n[c] : "?";
}

const char *ls_plan_step_name(const ls_reduce_step *s, char *buf, size_t size)
{
    switch (s->kind) {
    case LS_STEP_SHUFFLE_XOR: snprintf(buf, size, "shuffle xor %lld", (long long)s->offset); break;
    case LS_STEP_DPP: snprintf(buf, size, "DPP %s", ls_plan_dpp_name(s->dpp)); break;
    case LS_STEP_SWIZZLE:
        snprintf(buf, size, "swizzle (lane %lld of each 32)", (long long)s->offset);
        break;
    default: snprintf(buf, size, "readlane"); break;
    }
    return buf;
}

/* What LLVM compiles a DPP-lowered step into (ls_plan_dpp_step_alu), as
 * a comment after the step: nothing off AMD or where not measured. */
static void dump_step_cost(FILE *f, const ls_reduce_value *v, const ls_reduce_step *s)
{
    int n = v ? ls_plan_dpp_step_alu(v->target, v->type, v->combiner, s) : -1;
    int pieces = v && v->shuffle_bits > 32 ? v->shuffle_bits / 32 : 1;
    if (n < 0)
        fputc('\n', f);
    else if (s->kind == LS_STEP_SWIZZLE)
        fprintf(f, "  // LLVM: ds_swizzle_b32%s, %d more\n", pieces > 1 ? " per dword" : "", n);
    else if (s->kind == LS_STEP_DPP && n == pieces)
        fprintf(f, "  // LLVM: %d instruction%s, the move folded into the combine\n", n,
                n == 1 ? "" : "s");
    else
        fprintf(f, "  // LLVM: %d instruction%s\n", n, n == 1 ? "" : "s");
}

ls_reduce_value ls_plan_reduce_value(const ls_plan *plan)
{
    ls_reduce_value v = {plan->target, plan->problem->acc_type, plan->problem->combiner,
                         plan->shuffle_bits};
    return v;
}

void ls_plan_dump_reduce(FILE *f, const char *in, const ls_subgroup_reduce *r, const char *kind,
                         const char *ty, const ls_reduce_value *v)
{
    fprintf(f, "%sgpu.subgroup_reduce %s cluster(size = %lld, stride = %lld) : %s -> %s\n", in, kind,
            (long long)r->cluster_size, (long long)r->cluster_stride, ty,
            r->dpp ? "DPP" : "XOR butterfly");
    for (int i = 0; i < r->n_steps; i++) {
        const ls_reduce_step *s = &r->steps[i];
        if (s->kind == LS_STEP_SHUFFLE_XOR)
            fprintf(f, "%s  %%v = %s(%%v, gpu.shuffle xor %%v, %lld)", in, kind,
                    (long long)s->offset);
        else if (s->kind == LS_STEP_DPP)
            fprintf(f, "%s  %%v = %s(%%v, amdgpu.dpp %%v %s)", in, kind, ls_plan_dpp_name(s->dpp));
        else if (s->lane_b >= 0)
            fprintf(f, "%s  %%v = %s(readlane %%v, %lld, readlane %%v, %lld)", in, kind,
                    (long long)s->lane_a, (long long)s->lane_b);
        else if (s->kind == LS_STEP_SWIZZLE)
            fprintf(f,
                    "%s  %%v = amdgpu.swizzle_bitmode %%v 0 %lld 0 (each lane reads lane %lld of "
                    "its 32)",
                    in, (long long)s->offset, (long long)s->offset);
        else
            fprintf(f, "%s  %%v = readlane %%v, %lld", in, (long long)s->lane_a);
        dump_step_cost(f, v, s);
    }
}

/* The loop body's combine into the accumulators, as the distributed
 * reduction and the backend lower it (ls_functional_fma; docs/timing-model.md,
 * "The accumulate stage"), and the loop's end. */
static void dump_combine(const ls_plan *plan, FILE *f)
{
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const char *kind = ls_combiner_name(p->combiner);
    char buf[1024];
    ls_fma_kind fk = ls_functional_fma(plan);
    const char *val = p->body.n > 0 ? "body" : "loaded";
    if (plan->inner_elems > 1 && fk == LS_FMA_CHAIN)
        fprintf(f,
                "      %%local = vector.contract over each accumulator's packed inner %lld "
                "elements: a math.fma chain from 0, last element first "
                "(ContractToChainFMA)\n",
                (long long)plan->inner_elems);
    else if (plan->inner_elems > 1)
        fprintf(f,
                "      %%local = vector.multi_reduction <%s> over each accumulator's packed "
                "inner %lld elements, from the identity\n",
                kind, (long long)plan->inner_elems);
    ls_thread_reduce_shape fold;
    bool tree = ls_plan_loop_fold_tree(plan, &fold);
    if (plan->inner_elems > 1 && tree)
        ls_plan_dump_fold(plan, &fold, "        ", f);
    if (plan->inner_elems > 1)
        val = "%local";
    if (fk == LS_FMA_CONTRACT) {
        ls_plan_acc_vector_type(plan, buf, sizeof buf);
        fprintf(
            f,
            "      %%acc = vector.contract(the body's mulf operands) from the identity into %s: "
            "DistributeContract's local contraction over each output's %lld reduced "
            "registers, which ContractToChainFMA makes one math.fma chain, last register "
            "first (%lld accumulator%s)\n    }\n",
            buf, (long long)(d->elems_per_iteration / plan->results_per_thread),
            (long long)plan->acc_registers, plan->acc_registers == 1 ? "" : "s");
    } else if (d->local_reduce_all) {
        ls_plan_acc_vector_type(plan, buf, sizeof buf);
        fprintf(f,
                "      %%acc = vector.multi_reduction <%s> of the %s values from the identity "
                "into %s: DistributeMultiReduction's local reduce over each output's %lld "
                "registers%s (%lld accumulator%s)\n",
                kind, val, buf, (long long)(d->elems_per_iteration / plan->results_per_thread),
                tree ? "" : ", in order", (long long)plan->acc_registers,
                plan->acc_registers == 1 ? "" : "s");
        if (tree)
            ls_plan_dump_fold(plan, &fold, "        ", f);
        fprintf(f, "    }\n");
    } else if (fk == LS_FMA_AMD)
        fprintf(f,
                "      %%acc = math.fma(the body's mulf operands, %%acc) elementwise (%lld "
                "accumulators; the backend fuses the mulf and the add: AllowFPOpFusion = "
                "Fast)\n    }\n",
                (long long)plan->acc_registers);
    else
        fprintf(f, "      %%acc = %s(%%acc, %s) elementwise (%lld accumulator%s)\n    }\n", kind,
                val, (long long)plan->acc_registers, plan->acc_registers == 1 ? "" : "s");
}

/* The packed instructions of type ty on plan's target, for --dump-plan
 * (tools/amd-dpp-counts.py --pairs). */
static const char *packed_names(const ls_plan *plan, ls_elem_type ty)
{
    if (!plan->amd)
        return ty == LS_ET_BF16 ? "add/sub/mul/fma.bf16x2, cvt.rn.bf16x2.f32"
                                : "add/sub/mul/fma.f16x2, cvt.rn.f16x2.f32";
    if (ty == LS_ET_F32)
        return ls_plan_target_packed_f32(plan->target)
                   ? "v_pk_add_f32 (a subf too), v_pk_mul_f32, v_pk_fma_f32"
                   : "wave32's dual-issued v_dual_add_f32 / v_dual_mul_f32";
    if (ty == LS_ET_I16)
        return "v_pk_add_u16, v_pk_sub_u16, v_pk_mul_lo_u16, v_pk_max_i16";
    return "v_pk_add_f16 (a subf too), v_pk_mul_f16, v_pk_fma_f16, v_cvt_pk_f16_f32";
}

/* Packed math in the body: which neighbouring registers share an
 * instruction (ls_plan_pair_run) and how many of the body's. */
static void dump_body_pairs(const ls_plan *plan, FILE *f)
{
    int n = ls_plan_body_pairs_issued(plan);
    int64_t run = ls_plan_pair_run(plan, false);
    if (n <= 0)
        return;
    bool fused = n < plan->body_pair_alu; /* the FMA's multiply */
    char within[128] = "";
    if (run > 0)
        snprintf(within, sizeof within,
                 " of the same innermost %lld-element vector (IREE's CUDA target runs no SLP "
                 "vectorizer)",
                 (long long)run);
    /* the ops, each kind once, in body order, and the first one's type */
    const ls_body *b = &plan->problem->body;
    char ops[160] = "";
    size_t len = 0;
    int ty = -1;
    for (int i = 0; i < b->n && len < sizeof ops; i++) {
        const char *name = ls_body_opcode_name((ls_body_opcode)b->inst[i].op);
        if (!ls_body_op_pairs(b, i, plan->target) || strstr(ops, name))
            continue;
        if (fused && i == b->n - 1)
            continue; /* the FMA's */
        len += (size_t)snprintf(ops + len, sizeof ops - len, "%s%s", len ? ", " : "", name);
        ty = ty < 0 ? b->inst[i].type : ty;
    }
    fprintf(f,
            "        (packed math: %d of these instructions (%s) compute%s two neighbouring "
            "elements%s at once -- %s; llc-22)\n",
            n, ops, n == 1 ? "s" : "", within, packed_names(plan, (ls_elem_type)ty));
}

void ls_plan_dump_body_issue(const ls_plan *plan, bool fused, FILE *f)
{
    ls_body_issue_totals t;
    if (plan->argcmp) /* its own program: plan_argcmp.c */
        return;
    ls_body_issue_totals_of(plan, fused, &t);
    if (t.shared == 0 && t.hoisted == 0)
        return;
    char parts[256] = "";
    size_t n = 0;
    if (t.shared > 0)
        n += (size_t)snprintf(parts + n, sizeof parts - n,
                              "%lld saved where registers read the same operand elements and "
                              "share one value (a broadcast operand's ops, computed once: CSE)",
                              (long long)t.shared);
    if (t.hoisted > 0 && n < sizeof parts)
        snprintf(parts + n, sizeof parts - n,
                 "%s%lld saved by ops on values held from before the loop only, which are "
                 "hoisted out of it (LICM: %lld issued once, before it)",
                 n ? "; " : "", (long long)t.hoisted, (long long)t.before_loop);
    int64_t regs = plan->derived->elems_per_iteration;
    fprintf(f,
            "        (of the %lld body instructions its %lld register%s would issue an "
            "iteration, a thread issues %lld: %s)\n",
            (long long)(t.alu + t.sfu + t.shared + t.hoisted + t.folded), (long long)regs,
            regs == 1 ? "" : "s", (long long)(t.alu + t.sfu), parts);
}

/* The three-operand instruction two of the plan's combines fuse into
 * (plan.combine_fuses3): LLVM's on AMD by its mnemonic, ptxas's on NVIDIA
 * by its SASS name (tools/amd-dpp-counts.py --sass). */
static const char *fused_name(const ls_plan *plan, char *buf, size_t size)
{
    const ls_problem *p = plan->problem;
    if (!plan->amd) { /* ptxas's three-input instructions */
        const char *n = ls_plan_ptxas_fused_name(plan);
        snprintf(buf, size, "%s%s", strcmp(n, "IMNMX") == 0 ? "three-input " : "", n);
        return buf;
    }
    const char *ty = ls_elem_type_is_float(p->acc_type) ? "f" : "i";
    const char *op = "op3";
    switch (p->combiner) {
    case LS_COMB_MAXNUMF:
    case LS_COMB_MAXIMUMF:
    case LS_COMB_MAXSI: op = "max3"; break;
    case LS_COMB_MINNUMF:
    case LS_COMB_MINIMUMF:
    case LS_COMB_MINSI: op = "min3"; break;
    case LS_COMB_MAXUI: op = "max3", ty = "u"; break;
    case LS_COMB_MINUI: op = "min3", ty = "u"; break;
    case LS_COMB_ADD: op = "add3", ty = "u"; break;
    case LS_COMB_OR: op = "or3", ty = "b"; break;
    case LS_COMB_XOR: op = "xor3", ty = "b"; break;
    case LS_COMB_AND: op = "bitop3", ty = "b"; break;
    default: break;
    }
    snprintf(buf, size, "v_%s_%s%d", op, ty, ls_elem_type_bits(p->acc_type));
    return buf;
}

/* The stages after the loop: the thread reduce, the subgroup reduces, the
 * cross-subgroup buffer, the combine with the init and the store. */
static void dump_after_loop(const ls_plan *plan, FILE *f)
{
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const char *kind = ls_combiner_name(p->combiner);
    const char *acc = ls_elem_type_name(p->acc_type);
    ls_fma_kind fk = ls_functional_fma(plan);
    char buf[1024];
    if (d->local_reduce_all)
        fprintf(f, "  [%s] none: the local %s left %lld value%s per thread\n",
                ls_stage_name(LS_STAGE_THREAD_REDUCE),
                fk == LS_FMA_CONTRACT ? "contraction" : "reduce",
                (long long)plan->results_per_thread, plan->results_per_thread == 1 ? "" : "s");
    else
        fprintf(f,
                "  [%s]\n    vector.multi_reduction %s over the reduced registers: %lld ops, "
                "%lld value%s per thread\n",
                ls_stage_name(LS_STAGE_THREAD_REDUCE), kind, (long long)plan->local_reduce_ops,
                (long long)plan->results_per_thread, plan->results_per_thread == 1 ? "" : "s");
    if (!d->local_reduce_all) {
        ls_thread_reduce_shape s = ls_plan_thread_reduce_shape(plan);
        ls_plan_dump_fold(plan, &s, "    ", f);
    }
    fprintf(f, "  [%s]%s\n", ls_stage_name(LS_STAGE_SUBGROUP_REDUCE),
            plan->n_subgroup_reduces ? "" : " none: no reduced dim has more than one lane");
    char ty[64];
    if (plan->shuffle_bits > ls_elem_type_bits(p->acc_type))
        snprintf(ty, sizeof ty, "%s (widened to i32 for the shuffle)", acc);
    else if (plan->shuffle_bits > 32)
        snprintf(ty, sizeof ty, "%s (each exchange moves %d 32-bit pieces)", acc,
                 plan->shuffle_bits / 32);
    else
        snprintf(ty, sizeof ty, "%s", acc);
    ls_reduce_value rv = ls_plan_reduce_value(plan);
    for (int i = 0; i < plan->n_subgroup_reduces; i++)
        ls_plan_dump_reduce(f, "    ", &plan->subgroup_reduces[i], kind, ty, &rv);
    if (plan->cross_subgroup) {
        fprintf(f, "  [%s]\n", ls_stage_name(LS_STAGE_CROSS_SUBGROUP));
        ls_plan_buffer_type(plan, buf, sizeof buf);
        fprintf(f, "    %%buf = memref.alloc() : %s (%lld bytes; innermost padded by %lld)\n",
                buf, (long long)plan->buffer_bytes, (long long)plan->buffer_pad);
        fprintf(f, "    gpu.barrier\n    scf.if (first thread of its duplication group) { "
                   "vector.transfer_write partials -> %%buf[..., subgroup] }\n    gpu.barrier\n");
        fprintf(f, "    vector.transfer_read %%buf (padding = identity), %lld slot%s per lane "
                   "group\n",
                (long long)plan->read_cluster, plan->read_cluster == 1 ? "" : "s");
        ls_plan_dump_reduce(f, "    ", &plan->cross_reduce, kind, ty, &rv);
    } else {
        fprintf(f, "  [%s] none: no reduced dim is split across subgroups\n",
                ls_stage_name(LS_STAGE_CROSS_SUBGROUP));
    }
    fprintf(f, "  [%s]\n    %%r = %s(%%r, %%init)\n", ls_stage_name(LS_STAGE_ACC_COMBINE), kind);
    fprintf(f, "  [%s]\n    scf.if (one thread per output element) { vector.transfer_write %%r "
               "} : %lld output elements per workgroup\n",
            ls_stage_name(LS_STAGE_STORE), (long long)plan->stores_per_workgroup);
}

void ls_plan_dump(const ls_plan *plan, FILE *f)
{
    if (plan->argcmp) {
        ls_plan_argcmp_dump(plan, f);
        return;
    }
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const char *kind = ls_combiner_name(p->combiner);
    const char *acc = ls_elem_type_name(p->acc_type), *in = ls_elem_type_name(p->inputs[0].type);
    char buf[1024];
    fprintf(f,
            "plan for %s (%s target): workgroup of %lld threads = %lld subgroup%s x %lld, "
            "%lld workgroup%s\n",
            p->name, plan->amd ? "AMD" : "NVIDIA", (long long)d->workgroup_size,
            (long long)d->num_subgroups, d->num_subgroups == 1 ? "" : "s",
            (long long)d->subgroup_size, (long long)d->total_workgroups,
            d->total_workgroups == 1 ? "" : "s");
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    fprintf(f, "  layout: %s\n", buf);
    if (d->tile_and_fuse)
        fprintf(f, "  TileAndFuse pipeline (setTileAndFuseLoweringConfig), in VectorDistribute's "
                   "terms: each thread's thread tile is its element tile, the reduction tile the "
                   "loop's chunk; every thread reduces its own outputs, no lane or subgroup "
                   "combine (IREE folds each chunk into the carried value; the same additions "
                   "in another order)\n");
    if (plan->combine_alu > 1 && p->acc_type == LS_ET_BF16 && plan->amd)
        fprintf(f,
                "  bf16 combines: no AMD GPU computes in bf16; LLVM's AMDGPU backend widens "
                "the operands, %s in f32 and rounds back -- %d dependent instructions each "
                "(llc-22: tools/amd-dpp-counts.py)\n",
                kind, plan->combine_alu);
    else if (plan->combine_alu > 1)
        fprintf(f,
                "  %s combines: LLVM's %s backend compiles each %s to %d dependent "
                "instructions (%s: tools/amd-dpp-counts.py)\n",
                ls_elem_type_name(p->acc_type), plan->amd ? "AMDGPU" : "NVPTX",
                ls_combiner_name(ls_combiner_as_compiled(plan->target, p->combiner)),
                plan->combine_alu,
                plan->amd ? "llc-22" : "llc-22's PTX, then ptxas's SASS from sm_80");
    fprintf(f, "  [%s]\n", ls_stage_name(LS_STAGE_LOAD_ACCUMULATE));
    fprintf(f, "    %%acc = splat identity(%s) : %lld x %s per thread\n", kind,
            (long long)plan->acc_registers, acc);
    if (d->serial_reduce)
        fprintf(f,
                "    (reduction tiling level: the loop below runs every stage, subgroup "
                "reduce included, and folds each iteration's result into the carried "
                "init; it closes after [%s])\n",
                ls_stage_name(LS_STAGE_ACC_COMBINE));
    ls_plan_promote_dump_alloc(plan, f);
    if (plan->iterations > 1)
        fprintf(f, "    scf.for %%k = 0 to %lld {\n", (long long)plan->iterations);
    else
        fprintf(f, "    (loop elided: one iteration) {\n");
    ls_plan_promote_dump_copy(plan, f);
    if (p->n_inputs == 1) {
        ls_plan_input_vector_type(plan, 0, buf, sizeof buf);
        fprintf(f,
                "      %lld x vector.transfer_read vector<%lldx%s> per thread%s (padding = "
                "identity; distributed %s)%s\n",
                (long long)plan->loads_per_iteration, (long long)plan->load_width, in,
                plan->promote[0].on ? " from %prom0" : "", buf,
                !p->extended                               ? ""
                : ls_elem_type_is_float(p->inputs[0].type) ? ", arith.extf"
                                                           : ", arith.extsi");
    }
    for (int k = 0; k < p->n_inputs && p->n_inputs > 1; k++)
        if (p->inputs[k].intermediate)
            fprintf(f,
                    "      input %d %s: reduced earlier in the dispatch, held in registers "
                    "(no load)\n",
                    k, p->inputs[k].name);
        else {
            ls_plan_input_vector_type(plan, k, buf, sizeof buf);
            char from[96] = "";
            if (plan->promote[k].on)
                snprintf(from, sizeof from, " from %%prom%d", k);
            if (plan->inputs[k].hoisted)
                snprintf(from, sizeof from,
                         ", hoisted: read once before the loop (it reads no "
                         "dim the loop steps)");
            fprintf(f,
                    "      input %d %s: %lld x vector.transfer_read vector<%lldx%s> per thread%s "
                    "(distributed %s)\n",
                    k, p->inputs[k].name, (long long)plan->inputs[k].loads,
                    (long long)plan->inputs[k].width, ls_elem_type_name(p->inputs[k].type), from,
                    buf);
        }
    if (p->body.n > 0) {
        fprintf(f,
                "      body, per element (%d op%s, inputs numbered as above; the backend "
                "emits %d ALU and %d special-function instruction%s):\n",
                plan->body_alu_ops, plan->body_alu_ops == 1 ? "" : "s", plan->body_machine_alu_ops,
                plan->body_sfu_ops, plan->body_sfu_ops == 1 ? "" : "s");
        ls_body_print(&p->body, "        ", f);
        if (plan->body_fma_mix_exts > 0 && ls_functional_fma(plan) != LS_FMA_NONE)
            fprintf(f,
                    "        (the FMA reads the f16 values itself: v_fma_mix_f32 folds %s "
                    "arith.extf into it, llc-22 -- %d ALU instruction%s an element with the "
                    "FMA)\n",
                    plan->body_fma_mix_exts == 2 ? "both" : "the",
                    plan->body_machine_alu_ops - plan->body_fma_mix_exts,
                    plan->body_machine_alu_ops - plan->body_fma_mix_exts == 1 ? "" : "s");
        dump_body_pairs(plan, f);
        ls_plan_dump_body_issue(plan, ls_plan_body_fma_timed(plan), f);
        if (p->body.muladd_fused)
            fprintf(f, "        (the reduced arith.addf of an arith.mulf: one math.fma, rounded "
                       "once, on every target -- LLVMGPUVectorLowering's SetMulAddFMF, then "
                       "UpliftFma)\n");
    }
    dump_combine(plan, f);
    if (plan->combine_fuses3) {
        char name[32];
        fprintf(f, "    (%s fuses two dependent %s into one %s: %s)\n",
                plan->amd ? "LLVM" : "ptxas", ls_combiner_name(plan->problem->combiner),
                fused_name(plan, name, sizeof name),
                plan->amd ? "a thread's chains -- the loop's, the thread reduce's -- take half "
                            "an instruction a combine"
                          : "the loop's chain into each accumulator takes half an instruction "
                            "a combine, and a fold's tree ops take one in where they can "
                            "(tools/amd-dpp-counts.py --sass, --sass-folds)");
    }
    int64_t run = ls_plan_pair_run(plan, true);
    if (ls_plan_pairs_accumulators(plan) && run == 0)
        fprintf(f,
                "    (packed math: each step's vector op over the accumulators computes two "
                "of them an instruction -- %s; llc-22)\n",
                ls_plan_pair_instructions(plan));
    else if (ls_plan_pairs_accumulators(plan))
        fprintf(f,
                "    (packed math: the accumulators' vector ops compute two neighbours of the "
                "same innermost %lld-element vector an instruction -- %s; an FMA chain's steps "
                "and the joins, not a multi_reduction's per-accumulator chains; IREE's CUDA "
                "target runs no SLP vectorizer)\n",
                (long long)run, ls_plan_pair_instructions(plan));
    dump_after_loop(plan, f);
    if (ls_problem_minmax_replaced(plan))
        fprintf(f,
                "  (then %s replaces arith.maximumf and minimumf, and reductions of those "
                "kinds, with maxnumf and minnumf: ReplaceSlowMinMaxOps.cpp, for %s; a NaN "
                "operand is dropped, not propagated)\n",
                plan->amd ? "ConvertToROCDL" : "ConvertToNVVM", plan->target.arch);
}

/* The distributed vector type of an operand whose map is map[0..map_n):
 * its body dims in the map's order, packed inner parts last. */
static void distributed_type(const ls_plan *plan, const int *map, int map_n, ls_elem_type et,
                             char *buf, size_t size)
{
    const ls_derived *d = plan->derived;
    const ls_nested_layout *l = &d->layout;
    int dims[LS_MAX_BODY], n = 0;
    for (int j = 0; j < map_n; j++)
        for (int b = 0; b < d->body_rank; b++)
            if (!d->body_inner[b] && d->body_origin[b] == map[j])
                dims[n++] = b;
    for (int b = 0; b < d->body_rank; b++)
        for (int j = 0; d->body_inner[b] && j < map_n; j++)
            if (d->body_origin[b] == map[j])
                dims[n++] = b;
    size_t u = (size_t)snprintf(buf, size, "vector<");
    const int64_t *tiles[3] = {l->batch_tile, l->outer_tile, l->element_tile};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < n && u < size; i++)
            u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)tiles[g][dims[i]]);
    if (u < size)
        snprintf(buf + u, size - u, "%s>", ls_elem_type_name(et));
}

void ls_plan_input_vector_type(const ls_plan *plan, int k, char *buf, size_t size)
{
    const ls_operand *in = &plan->problem->inputs[k];
    distributed_type(plan, in->map, in->map_n, in->type, buf, size);
}

void ls_plan_acc_vector_type(const ls_plan *plan, char *buf, size_t size)
{
    const ls_problem *p = plan->problem;
    distributed_type(plan, p->out_map, p->out_map_n, p->acc_type, buf, size);
}

void ls_plan_buffer_type(const ls_plan *plan, char *buf, size_t size)
{
    size_t u = (size_t)snprintf(buf, size, "memref<");
    for (int k = 0; k < plan->buffer_rank && u < size; k++)
        u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)plan->buffer_shape[k]);
    if (u < size)
        snprintf(buf + u, size - u, "%s, #gpu.address_space<workgroup>>",
                 ls_elem_type_name(plan->problem->acc_type));
}

/* ceil(elements x bits / 32): a vector of sub-32-bit elements packs */
static int64_t regs_of(int64_t elements, int64_t bits)
{
    return (elements * bits + 31) / 32;
}

void ls_plan_registers(const ls_plan *plan, int64_t unroll, ls_plan_regs *r)
{
    memset(r, 0, sizeof *r);
    r->accumulators = (1 + plan->extra_results) * regs_of(plan->acc_registers, plan->acc_elem_bytes * 8);
    if (plan->attention) /* Q', S, P and the carried values (attention_timing.c) */
        r->accumulators = plan->attention->registers;
    if (plan->argcmp)
        r->accumulators += regs_of(plan->acc_registers, (int64_t)plan->index_bytes * 8);
    for (int k = 0; k < plan->n_inputs; k++) {
        r->loaded += unroll * plan->inputs[k].loads *
                     regs_of(plan->inputs[k].width, plan->inputs[k].elem_bits);
        if (plan->promote[k].on)
            r->loaded += plan->promote[k].copy_loads *
                         regs_of(plan->promote[k].copy_width, plan->inputs[k].elem_bits);
    }
    r->addresses = 2 * (plan->n_inputs + 1);
    r->overhead = 6;
    r->total = r->accumulators + r->loaded + r->addresses + r->overhead;
}

/* whether plans a and b fold n values alike (ls_plan_fold_shape) */
static bool same_fold(const ls_plan *a, const ls_plan *b, int64_t n)
{
    ls_thread_reduce_shape x = ls_plan_fold_shape(a, n), y = ls_plan_fold_shape(b, n);
    return x.form == y.form && x.instructions == y.instructions && x.packed == y.packed &&
           x.halves_alu == y.halves_alu && x.depth == y.depth;
}

bool ls_plan_fuse_results(ls_plan *plans, int n)
{
    if (n < 2)
        return false;
    for (int k = 0; k < n; k++)
        if (!plans[k].derived->tile_and_fuse || plans[k].argcmp || plans[k].amd != plans[0].amd ||
            plans[k].gfx_major != plans[0].gfx_major)
            return false;
    /* the kernel computes each op of the region once: an op feeding two
     * results (its source position names it) counts once */
    ls_body *u = ls_xcalloc(1, sizeof *u);
    for (int k = 0; k < n; k++) {
        const ls_body *b = &plans[k].problem->body;
        for (int i = 0; i < b->n; i++) {
            bool seen = false;
            for (int j = 0; j < u->n && !seen; j++)
                seen = u->inst[j].op == b->inst[i].op && u->inst[j].line == b->inst[i].line &&
                       u->inst[j].col == b->inst[i].col;
            if (seen)
                continue;
            if (u->n == LS_MAX_BODY_INSTS) { /* not one body's worth: left as it was */
                free(u);
                return false;
            }
            u->inst[u->n++] = b->inst[i];
        }
    }
    ls_plan_target t = ls_plan_target_of(&plans[0]);
    ls_body_machine_ops(u, t, &plans[0].body_machine_alu_ops, &plans[0].body_sfu_ops);
    free(u);
    /* the folds (src/plan_thread_reduce.c) follow one shape where every
     * result's are alike, each result's own before the merge below */
    bool alike = true;
    for (int k = 1; k < n && alike; k++)
        alike = same_fold(&plans[0], &plans[k], ls_plan_loop_fold_values(&plans[0])) &&
                same_fold(&plans[0], &plans[k], ls_plan_thread_reduce_shape(&plans[0]).values);
    plans[0].extra_results = n - 1;
    plans[0].results_fold_alike = alike;
    /* the engine times every result's combines as result 0's: they fuse in
     * pairs only if each result's do, and take the most ALU any takes */
    for (int k = 1; k < n; k++) {
        plans[0].combine_fuses3 &= plans[k].combine_fuses3;
        if (plans[k].combine_alu > plans[0].combine_alu)
            plans[0].combine_alu = plans[k].combine_alu;
    }
    return true;
}
