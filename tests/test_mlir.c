/* test_mlir.c: the lexer, the attribute parser and the typed attribute views. */
#include "lanescope/swizzle.h"
#include "testutil.h"

static ls_attr *parse(ls_arena *a, const char *text, ls_diag *d)
{
    ls_diag_clear(d);
    return ls_parse_attr_string(text, strlen(text), "t.mlir", a, NULL, d);
}

START_TEST(lexer_positions)
{
    ls_diag d;
    ls_diag_clear(&d);
    const char *src = "#a = [1,\n  -> %x ^bb0 @sym !t \"s\\\"q\" 0x1F 2.5e3 // comment\n}";
    ls_lexer lx;
    ls_lexer_init(&lx, src, strlen(src), "f", &d);
    ls_tok_kind want[] = {LS_TOK_HASH,    LS_TOK_PUNCT, LS_TOK_PUNCT, LS_TOK_INT,
                          LS_TOK_PUNCT,   LS_TOK_ARROW, LS_TOK_PERCENT, LS_TOK_CARET,
                          LS_TOK_AT,      LS_TOK_BANG,  LS_TOK_STRING, LS_TOK_INT,
                          LS_TOK_FLOAT,   LS_TOK_PUNCT, LS_TOK_EOF};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ls_lex_next(&lx);
        ck_assert_int_eq(lx.tok.kind, want[i]);
        if (i == 5) { /* -> on line 2, column 3 */
            ck_assert_int_eq(lx.tok.line, 2);
            ck_assert_int_eq(lx.tok.col, 3);
        }
        if (i == 10)
            ck_assert_int_eq((int)lx.tok.len, 4); /* s\"q without the quotes */
    }
    ck_assert_int_eq(d.status, LS_OK);
}
END_TEST

START_TEST(lowering_config_values)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_attr *at = parse(&a,
                        "#iree_gpu.lowering_config<{lane_basis = [[16, 4], [1, 0]], "
                        "partial_reduction = [0, 32], subgroup_basis = [[1, 2], [0, 1]], "
                        "thread = [0, 1], workgroup = [16, 0], reduction = [0, 4], "
                        "expand_dims = #iree_codegen.reassociations<[[0], [1]]>}>",
                        &d);
    ck_assert_ptr_nonnull(at);
    ls_lowering_config c;
    ck_assert_int_eq(ls_lowering_config_from_attr(at, "t.mlir", &c, &d), LS_OK);
    ck_assert_int_eq(c.workgroup.n, 2);
    ck_assert_int_eq(c.workgroup.v[0], 16);
    ck_assert_int_eq(c.partial_reduction.v[1], 32);
    ck_assert_int_eq(c.thread.v[1], 1);
    ck_assert_int_eq(c.lane_basis.counts.v[0], 16);
    ck_assert_int_eq(c.lane_basis.counts.v[1], 4);
    ck_assert_int_eq(c.lane_basis.mapping.v[0], 1);
    ck_assert_int_eq(c.subgroup_basis.counts.v[1], 2);
    ck_assert_int_eq(c.n_ignored, 1);
    ck_assert_str_eq(c.ignored[0], "expand_dims");
    ck_assert(c.reduction.present);
    ck_assert_int_eq(c.reduction.v[1], 4);
    char buf[512];
    ls_lowering_config_format(&c, buf, sizeof buf);
    ck_assert_str_eq(buf, "#iree_gpu.lowering_config<{workgroup = [16, 0], thread = [0, 1], "
                          "partial_reduction = [0, 32], reduction = [0, 4], "
                          "lane_basis = [[16, 4], [1, 0]], "
                          "subgroup_basis = [[1, 2], [0, 1]]}>");
    ls_arena_fini(&a);
}
END_TEST

START_TEST(translation_info_spellings)
{
    static const char *texts[] = {
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = "
        "[128, 1, 1] subgroup_size = 64, {gpu_pipeline_options = "
        "#iree_gpu.pipeline_options<prefetch_num_stages = 0>}>",
        "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> "
        "workgroup_size = [128, 1, 1] subgroup_size = 64>",
        "#iree_codegen.translation_info<LLVMGPUVectorDistribute workgroup_size = [128, 1, 1] "
        "subgroup_size = 64>",
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute, workgroup_size = "
        "[128, 1, 1], subgroup_size = 64>",
    };
    /* IREE's older LLVMGPU prefix dropped: every spelling is one pipeline */
    static const char *pipes[] = {"VectorDistribute", "VectorDistribute", "VectorDistribute",
                                  "VectorDistribute"};
    for (int i = 0; i < 4; i++) {
        ls_arena a;
        ls_arena_init(&a);
        ls_diag d;
        ls_attr *at = parse(&a, texts[i], &d);
        ck_assert_msg(at != NULL, "%s", d.msg);
        ls_translation_info ti;
        ck_assert_int_eq(ls_translation_info_from_attr(at, "t", &ti, &d), LS_OK);
        ck_assert_str_eq(ti.pipeline, pipes[i]);
        ck_assert_int_eq(ti.workgroup_size[0], 128);
        ck_assert_int_eq(ti.workgroup_size[1], 1);
        ck_assert_int_eq(ti.subgroup_size, 64);
        ls_arena_fini(&a);
    }
}
END_TEST

START_TEST(target_fields)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_attr *at = parse(
        &a,
        "#iree_gpu.target<arch = \"gfx1100\", features = \"\", wgp = <compute = fp32|fp16, "
        "storage = b32|b16, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = "
        "[<WMMA_F32_16x16x16_F16>], subgroup_size_choices = [32, 64], max_workgroup_sizes = "
        "[1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes "
        "= 65536, max_workgroup_counts = [2147483647, 2147483647, 2147483647], "
        "max_load_instruction_bits = 128, simds_per_wgp = 4, vgpr_space_bits = 8192>, chip = "
        "<wgp_count = 48, sku = \"rx7900xtx\">>",
        &d);
    ck_assert_msg(at != NULL, "%s", d.msg);
    ls_target t;
    ck_assert_int_eq(ls_target_from_attr(at, "t", &t, &d), LS_OK);
    ck_assert_str_eq(t.arch, "gfx1100");
    ck_assert_str_eq(t.sku, "rx7900xtx");
    ck_assert_int_eq(t.n_subgroup_choices, 2);
    ck_assert_int_eq(t.subgroup_choices[0], 32);
    ck_assert_int_eq(t.subgroup_choices[1], 64);
    ck_assert_int_eq(t.max_workgroup_sizes[2], 1024);
    ck_assert_int_eq(t.max_thread_count, 1024);
    ck_assert_int_eq(t.max_workgroup_memory_bytes, 65536);
    ck_assert_int_eq(t.wgp_count, 48);
    ck_assert_int_eq(t.max_load_instruction_bits, 128);
    ck_assert_int_eq(t.simds_per_wgp, 4);
    ls_arena_fini(&a);

    ls_target k;
    ck_assert(ls_target_lookup("mi300x", &k));
    ck_assert_int_eq(k.wgp_count, 304);
    ck_assert(ls_target_lookup("gfx942", &k));
    ck_assert_int_eq(k.wgp_count, 0); /* bare arch: no chip, the heuristic assumes 512 */
    ck_assert(ls_target_lookup("a100", &k));
    ck_assert_int_eq(k.subgroup_choices[0], 32);
    ck_assert(!ls_target_lookup("gfx9999", &k));
}
END_TEST

START_TEST(values_and_types)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_attr *at = parse(&a,
                        "{a = -9223372036854775808, b = 0x7fffffff, c = 2.5 : f32, d = "
                        "array<i32: 1, -2>, e = tensor<4x?x8xf16>, f = affine_map<(d0, d1)[s0] -> "
                        "(d1, 0, d0 + s0)>, g = dense<[1, 2]> : tensor<2xi32>, h, i = @sym, j = "
                        "true}",
                        &d);
    ck_assert_msg(at != NULL, "%s", d.msg);
    ck_assert_int_eq(ls_attr_get(at, "a")->i, INT64_MIN);
    ck_assert_int_eq(ls_attr_get(at, "b")->i, 0x7fffffff);
    ck_assert(ls_attr_get(at, "c")->f == 2.5);
    ls_attr *arr = ls_attr_get(at, "d");
    ck_assert_int_eq(arr->kind, LS_AV_ARRAY);
    ck_assert_int_eq(arr->items[1]->i, -2);
    ls_type_info *t = ls_attr_get(at, "e")->type;
    ck_assert(t->shaped);
    ck_assert_int_eq(t->rank, 3);
    ck_assert_int_eq(t->dims[1], -1);
    ck_assert_int_eq(t->elem, LS_ET_F16);
    ls_affine_map *m = ls_attr_get(at, "f")->map;
    ck_assert_int_eq(m->num_dims, 2);
    ck_assert_int_eq(m->num_results, 3);
    ck_assert_int_eq(m->results[0].kind, LS_AFF_DIM);
    ck_assert_int_eq(m->results[0].value, 1);
    ck_assert_int_eq(m->results[1].kind, LS_AFF_CONST);
    ck_assert_int_eq(m->results[2].kind, LS_AFF_COMPLEX);
    ck_assert_int_eq(ls_attr_get(at, "g")->kind, LS_AV_OPAQUE);
    ck_assert_int_eq(ls_attr_get(at, "h")->kind, LS_AV_UNIT);
    ck_assert_str_eq(ls_attr_get(at, "i")->s, "sym");
    ck_assert_int_eq(ls_attr_get(at, "j")->i, 1);
    ls_arena_fini(&a);
}
END_TEST

/* Each malformed input gives one message naming the position. */
static const struct {
    const char *text;
    ls_status st;
    int line, col;
    const char *msg;
} bad_inputs[] = {
    {"[1, 2}", LS_ERR_SYNTAX, 1, 6, "expected ',' or ']', found '}'"},
    {"{a = \n  [1, \"x}", LS_ERR_SYNTAX, 2, 7, "unterminated string literal"},
    {"[99999999999999999999]", LS_ERR_LIMIT, 1, 2, "does not fit in 64 bits"},
    {"#nope", LS_ERR_SYNTAX, 1, 1, "undefined attribute alias #nope"},
    {"affine_map<(d0) -> (d7)>", LS_ERR_SYNTAX, 1, 21, "'d7' is not a dimension or symbol"},
    {"#iree_gpu.lowering_config<{thread = [0, 1]", LS_ERR_SYNTAX, 1, 43, "expected ',' or '}'"},
    {"{a = 1} trailing", LS_ERR_SYNTAX, 1, 9, "expected end of input"},
    {"tensor<4x", LS_ERR_SYNTAX, 1, 7, "unterminated '<'"},
    /* a key given twice: MLIR's "duplicate key", never the last one winning */
    {"#iree_gpu.lowering_config<{thread = [0, 1], lane_basis = [[1, 64], [0, 1]], thread = "
     "[0, 4]}>",
     LS_ERR_SYNTAX, 1, 77, "key 'thread' is given twice (first with the value at 1:37)"},
    {"#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute subgroup_size = 64 "
     "subgroup_size = 32>",
     LS_ERR_SYNTAX, 1, 86, "key 'subgroup_size' is given twice (first with the value at 1:83)"},
};

START_TEST(bad_input_messages)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_attr *at = parse(&a, bad_inputs[_i].text, &d);
    ck_assert_ptr_null(at);
    ck_assert_int_eq(d.status, bad_inputs[_i].st);
    ck_assert_int_eq(d.line, bad_inputs[_i].line);
    ck_assert_int_eq(d.col, bad_inputs[_i].col);
    ck_assert_msg(strstr(d.msg, bad_inputs[_i].msg) != NULL, "got '%s'", d.msg);
    char line[1200];
    ls_diag_format(&d, line, sizeof line);
    ck_assert(strncmp(line, "t.mlir:", 7) == 0);
    ck_assert_ptr_null(strchr(line, '\n'));
    ls_arena_fini(&a);
}
END_TEST

START_TEST(nesting_limit)
{
    char text[4096];
    int n = 0;
    for (int i = 0; i < 200; i++)
        text[n++] = '[';
    text[n] = 0;
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ck_assert_ptr_null(parse(&a, text, &d));
    ck_assert_int_eq(d.status, LS_ERR_LIMIT);
    ck_assert(strstr(d.msg, "deeper than 64 levels") != NULL);
    ls_arena_fini(&a);
}
END_TEST

START_TEST(typed_view_errors)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ls_lowering_config c;
    ls_attr *at = parse(&a, "#iree_gpu.lowering_config<{thread = [0, \"x\"]}>", &d);
    ck_assert_int_eq(ls_lowering_config_from_attr(at, "t", &c, &d), LS_ERR_SYNTAX);
    ck_assert_str_eq(d.msg, "expected an integer for 'thread', found a string");
    ck_assert_int_eq(d.col, 41);
    at = parse(&a, "#iree_gpu.lowering_config<{thread = [0, 1, 2, 3, 4, 5, 6, 7, 8]}>", &d);
    ck_assert_int_eq(ls_lowering_config_from_attr(at, "t", &c, &d), LS_ERR_LIMIT);
    ck_assert(strstr(d.msg, "the rank limit is 8") != NULL);
    at = parse(&a, "#iree_gpu.lowering_config<{lane_basis = [[64]]}>", &d);
    ck_assert_int_eq(ls_lowering_config_from_attr(at, "t", &c, &d), LS_ERR_SYNTAX);
    ck_assert(strstr(d.msg, "[[counts], [mapping]]") != NULL);
    ls_swizzle s;
    at = parse(&a, "#iree_codegen.xor_shuffle<16, 5>", &d);
    ck_assert_int_eq(ls_swizzle_from_attr(at, "t", &s, &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "does not divide row_width") != NULL);
    /* each parameter at the limit is read, one past it is refused (a period
     * of 2^62 x 2^62 rows overflowed before) */
    at = parse(&a, "#iree_codegen.xor_shuffle<16777216, 1, 16777216, 16777216>", &d);
    ck_assert_msg(ls_swizzle_from_attr(at, "t", &s, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(ls_swizzle_period_rows(&s), INT64_C(1) << 48);
    at = parse(&a, "#iree_codegen.xor_shuffle<16, 1, 16, 16777217>", &d);
    ck_assert_int_eq(ls_swizzle_from_attr(at, "t", &s, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "per_phase = 16777217 is past lanescope's limit of 16777216"),
                  "%s", d.msg);
    ls_nested_layout l;
    at = parse(&a, "#iree_vector_ext.nested_layout<subgroup_tile = [1], batch_tile = [1], "
                   "outer_tile = [1], thread_tile = [64, 1], element_tile = [1], "
                   "subgroup_strides = [0], thread_strides = [1]>",
               &d);
    ck_assert_int_eq(ls_nested_layout_from_attr(at, "t", &l, &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "'thread_tile' has 2 entries") != NULL);
    /* a subgroup size of 0 or less is refused, not replaced by a default */
    ls_translation_info ti;
    at = parse(&a, "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
                   "workgroup_size = [64, 1, 1] subgroup_size = 0>",
               &d);
    ck_assert_int_eq(ls_translation_info_from_attr(at, "t", &ti, &d), LS_ERR_INVALID);
    ck_assert_str_eq(d.msg, "subgroup_size = 0: expected a positive integer");
    ck_assert_int_eq(d.col, 111);
    ls_arena_fini(&a);
}
END_TEST

/* Mutations of valid text never crash and always end in OK or a positioned error. */
START_TEST(mutation_robustness)
{
    static const char *seed =
        "#iree_gpu.lowering_config<{lane_basis = [[16, 4], [1, 0]], partial_reduction = [0, "
        "32], thread = [0, 1], m = affine_map<(d0, d1) -> (d0 floordiv 2, d1)>, s = \"x\"}>";
    static const char alphabet[] = "[]{}<>()=,:|#%@!\"-0123456789xabd ->\n";
    uint64_t rng = 42;
    size_t len = strlen(seed);
    char buf[512];
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, seed, len);
        size_t n = len;
        int edits = (int)rng_range(&rng, 1, 4);
        for (int e = 0; e < edits; e++) {
            size_t pos = (size_t)rng_range(&rng, 0, (int64_t)n - 1);
            int op = (int)rng_range(&rng, 0, 2);
            if (op == 0)
                buf[pos] = alphabet[rng_range(&rng, 0, (int64_t)sizeof alphabet - 2)];
            else if (op == 1 && n > 1) {
                memmove(buf + pos, buf + pos + 1, n - pos - 1);
                n--;
            } else if (n + 1 < sizeof buf) {
                memmove(buf + pos + 1, buf + pos, n - pos);
                buf[pos] = alphabet[rng_range(&rng, 0, (int64_t)sizeof alphabet - 2)];
                n++;
            }
        }
        ls_arena a;
        ls_arena_init(&a);
        ls_diag d;
        ls_diag_clear(&d);
        ls_attr *at = ls_parse_attr_string(buf, n, "m", &a, NULL, &d);
        if (at == NULL) {
            REQUIRE(d.status != LS_OK, "status");
            REQUIRE(d.line >= 1, "position");
            REQUIRE(d.col >= 1, "position");
            REQUIRE(d.msg[0] != 0, "d.msg[0] != 0");
        }
        ls_arena_fini(&a);
    }
}
END_TEST

/* A dimension past int64 is named as such (it was a "malformed type");
 * INT64_MAX itself is a size, and 17 dimensions is the rank limit. */
START_TEST(shape_dimension_past_int64)
{
    ls_arena a;
    ls_arena_init(&a);
    ls_diag d;
    ck_assert_ptr_null(parse(&a, "[1, tensor<4x99999999999999999999x256xf32>]", &d));
    ck_assert_int_eq(d.status, LS_ERR_LIMIT);
    ck_assert_int_eq(d.line, 1);
    ck_assert_int_eq(d.col, 5);
    ck_assert_str_eq(d.msg, "dimension 1 of type 'tensor<4x99999999999999999999x256xf32>' is "
                            "past int64 (the largest size is 9223372036854775807)");
    ck_assert_ptr_null(parse(&a, "vector<[9223372036854775808]xf32>", &d));
    ck_assert(strstr(d.msg, "dimension 0 of type") != NULL);
    ls_attr *t = parse(&a, "tensor<9223372036854775807xf32>", &d);
    ck_assert_msg(t != NULL, "%s", d.msg);
    ck_assert_int_eq(t->type->dims[0], INT64_MAX);
    ck_assert_ptr_null(parse(&a, "tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>", &d));
    ck_assert_int_eq(d.status, LS_ERR_LIMIT);
    ck_assert(strstr(d.msg, "has more than 16 dimensions (the limit)") != NULL);
    /* an element type spelled with digits is no dimension */
    ck_assert_ptr_null(parse(&a, "tensor<4x99999999999999999999>", &d));
    ck_assert_int_eq(d.status, LS_ERR_SYNTAX);
    ck_assert(strstr(d.msg, "malformed type") != NULL);
    ls_arena_fini(&a);
}
END_TEST

static Suite *mlir_suite(void)
{
    Suite *s = suite_create("mlir");
    TCase *tc = tcase_create("parser");
    tcase_add_test(tc, lexer_positions);
    tcase_add_test(tc, lowering_config_values);
    tcase_add_test(tc, translation_info_spellings);
    tcase_add_test(tc, target_fields);
    tcase_add_test(tc, values_and_types);
    tcase_add_loop_test(tc, bad_input_messages, 0,
                        (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
    tcase_add_test(tc, nesting_limit);
    tcase_add_test(tc, typed_view_errors);
    tcase_add_test(tc, mutation_robustness);
    tcase_add_test(tc, shape_dimension_past_int64);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(mlir_suite)
