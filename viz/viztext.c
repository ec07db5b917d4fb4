/* viztext.c: measuring and placing text for the renderers. */
#include "viztext.h"

static void select_font(cairo_t *cr, double pt, bool bold)
{
    cairo_select_font_face(cr, LS_VIZ_FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, pt);
}

double ls_viz_text_w(cairo_t *cr, const char *s, double pt, bool bold)
{
    select_font(cr, pt, bold);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

void ls_viz_text_at(cairo_t *cr, const char *s, double x, double y, double pt, bool bold,
                    double align)
{
    double w = align != 0 ? ls_viz_text_w(cr, s, pt, bold) : (select_font(cr, pt, bold), 0);
    cairo_move_to(cr, x - w * align, y);
    cairo_show_text(cr, s);
}
