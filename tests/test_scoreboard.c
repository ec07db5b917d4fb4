/* test_scoreboard.c: the engine's per-subgroup and per-scheduler books.
 * The scheduler's ring of given-away cycles (engine_internal.h) against a
 * plain array of every cycle, and the shared scoreboard entries
 * (ls_engine_assign_scoreboard in sim/engine_program.c) on random
 * templates: executed in program order -- the part before the loop, the
 * loop three times, the part after; or a fused kernel's loops one after
 * another, each three times -- every read must find its producer's
 * latest write, or, before the producer's first write, either nothing or
 * a dead result (one no later read asks for), whose cycle a reader that
 * waited for it has passed.  The end-to-end check (the same figures as an
 * entry per instruction) is in test_corpus. */
#include <check.h>
#include <stdlib.h>

#include "../sim/engine_internal.h"
#include "testutil.h"

enum { ITERS = 3, MAXN = 48 };

/* The program order of template positions for one subgroup: each loop
 * of e (a fused kernel has several, one after another) ITERS times. */
static int trace_of(const engine *e, int *out)
{
    int k = 0;
    for (int i = 0, l = 0; i < e->ncode;) {
        if (l < e->n_loops && i == e->loops[l].begin) {
            for (int it = 0; it < ITERS; it++)
                for (int j = e->loops[l].begin; j < e->loops[l].end; j++)
                    out[k++] = j;
            i = e->loops[l].end;
            l++;
            continue;
        }
        out[k++] = i++;
    }
    return k;
}

/* Whether producer q's result is read at trace position from or later. */
static bool read_later(const tinst *code, const int *tr, int len, int from, int q)
{
    for (int s = from; s < len; s++)
        for (int k = 0; k < LS_TINST_DEPS; k++)
            if (code[tr[s]].dep[k] == q)
                return true;
    return false;
}

/* The ring answers as an array of every cycle would, while the clock
 * moves on and cycles up to LS_SCHED_AHEAD past it are given away. */
START_TEST(scheduler_ring_is_an_array)
{
    enum { CYCLES = 200000 };
    bool *given = calloc(CYCLES + LS_SCHED_AHEAD + 64, sizeof *given);
    schedring *s = calloc(1, sizeof *s);
    srand(7);
    int64_t now = 0;
    while (now < CYCLES) {
        for (int n = rand() % 4; n > 0; n--) {
            int64_t c = now + rand() % (LS_SCHED_AHEAD + 1);
            int64_t want = c;
            while (given[want])
                want++;
            schedcursor k = sched_open(s, c);
            ck_assert_int_eq(sched_first_free(&k, c), want);
            if (want <= now + LS_SCHED_AHEAD) {
                sched_take(&k, want);
                given[want] = true;
            }
            sched_close(&k);
        }
        now += 1 + (rand() % 8 == 0 ? rand() % 3000 : 0); /* idle gaps past the ring's span */
    }
    free(s);
    free(given);
}
END_TEST

START_TEST(random_templates_read_their_producers)
{
    uint64_t rng = 0x5c0feb0a7dULL;
    tinst code[MAXN];
    int tr[MAXN * ITERS], owner[MAXN + 2];
    bool written[MAXN];
    int64_t shared_total = 0, plain_total = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int n = (int)rng_range(&rng, 1, MAXN);
        engine e = {.code = code, .ncode = n};
        /* one loop, or (a fused kernel's program) two or three in a row */
        e.n_loops = trial % 3 == 0 ? (int)rng_range(&rng, 2, 3) : 1;
        int at = 0;
        for (int l = 0; l < e.n_loops; l++) {
            int lb = (int)rng_range(&rng, at, n), le = (int)rng_range(&rng, lb, n);
            if (le == lb && trial % 2) /* most templates have a loop */
                le = lb + (lb < n);
            e.loops[l] = (eloop){lb, le, 0, ITERS, 1};
            at = le;
        }
        for (int i = 0; i < n; i++) {
            code[i] = (tinst){.kind = I_ALU, .loop = -1};
            for (int l = 0; l < e.n_loops; l++)
                if (i >= e.loops[l].begin && i < e.loops[l].end)
                    code[i].loop = l;
            for (int k = 0; k < LS_TINST_DEPS; k++) { /* the third: an FMA's */
                int64_t c = rng_range(&rng, 0, 9);
                /* mostly earlier results, some later (read across the back
                 * edge, or before their first write), some none */
                code[i].dep[k] = c < 2 ? -1 : c < 8 && i > 0 ? (int)rng_range(&rng, 0, i - 1)
                                                            : (int)rng_range(&rng, 0, n - 1);
            }
        }
        ls_engine_assign_scoreboard(&e, false);
        REQUIRE(e.sb_entries >= 2 && e.sb_entries <= n + 2, "trial %d: %d entries for %d", trial,
                e.sb_entries, n);
        int len = trace_of(&e, tr);
        for (int x = 0; x < e.sb_entries; x++)
            owner[x] = -1;
        for (int i = 0; i < n; i++)
            written[i] = false;
        for (int s = 0; s < len; s++) {
            const tinst *in = &code[tr[s]];
            for (int k = 0; k < LS_TINST_DEPS; k++) {
                int p = in->dep[k], x = in->rd[k];
                REQUIRE(x >= 0 && x < e.sb_entries, "trial %d: entry %d of %d", trial, x,
                        e.sb_entries);
                if (p < 0) {
                    REQUIRE(x == 0, "trial %d: no operand reads entry %d, not the zero entry",
                            trial, x);
                    continue;
                }
                if (written[p])
                    REQUIRE(owner[x] == p, "trial %d: position %d reads %d's entry %d, holding %d",
                            trial, tr[s], p, x, owner[x]);
                else
                    REQUIRE(owner[x] < 0 || !read_later(code, tr, len, s + 1, owner[x]) ||
                                owner[x] == p,
                            "trial %d: position %d reads %d before its write and finds live %d",
                            trial, tr[s], p, owner[x]);
            }
            REQUIRE(in->wr != 0, "trial %d: the zero entry written", trial);
            if (in->wr == 1) /* the sink: nothing reads it */
                REQUIRE(!read_later(code, tr, len, 0, tr[s]), "trial %d: %d is read, in the sink",
                        trial, tr[s]);
            owner[in->wr] = tr[s];
            written[tr[s]] = true;
        }
        shared_total += e.sb_entries;
        ls_engine_assign_scoreboard(&e, true);
        REQUIRE(e.sb_entries == n + 2, "trial %d: plain has %d entries", trial, e.sb_entries);
        for (int i = 0; i < n; i++)
            REQUIRE(code[i].wr == 2 + i && code[i].rd[0] == (code[i].dep[0] < 0 ? 0 : 2 + code[i].dep[0]),
                    "trial %d: plain entry of %d", trial, i);
        plain_total += e.sb_entries;
    }
    /* sharing saves entries (the point of it) */
    ck_assert_int_lt(shared_total, plain_total);
}
END_TEST

/* A hand-made template: an accumulator made before the loop and read in
 * every iteration must keep its entry through the whole loop, though its
 * last reader in template order is the loop's first instruction. */
START_TEST(value_made_before_the_loop_lives_through_it)
{
    tinst code[4] = {
        {.kind = I_ALU, .dep = {-1, -1, -1}}, /* 0: made before the loop */
        {.kind = I_ALU, .dep = {0, -1, -1}},  /* 1: loop, reads 0 each iteration */
        {.kind = I_ALU, .dep = {-1, -1, -1}}, /* 2: loop, a temporary ... */
        {.kind = I_ALU, .dep = {2, -1, -1}},  /* 3: ... read at once */
    };
    engine e = {.code = code, .ncode = 4, .loop_begin = 1, .loop_end = 4};
    ls_engine_one_loop(&e);
    ls_engine_assign_scoreboard(&e, false);
    ck_assert_int_ne(code[2].wr, code[0].wr);
    ck_assert_int_eq(code[1].rd[0], code[0].wr);
    ck_assert_int_eq(code[3].rd[0], code[2].wr);
    ck_assert_int_eq(code[1].wr, 1); /* nothing reads 1 or 3: the sink */
    ck_assert_int_eq(code[3].wr, 1);
    ck_assert_int_eq(e.sb_entries, 4);
}
END_TEST

static Suite *scoreboard_suite(void)
{
    Suite *s = suite_create("scoreboard");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, scheduler_ring_is_an_array);
    tcase_add_test(tc, random_templates_read_their_producers);
    tcase_add_test(tc, value_made_before_the_loop_lives_through_it);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(scoreboard_suite)
