/* plan_argcmp.c: the plan of an iree_linalg_ext.arg_compare, as IREE's
 * VectorDistribute pipeline lowers it (docs/arg-compare-lowering.md §2-§3):
 * the partial linalg.generic of tileToPartialReduction (OuterReduction), the
 * explicit-index merge arg_compare that mergeReductions leaves, and its
 * distribution by DistributeArgCompare
 * (Common/GPU/GPUNestedLayoutDistributionPatterns.cpp). */
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"

/* doThreadReductionWithShuffles: XOR offsets from width/2 * stride down to
 * the stride (the opposite order of createSubgroupShuffleReduction's). */
static void butterfly_down(ls_subgroup_reduce *r)
{
    r->dpp = false;
    r->n_steps = 0;
    for (int64_t w = r->cluster_size / 2; w >= 1 && r->n_steps < LS_MAX_STEPS; w /= 2) {
        ls_reduce_step *s = &r->steps[r->n_steps++];
        memset(s, 0, sizeof *s);
        s->kind = LS_STEP_SHUFFLE_XOR;
        s->offset = w * r->cluster_stride;
    }
}

ls_status ls_plan_argcmp(const ls_problem *p, const ls_derived *d, ls_plan_target t,
                         ls_plan *plan, ls_diag *diag)
{
    const ls_argcmp *a = &p->argcmp;
    const ls_nested_layout *l = &d->layout;
    if (d->serial_reduce)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->config.reduction.line,
                           p->config.reduction.col,
                           "an arg_compare tiled by the `reduction` level: IREE configures "
                           "arg_compare with partial_reduction (ReductionConfigUtils.cpp), the "
                           "only level lanescope lowers it with");
    plan->argcmp = true;
    /* its merges are compares and selects of a value and an index, not a
     * chain of one combine (engine_program.c's argcmp template) */
    plan->combine_fuses3 = false;
    plan->combine_pairs = false;
    plan->ballot = a->ballot;
    plan->cmp_ops = ls_body_alu_ops(&a->cmp);
    /* Implicit indices: arith.addi %iv, %j, then + index_base, then an
     * index_cast unless the result is itself `index`. */
    plan->index_ops = a->explicit_index
                          ? 0
                          : 1 + (a->has_base || a->base_unknown) + (a->index_type != LS_ET_INDEX);
    plan->index_bytes = ls_elem_type_bits(a->index_type) / 8;
    /* AMD selects 32 bits an instruction (two v_cndmask_b32 for an i64 or
     * f64: llc-22 on gfx942, docs/timing-model.md); NVIDIA's selp.b64 is one
     * PTX instruction */
    plan->select_alu[0] = t.amd && ls_elem_type_bits(p->inputs[0].type) > 32 ? 2 : 1;
    plan->select_alu[1] = t.amd && plan->index_bytes > 4 ? 2 : 1;
    int selects = plan->select_alu[0] + plan->select_alu[1];
    plan->body_alu_ops = plan->index_ops + plan->cmp_ops + 2;
    plan->body_transcendental_ops = ls_body_transcendental_ops(&a->cmp);
    /* the comparator's ops as ALU instructions (the arg_compare template
     * emits body_alu_ops itself) */
    plan->body_machine_alu_ops = plan->index_ops + plan->cmp_ops + selects;
    plan->body_ir_ops = plan->body_alu_ops;
    /* The merge's local step compares every reduced register against the
     * init-started accumulator: one compare and two selects each. */
    int64_t red_regs = plan->results_per_thread ? plan->acc_registers / plan->results_per_thread : 0;
    plan->local_reduce_ops = plan->results_per_thread * red_regs * (plan->cmp_ops + selects);
    plan->ballot_shuffles = a->ballot ? (a->transform >= 0 ? 2 : 1) : 0;
    if (!a->ballot) {
        for (int i = 0; i < plan->n_subgroup_reduces; i++)
            butterfly_down(&plan->subgroup_reduces[i]);
        if (plan->cross_subgroup)
            butterfly_down(&plan->cross_reduce);
    }
    int64_t par_lanes = 1;
    for (int k = 0; k < d->body_rank; k++)
        if (!p->is_reduction[d->body_origin[k]])
            par_lanes *= l->thread_tile[k];
    plan->hazard_cluster = a->ballot && par_lanes > 1 && plan->n_subgroup_reduces > 0;
    if (plan->cross_subgroup) {
        /* the value buffer's shape with its own padding: 64 bits of index */
        int64_t last = plan->buffer_shape[plan->buffer_rank - 1] - plan->buffer_pad;
        int64_t pad = plan->index_bytes >= 8 ? 1 : 8 / plan->index_bytes, elems = last + pad;
        for (int k = 0; k + 1 < plan->buffer_rank; k++)
            elems *= plan->buffer_shape[k];
        plan->index_buffer_bytes = elems * plan->index_bytes;
        for (int k = 0; k < d->body_rank; k++)
            if (p->is_reduction[d->body_origin[k]] && plan->read_cluster > 1 &&
                ls_pow2ceil(l->subgroup_tile[k]) != l->subgroup_tile[k])
                plan->hazard_oob = true;
    }
    return LS_OK;
}

static void dump_lanes(FILE *f, const ls_plan *plan, const ls_subgroup_reduce *r,
                       const char *kind, const char *vt, const char *it)
{
    const ls_argcmp *a = &plan->problem->argcmp;
    if (!plan->ballot) {
        fprintf(f, "    butterfly (a comparator without a max/min kind), %d step%s:\n",
                r->n_steps, r->n_steps == 1 ? "" : "s");
        for (int i = 0; i < r->n_steps; i++)
            fprintf(f, "      %%pv = gpu.shuffle xor %%v, %lld : %s; %%pi = gpu.shuffle xor %%i, "
                       "%lld : %s; %%c = comparator(%%v, %%pv); %%v, %%i = select %%c, own, "
                       "partner's\n",
                    (long long)r->steps[i].offset, vt, (long long)r->steps[i].offset, it);
        return;
    }
    ls_reduce_value rv = ls_plan_reduce_value(plan);
    ls_plan_dump_reduce(f, "    ", r, kind, vt, &rv);
    int64_t sg = plan->derived->subgroup_size;
    fprintf(f, "    %%win = %s %s, %%x, %%red; %%m = gpu.ballot %%win : i%d%s\n",
            ls_elem_type_is_float(plan->problem->acc_type) ? "arith.cmpf" : "arith.cmpi",
            ls_elem_type_is_float(plan->problem->acc_type) ? "oeq" : "eq", sg > 32 ? 64 : 32,
            r->cluster_stride > 1 ? "; %m = arith.andi %m, <lanes k*stride of the cluster at lane 0>"
                                  : "");
    fprintf(f, "    %%w = math.cttz %%m%s (the lowest lane holding the best value)\n",
            sg > 32 ? "; arith.trunci %w : i64 to i32" : "");
    fprintf(f, "    %%i = gpu.shuffle idx %%i, %%w, %lld : %s%s\n", (long long)sg, it,
            a->transform >= 0 ? "; %v = gpu.shuffle idx %v, %w (the comparator transforms "
                                "the values: the reduced one is not a value)"
                              : "; %v = %red");
}

void ls_plan_argcmp_dump(const ls_plan *plan, FILE *f)
{
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const ls_argcmp *a = &p->argcmp;
    const char *vt = ls_elem_type_name(p->acc_type), *it = ls_elem_type_name(a->index_type);
    const char *kind = ls_combiner_name(p->combiner);
    char buf[1024];
    int dim = ls_argcmp_dim(p);
    fprintf(f, "plan for %s (%s target): workgroup of %lld threads = %lld subgroup%s x %lld, "
               "%lld workgroup%s\n",
            p->name, plan->amd ? "AMD" : "NVIDIA", (long long)d->workgroup_size,
            (long long)d->num_subgroups, d->num_subgroups == 1 ? "" : "s", (long long)d->subgroup_size,
            (long long)d->total_workgroups, d->total_workgroups == 1 ? "" : "s");
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    fprintf(f, "  layout: %s\n", buf);
    fprintf(f, "  iree_linalg_ext.arg_compare dimension(%d), %s indices, comparator:\n", dim,
            a->explicit_index ? "explicit" : "implicit");
    ls_body_print(&a->cmp, "    ", f);
    if (d->tile_and_fuse)
        fprintf(f, "  TileAndFuse pipeline (LowerArgCompareToVector.cpp): each thread reads its "
                   "slice and walks it from the inits, one compare and two selects per element; "
                   "no lane or subgroup combine%s\n",
                plan->iterations > 1 ? " (a long reduction: one element per iteration)" : "");
    else
        fprintf(f, "  lane combine: %s\n",
            a->ballot ? (a->transform >= 0
                             ? "ballot (gpu.subgroup_reduce of the transformed value)"
                             : "ballot (gpu.subgroup_reduce, gpu.ballot, math.cttz)")
                      : "butterfly (gpu.shuffle xor of value and index)");
    fprintf(f, "  [%s] the partial linalg.generic (tileToPartialReduction, OuterReduction)\n",
            ls_stage_name(LS_STAGE_LOAD_ACCUMULATE));
    ls_plan_input_vector_type(plan, 0, buf, sizeof buf);
    fprintf(f, "    %%accV, %%accI = broadcast of the inits (not an identity): %lld x (%s, %s) "
               "per thread\n",
            (long long)plan->acc_registers, vt, it);
    if (plan->iterations > 1)
        fprintf(f, "    scf.for %%iv = 0 to %lld step %lld {\n",
                (long long)p->size[dim], (long long)d->chunk[dim]);
    else
        fprintf(f, "    (loop elided: one iteration) {\n");
    fprintf(f, "      %lld x vector.transfer_read vector<%lldx%s> per thread (distributed %s)\n",
            (long long)plan->inputs[0].loads, (long long)plan->inputs[0].width, vt, buf);
    if (a->explicit_index) {
        ls_plan_input_vector_type(plan, 1, buf, sizeof buf);
        fprintf(f, "      %lld x vector.transfer_read vector<%lldx%s> of the indices (distributed "
                   "%s)\n",
                (long long)plan->inputs[1].loads, (long long)plan->inputs[1].width, it, buf);
    } else {
        fprintf(f, "      %%j = linalg.index %d; %%g = arith.addi %%iv, %%j%s%s%s\n", dim,
                a->has_base || a->base_unknown ? "; %g = arith.addi %base, %g" : "",
                a->index_type != LS_ET_INDEX ? "; arith.index_cast %g : index to " : "",
                a->index_type != LS_ET_INDEX ? it : "");
    }
    fprintf(f, "      %%c = comparator(%%in, %%accV); %%accV = arith.select %%c, %%in, %%accV; "
               "%%accI = arith.select %%c, %%g, %%accI: %d op%s per element",
            plan->body_alu_ops, plan->body_alu_ops == 1 ? "" : "s");
    if (plan->body_machine_alu_ops != plan->body_alu_ops)
        fprintf(f, ", %d instructions (a 64-bit select is a v_cndmask_b32 per half on AMD)",
                plan->body_machine_alu_ops);
    fprintf(f, "\n    }\n");
    fprintf(f, "  [%s] the merge arg_compare, local step: %%v, %%i = the inits, then each "
               "reduced register in order: %lld instructions, %lld pair%s per thread\n",
            ls_stage_name(LS_STAGE_THREAD_REDUCE), (long long)plan->local_reduce_ops,
            (long long)plan->results_per_thread, plan->results_per_thread == 1 ? "" : "s");
    fprintf(f, "  [%s]%s\n", ls_stage_name(LS_STAGE_SUBGROUP_REDUCE),
            plan->n_subgroup_reduces ? "" : " none: the reduced dim has one lane");
    for (int i = 0; i < plan->n_subgroup_reduces; i++)
        dump_lanes(f, plan, &plan->subgroup_reduces[i], kind, vt, it);
    if (plan->cross_subgroup) {
        fprintf(f, "  [%s]\n", ls_stage_name(LS_STAGE_CROSS_SUBGROUP));
        ls_plan_buffer_type(plan, buf, sizeof buf);
        fprintf(f, "    %%bufV = memref.alloc() : %s (%lld bytes)\n", buf,
                (long long)plan->buffer_bytes);
        fprintf(f, "    %%bufI = memref.alloc() of %s (%lld bytes)\n", it,
                (long long)plan->index_buffer_bytes);
        fprintf(f, "    gpu.barrier\n    scf.if (lane 0 of each subgroup's cluster) { "
                   "vector.transfer_write %%v -> %%bufV; %%i -> %%bufI }\n    gpu.barrier\n");
        fprintf(f, "    vector.transfer_read %%bufV, %%bufI (padding = the inits, in_bounds): "
                   "%lld slot%s per lane group; the second merge folds the init in first\n",
                (long long)plan->read_cluster, plan->read_cluster == 1 ? "" : "s");
        if (plan->read_cluster > 1)
            dump_lanes(f, plan, &plan->cross_reduce, kind, vt, it);
    } else {
        fprintf(f, "  [%s] none: the reduced dim is not split across subgroups\n",
                ls_stage_name(LS_STAGE_CROSS_SUBGROUP));
    }
    fprintf(f, "  [%s] none: the init was folded in first\n", ls_stage_name(LS_STAGE_ACC_COMBINE));
    fprintf(f, "  [%s]\n    scf.if (thread 0 of the cluster) { vector.transfer_write %%v; "
               "vector.transfer_write %%i } : %lld output pair%s per workgroup\n",
            ls_stage_name(LS_STAGE_STORE), (long long)plan->stores_per_workgroup,
            plan->stores_per_workgroup == 1 ? "" : "s");
    if (plan->hazard_cluster)
        fprintf(f, "  hazard: several reduction clusters share a subgroup, and IREE's ballot mask "
                   "does not depend on the lane: every cluster takes the index of the cluster "
                   "at lane 0\n");
    if (plan->hazard_oob)
        fprintf(f, "  hazard: the subgroup count is not a power of two: lanes of the second merge "
                   "read past the buffers (in_bounds = true; simulated as reading the inits)\n");
}
