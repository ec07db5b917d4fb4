/* codegen_fused.c: a dispatch's one kernel (fused.h) as CUDA C (see
 * measure.h).
 *
 * Each phase is generated from its own plan exactly as a kernel of its
 * own would be (codegen.c), but as a device function `run` in a namespace
 * of its own, so every phase keeps its types, combine, body and shared
 * buffer; one __global__ kernel calls them in program order.  An
 * elementwise op's phase is its view plan's partial-reduction loop with
 * each register's body value stored instead of accumulated, unrolled no
 * more than the simulator's (which keeps it rolled); an epilogue has no
 * loop (the reduction's writers store the body of their results); a
 * stored producer is written from its reduction's loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/body.h"
#include "lanescope/value.h"
#include "codegen.h"

static ls_status refuse(const ls_problem *p, ls_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ls_status refuse(const ls_problem *p, ls_diag *diag, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                       "the dispatch's one kernel: %s", msg);
}

bool cg_producer_inputs(const ls_fused_phase *ph, int *in)
{
    const ls_problem *pp = ph->producer_plan->problem, *p = ph->plan->problem;
    for (int j = 0; j < pp->n_inputs; j++) {
        const ls_operand *o = &pp->inputs[j];
        in[j] = -1;
        for (int a = 0; a < p->n_inputs && in[j] < 0; a++) {
            const ls_operand *q = &p->inputs[a];
            if (strcmp(q->name, o->name) == 0 && q->type == o->type && q->map_n == o->map_n &&
                memcmp(q->map, o->map, sizeof o->map[0] * (size_t)o->map_n) == 0 &&
                memcmp(q->scale, o->scale, sizeof o->scale[0] * (size_t)o->map_n) == 0)
                in[j] = a;
        }
        if (in[j] < 0)
            return false;
    }
    return true;
}

/* What the generator cannot express, each with its reason. */
static ls_status check_phases(const ls_fused_kernel *k, ls_diag *diag)
{
    const ls_problem *lp = k->plan.problem;
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_problem *p = ph->plan->problem;
        if (ph->producer_op >= 0 && !ph->producer_plan)
            return refuse(lp, diag, "%s also stores %s, whose layout is unknown", ph->what,
                          ph->producer_what);
        if (ph->producer_op >= 0) {
            int in[LS_MAX_INPUTS];
            if (!cg_producer_inputs(ph, in))
                return refuse(lp, diag,
                              "%s also stores %s, which reads a tensor the reduction does not",
                              ph->what, ph->producer_what);
            if (p->body.n == 0 || ph->producer_out_map_n != p->rank)
                return refuse(lp, diag, "%s also stores %s, not over the reduction's loops",
                              ph->what, ph->producer_what);
        }
        if (ph->elementwise && !ph->epilogue && ph->out_map_n != p->rank)
            return refuse(lp, diag, "%s's result does not cover its loops", ph->what);
        if (ph->epilogue && ph->out_map_n < 1)
            return refuse(lp, diag, "%s's result has no dims", ph->what);
        for (int a = 0; a < p->n_inputs; a++) {
            int j = ph->held[a];
            if (ph->operand[a] < 0 && j < 0)
                return refuse(lp, diag,
                              "input %d of %s (%s) is neither a tensor the kernel loads nor an "
                              "earlier phase's result",
                              a, ph->what, p->inputs[a].name);
            if (j >= 0 && (k->phase[j].elementwise || k->phase[j].epilogue ||
                           k->phase[j].plan->problem->acc_type != p->inputs[a].type))
                return refuse(lp, diag, "input %d of %s is %s's result in another type", a,
                              ph->what, k->phase[j].what);
        }
    }
    return LS_OK;
}

bool ls_cuda_fused_supported(const ls_fused_kernel *k, char *why, size_t size)
{
    ls_diag d;
    ls_diag_clear(&d);
    if (check_phases(k, &d) == LS_OK)
        return true;
    snprintf(why, size, "%s", d.msg);
    return false;
}

static void fill_launch(const ls_fused_kernel *k, ls_cuda_fused_launch *L)
{
    const ls_problem *kp = &k->problem;
    const ls_derived *d = k->plan.derived;
    memset(L, 0, sizeof *L);
    snprintf(L->kernel, sizeof L->kernel, "lanescope_dispatch");
    L->grid[0] = (unsigned)d->total_workgroups;
    L->block[0] = (unsigned)d->workgroup_size;
    L->grid[1] = L->grid[2] = L->block[1] = L->block[2] = 1;
    L->n_inputs = kp->n_inputs;
    for (int u = 0; u < kp->n_inputs; u++) {
        ls_elem_type t = kp->inputs[u].type;
        int a;
        const ls_plan *sp = ls_fused_input_space(k, u, &a); /* its loops' sizes */
        L->input_type[u] = t;
        L->input_elems[u] = ls_operand_elements(sp->problem, a);
        L->input_bytes[u] = t == LS_ET_I4 ? (L->input_elems[u] + 1) / 2
                                          : L->input_elems[u] * (ls_elem_type_bits(t) / 8);
        L->input_alias[u] = ls_fused_input_alias(k, u);
        if (L->input_alias[u] < 0) /* one tensor, one buffer */
            L->in_bytes += L->input_bytes[u];
    }
    L->n_outputs = k->n_phases;
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_problem *p = ph->plan->problem;
        int64_t n = 1;
        if (ph->elementwise || ph->epilogue)
            for (int j = 0; j < ph->out_map_n; j++)
                n *= p->size[ph->out_map[j]];
        else
            for (int j = 0; j < p->out_map_n; j++)
                n *= p->size[p->out_map[j]];
        L->output_elems[i] = n;
        L->output_type[i] = p->acc_type;
        L->output_bytes[i] = n * (ls_elem_type_bits(p->acc_type) / 8);
        L->out_bytes += L->output_bytes[i];
    }
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        L->producer_output[i] = -1;
        if (ph->producer_op < 0)
            continue;
        const ls_problem *pp = ph->producer_plan->problem;
        int o = L->n_outputs++;
        int64_t n = 1;
        for (int j = 0; j < ph->producer_out_map_n; j++)
            n *= pp->size[ph->producer_out_map[j]];
        L->producer_output[i] = o;
        L->output_elems[o] = n;
        L->output_type[o] = pp->acc_type;
        L->output_bytes[o] = n * (ls_elem_type_bits(pp->acc_type) / 8);
        L->out_bytes += L->output_bytes[o];
    }
}

static void emit_header(FILE *f, const ls_fused_kernel *k, const char *source_name,
                        const ls_cuda_fused_launch *L)
{
    const ls_problem *lp = k->plan.problem;
    const ls_derived *d = k->plan.derived;
    fprintf(f, "/* lanescope measure: CUDA C for the dispatch of %s of %s: its %d loops as the "
               "one kernel IREE's VectorDistribute builds.\n",
            lp->name, source_name, k->n_phases);
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        fprintf(f, " *   phase %d: %s (%s), result in output %d: %lld %s elements\n", i, ph->what,
                ph->epilogue      ? "an epilogue: the body on each result, stored by the "
                                    "reduction's writers"
                : ph->own_layout  ? "elementwise, each element stored, laid out by its own "
                                    "config (below)"
                : ph->elementwise ? "elementwise, each element stored"
                                  : "reduction",
                i, (long long)L->output_elems[i], ls_elem_type_name(L->output_type[i]));
        if (ph->own_layout) {
            char lay[512];
            ls_nested_layout_format(&ph->plan->derived->layout, lay, sizeof lay);
            fprintf(f, " *     its layout: %s\n", lay);
        }
        int o = L->producer_output[i];
        if (o >= 0)
            fprintf(f, " *     its loop also writes %s, the stored producer it reads, to output "
                       "%d: %lld %s elements\n",
                    ph->producer_what, o, (long long)L->output_elems[o],
                    ls_elem_type_name(L->output_type[o]));
    }
    char buf[2048];
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    fprintf(f, " *   layout (every phase's but an own-layout one's): %s\n", buf);
    fprintf(f, " *   grid %u x 1 x 1, block %u x 1 x 1 (%lld subgroup%s of 32), %lld bytes of "
               "shared memory\n",
            L->grid[0], L->block[0], (long long)d->num_subgroups,
            d->num_subgroups == 1 ? "" : "s", (long long)L->smem_bytes);
    for (int u = 0; u < L->n_inputs; u++)
        if (L->input_alias[u] >= 0)
            fprintf(f, " *   input %d: %s again, read in another phase's loops (input %d's "
                       "buffer)\n",
                    u, k->problem.inputs[u].name, L->input_alias[u]);
        else
            fprintf(f, " *   input %d: %s, %lld %s elements (%lld bytes)\n", u,
                    k->problem.inputs[u].name, (long long)L->input_elems[u],
                    ls_elem_type_name(L->input_type[u]), (long long)L->input_bytes[u]);
    fprintf(f, " *   Departures from IREE's kernel: a phase's result that a later phase reads "
               "is written to its output buffer and read back after a __syncthreads (IREE "
               "keeps it in registers); each phase has its own shared buffer (IREE may reuse "
               "one); every phase's result is written, stored by the dispatch or not");
    bool math = false;
    for (int i = 0; i < k->n_phases; i++)
        math |= ls_body_transcendental_ops(&k->phase[i].plan->problem->body) > 0;
    if (math)
        fprintf(f, "; math.* ops run in double precision to match the reference bit for bit "
                   "(IREE computes them in f32)");
    fprintf(f, ".\n */\n");
    fprintf(f, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n");
}

/* The kernel: every phase's run in order, a barrier before a phase that
 * reads an earlier one's result. */
static void emit_kernel(FILE *f, const ls_fused_kernel *k, const ls_cuda_fused_launch *L)
{
    fprintf(f, "\nextern \"C\" __global__ void __launch_bounds__(%u)\nlanescope_dispatch(",
            L->block[0]);
    for (int u = 0; u < L->n_inputs; u++)
        fprintf(f, "const void *in%d, ", u);
    /* no __restrict__ on the results: with it, NVCC may hoist a later
     * phase's read of a result above the __syncthreads, before the writer
     * thread's store (the other threads' stores are not its to see) */
    for (int i = 0; i < L->n_outputs; i++)
        fprintf(f, "void *r%d%s", i, i + 1 < L->n_outputs ? ", " : ")\n{\n");
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_problem *p = ph->plan->problem;
        bool reads = false;
        for (int a = 0; a < p->n_inputs; a++)
            reads |= ph->held[a] >= 0;
        if (reads)
            fprintf(f, "    __syncthreads(); /* phase %d reads an earlier phase's result, "
                       "written by this workgroup */\n",
                    i);
        fprintf(f, "    /* phase %d: %s */\n    ls_ph%d::run(", i, ph->what, i);
        for (int a = 0; a < p->n_inputs; a++) {
            if (ph->held[a] >= 0)
                fprintf(f, "(const ls_ph%d::ls_in%d_t *)r%d, ", i, a, ph->held[a]);
            else
                fprintf(f, "(const ls_ph%d::ls_in%d_t *)in%d, ", i, a, ph->operand[a]);
        }
        fprintf(f, "(ls_ph%d::ls_acc_t *)r%d", i, i);
        if (L->producer_output[i] >= 0)
            fprintf(f, ", (ls_ph%d::ls_prod_t *)r%d", i, L->producer_output[i]);
        fprintf(f, ");\n");
    }
    fprintf(f, "}\n");
}

ls_status ls_cuda_generate_fused(const ls_fused_kernel *k, const int64_t *unroll,
                                 const char *source_name, char **src, ls_cuda_fused_launch *L,
                                 ls_diag *diag)
{
    *src = NULL;
    ls_status st = check_phases(k, diag);
    if (st)
        return st;
    fill_launch(k, L);
    char *phases = NULL;
    size_t plen = 0;
    FILE *f = open_memstream(&phases, &plen);
    for (int i = 0; i < k->n_phases && !st; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_problem *p = ph->plan->problem;
        char ns[16];
        snprintf(ns, sizeof ns, "ls_ph%d", i);
        cg_phase cp = {ns, ph->what, unroll ? unroll[i] : 0, ph->elementwise, {0}, ph->epilogue,
                       NULL, {0}, {0}};
        int64_t stride = 1; /* an elementwise result: row-major over its dims */
        for (int j = ph->out_map_n - 1; (ph->elementwise || ph->epilogue) && j >= 0; j--) {
            cp.out_stride[ph->out_map[j]] = stride;
            stride *= p->size[ph->out_map[j]];
        }
        if (ph->producer_op >= 0) { /* the stored producer, written from the loop */
            cp.producer = ph->producer_plan;
            cg_producer_inputs(ph, cp.producer_in);
            stride = 1;
            for (int j = ph->producer_out_map_n - 1; j >= 0; j--) {
                cp.producer_stride[ph->producer_out_map[j]] = stride;
                stride *= p->size[ph->producer_out_map[j]];
            }
        }
        ls_cuda_launch pl;
        if ((st = cg_generate_phase(ph->plan, &cp, f, &pl, diag)))
            break;
        if (pl.grid[0] != L->grid[0] || pl.block[0] != L->block[0])
            st = refuse(k->plan.problem, diag,
                        "%s runs %u workgroups of %u threads, the kernel %u of %u", ph->what,
                        pl.grid[0], pl.block[0], L->grid[0], L->block[0]);
        L->smem_bytes += pl.smem_bytes;
        L->vector_phases += pl.vector_loads;
    }
    fclose(f);
    if (!st && L->smem_bytes > 48 * 1024)
        st = ls_diag_set(diag, LS_ERR_LIMIT, k->plan.problem->file, k->plan.problem->line,
                         k->plan.problem->col,
                         "the phases' shared buffers need %lld bytes together; static shared "
                         "memory is limited to 49152",
                         (long long)L->smem_bytes);
    if (st) {
        free(phases);
        return st;
    }
    char *text = NULL;
    size_t len = 0;
    f = open_memstream(&text, &len);
    emit_header(f, k, source_name, L);
    fputs(phases, f);
    emit_kernel(f, k, L);
    fclose(f);
    free(phases);
    *src = text;
    return LS_OK;
}
