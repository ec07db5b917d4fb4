/* viz_util.h: what the picture test files share: a scratch folder removed
 * by the checked fixture, PNG pixels read back through libpng, reduction 0
 * of an example derived and simulated, and the check that every string of
 * a picture stays on the canvas and clear of the others. */
#ifndef LANESCOPE_TESTS_VIZ_UTIL_H
#define LANESCOPE_TESTS_VIZ_UTIL_H

#include <dirent.h>
#include <math.h>
#include <png.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lanescope/engine.h"
#include "lanescope/viz.h"
#include "testutil.h"
#include "../viz/viztext.h"

/* middle of a traffic bar below its panel's top: 22 + bar height / 2 */
#define TRAFFIC_TEST_MID 8.5

static char tmpdir[256];

/* Checked fixture (runs in each test's process): remove the scratch folder. */
static inline void remove_tmpdir(void)
{
    ls_viz_shutdown();
    if (!tmpdir[0])
        return;
    DIR *dir = opendir(tmpdir);
    if (dir) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
        closedir(dir);
    }
    rmdir(tmpdir);
    tmpdir[0] = 0;
}

static inline const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int k;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/ls_viz_XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    }
    char *b = buf[k++ % 8];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

typedef struct {
    int w, h;
    unsigned char *px; /* RGB */
} image;

static inline image read_png(const char *path)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, path), "%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    image out = {(int)img.width, (int)img.height, malloc(PNG_IMAGE_SIZE(img))};
    ck_assert(png_image_finish_read(&img, NULL, out.px, 0, NULL));
    return out;
}

static inline void pixel(const image *im, double x, double y, uint8_t rgb[3])
{
    int ix = (int)x, iy = (int)y;
    ck_assert(ix >= 0 && ix < im->w && iy >= 0 && iy < im->h);
    memcpy(rgb, im->px + ((size_t)iy * (size_t)im->w + (size_t)ix) * 3, 3);
}

/* The colour at an inset corner of a cell (away from its label and borders). */
static inline void cell_pixel(const ls_figure *f, const image *im, int panel, int r, int c, double scale,
                       uint8_t rgb[3])
{
    double x, y, w, h;
    ls_figure_cell_rect(f, panel, r, c, &x, &y, &w, &h);
    pixel(im, (x + 4) * scale, (y + 4) * scale, rgb);
}

static inline void assert_colour(const uint8_t got[3], ls_rgb want, int tol)
{
    uint8_t w[3];
    ls_rgb_bytes(want, w);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(abs(got[i] - w[i]) <= tol, "pixel %d,%d,%d != expected %d,%d,%d", got[0],
                      got[1], got[2], w[0], w[1], w[2]);
}

static inline ls_cell *cell(ls_figure *f, int panel, int r, int c)
{
    ls_grid *g = &f->panels[panel];
    ck_assert(r < g->rows && c < g->cols);
    return &g->cells[r * g->cols + c];
}

static inline void export_png(const char *path, const ls_figure *f, const ls_chart *c, double scale)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_export_opts o = {"test-input.mlir", "test", scale, NULL};
    ck_assert_msg(ls_viz_export(path, f, c, &o, &d) == LS_OK, "%s", d.msg);
}

/* Load reduction 0 of an example, derive it. */
static inline ls_module *derive_example(const char *name, ls_derived *dv)
{
    ls_diag d;
    ls_module *m = load_example(name, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_derive(&m->problems[0], dv, &d) == LS_OK, "%s", d.msg);
    return m;
}

static inline ls_layout_view default_view(void)
{
    ls_layout_view v;
    memset(&v, 0, sizeof v);
    v.dim_row = v.dim_col = -1;
    v.thread = -1;
    return v;
}

/* Example 2's layout figure for view v; the module is returned for freeing. */
static inline ls_module *example2_layout(const ls_layout_view *v, ls_figure *f)
{
    ls_derived dv;
    ls_module *m = derive_example("seed000_example2.mlir", &dv);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_viz_layout(&m->problems[0], &dv, v, f, &d) == LS_OK, "%s", d.msg);
    return m;
}

static inline void simulate(const char *name, ls_module **m, ls_derived *dv, ls_plan *plan, ls_hw *hw,
                     ls_sim_result *r, ls_trace *tr)
{
    ls_diag d;
    ls_diag_clear(&d);
    *m = derive_example(name, dv);
    ck_assert(ls_hw_load("mi300x", hw, &d) == LS_OK);
    ck_assert(ls_plan_build(&(*m)->problems[0], dv, ls_plan_target_from_arch(hw->arch), plan,
                            &d) == LS_OK);
    ls_engine_opts eo = {.trace = tr};
    ck_assert(ls_engine_run(plan, hw, r, &eo, &d) == LS_OK);
}

/* Every string of a picture inside the canvas and clear of every other, at
 * scales 1, 2 and 4: the logical boxes (advance x ascent+descent) the text
 * layer records, in device pixels, with 0.5 pixel of slack. */
static inline void assert_text_fits(const char *name, const ls_figure *f, const ls_chart *c)
{
    static ls_viz_text_box boxes[8192];
    const double scales[] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        ls_viz_text_record(boxes, sizeof boxes / sizeof boxes[0], &n);
        const char *png = tmp_path("fits.png");
        export_png(png, f, c, scales[k]);
        ls_viz_text_record(NULL, 0, NULL);
        ck_assert_msg(n > 0 && n < sizeof boxes / sizeof boxes[0], "%s: %zu strings", name, n);
        double w, h;
        if (f)
            ls_figure_size(f, &w, &h);
        else
            ls_chart_size(c, &w, &h);
        w = ceil(w * scales[k]);
        h = ceil(h * scales[k]);
        for (size_t i = 0; i < n; i++) {
            const ls_viz_text_box *b = &boxes[i];
            ck_assert_msg(b->x0 >= -0.5 && b->y0 >= -0.5 && b->x1 <= w + 0.5 && b->y1 <= h + 0.5,
                          "%s at %gx: '%s' [%.1f,%.1f]-[%.1f,%.1f] leaves the %gx%g canvas", name,
                          scales[k], b->text, b->x0, b->y0, b->x1, b->y1, w, h);
            for (size_t j = i + 1; j < n; j++) {
                const ls_viz_text_box *o = &boxes[j];
                double ox = fmin(b->x1, o->x1) - fmax(b->x0, o->x0);
                double oy = fmin(b->y1, o->y1) - fmax(b->y0, o->y0);
                ck_assert_msg(ox <= 0.5 || oy <= 0.5,
                              "%s at %gx: '%s' and '%s' overlap by %.1f x %.1f pixels", name,
                              scales[k], b->text, o->text, ox, oy);
            }
        }
    }
}

#endif
