/* test_cuda_attention.c: decode attention through the CUDA generator
 * (src/cuda/codegen_attention.c), without a GPU.
 *  - IREE's default config for a small attention (h100): the kernel
 *    compiles with NVRTC to PTX with an empty log and, emulated on the CPU,
 *    writes every output equal to the simulator's lowered values bit for
 *    bit; its grid, block and per-thread work are the ones derived by hand;
 *  - sabotaged kernels (the read-backs' partials combined in another
 *    order; exp2 correctly rounded instead of IREE's polynomial) fail the
 *    comparison:
 *    it sees the last bit;
 *  - property: random NVIDIA hand configs (bases, thread tiles, partial or
 *    serial K2 level, key and value promoted through workgroup memory)
 *    emulate equal to the simulator, among them reductions
 *    whose subgroups split K2 (the workgroup-memory round, read back by a
 *    shuffle butterfly and by a fold in turn);
 *  - loaded masks (f16, i1, i8), online_attention computed in f16 and bf16,
 *    and IREE's NVVM paged attention (gathered key and value, a mask
 *    computed from linalg.index), equal to the simulator too;
 *  - what the generator refuses, each with its reason. */
#include "attention_util.h"
#include "cuda_util.h"

/* The op of text laid out for target (sm_90 or gfx942), and the engine's
 * view of it on the matching model (h100 or mi300x) into *v (NULL where the
 * view refuses the op). */
static ls_module *load_att(const char *text, const char *target, ls_attention *a, ls_att_view **v)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ck_assert_msg(build_attention(text, target, m, a, &d) == LS_OK, "%s", d.msg);
    ls_hw hw;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load(strcmp(target, "gfx942") == 0 ? "mi300x" : "h100", &hw, &d) == LS_OK);
    ls_diag_clear(&d);
    ls_attention_view(m, &m->attentions[0], a, &hw, v, &d);
    return m;
}

static char *read_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/../tests/data/%s", LS_TEST_EXAMPLES, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    char *buf = ls_xcalloc(1 << 16, 1);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Replace the first `from` in *src by `to` (the source reallocated). */
static void replace(char **src, const char *from, const char *to)
{
    char *at = strstr(*src, from);
    ck_assert_msg(at != NULL, "no '%s' in the source", from);
    size_t head = (size_t)(at - *src), n = strlen(*src) - strlen(from) + strlen(to) + 1;
    char *out = ls_xmalloc(n);
    memcpy(out, *src, head);
    snprintf(out + head, n - head, "%s%s", to, at + strlen(from));
    free(*src);
    *src = out;
}

/* One op through the generator: its module, layout, view, kernel source
 * and launch, and the last emulation's check. */
typedef struct {
    ls_module *m;
    const ls_module_attention *ma;
    ls_attention a;
    ls_att_view *v;
    char *src;
    ls_cuda_att_launch L;
    ls_cuda_att_check chk;
    ls_diag d;
} att_case;

/* text's op laid out for sm_90 with its view (which must accept it) and
 * generated (which must succeed). */
static void att_open(att_case *c, const char *text)
{
    memset(c, 0, sizeof *c);
    c->m = load_att(text, "sm_90", &c->a, &c->v);
    ck_assert_ptr_nonnull(c->v);
    c->ma = &c->m->attentions[0];
    ls_diag_clear(&c->d);
    ck_assert_msg(ls_cuda_generate_attention(c->m, c->ma, &c->a, c->v, "t.mlir", &c->src, &c->L,
                                             &c->d) == LS_OK,
                  "%s", c->d.msg);
}

/* src (the case's own, or a sabotaged copy) emulated on seed's inputs and
 * compared with the simulator. */
static ls_status att_emulate(att_case *c, const char *src, uint64_t seed)
{
    ls_diag_clear(&c->d);
    return ls_cuda_emulate_attention(c->m, c->ma, &c->a, c->v, "t.mlir", src, seed, &c->chk, &c->d);
}

static void att_close(att_case *c)
{
    free(c->src);
    ls_att_view_free(c->v);
    free(c->m);
}

/* @attention_decode_2x1x64x512x64 with IREE's config for h100: workgroup
 * [1, 1, 0, 0, 16], partial_reduction K2 = 256 (8 subgroups of 32 threads,
 * one key slot each), every thread a whole K1 row of 64: grid 2 x 4 = 8,
 * one score of 64 FMAs a step, 2 steps. */
START_TEST(default_config_equals_the_simulator)
{
    char *text = read_data("attention_decode_2x1x64x512x64_f16.mlir");
    att_case c;
    att_open(&c, text);
    ck_assert(c.a.partial);
    ck_assert_int_eq(c.a.iterations, 2);
    const ls_cuda_att_launch L = c.L;
    const char *src = c.src;
    ck_assert_uint_eq(L.grid[0], 8);
    ck_assert_uint_eq(L.block[0], 256);
    ck_assert_int_eq(L.n_outputs, 1);
    ck_assert_int_eq(L.output_elems[0], 2 * 64);
    ck_assert_int_eq(L.output_bytes[0], 2 * 64 * 2);
    ck_assert_int_eq(L.input_bytes[1], 2 * 512 * 64 * 2);
    ck_assert_int_eq(L.smem_bytes, 256 / 32 * 16 * 4); /* the merge's round: 8 partials x 16 */
    ck_assert_int_eq(count(src, "ls_fma(qs["), 64);
    /* the key row's 64 f16 as IREE reads them and the engine times them:
     * 8 vector loads of 16 bytes a step (the layout's element tile of 8
     * along K1), element 63 the last one's 7 */
    ck_assert_int_eq(count(src, "= *(const ls_v1_t *)(in1 + ab1 + "), 8);
    ck_assert_ptr_nonnull(strstr(src, "typedef struct __align__(16) { ls_in1_t e[8]; } ls_v1_t;"));
    ck_assert_ptr_nonnull(strstr(src, "qs[63], __half2float(kv1_7.e[7])"));
    ck_assert_ptr_null(strstr(src, "in1[ab1 + "));
    ck_assert(strstr(src, "qs[63]") < strstr(src, "qs[0], __half2float")); /* last first */
    ck_assert_int_eq(count(src, "__syncthreads()"), 6); /* three merge rounds, two each */
    char *ptx = ptx_of(src, "default attention");
    if (ptx) {
        ck_assert_int_eq(count(ptx, "bar.sync"), 6);
        ck_assert_int_eq(count(ptx, "redux.sync"), 0);
        /* the running max as IREE computes it on sm_90: max.NaN.f32, not
         * the exact code's NaN tests (the emulation keeps those) */
        ck_assert_int_gt(count(ptx, "max.NaN.f32"), 0);
        ck_assert_int_ge(count(ptx, "ld.global.nc.v4.u32"), 8); /* the key's 16-byte loads */
        ck_assert_int_eq(count(ptx, "setp.nan"), 0);
        free(ptx);
    }
    ck_assert_msg(att_emulate(&c, src, 5) == LS_OK, "%s", c.d.msg);
    ck_assert_int_eq(c.chk.outputs, 128);
    ck_assert_int_eq(c.chk.sim_equal, 128);
    ck_assert_int_eq(c.chk.workgroups, 8);
    att_close(&c);
    free(text);
}
END_TEST

/* Property: random NVIDIA hand configs, as test_attention_sim's
 * random_configs builds them (the PV keeps the QK's basis entries for B, M
 * and K2).  Each one the values run accepts generates, emulates and equals
 * the simulator's lowered acc, max and sum bit for bit. */
START_TEST(random_configs_equal_the_simulator)
{
    uint64_t x = 0x2545f4914f6cdd1dull;
    int emulated = 0, serial = 0, promoted = 0;
    for (int it = 0; it < 60 && emulated < 14; it++) {
        int64_t sg;
        bool partial, promote;
        char ir[4096];
        random_att_ir(&x, 32, 3, ir, sizeof ir, &sg, &partial, &promote);
        ls_attention a;
        ls_att_view *v = NULL;
        ls_module *m = load_att(ir, "sm_90", &a, &v);
        ls_diag d;
        ls_diag_clear(&d);
        if (!v || ls_attention_values_check(m, &m->attentions[0], &a, &d) != LS_OK) {
            ls_att_view_free(v);
            free(m);
            continue;
        }
        char *src = NULL;
        ls_cuda_att_launch L;
        ck_assert_msg(ls_cuda_generate_attention(m, &m->attentions[0], &a, v, "t.mlir", &src, &L,
                                                 &d) == LS_OK,
                      "%d: %s", it, d.msg);
        ls_cuda_att_check chk;
        ck_assert_msg(ls_cuda_emulate_attention(m, &m->attentions[0], &a, v, "t.mlir", src,
                                                (uint64_t)it, &chk, &d) == LS_OK,
                      "%d: %s\n%s", it, d.msg, ir);
        ck_assert_int_eq(chk.outputs, 2 * 16 + 2 + 2); /* acc 2x1x16, max and sum 2x1 */
        ck_assert_int_eq(chk.sim_equal, chk.outputs);
        emulated++;
        serial += !partial;
        promoted += promote;
        if (promote) /* both copies between two barriers a step, reads from the buffers */
            free(ptx_of(src, "promoted"));
        if (promote)
            ck_assert(strstr(src, "__shared__ ls_in1_t prom1[") &&
                      strstr(src, "__shared__ ls_in2_t prom2[") && strstr(src, "(prom1[pb1 + ") &&
                      strstr(src, "(prom2[pb2 + ") && !strstr(src, "in1[ab1"));
        free(src);
        ls_att_view_free(v);
        free(m);
    }
    ck_assert_int_ge(emulated, 10);
    ck_assert_int_ge(serial, 2);
    ck_assert_int_ge(promoted, 2);
}
END_TEST

/* att_ir's dispatch (malloc'd) with nsg subgroups of 32: the basis
 * counts sgc and lc over the five entries, QK's loops on entries 0..3, PV's
 * on 0, 1, 3, 4; thread tiles tk1 (K1), tk2 (K2), tn (N). */
static char *config_ir(const int64_t *sgc, const int64_t *lc, int64_t nsg, int64_t tk1, int64_t tk2,
                       int64_t tn, const char *level)
{
    int m4[4] = {0, 1, 2, 3}, p4[4] = {0, 1, 3, 4};
    char qk[512], pv[512], ir[4096];
    part_config(qk, sizeof qk, sgc, m4, lc, m4, tk1, tk2, false);
    part_config(pv, sizeof pv, sgc, p4, lc, p4, tk2, tn, false);
    att_ir(ir, sizeof ir, 32 * nsg, 32, 8, level, qk, pv);
    return strdup(ir);
}

/* The config most tests below share: 4 subgroups split K2 (4 lanes x 2
 * elements each), 8 lanes on K1 (4 elements each), N 8 elements a thread. */
static char *tree_ir(const char *level)
{
    static const int64_t sgc[5] = {1, 1, 1, 4, 1}, lc[5] = {1, 1, 8, 4, 1};
    return config_ir(sgc, lc, 4, 4, 2, 8, level);
}

/* One config emulated against the simulator: its kernel's source. */
static char *emulate_config(const int64_t *sgc, const int64_t *lc, int64_t nsg, int64_t tk1,
                            int64_t tk2, int64_t tn, const char *level, bool both_batches)
{
    char *text = config_ir(sgc, lc, nsg, tk1, tk2, tn, level);
    if (both_batches) /* a workgroup holds both rows: the buffer has a row each */
        replace(&text, "workgroup = [1, 1, 0, 0, 8]", "workgroup = [2, 1, 0, 0, 8]");
    att_case c;
    att_open(&c, text);
    free(text);
    ck_assert_int_eq(c.a.workgroups, both_batches ? 2 : 4);
    free(ptx_of(c.src, level)); /* NVRTC's log empty, where it is installed */
    ck_assert_msg(att_emulate(&c, c.src, 3) == LS_OK, "%s: %s", level, c.d.msg);
    ck_assert_int_eq(c.chk.sim_equal, 2 * 16 + 2 + 2);
    char *src = c.src;
    c.src = NULL;
    att_close(&c);
    return src;
}

/* Four subgroups split K2's 32 keys a step.  With all 32 lanes on K1 (K2:
 * 4 subgroups x 8 elements) no lane dim of K2 can hold the 4 partials, so
 * the read-back folds them in turn (src/plan.c's rule); with 4 lanes on K2
 * (4 subgroups x 4 lanes x 2 elements) a butterfly over them does, which
 * the kernel computes as the butterfly's tree; and the same with both
 * batches in one workgroup (two rows of partials in the buffer). */
START_TEST(subgroups_split_k2)
{
    static const char *const levels[2] = {"partial_reduction", "reduction"};
    for (int l = 0; l < 2; l++) {
        int64_t sgc[5] = {1, 1, 1, 4, 1}, lc_fold[5] = {1, 1, 32, 1, 1};
        char *src = emulate_config(sgc, lc_fold, 4, 1, 8, 8, levels[l], false);
        ck_assert_ptr_nonnull(strstr(src, "folded in turn"));
        ck_assert_ptr_null(strstr(src, "reduced across the lanes"));
        ck_assert_ptr_null(strstr(src, "const int rj"));
        free(src);
        int64_t lc_tree[5] = {1, 1, 8, 4, 1};
        src = emulate_config(sgc, lc_tree, 4, 4, 2, 8, levels[l], false);
        ck_assert_ptr_nonnull(strstr(src, "reduced across the lanes"));
        /* lane l reads slot l % 4, a cluster(size = 4) butterfly combines them */
        ck_assert_ptr_nonnull(strstr(src, "const int rj = lane / 1 % 4;"));
        ck_assert_ptr_nonnull(strstr(src, "cluster(size = 4, stride = 1)"));
        free(src);
        src = emulate_config(sgc, lc_tree, 4, 4, 2, 8, levels[l], true);
        ck_assert_ptr_nonnull(strstr(src, "(bs0 + 1) * 1"));
        free(src);
    }
}
END_TEST

/* Sabotaged kernels of an online_attention with f32 results: the
 * read-backs' partials combined in another order than the butterfly's, exp2 correctly
 * rounded instead of IREE's polynomial.  Both stay within a rounding
 * bound; the comparison sees the bits.  (The generator's inputs, multiples
 * of 1/64, make the scores' short sums exact, so their order cannot show.) */
START_TEST(sabotage_is_caught)
{
    char *ir = tree_ir("partial_reduction");
    att_case c;
    att_open(&c, ir);
    free(ir);
    const char *src = c.src;
    ck_assert_msg(att_emulate(&c, src, 9) == LS_OK, "%s", c.d.msg);
    ck_assert_int_eq(c.chk.sim_equal, 36);
    /* the merge's sum read back as ((p0 + p2) + (p1 + p3)), not the
     * butterfly's ((p0 + p1) + (p2 + p3)): lanes read slots 1 and 2 swapped */
    char *bad = strdup(src);
    int swapped = 0;
    while (strstr(bad, " + rj]")) {
        replace(&bad, " + rj]", " + ((rj & 1) << 1 | rj >> 1)]");
        swapped++;
    }
    ck_assert_int_ge(swapped, 2); /* the max's and the sum's read-backs */
    ck_assert_ptr_nonnull(strstr(bad, "const int rj = lane / 1 % 4;"));
    ck_assert_int_eq(att_emulate(&c, bad, 9), LS_ERR_INVALID);
    ck_assert_msg(strstr(c.d.msg, " element ") && strstr(c.d.msg, "the simulator's lowered value"),
                  "%s", c.d.msg);
    free(bad);
    bad = strdup(src);
    replace(&bad, "{ return ls_rt(ls_mlir_exp(ls_mul(x, ", "{ return exp2f(x) + 0.0f * ((");
    ck_assert_int_eq(att_emulate(&c, bad, 9), LS_ERR_INVALID);
    free(bad);
    att_close(&c);
}
END_TEST

/* A loaded mask over (B, M, K2): f16 (S += mask * log2e), i1 and i8 (S +=
 * 0 or -inf; half the keys masked), each emulated equal to the simulator,
 * the i1 uploaded a byte an element; a kernel that reads every mask
 * element from the first row fails. */
START_TEST(loaded_masks)
{
    static const char *const types[] = {"f16", "i1", "i8"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char mt[64], ins[160];
        char *t = tree_ir(i == 1 ? "reduction" : "partial_reduction");
        snprintf(mt, sizeof mt, "tensor<2x1x128x%s>", types[i]);
        snprintf(ins, sizeof ins, "%%m: %s, %%o:", mt);
        replace(&t, "%o:", ins);
        replace(&t, "-> ()>, ", "-> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, ");
        replace(&t, "%s : tensor", "%s, %m : tensor");
        snprintf(ins, sizeof ins, "f16, %s) outs", mt);
        replace(&t, "f16) outs", ins);
        att_case c;
        att_open(&c, t);
        ck_assert(c.a.has_mask);
        ck_assert_int_eq(c.L.n_inputs, 4);
        ck_assert_int_eq(c.L.operand[3], 4);
        ck_assert_int_eq(c.L.input_bytes[3], 2 * 128 * (i == 0 ? 2 : 1));
        free(ptx_of(c.src, types[i]));
        ck_assert_msg(att_emulate(&c, c.src, 2) == LS_OK, "%s: %s", types[i], c.d.msg);
        ck_assert_int_eq(c.chk.sim_equal, 36);
        /* every mask element read from the workgroup's first row */
        char *bad = strdup(c.src);
        while (strstr(bad, "in4[ab4 + "))
            replace(&bad, "in4[ab4 + ", "in4[0 * ab4 + ");
        ck_assert_int_eq(att_emulate(&c, bad, 2), LS_ERR_INVALID);
        free(bad);
        free(t);
        att_close(&c);
    }
}
END_TEST

/* An online_attention whose acc, max and sum are f16 or bf16: the
 * softmax in that type, every op rounded once to it (the kernel rounds the
 * same exact value the simulator does), serial and partial, with the
 * subgroups splitting K2; each equal to the simulator bit for bit, and a
 * kernel whose sum skips the rounding fails. */
START_TEST(narrow_work_types)
{
    static const char *const types[] = {"f16", "bf16"};
    for (int i = 0; i < 4; i++) {
        char o[64], r[64];
        char *t = tree_ir(i < 2 ? "partial_reduction" : "reduction");
        snprintf(o, sizeof o, "tensor<2x1x16x%s>", types[i % 2]);
        snprintf(r, sizeof r, "tensor<2x1x%s>", types[i % 2]);
        while (strstr(t, "tensor<2x1x16xf32>"))
            replace(&t, "tensor<2x1x16xf32>", o);
        while (strstr(t, "tensor<2x1xf32>"))
            replace(&t, "tensor<2x1xf32>", r);
        att_case c;
        att_open(&c, t);
        ck_assert_int_eq(c.L.output_bytes[0], 2 * 16 * 2);
        ck_assert_ptr_nonnull(strstr(c.src, "ls_d2f_odd((double)a + (double)b)"));
        free(ptx_of(c.src, types[i % 2]));
        ck_assert_msg(att_emulate(&c, c.src, 4) == LS_OK, "%s: %s", types[i % 2], c.d.msg);
        ck_assert_int_eq(c.chk.sim_equal, 36);
        char *bad = strdup(c.src);
        replace(&bad, "ls_add(float a, float b) { return ls_rt(",
                "ls_add(float a, float b) { return (0, ");
        ck_assert_int_eq(att_emulate(&c, bad, 4), LS_ERR_INVALID);
        free(bad);
        free(t);
        att_close(&c);
    }
}
END_TEST

/* IREE's NVVM paged attention dispatch (tests/data/paged_attention_nv.mlir:
 * its configs, static sizes): the key and value gathered from one KV cache
 * through their page tables (i64), the causal mask a linalg.generic
 * computes from linalg.index.  The cache is uploaded once and passed for
 * both; each page table is its own; the mask is the device function
 * ls_mask.  Every acc element equals the simulator's; the value read
 * through the key's page table fails. */
START_TEST(paged_attention)
{
    char *text = read_data("paged_attention_nv.mlir");
    att_case c;
    att_open(&c, text);
    const ls_cuda_att_launch L = c.L;
    const char *src = c.src;
    ck_assert_int_eq(L.n_inputs, 5); /* query, the cache twice, two page tables */
    ck_assert_int_eq(L.role[1], LS_ATT_IN_SOURCE);
    ck_assert_int_eq(L.alias[2], 1);
    ck_assert_int_eq(L.role[3], LS_ATT_IN_INDICES);
    ck_assert_int_eq(L.alias[4], -1);
    ck_assert_int_eq(L.input_elems[1], 64 * 32 * 128);
    ck_assert_int_eq(L.input_elems[3], 4 * 8);
    /* the query, the cache once, the two tables */
    ck_assert_int_eq(L.in_bytes, 4 * 128 * 2 + 64 * 32 * 128 * 2 + 2 * 4 * 8 * 8);
    ck_assert_ptr_nonnull(strstr(src, "ls_mask(ls_idx_t x0"));
    ck_assert_ptr_nonnull(strstr(src, "ix2[gb2 + "));
    free(ptx_of(src, "paged"));
    ck_assert_msg(att_emulate(&c, src, 6) == LS_OK, "%s", c.d.msg);
    ck_assert_int_eq(c.chk.sim_equal, 4 * 128);
    char *bad = strdup(src);
    while (strstr(bad, "ix2[gb2 + "))
        replace(&bad, "ix2[gb2 + ", "ix1[gb2 + ");
    ck_assert_int_eq(att_emulate(&c, bad, 6), LS_ERR_INVALID);
    free(bad);
    att_close(&c);
    free(text);
}
END_TEST

/* What the generator refuses, and why. */
START_TEST(refusals)
{
    static const struct {
        const char *target, *o_type, *r_type, *needle;
        bool promote;
    } cases[] = {
        {"gfx942", "tensor<2x1x16xf32>", "tensor<2x1xf32>", "32 lanes", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char qk[512], pv[512], ir[4096];
        int64_t lc[5] = {1, 1, 2, 16, 1}, sgc[5] = {1, 1, 1, 1, 1};
        int64_t sg = strcmp(cases[i].target, "gfx942") == 0 ? 64 : 32;
        if (sg == 64)
            lc[3] = 32;
        int m4[4] = {0, 1, 2, 3}, p4[4] = {0, 1, 3, 4};
        part_config(qk, sizeof qk, sgc, m4, lc, m4, 16, 2, cases[i].promote);
        part_config(pv, sizeof pv, sgc, p4, lc, p4, 2, 1, cases[i].promote);
        att_ir(ir, sizeof ir, sg, sg, 8, "partial_reduction", qk, pv);
        char *t = strdup(ir);
        while (strcmp(cases[i].o_type, "tensor<2x1x16xf32>") != 0 &&
               strstr(t, "tensor<2x1x16xf32>"))
            replace(&t, "tensor<2x1x16xf32>", cases[i].o_type);
        while (strcmp(cases[i].r_type, "tensor<2x1xf32>") != 0 && strstr(t, "tensor<2x1xf32>"))
            replace(&t, "tensor<2x1xf32>", cases[i].r_type);
        ls_attention a;
        ls_att_view *v = NULL;
        ls_module *m = load_att(t, cases[i].target, &a, &v);
        char *src = NULL;
        ls_cuda_att_launch L;
        ls_diag d;
        ls_diag_clear(&d);
        ck_assert_int_eq(
            ls_cuda_generate_attention(m, &m->attentions[0], &a, v, "t.mlir", &src, &L, &d),
            LS_ERR_INVALID);
        ck_assert_msg(strstr(d.msg, "the CUDA generator cannot express it") &&
                          strstr(d.msg, cases[i].needle),
                      "%zu: %s", i, d.msg);
        ck_assert_ptr_null(src);
        free(t);
        ls_att_view_free(v);
        free(m);
    }
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_attention");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, default_config_equals_the_simulator);
    tcase_add_test(tc, random_configs_equal_the_simulator);
    tcase_add_test(tc, subgroups_split_k2);
    tcase_add_test(tc, sabotage_is_caught);
    tcase_add_test(tc, loaded_masks);
    tcase_add_test(tc, narrow_work_types);
    tcase_add_test(tc, paged_attention);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(make_suite)
