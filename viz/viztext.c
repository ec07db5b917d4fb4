/* viztext.c: measuring and placing text for the renderers. */
#include <stdio.h>

#include "viztext.h"

/* Text is measured on one surface (a 1x1 scratch image, for a figure's
 * size) and drawn on another (a PNG at 0.25..8 pixels a point, SVG, PDF, the
 * window).  With hinted metrics an image surface rounds each advance to
 * whole device pixels, so widths measured at one scale do not hold at
 * another and a subtitle sized at 1x is clipped at 4x; unhinted metrics
 * scale exactly. */
static void select_font(cairo_t *cr, double pt, bool bold)
{
    cairo_select_font_face(cr, LS_VIZ_FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, pt);
    cairo_font_options_t *o = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
    cairo_set_font_options(cr, o);
    cairo_font_options_destroy(o);
}

double ls_viz_text_w(cairo_t *cr, const char *s, double pt, bool bold)
{
    select_font(cr, pt, bold);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
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

/* The string's logical box (advance x ascent+descent) in device pixels:
 * the bounding box of its four corners, so rotated labels count too. */
static void record(cairo_t *cr, const char *s, double x0, double y, double w)
{
    if (rec_boxes == NULL || *rec_n >= rec_cap)
        return;
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double cx[4] = {x0, x0 + w, x0, x0 + w}, cy[4] = {y - fe.ascent, y - fe.ascent,
                                                      y + fe.descent, y + fe.descent};
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
    double w = align != 0 || rec_boxes ? ls_viz_text_w(cr, s, pt, bold)
                                       : (select_font(cr, pt, bold), 0);
    cairo_move_to(cr, x - w * align, y);
    cairo_show_text(cr, s);
    record(cr, s, x - w * align, y, w);
}
