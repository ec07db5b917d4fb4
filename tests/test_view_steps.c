/* test_view_steps.c: `lanescope view`'s words and an attention's values,
 * without a window: every kind of step gets its own caption with its
 * numbers (a special-function op its unit's rate), and stepping an
 * attention shows, after every K2 step and after the merge, exactly the
 * values ls_att_snapshot_at gives. */
#include "attention_util.h"
#include "view_util.h"

/* ------------------------------------------------------------ captions */

START_TEST(every_kind_of_step_has_its_caption)
{
    fixture f;
    open_example2(&f, 960, 600);
    char cap[1024];
    ls_view_caption(f.v, cap, sizeof cap);
    ck_assert_ptr_nonnull(strstr(cap, "Workgroup 0 of 72 is about to start: 128 threads"));
    static const char *kinds[] = {"Load, iteration 1 of 12",
                                  "Accumulate, iteration 1",
                                  "round 1 of 4 (subgroup 0, result slot 0): every lane fetches",
                                  "lane 5 <- lane 1",
                                  "now holds",
                                  "Barrier wait",
                                  "Barrier release: all 2 subgroups",
                                  "Write to shared memory",
                                  "Read back",
                                  "second butterfly",
                                  "Combine with the init",
                                  "r = maxnumf(r, -inf)",
                                  "Store: subgroup",
                                  "has finished"};
    bool seen[sizeof kinds / sizeof kinds[0]] = {false};
    int64_t n = state(&f).length;
    for (int64_t i = 0; i < n; i++) {
        act(&f, "right");
        ls_view_caption(f.v, cap, sizeof cap);
        ck_assert_int_gt((int)strlen(cap), 40);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            seen[k] |= strstr(cap, kinds[k]) != NULL;
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        ck_assert_msg(seen[k], "no caption says '%s'", kinds[k]);
    char status[512];
    ls_view_status_line(f.v, status, sizeof status);
    ck_assert_ptr_nonnull(strstr(status, "workgroup 0/72"));
    close_fixture(&f);
}
END_TEST

/* Step through text's reduction on the view's default model, caption by
 * caption: each of kinds[0..n) must appear; returns how many captions held
 * kinds[0]. */
static int64_t captions_say(const char *text, const char *const *kinds, size_t n)
{
    ls_diag diag;
    ls_module *m = load_text(text, &diag);
    ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
    fixture f;
    open_module(&f, m, 960, 600);
    bool seen[8] = {false};
    ck_assert_int_le((int)n, 8);
    char cap[1024];
    int64_t steps = state(&f).length, first = 0;
    for (int64_t i = 0; i < steps; i++) {
        act(&f, "right");
        ls_view_caption(f.v, cap, sizeof cap);
        first += strstr(cap, kinds[0]) != NULL;
        for (size_t k = 0; k < n; k++)
            seen[k] |= strstr(cap, kinds[k]) != NULL;
    }
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(seen[k], "no caption says '%s'", kinds[k]);
    close_fixture(&f);
    return first;
}

/* A per-row input (map d0) reads no dim the loop steps: the compiled code
 * reads it once before the loop, and the view says so, naming the input
 * and its own element's value; the loop's loads name theirs. */
START_TEST(hoisted_load_has_its_caption)
{
    static const char *text =
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%a, %m : tensor<2x1024xf32>, tensor<2xf32>) "
        "outs(%b : tensor<2xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread = "
        "[0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%in: f32, %mm: f32, %out: f32):\n  %d = arith.subf %in, %mm : f32\n"
        "  %1 = arith.addf %d, %out : f32\n  linalg.yield %1 : f32\n}\n";
    static const char *const kinds[] = {
        "Load, before the loop: subgroup 0 reads %m (input 1) once, load 1 of 1 -- it reads no "
        "dim the loop steps",
        "every lane reads 1 element of f32",
        "Load, iteration 1 of 4: subgroup 0 issues load 1 of 1 of %a (input 0) -- every lane "
        "reads 4 elements of f32"};
    /* once, not in each of the 4 iterations */
    ck_assert_int_eq(captions_say(text, kinds, sizeof kinds / sizeof kinds[0]), 1);
}
END_TEST

/* A body with math.exp on mi300x: 12 ALU instructions and one v_exp_f32
 * per element (src/math_lowering.c); the accumulate caption counts the
 * body's instructions, and the special-function op has its own caption
 * with the unit's rate. */
START_TEST(special_function_steps_have_their_caption)
{
    static const char *text =
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%a : tensor<2x256xf32>) outs(%b : tensor<2xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread = "
        "[0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%in: f32, %out: f32):\n  %e = math.exp %in : f32\n  %1 = arith.addf %e, %out : "
        "f32\n  linalg.yield %1 : f32\n}\n";
    static const char *const kinds[] = {
        "computes the body on a loaded element (12 ALU instructions per element",
        "Special-function op, iteration 1: subgroup 0 issues one of the body's 1 transcendental "
        "instruction per element",
        "which takes one every 16 cycles"};
    captions_say(text, kinds, sizeof kinds / sizeof kinds[0]);
}
END_TEST

/* The accumulate caption says how IREE lowers the combine: a contraction
 * with no partial_reduction chains each output's registers with FMAs into
 * the output's value (no thread-reduce step follows); a packed
 * contraction chains its packed elements, then adds; a sum with no
 * partial_reduction is the local reduce. */
START_TEST(accumulate_captions_say_how_it_is_lowered)
{
    static const char *bodies[] = {
        "  %m = arith.mulf %in, %w : f32\n  %1 = arith.addf %m, %out : f32\n",
        "  %1 = arith.addf %in, %out : f32\n"};
    static const char *tiles[] = {"", "partial_reduction = [0, 512], "};
    static const char *want[3] = {
        "chains it into its output's accumulator with one FMA, acc = fma(a, b, acc), last "
        "register first from 0 (IREE's local contraction, ContractToChainFMA)",
        "chains each accumulator's 4 packed elements with one FMA each, last first from 0, then "
        "adds the chain to the accumulator",
        "folds it into its output's accumulator, acc = add(acc, x), from the identity in every "
        "iteration (IREE's local reduce)"};
    for (int c = 0; c < 3; c++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types "
                 "= [\"parallel\", \"reduction\"]} ins(%%a, %%b : tensor<2x512xf32>, "
                 "tensor<2x512xf32>) outs(%%c : tensor<2xf32>) attrs = {lowering_config = "
                 "#iree_gpu.lowering_config<{workgroup = [1, 0], %sthread = [0, 4], lane_basis = "
                 "[[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n^bb0(%%in: f32, %%w: "
                 "f32, %%out: f32):\n%s  linalg.yield %%1 : f32\n}\n",
                 tiles[c == 1], bodies[c == 2]);
        ls_diag diag;
        ls_module *m = load_text(text, &diag);
        ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
        fixture f;
        open_module(&f, m, 960, 600);
        bool seen = false, thread_reduce = false;
        char cap[1024];
        int64_t n = state(&f).length;
        for (int64_t i = 0; i < n; i++) {
            act(&f, "right");
            ls_view_caption(f.v, cap, sizeof cap);
            seen |= strstr(cap, want[c]) != NULL;
            thread_reduce |= strstr(cap, "Thread reduce:") != NULL;
        }
        ck_assert_msg(seen, "case %d: no caption says '%s'", c, want[c]);
        ck_assert_int_eq(thread_reduce, c == 1); /* only the packed chain has one */
        close_fixture(&f);
    }
}
END_TEST

/* A loop whose fold of each accumulator's packed elements LLVM compiles as
 * a tree (an i16 max on mi300x: packed v_pk_max_i16 over the registers
 * holding two lanes, then the halves) says so, and that the fold then
 * joins the accumulator. */
START_TEST(accumulate_caption_names_a_tree_fold)
{
    static const char *text =
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%a : tensor<2x1024xi16>) outs(%b : tensor<2xi16>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = "
        "[0, 8], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%in: i16, %out: i16):\n  %1 = arith.maxsi %in, %out : i16\n"
        "  linalg.yield %1 : i16\n}\n";
    static const char *const kinds[] = {
        "subgroup 0 takes its loaded vectors and folds each accumulator's 8 packed elements as a "
        "tree of packed v_pk_max_i16 over the registers holding two lanes, then one op on the "
        "last one's halves: 4 instructions, 3 deep, then joins that into the accumulator, acc = "
        "maxsi(acc, fold)"};
    captions_say(text, kinds, sizeof kinds / sizeof kinds[0]);
}
END_TEST

/* Every caption a reduction on mi300x shows, stepping it to the end: the
 * caption text and the status line of each event joined. */
static char *all_captions(const char *op)
{
    char text[1024];
    snprintf(text, sizeof text,
             "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
             "ins(%%a : tensor<2x256xf32>) outs(%%b : tensor<2xf32>) attrs = {lowering_config = "
             "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread "
             "= [0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
             "^bb0(%%in: f32, %%out: f32):\n  %%1 = %s %%in, %%out : f32\n  linalg.yield %%1 : "
             "f32\n}\n",
             op);
    ls_diag diag;
    ls_module *m = load_text(text, &diag);
    ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
    fixture f;
    open_module(&f, m, 960, 600);
    size_t cap_n = 1 << 20, used = 0;
    char *all = ls_xcalloc(cap_n, 1);
    int64_t n = state(&f).length;
    for (int64_t i = 0; i < n && used + 2048 < cap_n; i++) {
        act(&f, "right");
        ls_view_caption(f.v, all + used, 1024);
        used += strlen(all + used);
        all[used++] = '\n';
        ls_view_status_line(f.v, all + used, 1024);
        used += strlen(all + used);
        all[used++] = '\n';
    }
    close_fixture(&f);
    return all;
}

/* A DPP step as LLVM compiles it (docs/timing-model.md, "DPP steps as
 * compiled"): an add's move folded into the add, row_bcast_15's copy of
 * the old value before its move; a max's quieting after the move. */
START_TEST(dpp_steps_say_how_llvm_compiles_them)
{
    char *add = all_captions("arith.addf");
    static const char *add_kinds[] = {
        "DPP step 1 of 7 (subgroup 0): quad_perm [1,0,3,2] swaps neighbours inside each group "
        "of 4 lanes; LLVM folds the move into the add itself (one DPP instruction)",
        "S0: DPP quad_perm [1,0,3,2] with the add folded in (round 1)",
        "step 5 of 7 (subgroup 0): an instruction LLVM adds around the lane move",
        "before it, a copy of the running value, which the move overwrites",
        "S0: ALU before the lane move (round 5)",
        "row_bcast_15 (row_mask 0xa) sends lane 15 of each row of 16 into the next row"};
    for (size_t k = 0; k < sizeof add_kinds / sizeof add_kinds[0]; k++)
        ck_assert_msg(strstr(add, add_kinds[k]) != NULL, "no caption says '%s'", add_kinds[k]);
    ck_assert_ptr_null(strstr(add, "quieting"));
    char *max = all_captions("arith.maximumf");
    ck_assert_ptr_nonnull(strstr(max, "after it, quieting a max's moved operand (IEEE mode)"));
    ck_assert_ptr_null(strstr(max, "folded in"));
    free(add);
    free(max);
}
END_TEST

/* An attention's kernel (IREE's pipeline case #2 on gfx942: 4 subgroups,
 * 32 K2 steps of 128 keys, 4 key slots a thread): the lanes panel shows
 * exactly what ls_att_snapshot_at gives for the steps the selected
 * subgroup has completed (its running max and sum per key slot, its acc),
 * and after the merge each row's; the caption names the step and its keys;
 * the shared-memory panel lists the promoted K and V buffers. */
static void lanes_match_snapshot(const ls_view *v, const ls_view_attention *va, int64_t steps,
                                 bool merged)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_view_lanes l;
    ck_assert_msg(ls_view_lanes_build(v, &l, &d) == LS_OK, "%s", d.msg);
    ls_att_snapshot snap;
    ck_assert_msg(ls_att_snapshot_at(va->m, va->ma, va->a, ls_plan_target_from_arch("gfx942"), 1,
                                     0, steps, merged, &snap, &d) == LS_OK,
                  "%s", d.msg);
    int64_t ns = snap.state_per_thread < 4 ? snap.state_per_thread : 4;
    ck_assert_int_eq(l.rows, 2 * ns + (snap.acc_per_thread < 8 ? snap.acc_per_thread : 8));
    ck_assert_int_eq(l.total_rows, 2 * snap.state_per_thread + snap.acc_per_thread);
    ck_assert_str_eq(l.row_names[1], "sum 0");
    /* lanes 32..63 replicate 0..31 (K1's two lanes, reduced; the PV's
     * unmapped entry), and after the merge every lane lane 0 (the row's
     * values, this subgroup's N columns): striped, holding the same values */
    int64_t first = merged ? 1 : 32, of = merged ? 0 : 32;
    for (int64_t lane = 0; lane < l.lanes; lane++) {
        ck_assert_int_eq((l.flags[lane] & LS_LANE_DUP) != 0, lane >= first);
        int64_t src = merged ? of : lane - of;
        if (lane >= first)
            for (int64_t r = 0; r < l.rows; r++)
                REQUIRE(l.values[r * l.lanes + lane] == l.values[r * l.lanes + src],
                        "lane %lld row %lld differs from its replica's", (long long)lane,
                        (long long)r);
    }
    for (int64_t lane = 0; lane < l.lanes; lane++) {
        float want[3] = {snap.max[lane * snap.state_per_thread],
                         snap.sum[lane * snap.state_per_thread],
                         snap.acc[lane * snap.acc_per_thread]};
        int64_t rows[3] = {0, 1, 2 * ns};
        for (int k = 0; k < 3; k++) {
            uint32_t bits;
            memcpy(&bits, &want[k], sizeof bits);
            REQUIRE(l.values[rows[k] * l.lanes + lane] == bits, "lane %lld row %lld",
                    (long long)lane, (long long)rows[k]);
        }
    }
    ls_att_snapshot_free(&snap);
    ls_view_lanes_fini(&l);
}

/* IREE's pipeline case #2 (a partial_reduction K2 tile) for gfx942, its
 * engine view and a view stepping it on mi300x. */
typedef struct {
    ls_module *m;
    ls_attention a;
    ls_hw hw;
    ls_att_view *av;
    ls_view_attention va;
    ls_view *v;
} att_fixture;

static void open_attention(att_fixture *f)
{
    char ir[8192];
    ls_diag d;
    f->m = ls_xcalloc(1, sizeof *f->m);
    pipeline_ir(ir, sizeof ir, "partial_reduction", true);
    ck_assert_msg(build_attention(ir, "gfx942", f->m, &f->a, &d) == LS_OK, "%s", d.msg);
    ck_assert(ls_hw_load("mi300x", &f->hw, &d) == LS_OK);
    ck_assert_msg(ls_attention_view(f->m, &f->m->attentions[0], &f->a, &f->hw, &f->av, &d) ==
                      LS_OK,
                  "%s", d.msg);
    f->va = (ls_view_attention){f->m, &f->m->attentions[0], &f->a, f->av};
    ls_view_config c = {.plan = ls_att_view_plan(f->av), .hw = &f->hw, .in = {1, NULL, {NULL}},
                        .width = 1000, .height = 700, .ui_scale = 1, .attention = &f->va};
    ck_assert_msg(ls_view_new(&c, &f->v, &d) == LS_OK, "%s", d.msg);
}

static void close_attention(att_fixture *f)
{
    ls_view_free(f->v);
    ls_att_view_free(f->av);
    free(f->m);
    ls_viz_shutdown();
}

START_TEST(attention_steps_its_values)
{
    char cap[2048];
    ls_diag d;
    att_fixture f;
    open_attention(&f);
    ls_view *v = f.v;
    ls_view_attention va = f.va;
    ls_view_caption(v, cap, sizeof cap);
    ck_assert_msg(strstr(cap, "Each of its 32 K2 steps brings 128 keys"), "%s", cap);
    lanes_match_snapshot(v, &va, 0, false);
    ck_assert_int_ge(ls_view_action(v, "right", &d), 0);
    ls_view_caption(v, cap, sizeof cap);
    ck_assert_msg(strstr(cap, "K2 step 1 of 32 (keys 0..127): subgroup"), "%s", cap);
    /* on to subgroup 0's fourth step: 3 completed */
    while (ls_stepper_point(ls_view_stepper(v), 0).iterations < 3)
        ck_assert(ls_view_action(v, "shift+right", &d) >= 0);
    lanes_match_snapshot(v, &va, 3, false);
    ls_view_lanes l;
    ck_assert(ls_view_lanes_build(v, &l, &d) == LS_OK);
    ck_assert_msg(strstr(l.step_name, "after 3 of 32 K2 steps (128 keys a step)"), "%s",
                  l.step_name);
    ls_view_lanes_fini(&l);
    ls_figure fig;
    ls_chart chart;
    memset(&fig, 0, sizeof fig);
    memset(&chart, 0, sizeof chart);
    ck_assert(ls_view_panel_build(v, LS_VIEW_SMEM, &fig, &chart, &d) == LS_OK);
    ck_assert_msg(strstr(fig.title, "workgroup memory of @attention_20x1x64x4096x64"), "%s",
                  fig.title);
    ck_assert_msg(strstr(fig.notes[0], "key %k, promoted: memref<"), "%s", fig.notes[0]);
    ls_figure_free(&fig);
    ls_chart_free(&chart);
    ck_assert(ls_view_action(v, "end", &d) >= 0);
    lanes_match_snapshot(v, &va, 32, true);
    close_attention(&f);
}
END_TEST

/* The shared-memory panel of a promoted reduction with no cross-subgroup
 * buffer (IREE's @matvec_fp16_promote_rhs on mi300x): its workgroup
 * memory is the promoted buffer, so the panel says so -- the buffer, the
 * copy, its accesses as the backend compiles them (one ds_write_b128 a
 * copy vector, one ds_read_b128 a compute read) -- and shows the
 * barriers, never "no shared memory". */
START_TEST(promoted_buffer_in_the_smem_panel)
{
    fixture f;
    ls_diag d;
    open_example(&f, "../tests/corpus/matvec_promote_gfx942.mlir", 1280, 800);
    ck_assert(f.plan.promote[1].on && !f.plan.cross_subgroup);
    ls_figure fig;
    ls_chart chart;
    memset(&fig, 0, sizeof fig);
    memset(&chart, 0, sizeof chart);
    ls_diag_clear(&d);
    ck_assert(ls_view_panel_build(f.v, LS_VIEW_SMEM, &fig, &chart, &d) == LS_OK);
    ck_assert_msg(strstr(fig.title, "workgroup memory of @matvec_fp16_promote_rhs"), "%s",
                  fig.title);
    ck_assert_int_eq(fig.n_notes, 3);
    ck_assert_msg(strstr(fig.notes[0], "%prom1: input 1 %4 promoted, memref<4x516xf16"), "%s",
                  fig.notes[0]);
    ck_assert_msg(strstr(fig.notes[1], "a copy store is 1 access of 16 bytes, a compute read 1 "
                                       "of 16"),
                  "%s", fig.notes[1]);
    ck_assert_int_eq(fig.n_panels, 1); /* the barrier */
    ls_figure_free(&fig);
    ls_chart_free(&chart);
    close_fixture(&f);
}
END_TEST

/* Whether red is one of reduction r's gpu.subgroup_reduce ops. */
static bool one_of(const ls_att_reduction *r, const ls_subgroup_reduce *red)
{
    for (int j = 0; j < r->n; j++)
        if (red == &r->lane[j])
            return true;
    return r->cross && red == &r->back;
}

/* The lanes panel draws arcs exactly while the subgroup's latest
 * instruction is a gpu.subgroup_reduce step: in the K2 loop QK's over K1's
 * lanes, in the merge the max, sum and acc's over K2's; each names its
 * round, and its partners are what that reduce's step does. */
START_TEST(attention_reduce_steps_draw_arcs)
{
    ls_diag d;
    att_fixture f;
    open_attention(&f);
    ls_view *v = f.v;
    ls_att_plan ap;
    ls_att_plan_of(f.m, &f.m->attentions[0], f.av, &ap);
    ls_view_state st;
    ls_view_get_state(v, &st);
    int in_loop = 0, in_merge = 0, plain = 0;
    for (int64_t i = 0; i < st.length; i++) {
        ck_assert(ls_view_action(v, "right", &d) >= 0);
        const ls_engine_record *r = ls_stepper_record(ls_view_stepper(v), ls_view_latest(v, 0));
        bool reduce = r && r->kind == LS_REC_ISSUE && r->reduce != NULL;
        bool loop = reduce && r->stage == LS_STAGE_LOAD_ACCUMULATE;
        /* a snapshot per K2 step is costly: the first step's and the merge's */
        if ((loop && r->iteration > 0) || (!reduce && plain >= 40))
            continue;
        ls_view_lanes l;
        ck_assert_msg(ls_view_lanes_build(v, &l, &d) == LS_OK, "%s", d.msg);
        REQUIRE((l.n_arcs > 0) == reduce, "position %lld: %lld arcs, reduce %d", (long long)i,
                (long long)l.n_arcs, reduce);
        if (!reduce) {
            plain++;
            ls_view_lanes_fini(&l);
            continue;
        }
        const ls_att_kernel *k = ap.k;
        if (loop) {
            REQUIRE(one_of(&k->k1_red, r->reduce), "position %lld: not QK's K1 reduce", (long long)i);
            in_loop++;
        } else {
            REQUIRE(one_of(&k->qk2_red, r->reduce) || one_of(&k->pv2_red, r->reduce),
                    "position %lld: not a K2 reduce of the merge", (long long)i);
            in_merge++;
        }
        ls_view_arc want[128];
        int64_t nw = ls_view_step_arcs(r->reduce, r->step, l.lanes, want);
        ck_assert_int_eq(l.n_arcs, nw);
        for (int64_t j = 0; j < nw; j++)
            REQUIRE(l.arcs[j].dst == want[j].dst && l.arcs[j].src == want[j].src &&
                        (l.flags[want[j].dst] & LS_LANE_WRITTEN),
                    "position %lld arc %lld", (long long)i, (long long)j);
        const ls_reduce_step *rs = &r->reduce->steps[r->step];
        char round[128];
        int w = snprintf(round, sizeof round, "(cluster %lld, stride %lld) round %d of %d: ",
                         (long long)r->reduce->cluster_size, (long long)r->reduce->cluster_stride,
                         r->step + 1, r->reduce->n_steps);
        if (rs->kind == LS_STEP_SHUFFLE_XOR) {
            snprintf(round + w, sizeof round - (size_t)w, "shuffle xor %lld", (long long)rs->offset);
            for (int64_t j = 0; j < nw; j++) /* the butterfly's partner */
                REQUIRE(want[j].src == (want[j].dst ^ rs->offset), "arc %lld -> %lld, xor %lld",
                        (long long)want[j].src, (long long)want[j].dst, (long long)rs->offset);
        } else {
            snprintf(round + w, sizeof round - (size_t)w, "%s",
                     rs->kind == LS_STEP_DPP       ? "DPP"
                     : rs->kind == LS_STEP_SWIZZLE ? "swizzle"
                                                   : "readlane");
        }
        REQUIRE(strstr(l.step_name, round) != NULL, "'%s' lacks '%s'", l.step_name, round);
        ls_view_lanes_fini(&l);
    }
    ck_assert_msg(in_loop > 0 && in_merge > 0 && plain > 0, "%d in the loop, %d in the merge, %d plain",
                  in_loop, in_merge, plain);
    close_attention(&f);
}
END_TEST

static Suite *view_steps_suite(void)
{
    Suite *s = suite_create("view_steps");
    TCase *tc = tcase_create("view_steps");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_kind_of_step_has_its_caption);
    tcase_add_test(tc, hoisted_load_has_its_caption);
    tcase_add_test(tc, special_function_steps_have_their_caption);
    tcase_add_test(tc, accumulate_captions_say_how_it_is_lowered);
    tcase_add_test(tc, accumulate_caption_names_a_tree_fold);
    tcase_add_test(tc, dpp_steps_say_how_llvm_compiles_them);
    tcase_add_test(tc, attention_steps_its_values);
    tcase_add_test(tc, attention_reduce_steps_draw_arcs);
    tcase_add_test(tc, promoted_buffer_in_the_smem_panel);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(view_steps_suite)
