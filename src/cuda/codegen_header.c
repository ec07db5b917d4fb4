/* codegen_header.c: the generated kernel's header comment (what it
 * computes, its launch, its departures from IREE's kernel) and the launch
 * record measure.c and the emulator use to run it. */
#include <stdio.h>
#include <string.h>

#include "lanescope/value.h"
#include "codegen.h"

/* The header's lines on the body (how its math ops are computed) and on
 * how the accumulate stage combines (ls_functional_fma). */
static void header_body_lines(gen *g)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    if (p->body.n > 0) {
        fprintf(f, " *   body: %d ops, as sim/body.c evaluates them (codegen_body.c)", p->body.n);
        int as_iree = 0, in_double = 0;
        for (int i = 0; i < p->body.n; i++) {
            ls_body_opcode op = (ls_body_opcode)p->body.inst[i].op;
            if (!ls_body_op_is_math(op) || op == LS_BOP_SQRT)
                continue; /* sqrt is one float op here (__fsqrt_rn) */
            if (ls_body_inst_as_target(&p->body, i, (ls_math_mode)p->body.math))
                as_iree++;
            else
                in_double++;
        }
        if (as_iree > 0)
            fprintf(f,
                    "; %d math.* op%s as IREE compiles %s (MathTransform's rewrites, MLIR's "
                    "polynomial approximations: sim/mlir_math.inc)",
                    as_iree, as_iree == 1 ? "" : "s", as_iree == 1 ? "it" : "them");
        if (in_double > 0)
            fprintf(f,
                    "; %d math.* op%s correctly rounded (in double), as the reference "
                    "computes %s (IREE's code calls libdevice or sqrt.approx: a faster "
                    "kernel)",
                    in_double, in_double == 1 ? "" : "s", in_double == 1 ? "it" : "them");
        fprintf(f, "\n");
    }
    ls_fma_kind fk = ls_functional_fma(g->plan); /* none for arg_compare */
    if (fk == LS_FMA_CHAIN)
        fprintf(f,
                " *   accumulate: per iteration, each accumulator's %lld packed elements go "
                "through a math.fma chain from the identity, last first (ContractToChainFMA), "
                "and the chain's result is added to it (DistributeContract)\n",
                (long long)g->plan->inner_elems);
    else if (fk == LS_FMA_CONTRACT)
        fprintf(f,
                " *   accumulate: per iteration, each output's %lld registers go through one "
                "math.fma chain from the identity, last first, which is the output's value "
                "(DistributeContract's local contraction, ContractToChainFMA): no thread "
                "reduce after it\n",
                (long long)(g->d->elems_per_iteration / g->plan->results_per_thread));
    else if (g->d->local_reduce_all)
        fprintf(f,
                " *   accumulate: per iteration, each output's %lld registers are reduced from "
                "the identity in order, which is the output's value (DistributeMultiReduction's "
                "local reduce): no thread reduce after it\n",
                (long long)(g->d->elems_per_iteration / g->plan->results_per_thread));
    else if (!p->argcmp.on && g->plan->inner_elems > 1)
        fprintf(f,
                " *   accumulate: per iteration, each accumulator's %lld packed elements are "
                "reduced from the identity and the result is added to it (DistributeContract / "
                "DistributeMultiReduction)\n",
                (long long)g->plan->inner_elems);
}

void cg_emit_header(gen *g, const char *source_name, const ls_cuda_launch *launch)
{
    FILE *f = g->f;
    const ls_problem *p = g->p;
    const ls_derived *d = g->d;
    char buf[2048];
    fprintf(f, "/* lanescope measure: CUDA C for %s of %s, as IREE's %s lowers it.\n", p->name,
            source_name,
            d->tile_and_fuse ? "TileAndFuse pipeline (each thread reduces its own outputs)"
                             : "VectorDistribute");
    ls_lowering_config_format(&p->config, buf, sizeof buf);
    fprintf(f, " *   lowering_config: %s%s\n", buf, p->config_suggested ? " (IREE's default)" : "");
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    fprintf(f, " *   layout: %s\n", buf);
    if (p->argcmp.on)
        fprintf(f, " *   iree_linalg_ext.arg_compare: the best %s value by its comparator and its "
                   "%s index (%s path), %s in memory; iteration space ",
                ls_elem_type_name(p->acc_type), ls_elem_type_name(p->argcmp.index_type),
                g->plan->ballot ? "ballot" : "butterfly", ls_elem_type_name(p->inputs[0].type));
    else
        fprintf(f, " *   %s %s reduction, %s in memory; iteration space ",
                ls_combiner_name(p->combiner), ls_elem_type_name(p->acc_type),
                ls_elem_type_name(p->inputs[0].type));
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "%s%lld%s", i ? "x" : "", (long long)p->size[i], p->is_reduction[i] ? "r" : "");
    fprintf(f, "\n *   grid %u x 1 x 1, block %u x 1 x 1 (%lld subgroup%s of 32), %lld bytes of "
               "shared memory\n",
            launch->grid[0], launch->block[0], (long long)d->num_subgroups,
            d->num_subgroups == 1 ? "" : "s", (long long)launch->smem_bytes);
    for (int k = 0; k < g->nin; k++) {
        fprintf(f, " *   input %d: %lld elements (%lld bytes), ", k,
                (long long)launch->input_elems[k], (long long)launch->input_bytes[k]);
        if (g->vdim >= 0 && g->vec_in[k])
            fprintf(f, "%lld-byte vector loads\n",
                    (long long)(g->vlen * launch->input_elem_bytes[k]));
        else
            fprintf(f, "scalar loads (%s)\n",
                    g->vdim >= 0 || g->vec_why[k][0] ? g->vec_why[k] : launch->vector_note);
    }
    for (int k = 0; k < g->nin; k++)
        if (p->inputs[k].intermediate)
            fprintf(f, " *   input %d %s is another reduction's result: this kernel reads it from "
                       "a buffer of that reduction's outputs (the reference's values); IREE's "
                       "kernel runs both phases in one launch and keeps it in registers\n",
                    k, p->inputs[k].name);
    for (int k = 0; k < g->nin; k++)
        if (cg_promoted(g, k))
            fprintf(f,
                    " *   input %d is promoted (promote_operands): copied through a padded "
                    "workgroup buffer each iteration between two barriers; the copy's shared "
                    "writes and the buffer's reads are element by element, as IREE's are "
                    "on NVIDIA (its buffer is aligned to one element)\n",
                    k);
    if (p->argcmp.on)
        fprintf(f, " *   output %lld values, then %lld indices at byte %lld (%lld bytes in all)\n",
                (long long)launch->out_elems, (long long)launch->out_elems,
                (long long)launch->index_offset, (long long)launch->out_bytes);
    else
        fprintf(f, " *   output %lld elements (%lld bytes)\n", (long long)launch->out_elems,
                (long long)launch->out_bytes);
    header_body_lines(g);
    fprintf(f, " * Stages are marked [load+accumulate] ... [store] as in `lanescope sim --dump-plan`.\n */\n");
}

void cg_fill_launch(gen *g, ls_cuda_launch *launch)
{
    const ls_problem *p = g->p;
    const ls_derived *d = g->d;
    memset(launch, 0, sizeof *launch);
    snprintf(launch->kernel, sizeof launch->kernel, "lanescope_reduce");
    launch->grid[0] = (unsigned)d->total_workgroups;
    launch->grid[1] = launch->grid[2] = 1;
    launch->block[0] = (unsigned)d->workgroup_size;
    launch->block[1] = launch->block[2] = 1;
    launch->n_inputs = p->n_inputs;
    for (int k = 0; k < p->n_inputs; k++) {
        launch->input_elems[k] = ls_operand_elements(p, k);
        launch->input_elem_bytes[k] = ls_elem_type_bits(p->inputs[k].type) / 8;
        launch->input_bytes[k] = p->inputs[k].type == LS_ET_I4
                                     ? (launch->input_elems[k] + 1) / 2 /* packed */
                                     : launch->input_elems[k] * launch->input_elem_bytes[k];
        launch->in_bytes += launch->input_bytes[k];
    }
    launch->in_elems = launch->input_elems[0];
    launch->in_elem_bytes = launch->input_elem_bytes[0];
    launch->out_elems = 1;
    for (int j = 0; j < p->out_map_n; j++)
        launch->out_elems *= p->size[p->out_map[j]];
    launch->out_elem_bytes = ls_elem_type_bits(p->acc_type) / 8;
    launch->out_bytes = launch->out_elems * launch->out_elem_bytes;
    if (p->argcmp.on) { /* the indices after the values */
        launch->index_offset = (launch->out_bytes + 7) / 8 * 8;
        launch->index_elem_bytes = ls_elem_type_bits(p->argcmp.index_type) / 8;
        launch->out_bytes = launch->index_offset + launch->out_elems * launch->index_elem_bytes;
        g->index_offset = launch->index_offset;
    }
}

