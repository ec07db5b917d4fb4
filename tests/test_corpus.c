/* test_corpus.c: the dispatch corpus under tests/corpus/.
 *
 * Each file is a dispatch of one family IREE's reduction pipeline compiles
 * (matvec, transposed vecmat, softmax, group norm, a plain row sum), written
 * for lanescope, with its expectations in comment lines:
 *
 *   // TARGET: gfx942                 the IREE target (suggest and the plan)
 *   // SUGGEST <p>: <config>          IREE's config for reduction p, as the
 *                                     IREE test named in the file's SOURCE
 *                                     line checks it
 *   // PLAN <p>: key=value ...        plan facts, derived by hand (the file
 *                                     says from which IREE source)
 *
 * Every reduction is then lowered with the config (the file's, else the
 * suggested one) and run functionally on its first workgroups against the
 * reference, intermediates bound. */
#include <dirent.h>
#include <math.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/plan.h"
#include "lanescope/suggest.h"
#include "testutil.h"

#define MAX_FILES 64

static char files[MAX_FILES][256];
static int n_files;

static void list_corpus(void)
{
    if (n_files)
        return;
    DIR *dir = opendir(LS_TEST_CORPUS);
    ck_assert_msg(dir != NULL, "cannot open %s", LS_TEST_CORPUS);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n_files < MAX_FILES) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".mlir") == 0)
            snprintf(files[n_files++], sizeof files[0], "%s", e->d_name);
    }
    closedir(dir);
    /* a stable order, so a failure names the same loop index every run */
    qsort(files, (size_t)n_files, sizeof files[0], (int (*)(const void *, const void *))strcmp);
}

/* One plan fact of problem p. */
static int64_t fact(const ls_plan *pl, const char *key, bool *known)
{
    const ls_problem *p = pl->problem;
    const ls_derived *d = pl->derived;
    *known = true;
    int idx = -1;
    char base[48];
    const char *dot = strchr(key, '.');
    if (dot) {
        snprintf(base, sizeof base, "%.*s", (int)(dot - key), key);
        idx = atoi(dot + 1);
    } else {
        snprintf(base, sizeof base, "%s", key);
    }
    if (strcmp(base, "workgroups") == 0)
        return d->total_workgroups;
    if (strcmp(base, "workgroup_size") == 0)
        return d->workgroup_size;
    if (strcmp(base, "subgroup_size") == 0)
        return d->subgroup_size;
    if (strcmp(base, "iterations") == 0)
        return pl->iterations;
    if (strcmp(base, "n_inputs") == 0)
        return p->n_inputs;
    if (strcmp(base, "acc_registers") == 0)
        return pl->acc_registers;
    if (strcmp(base, "inner_elems") == 0)
        return pl->inner_elems;
    if (strcmp(base, "results_per_thread") == 0)
        return pl->results_per_thread;
    if (strcmp(base, "body_ops") == 0)
        return pl->body_alu_ops;
    if (strcmp(base, "serial") == 0)
        return d->serial_reduce;
    if (strcmp(base, "extended") == 0)
        return p->extended;
    if (strcmp(base, "subgroup_reduces") == 0)
        return pl->n_subgroup_reduces;
    if (strcmp(base, "cross_subgroup") == 0)
        return pl->cross_subgroup;
    if (strcmp(base, "buffer_bytes") == 0)
        return pl->buffer_bytes;
    if (strcmp(base, "buffer_pad") == 0)
        return pl->buffer_pad;
    if (strcmp(base, "shuffle_bits") == 0)
        return pl->shuffle_bits;
    if (strcmp(base, "acc_elem_bytes") == 0)
        return pl->acc_elem_bytes;
    if (strcmp(base, "init_nan") == 0)
        return isnan(ls_value_to_double(ls_problem_init(p), p->acc_type));
    if (strcmp(base, "combiner") == 0) /* compared by name: see check_plan */
        return p->combiner;
    if (strcmp(base, "local_reduce_ops") == 0)
        return pl->local_reduce_ops;
    /* arg_compare */
    if (strcmp(base, "argcmp") == 0)
        return pl->argcmp;
    if (strcmp(base, "ballot") == 0)
        return pl->ballot;
    if (strcmp(base, "ballot_shuffles") == 0)
        return pl->ballot_shuffles;
    if (strcmp(base, "cmp_ops") == 0)
        return pl->cmp_ops;
    if (strcmp(base, "index_ops") == 0)
        return pl->index_ops;
    if (strcmp(base, "index_bytes") == 0)
        return pl->index_bytes;
    if (strcmp(base, "index_buffer_bytes") == 0)
        return pl->index_buffer_bytes;
    if (strcmp(base, "hazard") == 0)
        return pl->hazard_cluster || pl->hazard_oob;
    if (strcmp(base, "read_cluster") == 0)
        return pl->read_cluster;
    if (idx >= 0 && idx < p->n_inputs) {
        if (strcmp(base, "loads") == 0)
            return pl->inputs[idx].loads;
        if (strcmp(base, "width") == 0)
            return pl->inputs[idx].width;
        if (strcmp(base, "intermediate") == 0)
            return p->inputs[idx].intermediate;
        if (strcmp(base, "promoted") == 0)
            return pl->promote[idx].on;
        if (strcmp(base, "copy_loads") == 0)
            return pl->promote[idx].copy_loads;
        if (strcmp(base, "copy_width") == 0)
            return pl->promote[idx].copy_width;
        if (strcmp(base, "promote_bytes") == 0)
            return pl->promote[idx].bytes;
    }
    if (idx >= 0 && idx < pl->n_subgroup_reduces) {
        const ls_subgroup_reduce *r = &pl->subgroup_reduces[idx];
        if (strcmp(base, "cluster") == 0)
            return r->cluster_size;
        if (strcmp(base, "stride") == 0)
            return r->cluster_stride;
        if (strcmp(base, "dpp") == 0)
            return r->dpp;
    }
    *known = false;
    return 0;
}

static void check_plan(const char *file, int prob, const ls_plan *pl, const char *facts)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", facts);
    for (char *save = NULL, *kv = strtok_r(buf, " \t", &save); kv;
         kv = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(kv, '=');
        ck_assert_msg(eq != NULL, "%s: PLAN %d: '%s' is not key=value", file, prob, kv);
        *eq = 0;
        const char *want = eq + 1;
        bool dist = strncmp(kv, "distributed.", 12) == 0;
        if (dist || strncmp(kv, "promote_alloc.", 14) == 0) { /* a type, compared as text */
            char type[128];
            int k = atoi(kv + (dist ? 12 : 14));
            ck_assert_msg(k >= 0 && k < pl->problem->n_inputs, "%s: PLAN %d: no input %d", file,
                          prob, k);
            if (dist)
                ls_plan_input_vector_type(pl, k, type, sizeof type);
            else
                ls_plan_promote_type(pl, k, type, sizeof type);
            /* facts are space-separated: compare types without their spaces */
            char *w = type;
            for (const char *r = type; *r; r++)
                if (*r != ' ')
                    *w++ = *r;
            *w = 0;
            ck_assert_msg(strcmp(type, want) == 0, "%s: reduction %d: %s = %s, expected %s", file,
                          prob, kv, type, want);
            continue;
        }
        bool known;
        int64_t got = fact(pl, kv, &known);
        ck_assert_msg(known, "%s: PLAN %d: unknown fact '%s'", file, prob, kv);
        if (strcmp(kv, "combiner") == 0) {
            ck_assert_msg(strcmp(ls_combiner_name((ls_combiner)got), want) == 0,
                          "%s: reduction %d: combiner %s, expected %s", file, prob,
                          ls_combiner_name((ls_combiner)got), want);
            continue;
        }
        ck_assert_msg(got == strtoll(want, NULL, 10), "%s: reduction %d: %s = %lld, expected %s",
                      file, prob, kv, (long long)got, want);
    }
}

/* A TileAndFuse suggestion as IREE prints its lowering_config (keys
 * sorted; no reduction key when nothing is tiled serially). */
static void tf_config_format(const ls_suggestion *s, int rank, char *buf, size_t size)
{
    bool any = false;
    for (int l = 0; l < rank; l++)
        any |= s->tf_reduction[l] != 0;
    char r[256], th[256], wg[256];
    ls_format_list(r, sizeof r, s->tf_reduction, rank);
    ls_format_list(th, sizeof th, s->tf_thread, rank);
    ls_format_list(wg, sizeof wg, s->tf_workgroup, rank);
    snprintf(buf, size, "#iree_gpu.lowering_config<{%s%s%sthread = %s, workgroup = %s}>",
             any ? "reduction = " : "", any ? r : "", any ? ", " : "", th, wg);
}

START_TEST(corpus_file)
{
    list_corpus();
    ck_assert_int_ge(n_files, 6);
    /* the loop below runs MAX_FILES / 2 cases: never skip a file quietly */
    ck_assert_msg(n_files <= MAX_FILES / 2, "%d corpus files; raise the loop count", n_files);
    if (_i >= n_files)
        return;
    const char *file = files[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", LS_TEST_CORPUS, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    char target[64] = "", line[2048];
    char *suggest_want[8] = {NULL}, *plan_want[8][4] = {{NULL}};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        int p;
        char rest[2048];
        if (sscanf(line, "// TARGET: %63s", target) == 1)
            continue;
        if (sscanf(line, "// SUGGEST %d: %2047[^\n]", &p, rest) == 2 && p >= 0 && p < 8) {
            suggest_want[p] = strdup(rest);
            continue;
        }
        if (sscanf(line, "// PLAN %d: %2047[^\n]", &p, rest) == 2 && p >= 0 && p < 8) {
            int s = 0;
            while (s < 4 && plan_want[p][s])
                s++;
            ck_assert_msg(s < 4, "%s: too many PLAN lines for %d", file, p);
            plan_want[p][s] = strdup(rest);
        }
    }
    fclose(f);
    ck_assert_msg(target[0], "%s has no TARGET line", file);
    ls_target t;
    ck_assert_msg(ls_target_lookup(target, &t), "%s: unknown target %s", file, target);
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ck_assert_msg(ls_module_load(path, m, &d) == LS_OK, "%s: %s", file, d.msg);
    ck_assert_int_gt(m->n_problems, 0);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    int checked_suggest = 0, checked_plan = 0, timed = 0;
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        p->has_target = true;
        p->target = t;
        /* IREE routes some roots past the reduction heuristic to
         * TileAndFuse (a multi-result generic, say): ls_suggest says so and
         * holds that config, checked and applied instead */
        bool tf = ls_suggest(&m->dispatches[p->dispatch], &t, s, &d) != LS_OK;
        ck_assert_msg(!tf || s->tile_and_fuse, "%s: %s", file, d.msg);
        const ls_op_config *c = tf ? NULL : ls_suggest_config_of(s, p->dispatch_op);
        if (tf && i < 8 && suggest_want[i]) {
            char got[1024];
            tf_config_format(s, p->rank, got, sizeof got);
            ck_assert_msg(strcmp(got, suggest_want[i]) == 0, "%s: reduction %zu:\n got  %s\n want %s",
                          file, i, got, suggest_want[i]);
            checked_suggest++;
        }
        if (tf && !p->has_config)
            ls_suggest_apply_tile_and_fuse(s, p);
        if (!tf && i < 8 && suggest_want[i]) {
            ck_assert_msg(c != NULL, "%s: suggest gives reduction %zu no config", file, i);
            char got[1024];
            ls_op_config_format(c, got, sizeof got);
            ck_assert_msg(strcmp(got, suggest_want[i]) == 0, "%s: reduction %zu:\n got  %s\n want %s",
                          file, i, got, suggest_want[i]);
            checked_suggest++;
        }
        if (!tf && !p->has_config) {
            ck_assert_msg(c != NULL, "%s: no config for reduction %zu", file, i);
            ls_suggest_apply(s, p->dispatch_op, p);
        }
        ls_plan plan;
        ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s: %s", file, d.msg);
        ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch(t.arch), &plan, &d) == LS_OK,
                      "%s: %s", file, d.msg);
        for (int k = 0; i < 8 && k < 4 && plan_want[i][k]; k++) {
            check_plan(file, (int)i, &plan, plan_want[i][k]);
            checked_plan++;
        }
        /* values: the first workgroups against the reference */
        ls_input_source in = {7, NULL, {NULL}};
        ck_assert_msg(ls_bind_intermediates(m->problems, m->n_problems, i, &in, &d) == LS_OK,
                      "%s: %s", file, d.msg);
        ls_functional_result fr;
        int64_t wgs = dv->total_workgroups < 4 ? dv->total_workgroups : 4;
        ls_status st = ls_functional_run(&plan, in, 0, wgs, &fr, &d);
        ls_free_intermediates(&in);
        ck_assert_msg(st == LS_OK, "%s: reduction %zu: %s", file, i, d.msg);
        ck_assert_int_gt(fr.outputs_checked, 0);
        /* timing: results sharing scoreboard entries (engine_program.c)
         * change no figure against an entry per instruction.  Four
         * workgroup tiles along each parallel dim keep every program
         * shape (the reduction is whole) at a test's cost. */
        ls_hw hw;
        ck_assert_msg(ls_hw_for_target(&t, &hw, &d) == LS_OK, "%s: %s", file, d.msg);
        ls_problem small = *p;
        for (int r = 0; r < small.rank; r++)
            if (!small.is_reduction[r] && small.size[r] > 4 * dv->wg_tile[r])
                small.size[r] = 4 * dv->wg_tile[r];
        ck_assert_msg(ls_derive(&small, dv, &d) == LS_OK, "%s: %s", file, d.msg);
        ck_assert_msg(ls_plan_build(&small, dv, ls_plan_target_from_arch(t.arch), &plan, &d) == LS_OK,
                      "%s: %s", file, d.msg);
        int64_t work = -1;
        ck_assert_msg(ls_engine_estimate(&plan, &hw, &work, &d) == LS_OK, "%s: %s", file, d.msg);
        if (work >= 0 && work <= 4000000) {
            ls_sim_result shared, plain;
            ls_engine_opts one_each = {.plain_scoreboard = true};
            ck_assert_msg(ls_engine_run(&plan, &hw, &shared, NULL, &d) == LS_OK, "%s: %s", file,
                          d.msg);
            ck_assert_msg(ls_engine_run(&plan, &hw, &plain, &one_each, &d) == LS_OK, "%s: %s",
                          file, d.msg);
            ck_assert_msg(memcmp(&shared, &plain, sizeof shared) == 0,
                          "%s: reduction %zu: %lld vs %lld cycles with shared scoreboard entries",
                          file, i, (long long)shared.cycles, (long long)plain.cycles);
            ck_assert_int_gt(shared.cycles, 0);
            timed++;
        }
    }
    ck_assert_msg(timed > 0, "%s: no reduction small enough to time both ways", file);
    ck_assert_msg(checked_plan > 0, "%s checks no plan fact", file);
    (void)checked_suggest;
    for (int i = 0; i < 8; i++) {
        free(suggest_want[i]);
        for (int k = 0; k < 4; k++)
            free(plan_want[i][k]);
    }
    free(s);
    free(dv);
    free(m);
}
END_TEST

static Suite *corpus_suite(void)
{
    Suite *s = suite_create("corpus");
    TCase *tc = tcase_create("corpus");
    /* one loop index per file; indices past the corpus return at once */
    tcase_add_loop_test(tc, corpus_file, 0, MAX_FILES / 2);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(corpus_suite)
