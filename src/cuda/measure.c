/* measure.c: the host side of a measured run (see measure.h): inputs from
 * the simulator's generator, the check of every output against the same
 * reference `sim` uses, and the timed runs on a GPU.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lanescope/arena.h"
#include "lanescope/measure.h"
#include "lanescope/value.h"

void ls_cuda_pack_element(unsigned char *buf, int64_t i, ls_value v, ls_elem_type t)
{
    if (t == LS_ET_I4) { /* two to a byte, low nibble first */
        if (i % 2 == 0)
            buf[i / 2] = 0;
        buf[i / 2] |= (unsigned char)((v & 15u) << (4 * (i % 2)));
        return;
    }
    int eb = ls_elem_type_bits(t) / 8;
    for (int b = 0; b < eb; b++) /* little-endian, as the GPU stores it */
        buf[i * eb + b] = (unsigned char)(v >> (8 * b));
}

ls_value ls_cuda_unpack_element(const unsigned char *buf, int64_t i, ls_elem_type t)
{
    if (t == LS_ET_I4)
        return (buf[i / 2] >> (4 * (i % 2))) & 15u;
    int eb = ls_elem_type_bits(t) / 8;
    ls_value v = 0;
    for (int b = 0; b < eb; b++)
        v |= (ls_value)buf[i * eb + b] << (8 * b);
    return v;
}

void *ls_cuda_make_input(const ls_plan *plan, ls_input_source in, const ls_cuda_launch *launch,
                         int k)
{
    const ls_problem *p = plan->problem;
    unsigned char *buf = ls_xmalloc((size_t)launch->input_bytes[k] + 1);
    /* the values ls_operand_value gives the reference, element by element
     * (an intermediate input's: the bound results of its reduction) */
    uint64_t seed = ls_operand_seed(in.seed, k);
    for (int64_t i = 0; i < launch->input_elems[k]; i++) {
        ls_value v = in.values[k]       ? in.values[k][i] /* another reduction's results */
                     : in.npy && k == 0 ? ls_npy_get(in.npy, i)
                                        : ls_input_value(seed, (uint64_t)i, p->inputs[k].type,
                                                         p->combiner);
        ls_cuda_pack_element(buf, i, v, p->inputs[k].type);
    }
    return buf;
}

typedef struct {
    const ls_problem *p;
    ls_input_source in;
    int64_t first, last;
    ls_cuda_reference *ref;
} ref_job;

static void *ref_worker(void *arg)
{
    ref_job *j = arg;
    for (int64_t lin = j->first; lin < j->last; lin++) {
        int64_t outc[LS_MAX_RANK];
        ls_output_coords(j->p, lin, outc);
        if (j->ref->index)
            ls_argcmp_reference(j->p, j->in, outc, &j->ref->value[lin], &j->ref->index[lin]);
        else
            ls_reference_output(j->p, j->in, outc, &j->ref->value[lin], &j->ref->bound[lin]);
    }
    return NULL;
}

void ls_cuda_reference_compute(const ls_plan *plan, ls_input_source in, ls_cuda_reference *ref)
{
    const ls_problem *p = plan->problem;
    int64_t n = 1;
    for (int j = 0; j < p->out_map_n; j++)
        n *= p->size[p->out_map[j]];
    ref->n = n;
    ref->value = ls_xcalloc((size_t)n + 1, sizeof *ref->value);
    ref->bound = ls_xcalloc((size_t)n + 1, sizeof *ref->bound);
    ref->index = p->argcmp.on ? ls_xcalloc((size_t)n + 1, sizeof *ref->index) : NULL;
    ref->in = in;
    /* the reference reads every input element once: split the outputs over
     * the host's cores (the GPU machine has 16); a pure function, no locks */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores < 1 ? 1 : cores > 32 ? 32 : (int)cores;
    if (n < 64 * nt)
        nt = 1;
    ref_job jobs[32];
    pthread_t th[32];
    int started = 0;
    for (int t = 0; t < nt; t++) {
        jobs[t] = (ref_job){p, in, n * t / nt, n * (t + 1) / nt, ref};
        if (t > 0 && pthread_create(&th[t], NULL, ref_worker, &jobs[t]) == 0)
            started |= 1 << t;
        else if (t > 0)
            ref_worker(&jobs[t]); /* no thread: do it here */
    }
    ref_worker(&jobs[0]);
    for (int t = 1; t < nt; t++)
        if (started & (1 << t))
            pthread_join(th[t], NULL);
}

void ls_cuda_reference_free(ls_cuda_reference *ref)
{
    free(ref->value);
    free(ref->bound);
    free(ref->index);
    ref->value = NULL;
    ref->bound = NULL;
    ref->index = NULL;
    ref->n = 0;
}

/* An arg_compare output: value lin and its index (after the values, at
 * the generator's 8-byte-aligned offset) against the reference pair; a tie
 * broken another way passes, as in the functional check. */
static ls_status check_pair(const ls_plan *plan, const ls_cuda_reference *ref, const void *out,
                            int64_t lin, ls_value v, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const unsigned char *o = out;
    int eb = ls_elem_type_bits(p->acc_type) / 8, ib = ls_elem_type_bits(p->argcmp.index_type) / 8;
    int64_t at = ((int64_t)eb * ref->n + 7) / 8 * 8 + lin * ib;
    ls_value idx = 0;
    for (int b = 0; b < ib; b++)
        idx |= (ls_value)o[at + b] << (8 * b);
    int64_t outc[LS_MAX_RANK];
    int no = ls_output_coords(p, lin, outc);
    ls_argcmp_verdict vd =
        ls_argcmp_pair_check(p, ref->in, outc, v, idx, ref->value[lin], ref->index[lin]);
    if (vd == LS_ARGCMP_EQUAL || vd == LS_ARGCMP_TIE)
        return LS_OK;
    char where[160], sv[48], si[48], rv[48], ri[48];
    size_t u = 0;
    where[0] = 0;
    for (int i = 0; i < no && u < sizeof where; i++)
        u += (size_t)snprintf(where + u, sizeof where - u, "%s%lld", i ? ", " : "",
                              (long long)outc[i]);
    ls_value_format(v, p->acc_type, sv, sizeof sv);
    ls_value_format(idx, p->argcmp.index_type, si, sizeof si);
    ls_value_format(ref->value[lin], p->acc_type, rv, sizeof rv);
    ls_value_format(ref->index[lin], p->argcmp.index_type, ri, sizeof ri);
    return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                       "the generated kernel's output [%s] is (value %s, index %s) but the "
                       "reference gives (%s, %s)%s",
                       where, sv, si, rv, ri,
                       vd == LS_ARGCMP_WRONG_INDEX ? "; the index does not hold that value" : "");
}

ls_status ls_cuda_check_against(const ls_plan *plan, const ls_cuda_reference *ref, const void *out,
                                int64_t *checked, double *max_bound_ratio, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const unsigned char *o = out;
    int eb = ls_elem_type_bits(p->acc_type) / 8;
    *checked = 0;
    *max_bound_ratio = 0;
    for (int64_t lin = 0; lin < ref->n; lin++) {
        ls_value v = 0;
        for (int b = 0; b < eb; b++)
            v |= (ls_value)o[lin * eb + b] << (8 * b);
        if (ref->index) {
            ls_status st = check_pair(plan, ref, out, lin, v, diag);
            if (st)
                return st;
            (*checked)++;
            continue;
        }
        if (!ls_value_check(p->acc_type, v, ref->value[lin], ref->bound[lin], max_bound_ratio)) {
            int64_t outc[LS_MAX_RANK];
            int no = ls_output_coords(p, lin, outc);
            char where[160], sv[48], sr[48];
            size_t u = 0;
            for (int i = 0; i < no && u < sizeof where; i++)
                u += (size_t)snprintf(where + u, sizeof where - u, "%s%lld", i ? ", " : "",
                                      (long long)outc[i]);
            ls_value_format(v, p->acc_type, sv, sizeof sv);
            ls_value_format(ref->value[lin], p->acc_type, sr, sizeof sr);
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "the generated kernel's output [%s] is %s but the reference "
                               "reduction gives %s (bound %g)",
                               where, sv, sr, ref->bound[lin]);
        }
        (*checked)++;
    }
    return LS_OK;
}

ls_status ls_cuda_check_output(const ls_plan *plan, ls_input_source in, const void *out,
                               int64_t *checked, double *max_bound_ratio, ls_diag *diag)
{
    ls_cuda_reference ref;
    ls_cuda_reference_compute(plan, in, &ref);
    ls_status st = ls_cuda_check_against(plan, &ref, out, checked, max_bound_ratio, diag);
    ls_cuda_reference_free(&ref);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One checked run: the output buffer is poisoned first so an element the
 * kernel never writes cannot pass. */
static ls_status run_checked(ls_gpu *g, ls_gpu_kernel *k, const ls_plan *plan,
                             const ls_cuda_reference *ref, const ls_cuda_launch *L, void **args,
                             ls_devptr dout, ls_measure_result *res, ls_diag *diag)
{
    ls_status st = ls_gpu_memset(g, dout, 0xa5, (size_t)L->out_bytes, diag);
    if (!st)
        st = ls_gpu_launch(g, k, L->grid, L->block, 0, args, 1, NULL, diag);
    if (st)
        return st;
    void *host = ls_xmalloc((size_t)L->out_bytes + 1);
    st = ls_gpu_download(g, host, dout, (size_t)L->out_bytes, diag);
    if (!st)
        st = ls_cuda_check_against(plan, ref, host, &res->outputs_checked, &res->max_bound_ratio,
                                   diag);
    free(host);
    return st;
}

/* Median, min and max of `runs` event-timed launches, each after an L2
 * flush when asked; t is scratch of runs entries. */
static ls_status time_runs(ls_gpu *g, ls_gpu_kernel *k, const unsigned *grid,
                           const unsigned *block, void **args, bool flush, int runs, double *t,
                           double *med, double *mn, double *mx, ls_diag *diag)
{
    ls_status st;
    for (int i = 0; i < runs; i++) {
        float ms = 0;
        if (flush && (st = ls_gpu_flush_l2(g, diag)))
            return st;
        if ((st = ls_gpu_launch(g, k, grid, block, 0, args, 1, &ms, diag)))
            return st;
        t[i] = ms * 1000.0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    *mn = t[0];
    *mx = t[runs - 1];
    *med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    return LS_OK;
}

/* The SM clock drops while the host checks values (idle H100s read 345
 * MHz): launch until at least 25 ms of GPU time have passed, so the timed
 * runs start at the clock a busy GPU keeps. */
static ls_status warm_up(ls_gpu *g, ls_gpu_kernel *k, const unsigned *grid,
                         const unsigned *block, void **args, int at_least, ls_diag *diag)
{
    double total_ms = 0;
    for (int i = 0; i < 100000 && (i < at_least || total_ms < 25.0); i++) {
        float ms = 0;
        ls_status st = ls_gpu_launch(g, k, grid, block, 0, args, 1, &ms, diag);
        if (st)
            return st;
        total_ms += ms;
    }
    return LS_OK;
}

/* An empty kernel with the generated one's arguments: the launch floor. */
static void empty_source(int n_inputs, int n_outputs, char *buf, size_t size)
{
    size_t u = (size_t)snprintf(buf, size, "extern \"C\" __global__ void lanescope_empty(");
    for (int k = 0; k < n_inputs && u < size; k++)
        u += (size_t)snprintf(buf + u, size - u, "const void *in%d, ", k);
    for (int j = 0; j < n_outputs && u < size; j++)
        u += (size_t)snprintf(buf + u, size - u, "void *out%d%s", j,
                              j + 1 < n_outputs ? ", " : ") {}\n");
}

/* The generated kernel and an empty one with its arguments (the launch
 * floor) loaded; the kernel's registers, static shared memory and
 * resident blocks per SM into res. */
static ls_status load_kernels(ls_gpu *g, const char *src, const char *kernel, int n_inputs,
                              int n_outputs, unsigned block, ls_gpu_kernel **k,
                              ls_gpu_kernel **empty, ls_measure_result *res, ls_diag *diag)
{
    char empty_src[600];
    empty_source(n_inputs, n_outputs, empty_src, sizeof empty_src);
    ls_status st;
    if ((st = ls_gpu_kernel_load(g, src, kernel, 0, k, diag)) ||
        (st = ls_gpu_kernel_load(g, empty_src, "lanescope_empty", 0, empty, diag)))
        return st;
    ls_gpu_kernel_attrs(g, *k, &res->regs_per_thread, &res->static_smem);
    res->occupancy_blocks = ls_gpu_kernel_occupancy(g, *k, (int)block, 0);
    return LS_OK;
}

/* The device copy bandwidth, when the caller has none: several times the
 * L2 each way, so the copy streams from DRAM. */
static ls_status copy_bandwidth(ls_gpu *g, double *copy_gbps, ls_diag *diag)
{
    if (*copy_gbps > 0)
        return LS_OK;
    const ls_gpu_info *gi = ls_gpu_get_info(g);
    size_t bytes = (size_t)(gi->l2_bytes > 0 ? gi->l2_bytes : (64 << 20)) * 8;
    return ls_gpu_copy_bandwidth(g, bytes, 10, copy_gbps, diag);
}

/* Warm-up, the kernel's timed runs and the empty kernel's, into res. */
static ls_status timed(ls_gpu *g, ls_gpu_kernel *k, ls_gpu_kernel *empty, const unsigned *grid,
                       const unsigned *block, void **args, const ls_measure_opts *opts,
                       int64_t bytes, ls_measure_result *res, ls_diag *diag)
{
    int runs = opts->runs > 0 ? opts->runs : 1;
    double *t = ls_xcalloc((size_t)runs, sizeof *t);
    double e_med, e_min, e_max;
    ls_status st;
    if (!(st = warm_up(g, k, grid, block, args, opts->warmup, diag)) &&
        !(st = time_runs(g, k, grid, block, args, opts->flush_l2, runs, t, &res->median_us,
                         &res->min_us, &res->max_us, diag)) &&
        !(st = time_runs(g, empty, grid, block, args, opts->flush_l2, runs, t, &e_med, &e_min,
                         &e_max, diag))) {
        res->runs = runs;
        res->launch_us = e_med;
        res->gbytes_per_s = res->median_us > 0 ? (double)bytes / (res->median_us * 1e3) : 0;
        res->copy_fraction = res->copy_gbps > 0 ? res->gbytes_per_s / res->copy_gbps : 0;
    }
    free(t);
    return st;
}

ls_status ls_measure_run(ls_gpu *g, const ls_plan *plan, ls_input_source in,
                         const ls_measure_opts *opts, double copy_gbps, ls_measure_result *res,
                         ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    char *src = NULL;
    ls_cuda_launch L;
    ls_gpu_kernel *k = NULL, *empty = NULL;
    ls_devptr din[LS_MAX_INPUTS] = {0}, dout = 0;
    void *args[LS_MAX_INPUTS + 1];
    ls_cuda_reference ref = {0};
    ls_status st = ls_cuda_generate(plan, opts->unroll, plan->problem->file, &src, &L, diag);
    if (st)
        return st;
    if ((st = load_kernels(g, src, L.kernel, L.n_inputs, 1, L.block[0], &k, &empty, res, diag)))
        goto out;
    for (int i = 0; i < L.n_inputs; i++) {
        void *host_in = ls_cuda_make_input(plan, in, &L, i);
        if (!(st = ls_gpu_alloc(g, (size_t)L.input_bytes[i], &din[i], diag)))
            st = ls_gpu_upload(g, din[i], host_in, (size_t)L.input_bytes[i], diag);
        free(host_in);
        if (st)
            goto out;
        args[i] = &din[i];
    }
    if ((st = ls_gpu_alloc(g, (size_t)L.out_bytes, &dout, diag)))
        goto out;
    args[L.n_inputs] = &dout;
    ls_cuda_reference_compute(plan, in, &ref); /* once, for both checks */
    if ((st = run_checked(g, k, plan, &ref, &L, args, dout, res, diag)))
        goto out;
    if ((st = copy_bandwidth(g, &copy_gbps, diag)))
        goto out;
    res->copy_gbps = copy_gbps;
    res->launch = L;
    if ((st = timed(g, k, empty, L.grid, L.block, args, opts, L.in_bytes + L.out_bytes, res,
                    diag)))
        goto out;
    /* the timed runs must not have changed the values */
    st = run_checked(g, k, plan, &ref, &L, args, dout, res, diag);
out:
    ls_cuda_reference_free(&ref);
    for (int i = 0; i < LS_MAX_INPUTS; i++)
        ls_gpu_free(g, din[i]);
    ls_gpu_free(g, dout);
    ls_gpu_kernel_free(g, k);
    ls_gpu_kernel_free(g, empty);
    free(src);
    return st;
}

/* One checked run of a dispatch's kernel: every output poisoned first. */
static ls_status fused_checked(ls_gpu *g, ls_gpu_kernel *k, const ls_fused_kernel *fk,
                               const ls_cuda_fused_launch *L, void **args, const ls_devptr *dout,
                               ls_value *const *values, uint64_t seed, ls_cuda_fused_check *chk,
                               ls_diag *diag)
{
    ls_status st = LS_OK;
    for (int i = 0; i < L->n_outputs && !st; i++)
        st = ls_gpu_memset(g, dout[i], 0xa5, (size_t)L->output_bytes[i], diag);
    if (!st)
        st = ls_gpu_launch(g, k, L->grid, L->block, 0, args, 1, NULL, diag);
    void *host[LS_CUDA_FUSED_MAX_OUTPUTS] = {NULL};
    for (int i = 0; i < L->n_outputs && !st; i++) {
        host[i] = ls_xmalloc((size_t)L->output_bytes[i] + 1);
        st = ls_gpu_download(g, host[i], dout[i], (size_t)L->output_bytes[i], diag);
    }
    if (!st)
        st = ls_cuda_fused_check_outputs(fk, L, values, host, seed, chk, diag);
    for (int i = 0; i < LS_CUDA_FUSED_MAX_OUTPUTS; i++)
        free(host[i]);
    return st;
}

/* A fused or attention kernel's launch in a single kernel's terms. */
static void launch_facts(ls_cuda_launch *l, const char *kernel, const unsigned *grid,
                         const unsigned *block, int64_t smem, int n_inputs, int64_t in_bytes,
                         int64_t out_bytes)
{
    snprintf(l->kernel, sizeof l->kernel, "%s", kernel);
    memcpy(l->grid, grid, sizeof l->grid);
    memcpy(l->block, block, sizeof l->block);
    l->smem_bytes = smem;
    l->n_inputs = n_inputs;
    l->in_bytes = in_bytes;
    l->out_bytes = out_bytes;
}

ls_status ls_measure_run_fused(ls_gpu *g, const ls_fused_kernel *fk, const int64_t *unroll,
                               uint64_t seed, const ls_measure_opts *opts, double copy_gbps,
                               ls_measure_result *res, ls_cuda_fused_check *chk, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    memset(chk, 0, sizeof *chk);
    char *src = NULL;
    ls_cuda_fused_launch L;
    ls_gpu_kernel *k = NULL, *empty = NULL;
    ls_devptr din[LS_MAX_INPUTS] = {0}, dout[LS_CUDA_FUSED_MAX_OUTPUTS] = {0};
    void *args[LS_MAX_INPUTS + LS_CUDA_FUSED_MAX_OUTPUTS];
    ls_value *values[LS_MAX_INPUTS] = {NULL};
    void *bytes[LS_MAX_INPUTS] = {NULL};
    ls_status st = ls_cuda_generate_fused(fk, unroll, fk->plan.problem->file, &src, &L, diag);
    if (st)
        return st;
    if ((st = load_kernels(g, src, L.kernel, L.n_inputs, L.n_outputs, L.block[0], &k, &empty, res,
                           diag)))
        goto out;
    ls_cuda_fused_inputs(fk, &L, seed, values, bytes);
    for (int i = 0; i < L.n_inputs; i++) {
        if (L.input_alias[i] >= 0) { /* the same tensor: the same buffer */
            args[i] = &din[L.input_alias[i]];
            continue;
        }
        if (!(st = ls_gpu_alloc(g, (size_t)L.input_bytes[i], &din[i], diag)))
            st = ls_gpu_upload(g, din[i], bytes[i], (size_t)L.input_bytes[i], diag);
        if (st)
            goto out;
        args[i] = &din[i];
    }
    for (int i = 0; i < L.n_outputs; i++) {
        if ((st = ls_gpu_alloc(g, (size_t)L.output_bytes[i], &dout[i], diag)))
            goto out;
        args[L.n_inputs + i] = &dout[i];
    }
    if ((st = fused_checked(g, k, fk, &L, args, dout, values, seed, chk, diag)) ||
        (st = copy_bandwidth(g, &copy_gbps, diag)))
        goto out;
    res->copy_gbps = copy_gbps;
    /* what ran, in the single kernel's terms: grid, block, bytes */
    launch_facts(&res->launch, L.kernel, L.grid, L.block, L.smem_bytes, L.n_inputs, L.in_bytes,
                 L.out_bytes);
    res->launch.vector_loads = L.vector_phases > 0;
    if ((st = timed(g, k, empty, L.grid, L.block, args, opts, L.in_bytes + L.out_bytes, res,
                    diag)))
        goto out;
    for (int i = 0; i < fk->n_phases; i++)
        res->outputs_checked += chk->checked[i] + chk->producer_checked[i];
    /* the timed runs must not have changed the values */
    st = fused_checked(g, k, fk, &L, args, dout, values, seed, chk, diag);
out:
    for (int i = 0; i < LS_MAX_INPUTS; i++) {
        ls_gpu_free(g, din[i]);
        free(values[i]);
        free(bytes[i]);
    }
    for (int i = 0; i < LS_CUDA_FUSED_MAX_OUTPUTS; i++)
        ls_gpu_free(g, dout[i]);
    ls_gpu_kernel_free(g, k);
    ls_gpu_kernel_free(g, empty);
    free(src);
    return st;
}

/* One launch of an attention kernel into host copies of its outputs. */
static ls_status attention_outputs(ls_gpu *g, ls_gpu_kernel *k, const ls_cuda_att_launch *L,
                                   void **args, const ls_devptr *dout, void **host, ls_diag *diag)
{
    ls_status st = LS_OK;
    for (int i = 0; i < L->n_outputs && !st; i++)
        st = ls_gpu_memset(g, dout[i], 0xa5, (size_t)L->output_bytes[i], diag);
    if (!st)
        st = ls_gpu_launch(g, k, L->grid, L->block, 0, args, 1, NULL, diag);
    for (int i = 0; i < L->n_outputs && !st; i++) {
        host[i] = ls_xmalloc((size_t)L->output_bytes[i] + 1);
        st = ls_gpu_download(g, host[i], dout[i], (size_t)L->output_bytes[i], diag);
    }
    return st;
}

ls_status ls_measure_run_attention(ls_gpu *g, const ls_module *m, const ls_module_attention *ma,
                                   const ls_attention *a, const ls_att_view *view, uint64_t seed,
                                   const ls_measure_opts *opts, double copy_gbps,
                                   ls_measure_result *res, ls_cuda_att_check *chk, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    memset(chk, 0, sizeof *chk);
    char *src = NULL;
    ls_cuda_att_launch L;
    ls_gpu_kernel *k = NULL, *empty = NULL;
    ls_devptr din[LS_CUDA_ATT_MAX_INPUTS] = {0}, dout[3] = {0};
    void *args[LS_CUDA_ATT_MAX_INPUTS + 3], *bytes[LS_CUDA_ATT_MAX_INPUTS] = {NULL};
    void *first[3] = {NULL}, *again[3] = {NULL};
    ls_status st = ls_cuda_generate_attention(m, ma, a, view, a->file, &src, &L, diag);
    if (st)
        return st;
    if ((st = load_kernels(g, src, L.kernel, L.n_inputs, L.n_outputs, L.block[0], &k, &empty, res,
                           diag)))
        goto out;
    ls_cuda_att_inputs(&L, seed, bytes);
    for (int i = 0; i < L.n_inputs && !st; i++) {
        if (L.alias[i] >= 0) { /* the same tensor: the same buffer */
            args[i] = &din[L.alias[i]];
            continue;
        }
        if (!(st = ls_gpu_alloc(g, (size_t)L.input_bytes[i], &din[i], diag)))
            st = ls_gpu_upload(g, din[i], bytes[i], (size_t)L.input_bytes[i], diag);
        args[i] = &din[i];
    }
    for (int i = 0; i < L.n_outputs && !st; i++) {
        st = ls_gpu_alloc(g, (size_t)L.output_bytes[i], &dout[i], diag);
        args[L.n_inputs + i] = &dout[i];
    }
    /* the values: the workgroups the functional budget allows, compared
     * with the simulator's lowered values bit for bit */
    if (st || (st = attention_outputs(g, k, &L, args, dout, first, diag)) ||
        (st = ls_cuda_att_compare(m, ma, a, &L, seed, ls_cuda_att_budget_workgroups(a), first, chk,
                                  diag)) ||
        (st = copy_bandwidth(g, &copy_gbps, diag)))
        goto out;
    res->copy_gbps = copy_gbps;
    launch_facts(&res->launch, L.kernel, L.grid, L.block, L.smem_bytes, L.n_inputs, L.in_bytes,
                 L.out_bytes);
    if ((st = timed(g, k, empty, L.grid, L.block, args, opts, L.in_bytes + L.out_bytes, res, diag)))
        goto out;
    res->outputs_checked = chk->sim_equal;
    /* the timed runs must not have changed the values: the same bits again */
    if ((st = attention_outputs(g, k, &L, args, dout, again, diag)))
        goto out;
    for (int i = 0; i < L.n_outputs; i++)
        if (memcmp(first[i], again[i], (size_t)L.output_bytes[i]) != 0) {
            st = ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                             "%s: the kernel's outputs changed between two runs on the same "
                             "inputs",
                             a->name);
            break;
        }
out:
    for (int i = 0; i < LS_CUDA_ATT_MAX_INPUTS; i++) {
        ls_gpu_free(g, din[i]);
        free(bytes[i]);
    }
    for (int i = 0; i < 3; i++) {
        ls_gpu_free(g, dout[i]);
        free(first[i]);
        free(again[i]);
    }
    ls_gpu_kernel_free(g, k);
    ls_gpu_kernel_free(g, empty);
    free(src);
    return st;
}
