/* test_view.c: `lanescope view` without a window.  Scripted key sequences
 * are checked for the state after every key against a second stepper moved
 * by hand; stepping forward N and back N must redraw identical pixels in
 * every panel; the lanes panel must show exactly ls_stepper_snapshot's
 * values; every drawn butterfly arc of an XOR round must join lanes i and
 * i ^ stride (and DPP arcs the lanes the DPP control names); a hover over a
 * tile cell must name the owner ls_owner_of names (what `explain` prints);
 * saved frames are read back through png_image and checked pixel by pixel.
 * The captions and an attention's steps: test_view_steps.c. */
#include <png.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view_util.h"

/* ------------------------------------------------------------ keys */

START_TEST(keys_move_like_the_stepper)
{
    fixture f;
    open_example2(&f, 900, 600);
    ls_diag diag;
    ls_stepper *ref;
    ls_input_source in = {1, NULL, {NULL}};
    ck_assert_int_eq(ls_stepper_new(&f.plan, &f.hw, in, 0, &ref, &diag), LS_OK);
    ck_assert_int_eq(state(&f).position, -1);
    ck_assert_int_gt(state(&f).length, 100);
    /* right, n, shift+right, left: the stepper's own units */
    static const struct {
        const char *key;
        bool fwd;
        ls_step_unit unit;
    } steps[] = {{"right", true, LS_STEP_EVENT},        {"n", true, LS_STEP_EVENT},
                 {"shift+right", true, LS_STEP_INSTRUCTION}, {"right", true, LS_STEP_EVENT},
                 {"left", false, LS_STEP_EVENT},        {"shift+left", false, LS_STEP_INSTRUCTION},
                 {"shift+right", true, LS_STEP_INSTRUCTION}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        act(&f, steps[i].key);
        if (steps[i].fwd)
            ls_stepper_forward(ref, steps[i].unit);
        else
            ls_stepper_back(ref, steps[i].unit);
        ls_view_state s = state(&f);
        ck_assert_int_eq(s.position, ls_stepper_position(ref));
        const ls_engine_record *r = ls_stepper_record(ref, s.position);
        ck_assert_int_eq(s.cycle, r->cycle);
        ck_assert_int_eq(s.stage, r->stage);
        ck_assert_int_eq(s.subgroup, 0);
        ck_assert_int_eq(s.workgroup, 0);
    }
    /* ctrl+right: the selected subgroup's next stage, in order */
    act(&f, "home");
    ck_assert_int_eq(state(&f).position, -1);
    int last_stage = -1;
    for (int k = 0; k < 8; k++) {
        int64_t before = state(&f).position;
        act(&f, "ctrl+right");
        ls_view_state s = state(&f);
        if (s.position == before)
            break;
        ck_assert_int_eq(s.record->subgroup, 0);
        ck_assert_int_gt((int)s.stage, last_stage);
        last_stage = (int)s.stage;
    }
    ck_assert_int_eq(last_stage, LS_STAGE_STORE);
    /* and back: ctrl+left lands on the first record of the earlier stage */
    act(&f, "ctrl+left");
    ls_view_state s = state(&f);
    ck_assert_int_lt((int)s.stage, LS_STAGE_STORE);
    for (int64_t j = s.position - 1; j >= 0; j--) {
        const ls_engine_record *r = ls_stepper_record(ls_view_stepper(f.v), j);
        if (r->subgroup == 0) {
            ck_assert_int_ne(r->stage, s.stage);
            break;
        }
    }
    ls_stepper_free(ref);
    close_fixture(&f);
}
END_TEST

START_TEST(setting_keys_change_the_view)
{
    fixture f;
    open_example2(&f, 900, 600);
    ls_diag diag;
    act(&f, "ctrl+right");
    act(&f, "ctrl+right");
    /* subgroups wrap, workgroups clamp and keep the position */
    act(&f, "]");
    ck_assert_int_eq(state(&f).subgroup, 1);
    act(&f, "]");
    ck_assert_int_eq(state(&f).subgroup, 0);
    act(&f, "[");
    ck_assert_int_eq(state(&f).subgroup, 1);
    int64_t pos = state(&f).position;
    act(&f, "}");
    ck_assert_int_eq(state(&f).workgroup, 1);
    ck_assert_int_eq(state(&f).position, pos);
    ck_assert_int_eq(ls_stepper_record(ls_view_stepper(f.v), pos)->workgroup, 1);
    act(&f, "{");
    act(&f, "{");
    ck_assert_int_eq(state(&f).workgroup, 0);
    act(&f, "end");
    ck_assert_int_eq(state(&f).position, state(&f).length - 1);
    act(&f, "right");
    ck_assert_int_eq(state(&f).position, state(&f).length - 1);
    act(&f, "home");
    ck_assert_int_eq(state(&f).position, -1);
    /* panels, zoom, playback, help */
    act(&f, "tab");
    ck_assert_int_eq(state(&f).panel, LS_VIEW_LANES);
    act(&f, "shift+tab");
    act(&f, "shift+tab");
    ck_assert_int_eq(state(&f).panel, LS_VIEW_GPU);
    act(&f, "4");
    ck_assert_int_eq(state(&f).panel, LS_VIEW_TIMELINE);
    act(&f, "+");
    ck_assert(state(&f).zoom > 1.2 && state(&f).zoom < 1.3);
    act(&f, "pan 10,-4");
    ck_assert(state(&f).pan_x == 10 && state(&f).pan_y == -4);
    act(&f, "0");
    ck_assert(state(&f).zoom == 1 && state(&f).pan_x == 0);
    double sp = state(&f).speed;
    act(&f, ">");
    ck_assert(state(&f).speed > sp);
    act(&f, "space");
    ck_assert(state(&f).playing);
    ck_assert(ls_view_tick(f.v));
    ck_assert_int_eq(state(&f).position, 0);
    act(&f, "space");
    ck_assert(!state(&f).playing);
    act(&f, "?");
    ck_assert(state(&f).help);
    ck_assert_int_eq(act(&f, "s"), LS_VIEW_SAVE);
    ck_assert_int_eq(act(&f, "q"), LS_VIEW_QUIT);
    act(&f, "resize 640x480");
    ck_assert(state(&f).width == 640 && state(&f).height == 480);
    /* unknown names change nothing */
    ls_view_state before = state(&f);
    ls_diag_clear(&diag);
    ck_assert_int_eq(ls_view_action(f.v, "ctrl+up", &diag), LS_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(diag.msg, "ctrl+up"));
    ck_assert_int_eq(ls_view_action(f.v, "resize 10x10", &diag), LS_ERR_USAGE);
    ck_assert_int_eq(state(&f).position, before.position);
    ck_assert_int_eq(state(&f).width, 640);
    ck_assert(!ls_view_action_valid("hover 1"));
    ck_assert(ls_view_action_valid("hover 1,2"));
    ck_assert(!ls_view_action_valid("7"));
    close_fixture(&f);
}
END_TEST

/* ------------------------------------------------------------ pixels */

static bool same_pixels(cairo_surface_t *a, cairo_surface_t *b)
{
    int h = cairo_image_surface_get_height(a), stride = cairo_image_surface_get_stride(a);
    return cairo_image_surface_get_height(b) == h && cairo_image_surface_get_stride(b) == stride &&
           memcmp(cairo_image_surface_get_data(a), cairo_image_surface_get_data(b),
                  (size_t)h * (size_t)stride) == 0;
}

START_TEST(forward_then_back_redraws_the_same_pixels)
{
    fixture f;
    open_example2(&f, 960, 600);
    act(&f, "ctrl+right");
    act(&f, "ctrl+right"); /* into the subgroup reduce: arcs, values, highlights */
    for (int p = 1; p <= LS_VIEW_PANELS; p++) {
        char key[4];
        snprintf(key, sizeof key, "%d", p);
        act(&f, key);
        act(&f, "hover 300,300");
        cairo_surface_t *a = ls_view_render_image(f.v);
        for (int i = 0; i < 23; i++)
            act(&f, "right");
        cairo_surface_t *moved = ls_view_render_image(f.v);
        for (int i = 0; i < 23; i++)
            act(&f, "left");
        cairo_surface_t *b = ls_view_render_image(f.v);
        ck_assert_msg(!same_pixels(a, moved), "panel %d: 23 steps changed nothing", p);
        ck_assert_msg(same_pixels(a, b), "panel %d: forward 23, back 23 differs", p);
        cairo_surface_destroy(a);
        cairo_surface_destroy(moved);
        cairo_surface_destroy(b);
    }
    close_fixture(&f);
}
END_TEST

/* ------------------------------------------------------------ lanes */

START_TEST(lanes_show_the_snapshot)
{
    fixture f;
    open_example2(&f, 960, 600);
    int64_t n = state(&f).length;
    int checked = 0;
    for (int64_t target = -1; target < n; target += 29) {
        while (state(&f).position < target)
            act(&f, "right");
        for (int sg = 0; sg < 2; sg++) {
            if (state(&f).subgroup != sg)
                act(&f, "]");
            ls_diag diag;
            ls_diag_clear(&diag);
            ls_view_lanes l;
            ls_func_snapshot snap;
            ck_assert_int_eq(ls_view_lanes_build(f.v, &l, &diag), LS_OK);
            ck_assert_int_eq(ls_stepper_snapshot(ls_view_stepper(f.v), sg, &snap, &diag), LS_OK);
            ck_assert_int_eq(l.lanes, 64);
            ck_assert_int_eq(l.total_rows, snap.per_thread);
            ck_assert_int_eq(l.accumulators, snap.accumulators);
            for (int64_t r = 0; r < l.rows; r++)
                for (int64_t ln = 0; ln < l.lanes; ln++)
                    REQUIRE(l.values[r * l.lanes + ln] ==
                                snap.values[(sg * 64 + ln) * snap.per_thread + r],
                            "position %lld subgroup %d lane %lld row %lld", (long long)target, sg,
                            (long long)ln, (long long)r);
            checked++;
            ls_func_snapshot_free(&snap);
            ls_view_lanes_fini(&l);
        }
    }
    ck_assert_int_gt(checked, 10);
    /* after the whole butterfly (xor 4, 8, 16, 32 of a 16-lane cluster with
     * stride 4) the lanes of each cluster agree: lane l and l ^ 4k */
    act(&f, "home");
    act(&f, "ctrl+right");
    act(&f, "ctrl+right");
    act(&f, "ctrl+right"); /* subgroup 0 leaves the subgroup reduce */
    ls_diag diag;
    ls_view_lanes l;
    ck_assert_int_eq(ls_view_lanes_build(f.v, &l, &diag), LS_OK);
    for (int64_t ln = 0; ln < 64; ln++)
        ck_assert(l.values[ln] == l.values[ln % 4]);
    ls_view_lanes_fini(&l);
    close_fixture(&f);
}
END_TEST

START_TEST(xor_arcs_join_partners)
{
    fixture f;
    open_example2(&f, 960, 600);
    act(&f, "2");
    int rounds_seen = 0, n = (int)state(&f).length;
    for (int i = 0; i < n; i++) {
        act(&f, "right");
        ls_diag diag;
        ls_view_lanes l;
        ck_assert_int_eq(ls_view_lanes_build(f.v, &l, &diag), LS_OK);
        const ls_engine_record *r =
            ls_stepper_record(ls_view_stepper(f.v), ls_view_latest(f.v, 0));
        bool in_reduce = r && r->kind == LS_REC_ISSUE && r->step >= 0 &&
                         (r->stage == LS_STAGE_SUBGROUP_REDUCE || r->stage == LS_STAGE_CROSS_SUBGROUP);
        ck_assert_int_eq(l.n_arcs > 0, in_reduce);
        if (in_reduce) {
            const ls_subgroup_reduce *red = r->stage == LS_STAGE_SUBGROUP_REDUCE
                                                ? &f.plan.subgroup_reduces[0]
                                                : &f.plan.cross_reduce;
            int64_t stride = red->steps[r->step].offset;
            ck_assert_int_eq(l.n_arcs, 64); /* every lane receives */
            for (int64_t k = 0; k < l.n_arcs; k++)
                REQUIRE(l.arcs[k].src == (l.arcs[k].dst ^ stride),
                        "round %d: arc %lld -> %lld, stride %lld", r->step + 1,
                        (long long)l.arcs[k].src, (long long)l.arcs[k].dst, (long long)stride);
            char want[64];
            snprintf(want, sizeof want, "round %d of %d: shuffle xor %lld", r->step + 1,
                     red->n_steps, (long long)stride);
            ck_assert_msg(strstr(l.step_name, want), "%s", l.step_name);
            rounds_seen++;
        }
        ls_view_lanes_fini(&l);
    }
    ck_assert_int_ge(rounds_seen, 2 * (4 + 1) * 4); /* 2 records per round, 4 slots */
    close_fixture(&f);
}
END_TEST

/* A stride-1 cluster of 64 on an AMD model: DPP steps, then readlane. */
static const char *dpp_text =
    "#config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = "
    "[0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>\n"
    "#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
    "workgroup_size = [64, 1, 1] subgroup_size = 64>\n"
    "func.func @dpp_sum(%in: tensor<2x512xf32>) -> tensor<2xf32> attributes {translation_info "
    "= #translation} {\n"
    "  %cst = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<2xf32>\n"
    "  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, "
    "d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%in : tensor<2x512xf32>) "
    "outs(%f : tensor<2xf32>) attrs = {lowering_config = #config} {\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %s = arith.addf %a, %b : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<2xf32>\n"
    "  return %r : tensor<2xf32>\n"
    "}\n";

START_TEST(dpp_arcs_follow_the_control)
{
    ls_diag diag;
    fixture f;
    ls_module *m = load_text(dpp_text, &diag);
    ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
    open_module(&f, m, 960, 600);
    const ls_subgroup_reduce *red = &f.plan.subgroup_reduces[0];
    ck_assert(red->dpp);
    ls_view_arc arcs[128];
    int dpp_steps = 0;
    for (int s = 0; s < red->n_steps; s++) {
        const ls_reduce_step *st = &red->steps[s];
        int64_t n = ls_view_step_arcs(red, s, 64, arcs);
        if (st->kind != LS_STEP_DPP)
            continue;
        dpp_steps++;
        for (int64_t k = 0; k < n; k++) {
            int64_t d = arcs[k].dst, src = arcs[k].src, want = -1;
            switch (st->dpp) {
            case LS_DPP_QUAD_PERM_1032: want = d ^ 1; break;
            case LS_DPP_QUAD_PERM_2301: want = d ^ 2; break;
            case LS_DPP_ROW_HALF_MIRROR: want = (d & ~7) | (7 - (d & 7)); break;
            case LS_DPP_ROW_MIRROR: want = (d & ~15) | (15 - (d & 15)); break;
            case LS_DPP_ROW_BCAST_15: want = (d / 16) * 16 - 1; break;
            case LS_DPP_ROW_BCAST_31: want = 31; break;
            default: want = src;
            }
            REQUIRE(src == want, "DPP %s: %lld <- %lld, expected %lld",
                    ls_plan_dpp_name(st->dpp), (long long)d, (long long)src, (long long)want);
        }
        if (st->dpp == LS_DPP_ROW_BCAST_15)
            ck_assert_int_eq(n, 32); /* rows 1 and 3 only */
        else if (st->dpp == LS_DPP_QUAD_PERM_1032)
            ck_assert_int_eq(n, 64);
    }
    ck_assert_int_ge(dpp_steps, 4);
    /* the lanes panel names the DPP step it draws */
    act(&f, "2");
    bool named = false;
    for (int i = 0; i < 400 && !named; i++) {
        act(&f, "right");
        ls_view_lanes l;
        ck_assert_int_eq(ls_view_lanes_build(f.v, &l, &diag), LS_OK);
        named = strstr(l.step_name, "DPP step 1 of") && strstr(l.step_name, "quad_perm");
        ls_view_lanes_fini(&l);
    }
    ck_assert(named);
    close_fixture(&f);
}
END_TEST

/* ------------------------------------------------------------ hover */

/* The pixel at the middle of tile cell (r, c). */
static void tile_cell_pixel(fixture *f, int r, int c, double *px, double *py)
{
    ls_figure fig;
    ls_chart chart;
    ls_diag diag;
    ck_assert_int_eq(ls_view_panel_build(f->v, LS_VIEW_TILE, &fig, &chart, &diag), LS_OK);
    double w, h, x, y, cw, ch;
    ls_figure_size(&fig, &w, &h);
    ls_figure_cell_rect(&fig, 0, r, c, &x, &y, &cw, &ch);
    ls_view_frame fr;
    ls_view_frame_of(f->v, w, h, &fr);
    *px = fr.ox + (x + cw / 2) * fr.scale;
    *py = fr.oy + (y + ch / 2) * fr.scale;
    ls_figure_free(&fig);
}

/* Hover the middle of tile cell [r, c]; the view's hover then. */
static const ls_view_hover *hover_cell(fixture *f, int r, int c)
{
    double px, py;
    tile_cell_pixel(f, r, c, &px, &py);
    char key[64];
    snprintf(key, sizeof key, "hover %.0f,%.0f", px, py);
    act(f, key);
    return ls_view_get_hover(f->v);
}

START_TEST(hover_names_the_owner)
{
    fixture f;
    open_example2(&f, 1200, 800);
    /* the seed's statement: thread 42 works at [d0 = 2, d1 = 10] */
    const ls_view_hover *h = hover_cell(&f, 2, 10);
    ck_assert(h->valid);
    ck_assert_int_eq(h->x[0], 2);
    ck_assert_int_eq(h->x[1], 10);
    ck_assert_int_eq(h->tid, 42);
    ck_assert_ptr_nonnull(strstr(h->text, "T42"));
    /* every cell: the same owner ls_owner_of gives (explain's ownership) */
    ls_diag diag;
    for (int r = 0; r < 16; r += 3)
        for (int c = 0; c < 32; c += 5) {
            h = hover_cell(&f, r, c);
            int64_t x[2] = {r, c};
            ls_ownership own;
            ck_assert_int_eq(ls_owner_of(f.d, &f.m->problems[0], x, &own, &diag), LS_OK);
            ck_assert(h->valid);
            ck_assert_int_eq(h->tid, own.owners[0].tid);
            ck_assert_int_eq(h->subgroup, own.owners[0].subgroup);
            ck_assert_int_eq(h->lane, own.owners[0].lane);
            ck_assert_int_eq(h->reg, own.reg);
        }
    /* outside the panel area: nothing */
    act(&f, "hover 3,3");
    ck_assert(!ls_view_get_hover(f.v)->valid);
    /* lanes: the lane under the mouse, its register value from the snapshot */
    act(&f, "2");
    act(&f, "ctrl+right");
    ls_view_lanes l;
    ck_assert_int_eq(ls_view_lanes_build(f.v, &l, &diag), LS_OK);
    double lw, lh;
    ls_view_lanes_size(&l, &lw, &lh);
    ls_view_frame fr;
    ls_view_frame_of(f.v, lw, lh, &fr);
    bool found = false;
    for (double y = fr.oy; y < fr.oy + lh * fr.scale && !found; y += 2)
        for (double x = fr.ox; x < fr.ox + lw * fr.scale && !found; x += 2) {
            int64_t lane, row;
            if (ls_view_lanes_hit(&l, (x - fr.ox) / fr.scale, (y - fr.oy) / fr.scale, &lane,
                                  &row) &&
                lane == 9 && row == 0) {
                char key[64];
                snprintf(key, sizeof key, "hover %.0f,%.0f", x + 3, y + 3);
                act(&f, key);
                found = true;
            }
        }
    ck_assert(found);
    h = ls_view_get_hover(f.v);
    ck_assert(h->valid);
    ck_assert_int_eq(h->lane, 9);
    ck_assert_str_eq(h->value, l.text[9]);
    ls_view_lanes_fini(&l);
    close_fixture(&f);
}
END_TEST

/* Example 1 with a smaller middle dim and a 1024-long reduction: the tile
 * is 4 x 512 elements, drawn as 4 x 64 cells of 8 (one thread's vector). */
static const char *aggregated_ir =
    "#config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], "
    "partial_reduction = [0, 0, 512], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, "
    "8], workgroup = [4, 1, 0]}>\n"
    "#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>\n"
    "#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>\n"
    "func.func @agg(%in: tensor<4x2x1024xf32>, %init: tensor<4x2xf32>) -> tensor<4x2xf32> {\n"
    "  %r = linalg.generic {indexing_maps = [#map, #map1], iterator_types = [\"parallel\", "
    "\"parallel\", \"reduction\"]} ins(%in : tensor<4x2x1024xf32>) outs(%init : "
    "tensor<4x2xf32>) attrs = {lowering_config = #config} {\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %s = arith.addf %a, %b : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<4x2xf32>\n"
    "  return %r : tensor<4x2xf32>\n"
    "}\n";

START_TEST(aggregated_cells_show_their_values)
{
    fixture f;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = load_text(aggregated_ir, &diag);
    ck_assert_msg(diag.status == LS_OK, "%s", diag.msg);
    open_module(&f, m, 1200, 800);
    const ls_problem *p = &m->problems[0];
    ls_input_source in = {1, NULL, {NULL}};
    /* before any load: owners only */
    ls_figure fig;
    ls_view_tile t;
    ck_assert_int_eq(ls_view_tile_build(f.v, &fig, &t, &diag), LS_OK);
    ck_assert_int_eq(t.kc, 8);
    ck_assert_str_eq(fig.panels[0].cells[0].label[1], "V0-7"); /* one subgroup: no S# */
    ls_figure_free(&fig);
    /* after the first load (row 0 of the tile): the cell's first value, +7 */
    act(&f, "ctrl+right");
    ck_assert_int_eq(ls_view_tile_build(f.v, &fig, &t, &diag), LS_OK);
    const ls_grid *g = &fig.panels[0];
    for (int c = 0; c < g->cols; c += 9) {
        int64_t x[3] = {0, 0, c * 8};
        char want[48], val[40];
        ls_view_value_text(f.v, ls_problem_element(p, in, x), val, sizeof val);
        snprintf(want, sizeof want, "%s +7", val);
        ck_assert_str_eq(g->cells[c].label[1], want);
        /* ... and the cell's eight values in order */
        ls_value vals[8];
        ck_assert_int_eq(ls_view_cell_values(f.v, &t, 0, c, vals, 8), 8);
        for (int k = 0; k < 8; k++) {
            x[2] = c * 8 + k;
            ck_assert(vals[k] == ls_problem_element(p, in, x));
        }
    }
    /* row 1 is not loaded yet */
    ck_assert_ptr_null(strstr(g->cells[g->cols].label[1], "+7"));
    ls_figure_free(&fig);
    /* the hover over cell (0, 3) lists its eight values */
    const ls_view_hover *h = hover_cell(&f, 0, 3);
    char want[400] = "the cell's values:";
    for (int k = 0; k < 8; k++) {
        int64_t x[3] = {0, 0, 24 + k};
        char val[40];
        ls_view_value_text(f.v, ls_problem_element(p, in, x), val, sizeof val);
        snprintf(want + strlen(want), sizeof want - strlen(want), " %s", val);
    }
    ck_assert(h->valid);
    ck_assert_int_eq(h->x[2], 24);
    ck_assert_msg(strstr(h->text, want) != NULL, "hover '%s' lacks '%s'", h->text, want);
    close_fixture(&f);
}
END_TEST

/* The wheel zooms about the mouse: the element under it stays under it. */
START_TEST(wheel_zooms_about_the_mouse)
{
    fixture f;
    open_example2(&f, 1200, 800);
    double px, py;
    tile_cell_pixel(&f, 13, 27, &px, &py);
    char key[64];
    snprintf(key, sizeof key, "hover %.0f,%.0f", px, py);
    act(&f, key);
    ck_assert_int_eq(ls_view_get_hover(f.v)->x[1], 27);
    for (int k = 0; k < 3; k++) {
        act(&f, "wheel 2");
        act(&f, key); /* the hover is recomputed at the same pixel */
        const ls_view_hover *h = ls_view_get_hover(f.v);
        ck_assert(h->valid);
        ck_assert_int_eq(h->x[0], 13);
        ck_assert_int_eq(h->x[1], 27);
    }
    ck_assert(state(&f).zoom > 3);
    /* the cell is now drawn larger, still centred under the mouse */
    double qx, qy;
    tile_cell_pixel(&f, 13, 27, &qx, &qy);
    ck_assert(fabs(qx - px) < 0.3 * 3.8 * 12 && fabs(qy - py) < 0.3 * 3.8 * 12);
    close_fixture(&f);
}
END_TEST

/* `i` walks the tile panel through a contraction's operands: the matrix
 * (read once, each element by the thread that owns its iteration point),
 * the vector (every element read by the 4 row threads of a 16-lane group,
 * lane_basis [[4, 16], ...]), then back to the iteration space; a hover
 * names an element's readers as the picture does. */
START_TEST(i_shows_each_operand)
{
    fixture f;
    ls_diag diag;
    open_example(&f, "../tests/data/matvec_64x256_lanes4x16.mlir", 1400, 800);
    const ls_module *m = f.m;
    ck_assert_int_eq(state(&f).operand, -1);
    act(&f, "2");
    act(&f, "i");
    ck_assert_int_eq(state(&f).operand, 0);
    ck_assert_int_eq(state(&f).panel, LS_VIEW_TILE);
    ls_figure fig;
    ls_chart chart;
    ck_assert_int_eq(ls_view_panel_build(f.v, LS_VIEW_TILE, &fig, &chart, &diag), LS_OK);
    ck_assert_ptr_nonnull(strstr(fig.title, "%mat"));
    ls_figure_free(&fig);
    /* matrix element [3, 10]: one reader, the owner of iteration point [3, 10] */
    const ls_view_hover *h = hover_cell(&f, 3, 10);
    ck_assert(h->valid);
    ck_assert_int_eq(h->x[0], 3);
    ck_assert_int_eq(h->x[1], 10);
    ck_assert_int_eq(h->n_owners, 1);
    int64_t x[2] = {3, 10};
    ls_ownership own;
    ck_assert_int_eq(ls_owner_of(f.d, &m->problems[0], x, &own, &diag), LS_OK);
    ck_assert_int_eq(h->tid, own.owners[0].tid);
    ck_assert_ptr_nonnull(strstr(h->text, "input 0 %mat[3, 10]"));
    /* the vector: one row; element 10 read by 4 threads, the lowest first */
    act(&f, "i");
    ck_assert_int_eq(state(&f).operand, 1);
    h = hover_cell(&f, 0, 10);
    ck_assert(h->valid);
    ck_assert_int_eq(h->rank, 1);
    ck_assert_int_eq(h->x[0], 10);
    ck_assert_int_eq(h->n_owners, 4);
    /* the readers differ only in their row lane (lane = row lane x 16 + the
     * d1 lane): the lowest is the matrix owner's d1 lane in row lane 0 */
    ck_assert_int_eq(own.owners[0].tid, 53);
    ck_assert_int_eq(h->tid, own.owners[0].tid % 16);
    ck_assert_ptr_nonnull(strstr(h->text, "read by 4 threads"));
    /* and back to the iteration space */
    act(&f, "i");
    ck_assert_int_eq(state(&f).operand, -1);
    close_fixture(&f);
}
END_TEST

/* One reduction per view: o / O ask the front end for another one only
 * when the dispatch has several. */
START_TEST(op_keys_ask_the_front_end)
{
    fixture f;
    open_example2(&f, 900, 600);
    ck_assert_int_eq(act(&f, "o"), 0);
    ck_assert_int_eq(act(&f, "O"), 0);
    ck_assert_int_eq(state(&f).n_ops, 1);
    /* a view made as op 1 of 3 keeps the panel and size it is given */
    ls_view_config c;
    act(&f, "3");
    act(&f, "resize 700x500");
    ls_view_config_like(f.v, &f.plan, &f.hw, (ls_input_source){1, NULL, {NULL}}, 1, &c);
    c.n_ops = 3;
    ls_view *w;
    ls_diag diag;
    ck_assert_int_eq(ls_view_new(&c, &w, &diag), LS_OK);
    ls_view_state s;
    ls_view_get_state(w, &s);
    ck_assert_int_eq(s.op, 1);
    ck_assert_int_eq(s.n_ops, 3);
    ck_assert_int_eq(s.panel, LS_VIEW_SMEM);
    ck_assert_int_eq(s.width, 700);
    ck_assert_int_eq(ls_view_action(w, "o", &diag), LS_VIEW_NEXT_OP);
    ck_assert_int_eq(ls_view_action(w, "O", &diag), LS_VIEW_PREV_OP);
    char line[400];
    ls_view_status_line(w, line, sizeof line);
    ck_assert_ptr_nonnull(strstr(line, "op 1/3"));
    ls_view_free(w);
    close_fixture(&f);
}
END_TEST

/* ------------------------------------------------------------ saved frames */

static bool holds(const char *hay, size_t n, const char *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

START_TEST(saved_frame_pixels)
{
    fixture f;
    open_example2(&f, 1000, 640);
    char dir[] = "/tmp/ls_view_XXXXXX", path[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/frame.png", dir);
    ls_diag diag;
    ls_diag_clear(&diag);
    ck_assert_int_eq(ls_view_save_png(f.v, path, &diag), LS_OK);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert(png_image_begin_read_from_file(&img, path));
    ck_assert_int_eq(img.width, 1000);
    ck_assert_int_eq(img.height, 640);
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = ls_xmalloc(PNG_IMAGE_SIZE(img));
    ck_assert(png_image_finish_read(&img, NULL, px, 0, NULL));
#define PX(x, y) (px + ((size_t)(y) * 1000 + (size_t)(x)) * 3)
    /* status bar: dark slate; caption box: cream (view.c's colours) */
    uint8_t bar[3], cream[3];
    ls_rgb_bytes((ls_rgb){0.16, 0.18, 0.22}, bar);
    ls_rgb_bytes((ls_rgb){1.0, 0.98, 0.90}, cream);
    for (int k = 0; k < 3; k++) { /* cairo and lround may differ by one */
        ck_assert_int_le(abs(PX(2, 2)[k] - bar[k]), 1);
        ck_assert_int_le(abs(PX(2, 636)[k] - cream[k]), 1);
    }
    /* tile cell (0, 0) (thread 0): its fill near its lower-left corner */
    ls_figure fig;
    ls_chart chart;
    ck_assert_int_eq(ls_view_panel_build(f.v, LS_VIEW_TILE, &fig, &chart, &diag), LS_OK);
    double w, h, x, y, cw, ch;
    ls_figure_size(&fig, &w, &h);
    ls_figure_cell_rect(&fig, 0, 0, 0, &x, &y, &cw, &ch);
    ls_view_frame fr;
    ls_view_frame_of(f.v, w, h, &fr);
    int sx = (int)(fr.ox + (x + cw * 0.12) * fr.scale), sy = (int)(fr.oy + (y + ch * 0.88) * fr.scale);
    uint8_t want[3];
    ls_rgb_bytes(fig.panels[0].cells[0].fill, want);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(abs(PX(sx, sy)[k] - want[k]) <= 3, "channel %d: %d, want %d", k,
                      PX(sx, sy)[k], want[k]);
    ls_figure_free(&fig);
    /* the file holds the frame ls_view_render draws */
    cairo_surface_t *s = ls_view_render_image(f.v);
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int yy = 0; yy < 640; yy += 37)
        for (int xx = 0; xx < 1000; xx += 41) {
            uint32_t p = *(const uint32_t *)(const void *)(d + (size_t)yy * stride + 4 * xx);
            REQUIRE(PX(xx, yy)[0] == ((p >> 16) & 255) && PX(xx, yy)[1] == ((p >> 8) & 255) &&
                        PX(xx, yy)[2] == (p & 255),
                    "pixel %d,%d", xx, yy);
        }
#undef PX
    cairo_surface_destroy(s);
    free(px);
    /* the tEXt chunks of every exported picture: tool, input, what it shows */
    static char bytes[1 << 20];
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    size_t len = fread(bytes, 1, sizeof bytes, fp);
    fclose(fp);
    static const char software[] = "Software\0lanescope ", title[] = "Title\0view: tile panel of @";
    ck_assert(holds(bytes, len, software, sizeof software - 1));
    ck_assert(holds(bytes, len, title, sizeof title - 1));
    unlink(path);
    rmdir(dir);
    close_fixture(&f);
}
END_TEST

static Suite *view_suite(void)
{
    Suite *s = suite_create("view");
    TCase *tc = tcase_create("view");
    tcase_set_timeout(tc, 240); /* hundreds of frames and snapshots under the sanitizers */
    tcase_add_test(tc, keys_move_like_the_stepper);
    tcase_add_test(tc, setting_keys_change_the_view);
    tcase_add_test(tc, forward_then_back_redraws_the_same_pixels);
    tcase_add_test(tc, lanes_show_the_snapshot);
    tcase_add_test(tc, xor_arcs_join_partners);
    tcase_add_test(tc, dpp_arcs_follow_the_control);
    tcase_add_test(tc, hover_names_the_owner);
    tcase_add_test(tc, saved_frame_pixels);
    tcase_add_test(tc, aggregated_cells_show_their_values);
    tcase_add_test(tc, wheel_zooms_about_the_mouse);
    tcase_add_test(tc, op_keys_ask_the_front_end);
    tcase_add_test(tc, i_shows_each_operand);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(view_suite)
