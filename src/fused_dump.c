/* fused_dump.c: a dispatch's one kernel (fused.h) in IREE's vocabulary,
 * as `lanescope sim --dump-plan` prints it after the reductions' own
 * plans: each loop named, an elementwise loop and an epilogue in full. */
#include <stdio.h>

#include "lanescope/body_issue.h"
#include "lanescope/fused.h"
#include "lanescope/layout.h"

/* " (distributed vector<...>)" for operand k, "" when packed. */
static void distributed(const ls_plan *pl, int k, bool packed, char *buf, size_t n)
{
    buf[0] = '\0';
    if (packed)
        return;
    char ty[900];
    ls_plan_input_vector_type(pl, k, ty, sizeof ty);
    snprintf(buf, n, " (distributed %s)", ty);
}

/* An epilogue phase: ops on loop i's results after its reduce. */
static void dump_epilogue(const ls_fused_kernel *k, int i, FILE *f)
{
    const ls_fused_phase *ph = &k->phase[i];
    fprintf(f, "  after loop %d's reduce: %s, on the results (no loop of its own)\n", i, ph->what);
    const ls_plan *ep = ph->plan;
    for (int a = 0; a < ep->problem->n_inputs; a++)
        if (ph->held[a] >= 0)
            fprintf(f, "    input %d %s: the result of loop %d, held in registers\n", a,
                    ep->problem->inputs[a].name, ph->held[a] + 1);
        else
            fprintf(f,
                    "    input %d %s: %lld x vector.transfer_read vector<%lldx%s> per "
                    "thread, once (over output loops only)\n",
                    a, ep->problem->inputs[a].name, (long long)ep->inputs[a].loads,
                    (long long)ep->inputs[a].width, ls_elem_type_name(ep->problem->inputs[a].type));
    fprintf(f, "    body, per result (%d ALU and %d special-function instruction%s):\n",
            ph->epilogue_alu, ph->epilogue_sfu, ph->epilogue_sfu == 1 ? "" : "s");
    ls_body_print(&k->view[i].body, "      ", f);
    fprintf(f,
            "    scf.if (one thread per output element) { vector.transfer_write } : "
            "%lld bytes a subgroup per result slot\n",
            (long long)ph->epilogue_bytes);
}

/* An elementwise phase: its own serial loop (loop i + 1), laid out as loop
 * 1 or by its own config, its loads, body and stores. */
static void dump_elementwise(const ls_fused_phase *ph, int i, FILE *f)
{
    char buf[1024];
    const ls_plan *pl = ph->plan;
    const ls_problem *p = pl->problem;
    if (ph->own_layout) {
        char lay[512];
        ls_nested_layout_format(&pl->derived->layout, lay, sizeof lay);
        fprintf(f,
                "  loop %d: %s (serial tile over its own loops, laid out by its own "
                "lowering_config; it shares loop 1's workgroups only)\n    layout: %s\n",
                i + 1, ph->what, lay);
        if (ph->writers < pl->derived->num_subgroups)
            fprintf(f,
                    "    (its layout spans %d of the workgroup's %lld subgroups: the others "
                    "compute the same elements, and only the first of each such group "
                    "writes)\n",
                    ph->writers, (long long)pl->derived->num_subgroups);
    } else {
        fprintf(f,
                "  loop %d: %s (serial tile: its loop over the reduction's tiles, laid out "
                "as loop 1)\n",
                i + 1, ph->what);
    }
    /* the distributed types are the layout's over the body dims; when the
     * reductions are packed (GPUPackPartialReductions), the elementwise
     * op, which IREE does not pack, has the same elements a thread in
     * fewer dims: its types are not printed */
    bool packed = false;
    for (int b = 0; b < pl->derived->body_rank; b++)
        packed |= pl->derived->body_inner[b];
    if (pl->iterations > 1)
        fprintf(f, "    scf.for %%k = 0 to %lld {\n", (long long)pl->iterations);
    else
        fprintf(f, "    (loop elided: one iteration) {\n");
    for (int a = 0; a < p->n_inputs; a++) {
        if (ph->held[a] >= 0) {
            fprintf(f,
                    "      input %d %s: the result of loop %d, held in registers (no "
                    "load)\n",
                    a, p->inputs[a].name, ph->held[a] + 1);
            continue;
        }
        distributed(pl, a, packed, buf, sizeof buf);
        fprintf(f,
                "      input %d %s: %lld x vector.transfer_read vector<%lldx%s> per "
                "thread%s\n",
                a, p->inputs[a].name, (long long)pl->inputs[a].loads,
                (long long)pl->inputs[a].width, ls_elem_type_name(p->inputs[a].type), buf);
    }
    if (p->body.n > 0) {
        fprintf(f,
                "      body, per element (%d op%s; the backend emits %d ALU and %d "
                "special-function instruction%s):\n",
                pl->body_alu_ops, pl->body_alu_ops == 1 ? "" : "s", pl->body_machine_alu_ops,
                pl->body_sfu_ops, pl->body_sfu_ops == 1 ? "" : "s");
        ls_body_print(&p->body, "        ", f);
        ls_plan_dump_body_issue(pl, false, f);
    }
    buf[0] = '\0';
    if (!packed && ph->store_type[0])
        snprintf(buf, sizeof buf, " (distributed %s)", ph->store_type);
    fprintf(f,
            "      %s%lld x vector.transfer_write vector<%lldx%s> per thread%s: %lld bytes "
            "a writing subgroup\n    }\n",
            ph->writers < pl->derived->num_subgroups ? "scf.if (first of its duplication group) "
                                                     : "",
            (long long)ph->stores, (long long)ph->store_width, ls_elem_type_name(p->acc_type), buf,
            (long long)(ph->stores * ph->store_bytes));
}

void ls_fused_dump(const ls_fused_kernel *k, FILE *f)
{
    int loops = ls_fused_loop_count(k);
    if (loops > 1)
        fprintf(f, "one kernel for the dispatch: %d loops, one after another, each reading its "
                   "tiles again\n",
                loops);
    else
        fprintf(f, "one kernel for the dispatch: its loop, and the ops fused into it or after "
                   "it\n");
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        if (!ph->elementwise) {
            fprintf(f, "  loop %d: %s, its plan above; its result %s\n", i + 1, ph->what,
                    ph->store ? "stored after its reduce" : "held in registers, not stored");
            if (ph->producer_op >= 0)
                fprintf(f, "    and in the loop, %s (fused into it, its result stored too): "
                           "%lld x vector.transfer_write per thread a trip, %lld bytes a "
                           "subgroup\n",
                        ph->producer_what, (long long)ph->producer_stores,
                        (long long)(ph->producer_stores * ph->producer_store_bytes));
            continue;
        }
        if (ph->epilogue)
            dump_epilogue(k, i, f);
        else
            dump_elementwise(ph, i, f);
    }
}
