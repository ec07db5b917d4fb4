/* test_import_verify.c: IR that MLIR's verifier rejects is an error with
 * the line and column where it goes wrong, never simulated as if it were
 * valid (the findings of tests/adversarial.sh): a truncated file, an SSA
 * redefinition, types that disagree with their operands or declarations, a
 * constant that does not fit its type, a non-ASCII bare symbol.  What the
 * importer reads out of valid files: test_import.c. */
#include "testutil.h"

static const char verify_base[] =
    "func.func @f(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {\n"
    "  %cst = arith.constant 0.000000e+00 : f32\n"
    "  %0 = tensor.empty() : tensor<4xf32>\n"
    "  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>\n"
    "  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
    "d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%arg0 : "
    "tensor<4x8xf32>) outs(%1 : tensor<4xf32>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n"
    "    %3 = arith.addf %in, %out : f32\n"
    "    linalg.yield %3 : f32\n"
    "  } -> tensor<4xf32>\n"
    "  return %2 : tensor<4xf32>\n"
    "}\n";

/* verify_base with its first `from` replaced by `to`, then cut to `keep`
 * bytes when keep >= 0 (the caller frees it). */
static char *verify_variant(const char *from, const char *to, long keep)
{
    const char *at = from ? strstr(verify_base, from) : NULL;
    ck_assert_msg(from == NULL || at != NULL, "'%s' is not in the base text", from);
    size_t n = strlen(verify_base) + (to ? strlen(to) : 0) + 1;
    char *s = ls_xcalloc(1, n);
    if (at)
        snprintf(s, n, "%.*s%s%s", (int)(at - verify_base), verify_base, to, at + strlen(from));
    else
        snprintf(s, n, "%s", verify_base);
    if (keep >= 0 && (size_t)keep < strlen(s))
        s[keep] = 0;
    return s;
}

/* Load text: an error of this status at line:col whose message holds msg
 * (msg NULL: no error, one reduction). */
static void expect_verdict(const char *text, ls_status status, int line, int col, const char *msg)
{
    ls_diag d;
    ls_module *m = load_text(text, &d);
    if (msg == NULL) {
        ck_assert_msg(d.status == LS_OK, "%d:%d: %s", d.line, d.col, d.msg);
        ck_assert_int_eq(m->n_problems, 1);
    } else {
        ck_assert_msg(d.status == status, "status %d, not %d: %d:%d: %s", d.status, status, d.line,
                      d.col, d.msg);
        ck_assert_msg(strstr(d.msg, msg) != NULL, "got '%s', not '%s'", d.msg, msg);
        ck_assert_msg(d.line == line && d.col == col, "at %d:%d, not %d:%d: %s", d.line, d.col,
                      line, col, d.msg);
        ck_assert_str_eq(d.file, "test.mlir");
        ck_assert_msg(strchr(d.msg, '\n') == NULL, "one line: %s", d.msg);
    }
    free(m);
}

static void expect_variant(const char *from, const char *to, ls_status status, int line, int col,
                           const char *msg)
{
    char *text = verify_variant(from, to, -1);
    expect_verdict(text, status, line, col, msg);
    free(text);
}

START_TEST(truncated_file_names_what_is_open)
{
    expect_verdict(verify_base, LS_OK, 0, 0, NULL);
    /* cut after the generic's region: the function's body is never closed */
    long at = (long)(strstr(verify_base, "  return") - verify_base);
    char *text = verify_variant(NULL, NULL, at);
    expect_verdict(text, LS_ERR_SYNTAX, 10, 1,
                   "the file ends inside the '{' at 1:55 (the body of func.func @f): no '}' "
                   "matches it");
    free(text);
    /* cut inside the return's type: the innermost open bracket is named */
    at = (long)(strstr(verify_base, "tensor<4xf32>\n}") - verify_base) + 9;
    text = verify_variant(NULL, NULL, at);
    expect_verdict(text, LS_ERR_SYNTAX, 10, 24,
                   "the file ends inside the '<' at 10:21 (in 'tensor<...>'): no '>' matches it");
    free(text);
    /* cut inside the region: the generic's own reader says so */
    at = (long)(strstr(verify_base, "    linalg.yield") - verify_base);
    text = verify_variant(NULL, NULL, at);
    expect_verdict(text, LS_ERR_SYNTAX, 5, 204, "unterminated region: no '}' matches this '{'");
    free(text);
    /* one '}' too many, and a bracket closed by the wrong closer */
    text = verify_variant("  return %2 : tensor<4xf32>\n}\n", "  return %2 : tensor<4xf32>\n}\n}\n",
                          -1);
    expect_verdict(text, LS_ERR_SYNTAX, 12, 1, "'}' closes nothing");
    free(text);
    expect_variant("  return %2 : tensor<4xf32>\n", "  \"test.op\"(%2) : (tensor<4xf32>] -> ()\n",
                   LS_ERR_SYNTAX, 10, 33, "']' where the '(' at 10:19 (after ':') wants ')'");
}
END_TEST

START_TEST(ssa_redefinition_is_an_error)
{
    /* in a body: the second definition would silently replace the first */
    expect_variant("    linalg.yield", "    %3 = arith.mulf %in, %out : f32\n    linalg.yield",
                   LS_ERR_SYNTAX, 8, 5,
                   "redefinition of SSA value %3 (first defined at 7:5 in this region)");
    /* a block argument named twice */
    expect_variant("^bb0(%in: f32, %out: f32)", "^bb0(%in: f32, %in: f32)", LS_ERR_SYNTAX, 6, 18,
                   "redefinition of SSA value %in");
    /* at the function's top level, and a function argument */
    expect_variant("  %2 = linalg.generic",
                   "  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> "
                   "tensor<4xf32>\n  %2 = linalg.generic",
                   LS_ERR_SYNTAX, 5, 3, "redefinition of SSA value %1 (first defined at 4:3)");
    expect_variant("  %0 = tensor.empty()", "  %arg0 = tensor.empty()", LS_ERR_SYNTAX, 3, 3,
                   "redefinition of SSA value %arg0 (first defined at 1:14, an argument of the "
                   "function)");
    /* sibling regions may name their arguments alike, as MLIR prints them */
    expect_variant("  %2 = linalg.generic",
                   "  %c0 = arith.constant 0 : index\n"
                   "  %c4 = arith.constant 4 : index\n"
                   "  %c1 = arith.constant 1 : index\n"
                   "  %s1 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %cst) -> (f32) {\n"
                   "    %t = arith.addf %a, %a : f32\n"
                   "    scf.yield %t : f32\n"
                   "  }\n"
                   "  %s2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %cst) -> (f32) {\n"
                   "    %t = arith.addf %a, %a : f32\n"
                   "    scf.yield %t : f32\n"
                   "  }\n"
                   "  %2 = linalg.generic",
                   LS_OK, 0, 0, NULL);
}
END_TEST

/* An elementwise generic: MLIR's rules are checked before anything of
 * lanescope's (a reduction's own checks come first, in its terms). */
static const char verify_elementwise[] =
    "func.func @e(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
    "  %0 = tensor.empty() : tensor<4x8xf32>\n"
    "  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} "
    "ins(%arg0 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {\n"
    "  ^bb0(%in: f32, %out: f32):\n"
    "    %2 = math.exp %in : f32\n"
    "    linalg.yield %2 : f32\n"
    "  } -> tensor<4x8xf32>\n"
    "  return %1 : tensor<4x8xf32>\n"
    "}\n";

static void expect_elementwise(const char *from, const char *to, int line, int col, const char *msg)
{
    const char *at = strstr(verify_elementwise, from);
    ck_assert(at != NULL);
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - verify_elementwise), verify_elementwise, to,
             at + strlen(from));
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_ERR_INVALID, "status %d: %s", d.status, d.msg);
    ck_assert_msg(strstr(d.msg, msg) != NULL, "got '%s', not '%s'", d.msg, msg);
    ck_assert_msg(d.line == line && d.col == col, "at %d:%d, not %d:%d", d.line, d.col, line, col);
    free(m);
}

START_TEST(block_argument_type_must_match_operand)
{
    ls_diag d;
    ls_module *m = load_text(verify_elementwise, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    free(m);
    expect_elementwise("^bb0(%in: f32, %out: f32)", "^bb0(%in: f32, %out: f32, %x: f32)", 4, 8,
                       "linalg.generic's region has 3 block arguments for its 2 operands");
    expect_elementwise("%in: f32", "%in: bf16", 4, 8,
                       "block argument %in is bf16, but its operand %arg0 (input 0) holds f32");
    expect_variant("^bb0(%in: f32", "^bb0(%in: f16", LS_ERR_INVALID, 6, 8,
                   "block argument %in is f16, but its operand %arg0 (input 0) holds f32");
    expect_variant("%out: f32)", "%out: i32)", LS_ERR_INVALID, 6, 18,
                   "block argument %out is i32, but its operand %1 (init 0) holds f32");
}
END_TEST

START_TEST(op_type_must_match_its_operands)
{
    expect_variant("%in, %out : f32", "%in, %out : f16", LS_ERR_INVALID, 7, 21,
                   "arith.addf uses %in as f16, but it is f32 (the block argument at 6:8)");
    /* the yield's type against the value and against the init */
    expect_variant("linalg.yield %3 : f32", "linalg.yield %3 : f16", LS_ERR_INVALID, 8, 23,
                   "the yield gives %3 as f16, but it is f32 (the arith.addf at 7:5)");
    expect_elementwise("%2 = math.exp %in : f32\n    linalg.yield %2 : f32",
                       "%2 = math.exp %in : f32\n    %3 = arith.truncf %2 : f32 to f16\n"
                       "    linalg.yield %3 : f16",
                       7, 23, "the body yields f16 as its value 0, but init %0 holds f32");
    /* a cast's source type is what it wants of its operand */
    expect_elementwise("%2 = math.exp %in : f32", "%2 = arith.extf %in : f16 to f32", 5, 21,
                       "arith.extf uses %in as f16, but it is f32 (the block argument at 4:8)");
}
END_TEST

START_TEST(function_argument_used_at_its_declared_type)
{
    expect_variant("@f(%arg0: tensor<4x8xf32>)", "@f(%arg0: tensor<4x7xf32>)", LS_ERR_INVALID, 5,
                   154,
                   "%arg0 is used as tensor<4x8xf32>, but the function's signature declares it "
                   "tensor<4x7xf32> (at 1:14)");
    /* argument attributes and a result list are read past */
    expect_variant("@f(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {",
                   "@f(%arg0: tensor<4x8xf16> {llvm.noalias}) -> (tensor<4xf32> {x = 1}) "
                   "attributes {a = 1} {",
                   LS_ERR_INVALID, 5, 154,
                   "%arg0 is used as tensor<4x8xf32>, but the function's signature declares it "
                   "tensor<4x8xf16> (at 1:14)");
}
END_TEST

START_TEST(constant_literal_must_fit_its_type)
{
    expect_variant("0.000000e+00 : f32", "1.0e999 : f32", LS_ERR_INVALID, 2, 25,
                   "arith.constant 1.0e999 : f32: the literal does not fit the type: it is too "
                   "large for any float type");
    expect_variant("0.000000e+00 : f32", "-1.0e39 : f32", LS_ERR_INVALID, 2, 25,
                   "arith.constant -1.0e39 : f32: the literal does not fit the type: it is past "
                   "the largest finite f32");
    expect_variant("0.000000e+00 : f32", "0x1FF800000 : f32", LS_ERR_INVALID, 2, 25,
                   "the hexadecimal bit pattern is wider than f32's 32 bits");
    expect_variant("0.000000e+00 : f32", "0 : f32", LS_ERR_INVALID, 2, 25,
                   "a decimal integer is not a f32 literal (write 0.0)");
    expect_variant("  %cst =", "  %c = arith.constant 300 : i8\n  %cst =", LS_ERR_INVALID, 2, 23,
                   "arith.constant 300 : i8: the literal does not fit the type: it is outside "
                   "i8's range, -128 to 255");
    /* in a body too */
    expect_variant("    linalg.yield %3",
                   "    %k = arith.constant 7.0e300 : f16\n    linalg.yield %3", LS_ERR_INVALID, 8,
                   25, "arith.constant 7.0e300 : f16: the literal does not fit");
    /* what fits: the edges of i8, -inf as its bit pattern, f16's largest */
    expect_variant("  %cst =",
                   "  %a = arith.constant 255 : i8\n  %b = arith.constant -128 : i8\n"
                   "  %n = arith.constant 0xFF800000 : f32\n  %h = arith.constant 6.550400e+04 : "
                   "f16\n  %cst =",
                   LS_OK, 0, 0, NULL);
}
END_TEST

START_TEST(bare_symbol_is_ascii)
{
    expect_variant("@f(", "@\xcf\x81sum(", LS_ERR_SYNTAX, 1, 11,
                   "a bare symbol name is ASCII letters, digits, '_', '$' and '.'; quote it: "
                   "@\"\xcf\x81sum\"");
    expect_variant("@f(", "@sum\xcf\x81(", LS_ERR_SYNTAX, 1, 11, "quote it: @\"sum\xcf\x81\"");
    /* the quoted form takes any UTF-8 */
    char *text = verify_variant("@f(", "@\"\xcf\x81sum\"(", -1);
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_str_eq(m->problems[0].name, "@\"\xcf\x81sum\":linalg.generic#1");
    free(m);
    free(text);
}
END_TEST

static Suite *import_verify_suite(void)
{
    Suite *s = suite_create("import_verify");
    TCase *tc = tcase_create("import_verify");
    tcase_add_test(tc, truncated_file_names_what_is_open);
    tcase_add_test(tc, ssa_redefinition_is_an_error);
    tcase_add_test(tc, block_argument_type_must_match_operand);
    tcase_add_test(tc, op_type_must_match_its_operands);
    tcase_add_test(tc, function_argument_used_at_its_declared_type);
    tcase_add_test(tc, constant_literal_must_fit_its_type);
    tcase_add_test(tc, bare_symbol_is_ascii);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(import_verify_suite)
