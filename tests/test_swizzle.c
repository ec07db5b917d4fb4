/* test_swizzle.c: the seed 001 tables row by row, and swizzles as permutations. */
#include "lanescope/swizzle.h"
#include "testutil.h"

static ls_swizzle mk(ls_swizzle_kind k, int64_t rw, int64_t aw, int64_t stride, int64_t phase)
{
    ls_swizzle s;
    memset(&s, 0, sizeof s);
    s.kind = k;
    s.row_width = rw;
    s.access_width = aw;
    s.row_stride = stride;
    s.per_phase = phase;
    return s;
}

/* Original block index at each position of the swizzled row: the seeds' "/// a b c d". */
static void check_table(const ls_swizzle *s, const int64_t (*want)[4], int rows)
{
    for (int i = 0; i < rows; i++)
        for (int p = 0; p < 4; p++)
            ck_assert_msg(ls_swizzle_block_inverse(s, i, p) == want[i][p],
                          "row %d position %d: got %lld want %lld", i, p,
                          (long long)ls_swizzle_block_inverse(s, i, p), (long long)want[i][p]);
}

START_TEST(seed_tables)
{
    /* seed 001, xor_shuffle row_width 16, access_width 4, per_phase 1:
     * 0000 1111 2222 3333 / 5555 4444 7777 6666 / AAAA BBBB 8888 9999 / FFFF EEEE DDDD CCCC */
    ls_swizzle x1 = mk(LS_SWIZZLE_XOR_SHUFFLE, 16, 4, 16, 1);
    static const int64_t t1[4][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
    check_table(&x1, t1, 4);
    /* per_phase 2: rows 0-1 unchanged, rows 2-3 XOR 1 (9999 8888 BBBB AAAA / DDDD CCCC FFFF EEEE) */
    ls_swizzle x2 = mk(LS_SWIZZLE_XOR_SHUFFLE, 16, 4, 16, 2);
    static const int64_t t2[4][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {1, 0, 3, 2}, {1, 0, 3, 2}};
    check_table(&x2, t2, 4);
    /* rotate_rows 16/4: 0000 1111 2222 3333 / 7777 4444 5555 6666 / AAAA BBBB 8888 9999 /
     * DDDD EEEE FFFF CCCC */
    ls_swizzle r = mk(LS_SWIZZLE_ROTATE_ROWS, 16, 4, 16, 1);
    static const int64_t t3[4][4] = {{0, 1, 2, 3}, {3, 0, 1, 2}, {2, 3, 0, 1}, {1, 2, 3, 0}};
    check_table(&r, t3, 4);
    /* flat offsets: element 0 of block 0 in row 1 (offset 16) goes to position 1 (offset 20) */
    ck_assert_int_eq(ls_swizzle_apply(&x1, 16), 20);
    ck_assert_int_eq(ls_swizzle_apply(&r, 16 + 3), 16 + 4 + 3);
    ck_assert_int_eq(ls_swizzle_apply(&x1, 3 * 16 + 1), 3 * 16 + 12 + 1);
    ck_assert_int_eq(ls_swizzle_period_rows(&x2), 8);
}
END_TEST

START_TEST(permutations)
{
    uint64_t rng = 5;
    for (int it = 0; it < 500; it++) {
        bool xor = rng_range(&rng, 0, 1);
        int64_t aw = rng_range(&rng, 1, 8);
        int64_t n = xor ? INT64_C(1) << rng_range(&rng, 0, 4) : rng_range(&rng, 1, 12);
        int64_t rw = n * aw;
        int64_t stride = xor ? rw + rng_range(&rng, 0, 2) * aw : rw;
        ls_swizzle s = mk(xor ? LS_SWIZZLE_XOR_SHUFFLE : LS_SWIZZLE_ROTATE_ROWS, rw, aw, stride,
                          xor ? rng_range(&rng, 1, 3) : 1);
        ls_diag d;
        ls_diag_clear(&d);
        REQUIRE(ls_swizzle_check(&s, "t", &d) == LS_OK, "%s", d.msg);
        int64_t rows = rng_range(&rng, 1, 20), total = rows * stride;
        unsigned char *hit = ls_xcalloc((size_t)total, 1);
        for (int64_t off = 0; off < total; off++) {
            int64_t y = ls_swizzle_apply(&s, off);
            REQUIRE(y >= 0 && y < total, "y >= 0 && y < total");
            REQUIRE((y / stride) == (off / stride), "y / stride != off / stride"); /* stays in its row */
            REQUIRE((y % aw) == (off % aw), "offset moved inside its block"); /* keeps its place */
            if (off % stride >= rw)
                REQUIRE((y) == (off), "y != off"); /* padding past row_width untouched */
            REQUIRE((hit[y]) == (0), "hit[y] != 0");
            hit[y] = 1;
            REQUIRE(ls_swizzle_invert(&s, y) == off, "invert(%lld) != %lld", (long long)y, (long long)off);
        }
        free(hit);
    }
}
END_TEST

START_TEST(xor_needs_power_of_two)
{
    ls_swizzle s = mk(LS_SWIZZLE_XOR_SHUFFLE, 12, 4, 12, 1);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_swizzle_check(&s, "t", &d), LS_ERR_INVALID);
    ck_assert(strstr(d.msg, "3 blocks per row: XOR only permutes a power-of-two") != NULL);
    s.kind = LS_SWIZZLE_ROTATE_ROWS; /* rotation permutes any count */
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_swizzle_check(&s, "t", &d), LS_OK);
}
END_TEST

static Suite *swizzle_suite(void)
{
    Suite *s = suite_create("swizzle");
    TCase *tc = tcase_create("swizzle");
    tcase_add_test(tc, seed_tables);
    tcase_add_test(tc, permutations);
    tcase_add_test(tc, xor_needs_power_of_two);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(swizzle_suite)
