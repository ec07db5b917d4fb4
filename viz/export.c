/* export.c: a figure or chart to a .png, .svg or .pdf file.  The picture is
 * rendered into memory first and written through ls_write_atomic, so a
 * failure never leaves a half-written file.  PNGs go through libpng (not
 * cairo's writer) to carry tEXt chunks: the tool and version, the input,
 * and what was drawn. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <cairo-svg.h>

#include "config.h"
#include "lanescope/arena.h"
#include "lanescope/atomic.h"
#include "lanescope/viz.h"
#include "viztext.h"


typedef struct {
    unsigned char *buf;
    size_t len, cap;
} membuf;

static void mem_append(membuf *m, const unsigned char *data, size_t n)
{
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < m->len + n)
            cap *= 2;
        m->buf = ls_xrealloc(m->buf, cap);
        m->cap = cap;
    }
    memcpy(m->buf + m->len, data, n);
    m->len += n;
}

static cairo_status_t cairo_to_mem(void *closure, const unsigned char *data, unsigned int n)
{
    mem_append(closure, data, n);
    return CAIRO_STATUS_SUCCESS;
}

static void png_to_mem(png_structp png, png_bytep data, png_size_t n)
{
    mem_append(png_get_io_ptr(png), data, n);
}

static void png_flush_mem(png_structp png)
{
    (void)png;
}

static void draw(cairo_t *cr, const ls_figure *fig, const ls_chart *chart)
{
    if (fig)
        ls_figure_draw(cr, fig);
    else
        ls_chart_draw(cr, chart);
}

/* The cairo image (ARGB32, opaque) as an RGB PNG with tEXt chunks. */
static bool encode_png(cairo_surface_t *s, const ls_export_opts *o, const char *title, membuf *m)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        return false;
    png_infop info = png_create_info_struct(png);
    unsigned char *row = ls_xmalloc((size_t)w * 3);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(row);
        return false;
    }
    png_set_write_fn(png, m, png_to_mem, png_flush_mem);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    char software[64];
    snprintf(software, sizeof software, "lanescope %s", PACKAGE_VERSION);
    png_text text[3];
    memset(text, 0, sizeof text);
    text[0].compression = PNG_TEXT_COMPRESSION_NONE;
    text[0].key = (png_charp) "Software";
    text[0].text = software;
    text[1].compression = PNG_TEXT_COMPRESSION_NONE;
    text[1].key = (png_charp) "Source";
    text[1].text = (png_charp)(o->input ? o->input : "");
    text[2].compression = PNG_TEXT_COMPRESSION_NONE;
    text[2].key = (png_charp) "Title";
    text[2].text = (png_charp)title;
    png_set_text(png, info, text, 3);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++) {
            row[3 * x + 0] = (unsigned char)(px[x] >> 16);
            row[3 * x + 1] = (unsigned char)(px[x] >> 8);
            row[3 * x + 2] = (unsigned char)px[x];
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    return true;
}

/* The encoded picture to path, atomically; frees it. */
static ls_status write_out(const char *path, membuf *m, ls_diag *diag)
{
    char err[512];
    int rc = ls_write_atomic(path, (const char *)m->buf, m->len, err, sizeof err);
    free(m->buf);
    m->buf = NULL;
    if (rc)
        return ls_diag_set(diag, LS_ERR_IO, "", 0, 0, "%s", err);
    return LS_OK;
}

ls_status ls_export_check_pixels(double w, double h, ls_diag *diag)
{
    if (w * h <= (double)LS_EXPORT_MAX_PIXELS && w <= LS_EXPORT_MAX_SIDE && h <= LS_EXPORT_MAX_SIDE)
        return LS_OK;
    return ls_diag_set(diag, LS_ERR_LIMIT, "--scale", 0, 0,
                       "the picture would be %.0f x %.0f pixels; the limit is %d per side and "
                       "%lld in all",
                       w, h, LS_EXPORT_MAX_SIDE, (long long)LS_EXPORT_MAX_PIXELS);
}

ls_status ls_viz_export(const char *path, const ls_figure *fig, const ls_chart *chart,
                        const ls_export_opts *o, ls_diag *diag)
{
    static const char *const names[] = {"png", "svg", "pdf"};
    enum { PNG, SVG, PDF, NONE } fmt = NONE, by_name = NONE;
    const char *dot = strrchr(path, '.');
    for (int i = PNG; i < NONE; i++) {
        if (dot && strcasecmp(dot + 1, names[i]) == 0)
            fmt = i;
        if (o->format && strcmp(o->format, names[i]) == 0)
            by_name = i;
    }
    if (o->format && by_name == NONE)
        return ls_diag_set(diag, LS_ERR_USAGE, "--format", 0, 0,
                           "expected png, svg or pdf, found '%s'", o->format);
    if (o->format && fmt != NONE && fmt != by_name)
        return ls_diag_set(diag, LS_ERR_USAGE, "--format", 0, 0,
                           "%s disagrees with the extension of %s: give one of them", o->format,
                           path);
    if (by_name != NONE)
        fmt = by_name;
    if (fmt == NONE)
        return ls_diag_set(diag, LS_ERR_USAGE, "-o", 0, 0,
                           strcmp(path, "-") == 0
                               ? "%s (standard output) has no extension to pick the format: "
                                 "give --format png, svg or pdf"
                               : "%s: the extension picks the format: .png, .svg or .pdf (or "
                                 "give --format)",
                           path);
    double w, h;
    if (fig)
        ls_figure_size(fig, &w, &h);
    else
        ls_chart_size(chart, &w, &h);
    double scale = o->scale > 0 ? o->scale : 1;
    char title[320];
    snprintf(title, sizeof title, "%s: %s", o->kind ? o->kind : "picture",
             fig ? fig->title : chart->title);
    membuf m = {NULL, 0, 0};
    cairo_surface_t *s;
    if (fmt == PNG) {
        double pw = ceil(w * scale), ph = ceil(h * scale);
        if (ls_export_check_pixels(pw, ph, diag) != LS_OK) {
            /* what would fit: the largest scale within both limits, or a
             * vector format, which has no pixel limit */
            double f = fmin(LS_EXPORT_MAX_SIDE / pw, LS_EXPORT_MAX_SIDE / ph);
            f = fmin(f, sqrt((double)LS_EXPORT_MAX_PIXELS / (pw * ph)));
            double fit = floor(scale * f * 100) / 100;
            char msg[sizeof diag->msg], hint[96] = "draw to .svg or .pdf, which have no pixel limit";
            if (fit >= 0.25) /* --scale's least */
                snprintf(hint, sizeof hint, "--scale %.2f fits, or draw to .svg or .pdf (no pixel "
                                            "limit)",
                         fit);
            snprintf(msg, sizeof msg, "%.300s; %s", diag->msg, hint);
            ls_diag_clear(diag); /* the first error stands otherwise */
            return ls_diag_set(diag, LS_ERR_LIMIT, "--scale", 0, 0, "%s", msg);
        }
        s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)pw, (int)ph);
    } else if (fmt == SVG) {
        s = cairo_svg_surface_create_for_stream(cairo_to_mem, &m, w, h);
    } else {
        s = cairo_pdf_surface_create_for_stream(cairo_to_mem, &m, w, h);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, title);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "lanescope " PACKAGE_VERSION);
    }
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        free(m.buf);
        return ls_diag_set(diag, LS_ERR_NOMEM, path, 0, 0, "cannot create the drawing surface");
    }
    cairo_t *cr = cairo_create(s);
    if (fmt == PNG)
        cairo_scale(cr, scale, scale);
    draw(cr, fig, chart);
    cairo_status_t cst = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    bool ok = cst == CAIRO_STATUS_SUCCESS;
    if (fmt == PNG) {
        ok = ok && encode_png(s, o, title, &m);
        cairo_surface_destroy(s);
    } else {
        cairo_surface_finish(s);
        ok = ok && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
        cairo_surface_destroy(s);
    }
    if (!ok) {
        free(m.buf);
        return ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "drawing failed (%s)",
                           cairo_status_to_string(cst));
    }
    return write_out(path, &m, diag);
}

ls_status ls_viz_export_image(const char *path, cairo_surface_t *s, const ls_export_opts *o,
                              const char *title, ls_diag *diag)
{
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS ||
        cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        cairo_image_surface_get_format(s) != CAIRO_FORMAT_ARGB32)
        return ls_diag_set(diag, LS_ERR_NOMEM, path, 0, 0, "cannot create the drawing surface");
    cairo_surface_flush(s);
    membuf m = {NULL, 0, 0};
    if (!encode_png(s, o, title, &m)) {
        free(m.buf);
        return ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "PNG encoding failed");
    }
    return write_out(path, &m, diag);
}

void ls_viz_shutdown(void)
{
    ls_viz_text_shutdown();
    cairo_debug_reset_static_data();
    FcFini();
}
