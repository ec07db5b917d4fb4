/* fuzz_engine.c: libFuzzer target for the plan builder, the timing engine
 * and the functional model.  The input chooses a reduction and a lowering
 * config that is mostly consistent (thread x lanes x subgroups tiles of
 * each reduced dim, lanes filling the subgroup) and sometimes not (one
 * field replaced by a small or zero value, a ragged size): random text
 * rarely gets past validation, these do.  Problems that derive run through
 * fz_simulate, which traps when a value differs from the reference. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/import.h"

static const struct {
    const char *et, *op;
} kinds[] = {{"f32", "arith.addf"},   {"f32", "arith.maximumf"}, {"f16", "arith.addf"},
             {"i32", "arith.addi"},   {"i8", "arith.maxsi"},     {"i32", "arith.xori"},
             {"bf16", "arith.minnumf"}, {"i16", "arith.muli"},   {"f64", "arith.addf"}};

static void list(char *buf, size_t size, size_t *at, const int64_t *v, int n)
{
    *at += (size_t)snprintf(buf + *at, size - *at, "[");
    for (int i = 0; i < n; i++)
        *at += (size_t)snprintf(buf + *at, size - *at, "%s%lld", i ? ", " : "", (long long)v[i]);
    *at += (size_t)snprintf(buf + *at, size - *at, "]");
}

static size_t write_problem(fz_bytes *b, char *ir, size_t size, bool *amd)
{
    int rank = 1 + (int)fz_below(b, 3);
    *amd = fz_byte(b) & 1;
    int64_t sg = *amd && (fz_byte(b) & 1) ? 64 : 32;
    bool red[3] = {false, false, false}, any = false;
    for (int i = 0; i < rank; i++)
        any |= red[i] = fz_byte(b) & 1;
    if (!any)
        red[rank - 1] = true;
    int64_t size_[3], wg[3], part[3], thr[3], lanes[3], sgs[3], map[3];
    int64_t lanes_left = sg;
    for (int i = 0; i < rank; i++) {
        map[i] = i;
        lanes[i] = sgs[i] = 1;
        wg[i] = part[i] = thr[i] = 0;
        if (!red[i]) {
            size_[i] = 1 + fz_byte(b) % 6;
            wg[i] = 1 + fz_byte(b) % 2;
            continue;
        }
        thr[i] = (int64_t)1 << (fz_byte(b) % 4);
        /* the last reduced dim takes the lanes that are left */
        bool last = true;
        for (int j = i + 1; j < rank; j++)
            last &= !red[j];
        lanes[i] = last ? lanes_left : (int64_t)1 << (fz_byte(b) % 3);
        if (lanes[i] > lanes_left)
            lanes[i] = lanes_left;
        lanes_left /= lanes[i];
        sgs[i] = (int64_t)1 << (fz_byte(b) % 3);
        part[i] = thr[i] * lanes[i] * sgs[i] * (1 + fz_byte(b) % 2);
        size_[i] = part[i] * (1 + fz_byte(b) % 3);
    }
    int64_t wgsize = sg;
    for (int i = 0; i < rank; i++)
        wgsize *= sgs[i];
    /* sometimes one field is wrong: the refusal paths must hold too */
    unsigned bend = fz_byte(b);
    if (bend < 40) {
        int64_t *fields[] = {size_, wg, part, thr, lanes, sgs};
        fields[bend % 6][fz_byte(b) % rank] = fz_byte(b) % 5;
    } else if (bend < 60) {
        wgsize = 1 + fz_byte(b) % 256;
    }
    unsigned k = fz_below(b, sizeof kinds / sizeof kinds[0]);
    const char *et = kinds[k].et;
    size_t at = 0;
    at += (size_t)snprintf(ir + at, size - at,
                           "#translation = #iree_codegen.translation_info<pipeline = "
                           "LLVMGPUVectorDistribute workgroup_size = [%lld, 1, 1] subgroup_size "
                           "= %lld>\n#config = #iree_gpu.lowering_config<{workgroup = ",
                           (long long)wgsize, (long long)sg);
    /* the config's lists in order: a key's text, then its values (the
     * bases are [counts, mapping] pairs) */
    const struct {
        const char *before;
        const int64_t *v;
    } fields[] = {{"", wg},          {", partial_reduction = ", part}, {", thread = ", thr},
                  {", lane_basis = [", lanes}, {", ", map},  {"], subgroup_basis = [", sgs},
                  {", ", map}};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        at += (size_t)snprintf(ir + at, size - at, "%s", fields[f].before);
        list(ir, size, &at, fields[f].v, rank);
    }
    at += (size_t)snprintf(ir + at, size - at, "]}>\nfunc.func @f() attributes "
                                               "{translation_info = #translation} {\n");
    char tin[96] = "tensor<", tout[96] = "tensor<", dims[32] = "";
    size_t ti = 7, to = 7, dn = 0;
    for (int i = 0; i < rank; i++) {
        ti += (size_t)snprintf(tin + ti, sizeof tin - ti, "%lldx", (long long)size_[i]);
        if (red[i])
            dn += (size_t)snprintf(dims + dn, sizeof dims - dn, "%s%d", dn ? ", " : "", i);
        else
            to += (size_t)snprintf(tout + to, sizeof tout - to, "%lldx", (long long)size_[i]);
    }
    snprintf(tin + ti, sizeof tin - ti, "%s>", et);
    snprintf(tout + to, sizeof tout - to, "%s>", et);
    at += (size_t)snprintf(ir + at, size - at,
                           "  %%r = linalg.reduce ins(%%a : %s) outs(%%b : %s) dimensions = [%s] "
                           "{lowering_config = #config}\n"
                           "    (%%in: %s, %%o: %s) {\n      %%s = %s %%in, %%o : %s\n"
                           "      linalg.yield %%s : %s\n    }\n  return\n}\n",
                           tin, tout, dims, et, et, kinds[k].op, et, et);
    return at < size ? at : size - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_bytes b = {data, size, 0};
    char ir[4096];
    bool amd;
    size_t len = write_problem(&b, ir, sizeof ir, &amd);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_module_parse(ir, len, "fuzz.mlir", m, &d) == LS_OK && m->n_problems == 1 &&
        ls_derive(&m->problems[0], dv, &d) == LS_OK)
        fz_simulate(&m->problems[0], dv, amd);
    free(dv);
    free(m);
    return 0;
}
