/* fuzz_suggest.c: libFuzzer target for IREE's reduction heuristic.  The
 * input chooses a dispatch -- rank, sizes (some dynamic), iterator kinds,
 * element types, a combiner, one input or a multiply-accumulate of two,
 * where the output's dims sit -- written as IR and imported as a user's
 * would be; `suggest` then runs for a built-in target.  A config it gives
 * must be one lanescope accepts: it derives, and small problems run with
 * their values checked against the reference. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/import.h"
#include "lanescope/suggest.h"

static const int64_t sizes[] = {1, 2, 3, 4, 7, 8, 16, 31, 32, 64, 100, 128, 256, 512,
                                1000, 1024, 2048, 4096, 8192, 32000, -1};
static const char *const targets[] = {"gfx942", "gfx950", "gfx1100", "sm_80", "sm_90"};
static const struct {
    const char *in, *acc, *ext, *comb;
} types[] = {
    {"f32", "f32", NULL, "arith.addf"},      {"f32", "f32", NULL, "arith.maxnumf"},
    {"f16", "f32", "arith.extf", "arith.addf"}, {"f16", "f16", NULL, "arith.addf"},
    {"bf16", "f32", "arith.extf", "arith.addf"}, {"i32", "i32", NULL, "arith.addi"},
    {"i8", "i32", "arith.extsi", "arith.addi"}, {"i16", "i16", NULL, "arith.maxsi"},
    {"f64", "f64", NULL, "arith.addf"},      {"i64", "i64", NULL, "arith.xori"},
    {"f32", "f32", NULL, "arith.minimumf"},  {"i32", "i32", NULL, "arith.andi"},
};

/* "tensor<4x?x8xf32>" of the dims listed */
static void tensor_type(char *buf, size_t size, const int64_t *dim, const int *which, int n,
                        const char *et)
{
    size_t at = (size_t)snprintf(buf, size, "tensor<");
    for (int i = 0; i < n; i++) {
        int64_t v = dim[which[i]];
        at += v < 0 ? (size_t)snprintf(buf + at, size - at, "?x")
                    : (size_t)snprintf(buf + at, size - at, "%lldx", (long long)v);
    }
    snprintf(buf + at, size - at, "%s>", et);
}

static void map_text(char *buf, size_t size, int rank, const int *which, int n)
{
    size_t at = (size_t)snprintf(buf, size, "affine_map<(");
    for (int i = 0; i < rank; i++)
        at += (size_t)snprintf(buf + at, size - at, "%sd%d", i ? ", " : "", i);
    at += (size_t)snprintf(buf + at, size - at, ") -> (");
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(buf + at, size - at, "%sd%d", i ? ", " : "", which[i]);
    snprintf(buf + at, size - at, ")>");
}

static size_t write_dispatch(fz_bytes *b, char *ir, size_t size)
{
    int rank = 1 + (int)fz_below(b, 4);
    int64_t dim[4];
    bool red[4], any = false;
    int all[4], out[4], n_out = 0, wdims[4], n_w = 0;
    for (int i = 0; i < rank; i++) {
        dim[i] = sizes[fz_below(b, sizeof sizes / sizeof sizes[0])];
        red[i] = fz_byte(b) & 1;
        any |= red[i];
        all[i] = i;
    }
    if (!any)
        red[rank - 1] = true;
    for (int i = 0; i < rank; i++)
        if (!red[i])
            out[n_out++] = i;
    bool two = fz_byte(b) & 1; /* a contraction: input 1 over the reduced dims and some others */
    for (int i = 0; i < rank; i++)
        if (red[i] || (fz_byte(b) & 1))
            wdims[n_w++] = i;
    unsigned ti = fz_below(b, sizeof types / sizeof types[0]);
    const char *in = types[ti].in, *acc = types[ti].acc;
    bool is_float = in[0] == 'f' || in[0] == 'b';
    char tin[96], tw[96], tout[96], min[160], mw[160], mout[160];
    tensor_type(tin, sizeof tin, dim, all, rank, in);
    tensor_type(tw, sizeof tw, dim, wdims, n_w, in);
    tensor_type(tout, sizeof tout, dim, out, n_out, acc);
    map_text(min, sizeof min, rank, all, rank);
    map_text(mw, sizeof mw, rank, wdims, n_w);
    map_text(mout, sizeof mout, rank, out, n_out);
    size_t at = (size_t)snprintf(ir, size,
                                 "func.func @f(%%a: %s, %%w: %s, %%o: %s) -> %s {\n"
                                 "  %%r = linalg.generic {indexing_maps = [%s, %s%s%s], "
                                 "iterator_types = [",
                                 tin, tw, tout, tout, min, two ? mw : "", two ? ", " : "", mout);
    for (int i = 0; i < rank; i++)
        at += (size_t)snprintf(ir + at, size - at, "%s\"%s\"", i ? ", " : "",
                               red[i] ? "reduction" : "parallel");
    at += (size_t)snprintf(ir + at, size - at, "]} ins(%%a%s : %s%s%s) outs(%%o : %s) {\n",
                           two ? ", %w" : "", tin, two ? ", " : "", two ? tw : "", tout);
    if (two)
        at += (size_t)snprintf(ir + at, size - at, "  ^bb0(%%x: %s, %%y: %s, %%acc: %s):\n", in,
                               in, acc);
    else
        at += (size_t)snprintf(ir + at, size - at, "  ^bb0(%%x: %s, %%acc: %s):\n", in, acc);
    if (two)
        at += (size_t)snprintf(ir + at, size - at, "    %%m = %s %%x, %%y : %s\n",
                               is_float ? "arith.mulf" : "arith.muli", in);
    const char *v = two ? "%m" : "%x";
    if (types[ti].ext) {
        at += (size_t)snprintf(ir + at, size - at, "    %%e = %s %s : %s to %s\n", types[ti].ext,
                               v, in, acc);
        v = "%e";
    }
    at += (size_t)snprintf(ir + at, size - at,
                           "    %%s = %s %s, %%acc : %s\n    linalg.yield %%s : %s\n"
                           "  } -> %s\n  return %%r : %s\n}\n",
                           types[ti].comb, v, acc, acc, tout, tout);
    return at < size ? at : size - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_bytes b = {data, size, 0};
    char *ir = malloc(4096);
    size_t len = write_dispatch(&b, ir, 4096);
    ls_target t;
    ls_target_lookup(targets[fz_below(&b, sizeof targets / sizeof targets[0])], &t);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_module_parse_ex(ir, len, "fuzz.mlir", LS_IMPORT_KEEP_UNSUPPORTED, m, &d) == LS_OK &&
        m->n_dispatches == 1) {
        ls_status st = ls_suggest(&m->dispatches[0], &t, s, &d);
        for (size_t i = 0; i < m->n_problems; i++) {
            ls_problem *p = &m->problems[i];
            p->target = t;
            p->has_target = true;
            if (st == LS_OK && ls_suggest_config_of(s, p->dispatch_op) != NULL)
                ls_suggest_apply(s, p->dispatch_op, p);
            else if (st == LS_ERR_INVALID && s->tile_and_fuse && s->root == p->dispatch_op)
                ls_suggest_apply_tile_and_fuse(s, p);
            else
                continue;
            ls_diag dd;
            ls_diag_clear(&dd);
            if (ls_derive(p, dv, &dd) != LS_OK) {
                fprintf(stderr, "suggested config does not derive: %s\n%s", dd.msg, ir);
                __builtin_trap();
            }
            fz_simulate(p, dv, strncmp(t.arch, "gfx", 3) == 0);
        }
    }
    free(dv);
    free(s);
    free(m);
    free(ir);
    return 0;
}
