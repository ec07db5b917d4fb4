/* measure.c: the host side of a measured run (see measure.h): inputs from
 * the simulator's generator, the check of every output against the same
 * reference `sim` uses, and the timed runs on a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/measure.h"
#include "lanescope/value.h"

void *ls_cuda_make_input(const ls_plan *plan, ls_input_source in, const ls_cuda_launch *launch)
{
    const ls_problem *p = plan->problem;
    unsigned char *buf = ls_xmalloc((size_t)launch->in_bytes + 1);
    int eb = launch->in_elem_bytes;
    for (int64_t i = 0; i < launch->in_elems; i++) {
        ls_value v = in.npy ? ls_npy_get(in.npy, i)
                            : ls_input_value(in.seed, (uint64_t)i, p->in_type, p->combiner);
        for (int b = 0; b < eb; b++) /* little-endian, as the GPU stores it */
            buf[i * eb + b] = (unsigned char)(v >> (8 * b));
    }
    return buf;
}

ls_status ls_cuda_check_output(const ls_plan *plan, ls_input_source in, const void *out,
                               int64_t *checked, double *max_bound_ratio, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const unsigned char *o = out;
    int eb = ls_elem_type_bits(p->acc_type) / 8;
    int64_t n = 1;
    for (int j = 0; j < p->out_map_n; j++)
        n *= p->size[p->out_map[j]];
    *checked = 0;
    *max_bound_ratio = 0;
    for (int64_t lin = 0; lin < n; lin++) {
        /* output operand coordinates -> loop coordinates -> parallel dims in order */
        int64_t x[LS_MAX_RANK] = {0}, rem = lin, outc[LS_MAX_RANK];
        for (int j = p->out_map_n - 1; j >= 0; j--) {
            x[p->out_map[j]] = rem % p->size[p->out_map[j]];
            rem /= p->size[p->out_map[j]];
        }
        int no = 0;
        for (int i = 0; i < p->rank; i++)
            if (!p->is_reduction[i])
                outc[no++] = x[i];
        ls_value v = 0, ref;
        for (int b = 0; b < eb; b++)
            v |= (ls_value)o[lin * eb + b] << (8 * b);
        double bound;
        ls_reference_output(p, in, outc, &ref, &bound);
        if (!ls_value_check(p->acc_type, v, ref, bound, max_bound_ratio)) {
            char where[160], sv[48], sr[48];
            size_t u = 0;
            for (int i = 0; i < no && u < sizeof where; i++)
                u += (size_t)snprintf(where + u, sizeof where - u, "%s%lld", i ? ", " : "",
                                      (long long)outc[i]);
            ls_value_format(v, p->acc_type, sv, sizeof sv);
            ls_value_format(ref, p->acc_type, sr, sizeof sr);
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "the generated kernel's output [%s] is %s but the reference "
                               "reduction gives %s (bound %g)",
                               where, sv, sr, bound);
        }
        (*checked)++;
    }
    return LS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One checked run: the output buffer is poisoned first so an element the
 * kernel never writes cannot pass. */
static ls_status run_checked(ls_gpu *g, ls_gpu_kernel *k, const ls_plan *plan, ls_input_source in,
                             const ls_cuda_launch *L, ls_devptr din, ls_devptr dout,
                             ls_measure_result *res, ls_diag *diag)
{
    void *args[] = {&din, &dout};
    ls_status st = ls_gpu_memset(g, dout, 0xa5, (size_t)L->out_bytes, diag);
    if (!st)
        st = ls_gpu_launch(g, k, L->grid, L->block, 0, args, 1, NULL, diag);
    if (st)
        return st;
    void *host = ls_xmalloc((size_t)L->out_bytes + 1);
    st = ls_gpu_download(g, host, dout, (size_t)L->out_bytes, diag);
    if (!st)
        st = ls_cuda_check_output(plan, in, host, &res->outputs_checked, &res->max_bound_ratio,
                                  diag);
    free(host);
    return st;
}

ls_status ls_measure_run(ls_gpu *g, const ls_plan *plan, ls_input_source in,
                         const ls_measure_opts *opts, double copy_gbps, ls_measure_result *res,
                         ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    char *src = NULL;
    ls_cuda_launch L;
    ls_gpu_kernel *k = NULL;
    ls_devptr din = 0, dout = 0;
    double *t = NULL;
    ls_status st = ls_cuda_generate(plan, plan->problem->file, &src, &L, diag);
    if (st)
        return st;
    if ((st = ls_gpu_kernel_load(g, src, L.kernel, 0, &k, diag)))
        goto out;
    ls_gpu_kernel_attrs(g, k, &res->regs_per_thread, &res->static_smem);
    res->occupancy_blocks = ls_gpu_kernel_occupancy(g, k, (int)L.block[0], 0);
    void *host_in = ls_cuda_make_input(plan, in, &L);
    if (!(st = ls_gpu_alloc(g, (size_t)L.in_bytes, &din, diag)) &&
        !(st = ls_gpu_alloc(g, (size_t)L.out_bytes, &dout, diag)))
        st = ls_gpu_upload(g, din, host_in, (size_t)L.in_bytes, diag);
    free(host_in);
    if (st || (st = run_checked(g, k, plan, in, &L, din, dout, res, diag)))
        goto out;
    if (copy_gbps <= 0) {
        /* several times the L2 each way, so the copy streams from DRAM */
        const ls_gpu_info *gi = ls_gpu_get_info(g);
        size_t bytes = (size_t)(gi->l2_bytes > 0 ? gi->l2_bytes : (64 << 20)) * 8;
        if ((st = ls_gpu_copy_bandwidth(g, bytes, 10, &copy_gbps, diag)))
            goto out;
    }
    res->copy_gbps = copy_gbps;
    void *args[] = {&din, &dout};
    for (int i = 0; i < opts->warmup; i++)
        if ((st = ls_gpu_launch(g, k, L.grid, L.block, 0, args, 1, NULL, diag)))
            goto out;
    int runs = opts->runs > 0 ? opts->runs : 1;
    t = ls_xcalloc((size_t)runs, sizeof *t);
    for (int i = 0; i < runs; i++) {
        float ms = 0;
        if (opts->flush_l2 && (st = ls_gpu_flush_l2(g, diag)))
            goto out;
        if ((st = ls_gpu_launch(g, k, L.grid, L.block, 0, args, 1, &ms, diag)))
            goto out;
        t[i] = ms * 1000.0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    res->runs = runs;
    res->min_us = t[0];
    res->max_us = t[runs - 1];
    res->median_us = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    res->gbytes_per_s =
        res->median_us > 0 ? (double)(L.in_bytes + L.out_bytes) / (res->median_us * 1e3) : 0;
    res->copy_fraction = copy_gbps > 0 ? res->gbytes_per_s / copy_gbps : 0;
    /* the timed runs must not have changed the values */
    st = run_checked(g, k, plan, in, &L, din, dout, res, diag);
out:
    free(t);
    ls_gpu_free(g, din);
    ls_gpu_free(g, dout);
    ls_gpu_kernel_free(g, k);
    free(src);
    return st;
}
