/* test_problem.c: every validation rule, triggered and its message checked. */
#include "testutil.h"

static void set_list(ls_i64_list *l, int n, const int64_t *v)
{
    l->present = true;
    l->n = n;
    l->line = 3;
    l->col = 7;
    memcpy(l->v, v, (size_t)n * sizeof *v);
}

/* Seed 000 Example 2 as a problem built by hand. */
static void example2(ls_problem *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "ex2");
    snprintf(p->file, sizeof p->file, "ex2.mlir");
    p->line = 10;
    p->col = 5;
    p->rank = 2;
    p->size[0] = 1152;
    p->size[1] = 384;
    p->is_reduction[1] = true;
    p->n_inputs = 1;
    p->inputs[0].type = p->acc_type = LS_ET_F32;
    p->combiner = LS_COMB_ADD;
    p->inputs[0].map_n = 2;
    p->inputs[0].map[1] = 1;
    p->out_map_n = 1;
    p->has_config = true;
    set_list(&p->config.workgroup, 2, (int64_t[]){16, 0});
    set_list(&p->config.partial_reduction, 2, (int64_t[]){0, 32});
    set_list(&p->config.thread, 2, (int64_t[]){0, 1});
    p->config.lane_basis.present = true;
    set_list(&p->config.lane_basis.counts, 2, (int64_t[]){16, 4});
    set_list(&p->config.lane_basis.mapping, 2, (int64_t[]){1, 0});
    p->config.subgroup_basis.present = true;
    set_list(&p->config.subgroup_basis.counts, 2, (int64_t[]){1, 2});
    set_list(&p->config.subgroup_basis.mapping, 2, (int64_t[]){0, 1});
    p->has_ti = true;
    p->ti.has_workgroup_size = p->ti.has_subgroup_size = true;
    p->ti.workgroup_size[0] = 128;
    p->ti.workgroup_size[1] = p->ti.workgroup_size[2] = 1;
    p->ti.subgroup_size = 64;
    p->ti.line = 2;
    p->ti.col = 1;
}

START_TEST(valid_examples)
{
    ls_problem p;
    example2(&p);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_OK);
    ck_assert(ls_target_lookup("mi300x", &p.target));
    p.has_target = true;
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_OK);
    static const char *files[] = {"seed000_example1.mlir", "seed000_example2.mlir",
                                  "seed000_example3.mlir", "seed004_reduce_8x64.mlir"};
    for (int i = 0; i < 4; i++) {
        ls_module *m = load_example(files[i], &d);
        ck_assert_msg(d.status == LS_OK, "%s", d.msg);
        ck_assert_int_eq(ls_problem_validate(&m->problems[0], &d), LS_OK);
        free(m);
    }
}
END_TEST

typedef void (*mutator)(ls_problem *);

static void m_rank(ls_problem *p) { set_list(&p->config.thread, 3, (int64_t[]){0, 1, 1}); }
static void m_lanes(ls_problem *p) { p->config.lane_basis.counts.v[1] = 3; }
static void m_perm(ls_problem *p) { p->config.lane_basis.mapping.v[0] = 0; }
static void m_perm_range(ls_problem *p) { p->config.subgroup_basis.mapping.v[1] = 5; }
static void m_partial_par(ls_problem *p) { p->config.partial_reduction.v[0] = 4; }
static void m_thread_par(ls_problem *p) { p->config.thread.v[0] = 2; }
static void m_wg_red(ls_problem *p) { p->config.workgroup.v[1] = 8; }
static void m_wgsize(ls_problem *p) { p->ti.workgroup_size[0] = 192; }
static void m_wgsize_small(ls_problem *p) { p->ti.workgroup_size[0] = 64; }
static void m_overflow(ls_problem *p)
{
    p->size[0] = INT64_C(1) << 40;
    p->size[1] = INT64_C(1) << 40;
}
static void m_sg_offered(ls_problem *p)
{
    ls_target_lookup("gfx942", &p->target);
    p->has_target = true;
    p->ti.subgroup_size = 32;
    p->ti.workgroup_size[0] = 64;
    p->config.lane_basis.counts.v[0] = 8;
}
static void m_wg_limit(ls_problem *p)
{
    ls_target_lookup("mi300x", &p->target);
    p->has_target = true;
    p->config.subgroup_basis.counts.v[1] = 32;
    p->ti.workgroup_size[0] = 2048;
}
static void m_pack(ls_problem *p)
{
    p->config.thread.v[1] = 3;
}
static void m_noconfig(ls_problem *p) { p->has_config = false; }
static void m_combiner(ls_problem *p) { p->combiner = LS_COMB_XOR; }
static void m_int_minimumf(ls_problem *p)
{
    p->inputs[0].type = p->acc_type = LS_ET_I32;
    p->combiner = LS_COMB_MINIMUMF;
}
static void m_no_lane(ls_problem *p) { p->config.lane_basis.present = false; }
static void m_count0(ls_problem *p) { p->config.subgroup_basis.counts.v[0] = 0; }
static void m_no_red(ls_problem *p) { p->is_reduction[1] = false; }
static void m_size0(ls_problem *p) { p->size[1] = 0; }
static void m_sg_limit(ls_problem *p)
{
    p->ti.subgroup_size = 2048;
    p->ti.workgroup_size[0] = 4096;
    p->config.lane_basis.counts.v[0] = 512;
}

static const struct {
    mutator mut;
    ls_status st;
    int line; /* 0: don't care */
    const char *msg;
} cases[] = {
    {m_rank, LS_ERR_INVALID, 3, "thread has 3 entries but the iteration space has rank 2"},
    {m_lanes, LS_ERR_INVALID, 0, "lane_basis counts [16, 3] multiply to 48, which is not the "
                                 "subgroup size 64"},
    {m_perm, LS_ERR_INVALID, 3, "lane_basis mapping [0, 0] is not a permutation of 0..1"},
    {m_perm_range, LS_ERR_INVALID, 3, "subgroup_basis mapping [0, 5] is not a permutation"},
    {m_partial_par, LS_ERR_INVALID, 3, "partial_reduction[0] = 4 is on parallel dimension d0"},
    {m_thread_par, LS_ERR_INVALID, 3, "thread[0] = 2 is on parallel dimension d0"},
    {m_wg_red, LS_ERR_INVALID, 3, "workgroup[1] = 8 tiles reduction dimension d1"},
    {m_wgsize, LS_ERR_INVALID, 2, "workgroup size 192 != subgroup_size 64 x "
                                  "product(subgroup_basis counts [1, 2]) = 128"},
    {m_wgsize_small, LS_ERR_INVALID, 2, "workgroup size 64 != subgroup_size 64 x"},
    {m_overflow, LS_ERR_LIMIT, 10, "element count overflows int64"},
    {m_sg_offered, LS_ERR_INVALID, 2, "subgroup size 32 is not offered by target gfx942 "
                                      "(subgroup_size_choices = [64])"},
    {m_wg_limit, LS_ERR_INVALID, 2, "workgroup size 2048 is above target gfx942's limit of 1024"},
    {m_pack, LS_ERR_INVALID, 3, "partial_reduction[1] = 32 is not a multiple of thread[1] = 3"},
    {m_noconfig, LS_ERR_NOTFOUND, 10, "ex2 has no lowering_config"},
    {m_combiner, LS_ERR_INVALID, 10, "combiner xor needs an integer type, but the reduction is "
                                     "in f32"},
    {m_int_minimumf, LS_ERR_INVALID, 10, "combiner minimumf needs a float type"},
    {m_no_lane, LS_ERR_INVALID, 0, "lowering_config has no lane_basis"},
    {m_count0, LS_ERR_INVALID, 3, "subgroup_basis counts[0] is 0; counts must be at least 1"},
    {m_no_red, LS_ERR_INVALID, 10, "the op has no reduction dimension"},
    {m_size0, LS_ERR_INVALID, 10, "dimension d1 has size 0"},
    {m_sg_limit, LS_ERR_LIMIT, 2, "subgroup size 2048 / workgroup size 4096: the limits are 1024 "
                                  "and 65536"},
};

START_TEST(violations)
{
    ls_problem p;
    example2(&p);
    cases[_i].mut(&p);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), cases[_i].st);
    ck_assert_msg(strstr(d.msg, cases[_i].msg) != NULL, "case %d: got '%s'", _i, d.msg);
    ck_assert_str_eq(d.file, "ex2.mlir");
    if (cases[_i].line)
        ck_assert_int_eq(d.line, cases[_i].line);
}
END_TEST

START_TEST(duplication_is_allowed)
{
    /* IREE's heuristic emits lane counts below the subgroup size (P = 32, TL = 16
     * leaves 2 lanes): valid, reported as duplication by the layout. */
    ls_problem p;
    example2(&p);
    p.config.lane_basis.counts.v[0] = 8; /* 8 x 4 = 32 of 64 lanes */
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_OK);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert_int_eq(ls_derive(&p, dv, &d), LS_OK);
    ck_assert_int_eq(dv->lane_dup, 2);
    ck_assert(strstr(dv->warnings[0], "duplicated lanes: lane_basis uses 32 of 64 lanes") !=
              NULL);
    free(dv);
    /* workgroup twice the subgroup_basis: duplicated subgroups */
    example2(&p);
    p.ti.workgroup_size[0] = 256;
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_OK);
}
END_TEST

START_TEST(combiner_names)
{
    ls_combiner k;
    ck_assert(ls_combiner_from_op("arith.maxnumf", &k));
    ck_assert_int_eq(k, LS_COMB_MAXNUMF);
    ck_assert(ls_combiner_from_op("arith.ori", &k));
    ck_assert_int_eq(k, LS_COMB_OR);
    ck_assert(!ls_combiner_from_op("arith.subf", &k));
    ck_assert(ls_combiner_from_name("minui", &k));
    ck_assert_int_eq(k, LS_COMB_MINUI);
    ck_assert_str_eq(ls_combiner_op(LS_COMB_ADD, false), "arith.addi");
    ck_assert_str_eq(ls_combiner_op(LS_COMB_ADD, true), "arith.addf");
    int n = 0;
    for (int i = 0; i < LS_COMB_COUNT; i++)
        n += ls_combiner_name((ls_combiner)i)[0] != '?';
    ck_assert_int_eq(n, 13);
}
END_TEST

START_TEST(register_limit)
{
    /* A 2^26-long row with no partial_reduction: 2^21 batches per lane, over the limit. */
    ls_problem p;
    example2(&p);
    p.size[1] = INT64_C(1) << 26;
    p.config.partial_reduction.v[1] = 0;
    ls_diag d;
    ls_diag_clear(&d);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert_int_eq(ls_derive(&p, dv, &d), LS_ERR_LIMIT);
    ck_assert(strstr(d.msg, "each thread would hold more than 1048576 elements per iteration") !=
              NULL);
    free(dv);
}
END_TEST

/* Issue 15, class 3: products of sizes from the input, refused where they
 * pass int64 (each was undefined behaviour before, or let through a
 * problem whose addressing overflowed later). */
START_TEST(size_products_overflow)
{
    ls_problem p;
    ls_diag d;
    /* a strided input: (size - 1) x stride, the last index read */
    example2(&p);
    p.size[1] = INT64_C(1) << 40;
    p.inputs[0].scale[1] = INT64_C(1) << 30;
    p.inputs[0].shape[1] = INT64_MAX;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "input 0 dimension 1 is read at d1 * 1073741824: its last index") !=
                      NULL,
                  "%s", d.msg);
    /* a stride: a unit dim read at d0 * (2^31 - 1) over 2^40 inner elements */
    example2(&p);
    p.size[0] = 1;
    p.size[1] = INT64_C(1) << 40;
    p.inputs[0].scale[0] = INT32_MAX;
    p.inputs[0].shape[0] = 1;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "input 0: its element count or a stride overflows int64") != NULL,
                  "%s", d.msg);
    /* 2^61 f32 elements fit int64, their bits do not */
    example2(&p);
    p.size[0] = INT64_C(1) << 55;
    p.size[1] = INT64_C(1) << 6;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_ERR_LIMIT);
    ck_assert_msg(
        strstr(d.msg, "input 0: 2305843009213693952 elements of 32 bits overflow int64") != NULL,
        "%s", d.msg);
    /* the output: 2^60 rows of a broadcast input (it reads d1 only) */
    example2(&p);
    p.size[0] = INT64_C(1) << 60;
    p.size[1] = 4;
    p.inputs[0].map_n = 1;
    p.inputs[0].map[0] = 1;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_problem_validate(&p, &d), LS_ERR_LIMIT);
    ck_assert_msg(strstr(d.msg, "the output's 1152921504606846976 elements of 32 bits") != NULL,
                  "%s", d.msg);
    /* 2^57 f32 elements, 2^62 bits: they pass */
    example2(&p);
    p.size[0] = INT64_C(1) << 51;
    p.size[1] = INT64_C(1) << 6;
    ls_diag_clear(&d);
    ck_assert_msg(ls_problem_validate(&p, &d) == LS_OK, "%s", d.msg);
}
END_TEST

static Suite *problem_suite(void)
{
    Suite *s = suite_create("problem");
    TCase *tc = tcase_create("validate");
    tcase_add_test(tc, valid_examples);
    tcase_add_loop_test(tc, violations, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, duplication_is_allowed);
    tcase_add_test(tc, combiner_names);
    tcase_add_test(tc, register_limit);
    tcase_add_test(tc, size_products_overflow);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(problem_suite)
