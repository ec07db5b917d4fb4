/* viztext.h: text helpers shared by the renderers (internal to viz/). */
#ifndef LANESCOPE_VIZTEXT_H
#define LANESCOPE_VIZTEXT_H

#include <cairo.h>
#include <stdbool.h>

/* DejaVu Sans through cairo's toy API, which resolves it with fontconfig. */
#define LS_VIZ_FONT "DejaVu Sans"

/* Advance width of s at pt points. */
double ls_viz_text_w(cairo_t *cr, const char *s, double pt, bool bold);
/* Draw s with its baseline at y; align 0 left, 0.5 centre, 1 right of x. */
void ls_viz_text_at(cairo_t *cr, const char *s, double x, double y, double pt, bool bold,
                    double align);

#endif
