/* viztext.c: measuring and placing text for the renderers, through pango
 * (pangocairo): real font metrics, fallback fonts for characters DejaVu
 * Sans lacks, and Unicode shaping, where cairo's toy API had none of them.
 *
 * Text is measured on one surface (a 1x1 scratch image, for a figure's
 * size) and drawn on another (a PNG at 0.25..8 pixels a point, SVG, PDF,
 * the window).  Hinted metrics, or glyph positions rounded to whole device
 * pixels, would make widths measured at one scale wrong at another (a
 * subtitle sized at 1x clipped at 4x); metrics are unhinted and positions
 * unrounded, so they scale exactly. */
#include <glib.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <stdio.h>
#include <string.h>

#include "viztext.h"

/* One font map, pango context and layout per thread that draws (one, in
 * practice): made on first use, updated to each cairo context's transform
 * before a string is measured or drawn, freed by ls_viz_text_shutdown.  The
 * font map is lanescope's own, not pango's per-thread default, so freeing
 * it releases every font it loaded (and their cairo fonts) for certain. */
static _Thread_local PangoFontMap *fontmap;
static _Thread_local PangoContext *ctx;
static _Thread_local PangoLayout *layout;

static PangoLayout *prepare(cairo_t *cr, const char *s, double pt, bool bold)
{
    if (ctx == NULL) {
        fontmap = pango_cairo_font_map_new();
        ctx = pango_font_map_create_context(fontmap);
        cairo_font_options_t *o = cairo_font_options_create();
        cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
        cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
        pango_cairo_context_set_font_options(ctx, o);
        cairo_font_options_destroy(o);
        pango_context_set_round_glyph_positions(ctx, FALSE);
        layout = pango_layout_new(ctx);
    }
    pango_cairo_update_context(cr, ctx);
    pango_layout_context_changed(layout);
    PangoFontDescription *fd = pango_font_description_from_string(LS_VIZ_FONT);
    pango_font_description_set_weight(fd, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    /* absolute: in the cairo context's user units, the renderers' points */
    pango_font_description_set_absolute_size(fd, pt * PANGO_SCALE);
    pango_layout_set_font_description(layout, fd);
    pango_font_description_free(fd);
    /* Names come from the user's IR and file names: pango takes UTF-8 only
     * (and complains on stderr otherwise), so an invalid byte is drawn as
     * U+FFFD instead. */
    if (g_utf8_validate(s, -1, NULL)) {
        pango_layout_set_text(layout, s, -1);
    } else {
        gchar *valid = g_utf8_make_valid(s, -1);
        pango_layout_set_text(layout, valid, -1);
        g_free(valid);
    }
    return layout;
}

double ls_viz_text_w(cairo_t *cr, const char *s, double pt, bool bold)
{
    PangoRectangle logical;
    pango_layout_get_extents(prepare(cr, s, pt, bold), NULL, &logical);
    return (double)logical.width / PANGO_SCALE;
}

/* The recorder a test installs (ls_viz_text_record); NULL: none.  One
 * process draws one picture at a time, so a plain static does. */
static ls_viz_text_box *rec_boxes;
static size_t rec_cap, *rec_n;

void ls_viz_text_record(ls_viz_text_box *boxes, size_t cap, size_t *n)
{
    rec_boxes = boxes;
    rec_cap = cap;
    rec_n = n;
    if (n)
        *n = 0;
}

/* The string's logical box (its layout's logical rectangle, top at ytop)
 * in device pixels: the bounding box of its four corners, so rotated
 * labels count too. */
static void record(cairo_t *cr, const char *s, double x0, double ytop, double w, double h)
{
    if (rec_boxes == NULL || *rec_n >= rec_cap)
        return;
    double cx[4] = {x0, x0 + w, x0, x0 + w}, cy[4] = {ytop, ytop, ytop + h, ytop + h};
    ls_viz_text_box *b = &rec_boxes[(*rec_n)++];
    for (int i = 0; i < 4; i++) {
        cairo_user_to_device(cr, &cx[i], &cy[i]);
        if (i == 0 || cx[i] < b->x0)
            b->x0 = cx[i];
        if (i == 0 || cx[i] > b->x1)
            b->x1 = cx[i];
        if (i == 0 || cy[i] < b->y0)
            b->y0 = cy[i];
        if (i == 0 || cy[i] > b->y1)
            b->y1 = cy[i];
    }
    snprintf(b->text, sizeof b->text, "%s", s);
}

void ls_viz_text_at(cairo_t *cr, const char *s, double x, double y, double pt, bool bold,
                    double align)
{
    PangoLayout *l = prepare(cr, s, pt, bold);
    PangoRectangle logical;
    pango_layout_get_extents(l, NULL, &logical);
    double w = (double)logical.width / PANGO_SCALE;
    double h = (double)logical.height / PANGO_SCALE;
    double base = (double)pango_layout_get_baseline(l) / PANGO_SCALE;
    double x0 = x - w * align, top = y - base; /* the layout's origin is its top-left */
    cairo_move_to(cr, x0, top);
    pango_cairo_show_layout(cr, l);
    cairo_new_path(cr); /* the text leaves no current point behind */
    record(cr, s, x0, top, w, h);
}

void ls_viz_text_shutdown(void)
{
    if (layout)
        g_object_unref(layout);
    if (ctx)
        g_object_unref(ctx);
    if (fontmap) {
        /* Fonts and fontsets the map cached refer to it and to their cairo
         * fonts; shutting it down drops them, so the cairo font caches
         * ls_viz_shutdown resets hold nothing live. */
        if (PANGO_IS_FC_FONT_MAP(fontmap))
            pango_fc_font_map_shutdown(PANGO_FC_FONT_MAP(fontmap));
        /* pango initialises fontconfig on a worker thread whose task holds
         * the first font map until it ends; fontconfig's caches may only be
         * freed (FcFini, after this) once the map is gone, so wait for the
         * worker to let go (it has finished its work before any text was
         * measured; this is the last moment of it). */
        GWeakRef weak;
        g_weak_ref_init(&weak, fontmap);
        g_object_unref(fontmap);
        for (int i = 0; i < 2000; i++) {
            GObject *still = g_weak_ref_get(&weak);
            if (still == NULL)
                break;
            g_object_unref(still);
            g_usleep(1000);
        }
        g_weak_ref_clear(&weak);
    }
    layout = NULL;
    ctx = NULL;
    fontmap = NULL;
}
