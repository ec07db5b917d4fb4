/* test_attention.c: the config IREE gives decode attention
 * (iree_linalg_ext.online_attention / attention with a skinny M, or on a
 * target without MMA intrinsics): setAttentionReductionConfig in
 * LLVMGPU/KernelConfig.cpp, worked out by hand below; the first case is
 * IREE's own CHECK lines (config_vector_distribute_reduction_gfx942.mlir
 * @attention_20x1x64x4096x64).  Also the routing: a non-skinny M on an MMA
 * target is refused by name, and a plain parse names attention as no
 * reduction; and the layouts `explain` gives its two matmuls
 * (attention.h), against IREE's pipeline test's CHECK lines.
 * test_attention_sim.c runs them. */
#include "attention_util.h"
#include "suggest_util.h"

/* IREE's config for the one function of text on a named target. */
static ls_status suggest_ir(const char *text, const char *target, ls_suggestion *s, ls_diag *d)
{
    return suggest_text(text, target, s, d, NULL);
}

static void expect(const ls_suggestion *s, int64_t wg, int64_t sg, const char *lowering,
                   const char *decomposition)
{
    char lc[1024], dc[2048];
    ck_assert(s->attention);
    ck_assert_int_eq(s->workgroup_size, wg);
    ck_assert_int_eq(s->subgroup_size, sg);
    ls_attention_format(s, lc, sizeof lc, dc, sizeof dc);
    ck_assert_str_eq(lc, lowering);
    ck_assert_str_eq(dc, decomposition);
}


/* IREE's CHECK lines, verbatim (config_vector_distribute_reduction_gfx942.mlir). */
static const char *const DECODE_LC =
    "#iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 512, 0], workgroup = [1, 1, 0, 0, "
    "16]}>";
static const char *const DECODE_DC =
    "{pv_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1, 64], "
    "[1, 0, 4, 3]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 4, 3]], thread = [0, 0, 0, 8]}>}, "
    "qk_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1, 64], [1, "
    "0, 3, 4]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 2, 4]], thread = [0, 0, 8, 0]}>}}";

START_TEST(decode_attention_is_irees_config)
{
    char ir[4096];
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x1x64xf16>",
                 "tensor<20x4096x64xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf16>",
                 "tensor<20x1xf16>", "f16");
    ls_suggestion s;
    ls_diag d;
    ck_assert_msg(suggest_ir(ir, "gfx942", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 512, 64, DECODE_LC, DECODE_DC);
    char ti[512];
    ls_suggest_format_translation(&s, ti, sizeof ti);
    ck_assert_msg(strstr(ti, "workgroup_size = [512, 1, 1] subgroup_size = 64") &&
                      strstr(ti, "iree_codegen.denormal_fp_math_f32 = "
                                 "#iree_codegen.denormal_fp_math<\"preserve-sign\">"),
                  "%s", ti);
    /* attention (one init) is converted to online_attention first: the same config */
    const char *const plain[] = {STD5[0], STD5[1], STD5[2], STD5[3], STD5[4]};
    attention_ir(ir, sizeof ir, false, DIMS5, plain, 5, "tensor<20x1x64xf16>",
                 "tensor<20x4096x64xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf16>",
                 NULL, "f16");
    ck_assert_msg(suggest_ir(ir, "gfx942", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 512, 64, DECODE_LC, DECODE_DC);
}
END_TEST

/* No M dim and f8 (IREE's @attention_20x64x4096x64_f8, whose CHECK lines
 * pin only the pipeline): d0 B 20, d1 K1 64, d2 K2 4096, d3 N 64.
 * 128/8 = 16-element vectors: K1 4 vectors, 1 tile -> 1 lane on K1, 64 on
 * K2.  qk: d2 -> slot 3 (64 lanes), d1 -> 2, d3 -> 1, d0 -> 0; pv: d3 -> 2,
 * d1 -> 1, d0 -> 0.  Subgroups: gcd(8, 4096/64) = 8 on d2 (slot 3), d3 -> 2,
 * d1 -> 1, d0 -> 0.  workgroup N = 1 x 2 x 16 = 32; partial K2 = 64 x 8. */
START_TEST(attention_without_m_dim)
{
    const char *const maps[] = {"(d0, d1)", "(d0, d2, d1)", "(d0, d2, d3)", "()",
                                "(d0, d3)", "(d0)",         "(d0)"};
    char ir[4096];
    attention_ir(ir, sizeof ir, true, "d0, d1, d2, d3", maps, 7, "tensor<20x64xf8E4M3FNUZ>",
                 "tensor<20x4096x64xf8E4M3FNUZ>", "tensor<20x4096x64xf8E4M3FNUZ>", NULL,
                 "tensor<20x64xf32>", "tensor<20xf32>", "f8E4M3FNUZ");
    ls_suggestion s;
    ls_diag d;
    ck_assert_msg(suggest_ir(ir, "gfx942", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 512, 64,
           "#iree_gpu.lowering_config<{partial_reduction = [0, 0, 512, 0], workgroup = [1, 0, 0, "
           "32]}>",
           "{pv_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], "
           "[0, 3, 2]], subgroup_basis = [[1, 1, 1, 8], [0, 3, 2]], thread = [0, 0, 16]}>}, "
           "qk_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], "
           "[0, 2, 3]], subgroup_basis = [[1, 1, 1, 8], [0, 1, 3]], thread = [0, 16, 0]}>}}");
}
END_TEST

/* Paged KV with a mask (the maps of IREE's @attention_4xDx1x32x128xf16 in
 * pipeline_vector_distribute_reduction_gfx942.mlir): B {d0, d1}, M {d2},
 * K1 {d4} 128, K2 {d5 dynamic, d6 32}, N {d3} 128.  K1: 16 vectors, 2
 * tiles -> 2 lanes on K1, 32 on K2.  qk: d6 -> slot 6 takes gcd(32, 32) =
 * 32, d5 (dynamic) -> slot 5 takes what is left (1); K1 d4 -> slot 4 (2);
 * N d3 -> 3; B d1 -> 2, d0 -> 1; M d2 -> 0.  pv from the K2 split: N d3 ->
 * slot 4 (gcd(2, 16) = 2), K1 d4 -> 3, then B, M as qk.  Subgroups: d6 has
 * 1 left (gcd 1), the dynamic d5 takes all 8.  workgroup N = 2 x 2 x 8. */
START_TEST(paged_attention_dynamic_k2)
{
    const char *const maps[] = {"(d0, d1, d2, d4)",     "(d0, d5, d1, d6, d4)",
                                "(d0, d5, d1, d6, d3)", "()",
                                "(d0, d1, d2, d5, d6)", "(d0, d1, d2, d3)",
                                "(d0, d1, d2)",         "(d0, d1, d2)"};
    char ir[8192];
    attention_ir(ir, sizeof ir, true, "d0, d1, d2, d3, d4, d5, d6", maps, 8,
                 "tensor<4x1x1x128xf16>", "tensor<4x?x1x32x128xf16>", "tensor<4x?x1x32x128xf16>",
                 "tensor<4x1x1x?x32xf16>", "tensor<4x1x1x128xf32>", "tensor<4x1x1xf32>", "f16");
    ls_suggestion s;
    ls_diag d;
    ck_assert_msg(suggest_ir(ir, "gfx942", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 512, 64,
           "#iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 0, 0, 8, 32], workgroup = [1, "
           "1, 1, 32, 0, 0, 0]}>",
           "{pv_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1, "
           "2, 1, 32], [1, 2, 0, 4, 5, 6]], subgroup_basis = [[1, 1, 1, 1, 1, 8, 1], [0, 1, 2, 4, "
           "5, 6]], thread = [0, 0, 0, 8, 0, 0]}>}, qk_attrs = {lowering_config = "
           "#iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1, 2, 1, 32], [1, 2, 0, 4, 5, 6]], "
           "subgroup_basis = [[1, 1, 1, 1, 1, 8, 1], [0, 1, 2, 3, 5, 6]], thread = [0, 0, 0, 8, "
           "0, 0]}>}}");
}
END_TEST

/* M = 64: gfx942 has MMA intrinsics, so IREE tries its MMA schedule
 * (refused by name); sm_60 (Pascal) and gfx1030 (RDNA2) have none, so the
 * reduction config decides.  sm_60: 32 lanes on K2 (slot 4), subgroups
 * gcd(8, 4096/32) = 8 -> partial 256, 256 threads; gfx1030 prefers wave32
 * too. */
START_TEST(mma_routing)
{
    char ir[4096];
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x64x64xf16>",
                 "tensor<20x4096x64xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x64x64xf16>",
                 "tensor<20x64xf16>", "f16");
    ls_suggestion s;
    ls_diag d;
    ck_assert(suggest_ir(ir, "gfx942", &s, &d) == LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "MMA schedule") && strstr(d.msg, "does not model"), "%s", d.msg);
    const char *lc = "#iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 256, 0], "
                     "workgroup = [1, 1, 0, 0, 16]}>";
    const char *dc =
        "{pv_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1, "
        "32], [1, 0, 4, 3]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 4, 3]], thread = [0, 0, 0, "
        "8]}>}, qk_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, "
        "1, 32], [1, 0, 3, 4]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 2, 4]], thread = [0, "
        "0, 8, 0]}>}}";
    ck_assert_msg(suggest_ir(ir, "sm_60", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 256, 32, lc, dc);
    ck_assert_msg(suggest_ir(ir, "gfx1030", &s, &d) == LS_OK, "%s", d.msg);
    expect(&s, 256, 32, lc, dc);
    /* a dynamic innermost K2 makes the MMA route bail out on gfx942 too */
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x64x64xf16>",
                 "tensor<20x?x64xf16>", "tensor<20x?x64xf16>", NULL, "tensor<20x64x64xf16>",
                 "tensor<20x64xf16>", "f16");
    ck_assert_msg(suggest_ir(ir, "gfx942", &s, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(strstr(s.steps[1], "innermost K2 dim d3 is dynamic"), "%s", s.steps[1]);
}
END_TEST

START_TEST(target_mma_lists)
{
    const struct {
        const char *name;
        bool mma;
    } rows[] = {{"sm_60", false},  {"sm_70", true},  {"a100", true},    {"h100", true},
                {"gfx1010", false}, {"gfx1030", false}, {"gfx1100", true}, {"gfx942", true},
                {"mi355x", true}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ls_target t;
        ck_assert(ls_target_lookup(rows[i].name, &t));
        ck_assert_msg(ls_target_has_mma(&t) == rows[i].mma, "%s", rows[i].name);
    }
    /* an #iree_gpu.target says so itself: mma = [] is none */
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    t.mma = -1;
    ck_assert(!ls_target_has_mma(&t));
}
END_TEST

START_TEST(refusals)
{
    char ir[4096];
    ls_suggestion s;
    ls_diag d;
    /* a dynamic K1: IREE's arithmetic on it is not defined */
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x1x?xf16>",
                 "tensor<20x4096x?xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf16>",
                 "tensor<20x1xf16>", "f16");
    ck_assert(suggest_ir(ir, "gfx942", &s, &d) == LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "K1 dim d2 is dynamic"), "%s", d.msg);
    /* a plain parse (no LS_IMPORT_ATTENTION): not a reduction the engine runs, said at the op */
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x1x64xf16>",
                 "tensor<20x4096x64xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf16>",
                 "tensor<20x1xf16>", "f16");
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ck_assert(ls_module_parse(ir, strlen(ir), "t.mlir", m, &d) == LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "is not a reduction, which this command takes: `lanescope sim` times it") && d.line == 3,
                  "%d: %s", d.line, d.msg);
    free(m);
    /* wrong operand counts are a syntax error naming the op */
    const char *bad = "func.func @f(%q: tensor<2x4xf16>, %o: tensor<2x4xf16>) {\n"
                      "  %0:3 = iree_linalg_ext.online_attention {indexing_maps = []} "
                      "ins(%q : tensor<2x4xf16>) outs(%o : tensor<2x4xf16>) {\n  }\n  return\n}\n";
    m = ls_xcalloc(1, sizeof *m);
    ls_diag_clear(&d);
    ck_assert(ls_module_parse(bad, strlen(bad), "t.mlir", m, &d) == LS_ERR_SYNTAX);
    ck_assert_msg(strstr(d.msg, "query, key, value, scale") && d.line == 2, "%s", d.msg);
    free(m);
}
END_TEST

/* ---- layouts (attention.h) ---- */
static void vector_of(const ls_module *m, const ls_attention *a, int k, char *buf, size_t size)
{
    const ls_dop_operand *od = &m->dispatches[0].ops[m->attentions[0].op].operand[k];
    ls_att_vector_type(k == 2 ? &a->pv : &a->qk, od->map, od->map_n, od->elem, buf, size);
}

/* Case #1 (reduction level): the contract's operand vectors and the
 * subgroup_reduce counts are IREE's CHECK lines (vector<...x32xf16>,
 * vector<...x4x32xf16>, CHECK-COUNT-4 after the QK contract, CHECK-COUNT-8
 * after the PV one); V's vector and the replication are derived in
 * docs/attention-lowering.md §6 (lanes l and l + 32 replicate in PV, the
 * 4 subgroups all compute the same QK). */
START_TEST(pipeline_case_layouts)
{
    char ir[8192], buf[256];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    pipeline_ir(ir, sizeof ir, "reduction", true);
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert(!a.partial && !a.suggested);
    ck_assert_int_eq(a.iterations, 32);  /* scf.for 0 to 4096 step 128 (CHECK) */
    ck_assert_int_eq(a.workgroups, 40);  /* 20 batches x 64 / 32 N */
    ck_assert_int_eq(a.workgroup_size, 256);
    vector_of(m, &a, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "vector<1x1x1x1x1x1x1x1x32xf16>");
    vector_of(m, &a, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "vector<1x1x1x1x1x1x1x4x32xf16>");
    vector_of(m, &a, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "vector<1x1x2x1x1x1x1x4x4xf16>");
    bool cross;
    ck_assert_int_eq(ls_att_contract_reduces(&a.qk, &cross), 4);
    ck_assert(!cross);
    ck_assert_int_eq(ls_att_contract_reduces(&a.pv, &cross), 8);
    ck_assert(!cross);
    ck_assert_int_eq(a.qk.subgroups_used, 1);
    ck_assert_int_eq(a.qk.lanes_used, 64);
    ck_assert_int_eq(a.pv.lanes_used, 32);
    ck_assert_int_eq(a.pv.subgroups_used, 4);
    /* K1 lanes sit at stride 32 (cluster(size = 2, stride = 32) in the CHECK) */
    ck_assert_int_eq(a.qk.layout.thread_tile[2], 2);
    ck_assert_int_eq(a.qk.layout.thread_strides[2], 32);
    /* §6: thread (s, l) holds keys 4 (l mod 32) + j, K1 columns 32 floor(l / 32)
     * .. + 31 and output columns 8 s + 4 b + e; thread 100 is (1, 36) */
    int64_t x[64];
    ck_assert_int_eq(ls_att_thread_positions(&a.qk, 100, 64, 3, x, 64), 4);
    ck_assert_int_eq(x[0], 16);
    ck_assert_int_eq(x[3], 19);
    ck_assert_int_eq(ls_att_thread_positions(&a.qk, 100, 64, 2, x, 64), 32);
    ck_assert_int_eq(x[0], 32);
    ck_assert_int_eq(x[31], 63);
    ck_assert_int_eq(ls_att_thread_positions(&a.pv, 100, 64, 3, x, 64), 8);
    ck_assert_int_eq(x[0], 8);
    ck_assert_int_eq(x[7], 15);
    /* case #2 (partial_reduction): QK as before, the PV has no contraction in the loop */
    memset(m, 0, sizeof *m);
    pipeline_ir(ir, sizeof ir, "partial_reduction", true);
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert(a.partial);
    ck_assert_int_eq(ls_att_contract_reduces(&a.qk, &cross), 4);
    ck_assert_int_eq(ls_att_contract_reduces(&a.pv, &cross), 0);
    free(m);
}
END_TEST

/* No config: IREE's (the first test's CHECK lines) laid out.  K1 = 64 is
 * 8 key vectors, 1 tile: 1 lane on K1, 64 on K2, 8 subgroups on K2, so
 * each thread holds K1 whole (batch 8 x element 8) and one key; V's N tile
 * 16 = 2 value vectors of 8 in one thread (docs/attention-lowering.md
 * §6.4). */
START_TEST(default_config_layouts)
{
    char ir[4096], buf[256];
    attention_ir(ir, sizeof ir, true, DIMS5, STD5, 7, "tensor<20x1x64xf16>",
                 "tensor<20x4096x64xf16>", "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf16>",
                 "tensor<20x1xf16>", "f16");
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert(a.suggested && a.partial);
    ck_assert_int_eq(a.iterations, 8);
    ck_assert_int_eq(a.workgroups, 80);
    vector_of(m, &a, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "vector<1x1x8x1x1x1x1x1x8xf16>");
    vector_of(m, &a, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "vector<1x1x2x1x1x1x1x1x8xf16>");
    bool cross;
    ck_assert_int_eq(ls_att_contract_reduces(&a.qk, &cross), 0); /* no lane on K1 */
    ck_assert_int_eq(a.qk.layout.subgroup_tile[3], 8);
    ck_assert_int_eq(a.qk.layout.thread_tile[3], 64);
    free(m);
}
END_TEST

/* A config explain cannot lay out is refused with the reason. */
START_TEST(layout_refusals)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    pipeline_ir(ir, sizeof ir, "reduction", false);
    ck_assert_int_eq(build_attention(ir, "gfx942", m, &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "has a lowering_config but not a decomposition_config"), "%s",
                  d.msg);
    memset(m, 0, sizeof *m);
    pipeline_ir(ir, sizeof ir, "reduction", true);
    char *at = strstr(ir, "reduction = [0, 0, 0, 128, 0]");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "reduction = [0, 0, 1, 128, 0]", 29); /* a K1 tile: never dropped */
    ck_assert_int_eq(build_attention(ir, "gfx942", m, &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "tiles d2 (K1) at the reduction level"), "%s", d.msg);
    memset(m, 0, sizeof *m);
    pipeline_ir(ir, sizeof ir, "reduction", true);
    at = strstr(ir, "thread = [0, 0, 32, 4]");
    memcpy(at, "thread = [0, 0, 32]   ", 22); /* 3 entries for a 4-loop matmul */
    ck_assert_int_eq(build_attention(ir, "gfx942", m, &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "one entry per loop of the QK matmul (4: the op's loops less N)"),
                  "%s", d.msg);
    free(m);
}
END_TEST

static Suite *attention_suite(void)
{
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, decode_attention_is_irees_config);
    tcase_add_test(tc, attention_without_m_dim);
    tcase_add_test(tc, paged_attention_dynamic_k2);
    tcase_add_test(tc, mma_routing);
    tcase_add_test(tc, target_mma_lists);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, pipeline_case_layouts);
    tcase_add_test(tc, default_config_layouts);
    tcase_add_test(tc, layout_refusals);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(attention_suite)
