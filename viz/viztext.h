/* viztext.h: text helpers shared by the renderers (internal to viz/). */
#ifndef LANESCOPE_VIZTEXT_H
#define LANESCOPE_VIZTEXT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

/* DejaVu Sans through pango, which resolves it (and fallbacks for the
 * characters it lacks) with fontconfig. */
#define LS_VIZ_FONT "DejaVu Sans"

/* Advance width of s at pt points. */
double ls_viz_text_w(cairo_t *cr, const char *s, double pt, bool bold);
/* Draw s with its baseline at y; align 0 left, 0.5 centre, 1 right of x. */
void ls_viz_text_at(cairo_t *cr, const char *s, double x, double y, double pt, bool bold,
                    double align);

/* For the tests: while boxes is set, every string drawn adds its logical
 * box in device pixels (up to cap; *n counts them).  NULL stops. */
typedef struct {
    double x0, y0, x1, y1;
    char text[64];
} ls_viz_text_box;
void ls_viz_text_record(ls_viz_text_box *boxes, size_t cap, size_t *n);

/* Frees the calling thread's pango context and font map (ls_viz_shutdown). */
void ls_viz_text_shutdown(void);

#endif
