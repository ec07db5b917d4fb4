/* cli_view_window.c: `lanescope view`'s SDL2 window, a thin front end on
 * the view (view.h): SDL events become its action names ("right",
 * "ctrl+right", "hover X,Y", ...), and ls_view_render draws into a cairo
 * image surface at the drawable's pixel size that is uploaded to a
 * streaming texture.  When not playing it sleeps in SDL_WaitEvent; while
 * playing it wakes once per tick.  A build without SDL2 (configure
 * --without-gui, or no libsdl2-dev) keeps only the refusal at the end. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli_view.h"

#ifdef HAVE_SDL2
#define SDL_MAIN_HANDLED /* lanescope's main is its own */
#include <SDL.h>

/* ------------------------------------------------------------ window */

/* Non-text keys; the printable ones come as SDL_TEXTINPUT, so [ ] { } +
 * < > ? follow the keyboard layout. */
static const char *key_name(const SDL_KeyboardEvent *k, char *buf, size_t size)
{
    bool shift = (k->keysym.mod & KMOD_SHIFT) != 0, ctrl = (k->keysym.mod & KMOD_CTRL) != 0;
    const char *base = NULL;
    switch (k->keysym.sym) {
    case SDLK_RIGHT: base = "right"; break;
    case SDLK_LEFT: base = "left"; break;
    case SDLK_HOME: return "home";
    case SDLK_END: return "end";
    case SDLK_ESCAPE: return "escape";
    case SDLK_TAB: return shift ? "shift+tab" : "tab";
    case SDLK_KP_PLUS: return "+";
    case SDLK_KP_MINUS: return "-";
    default: return NULL;
    }
    snprintf(buf, size, "%s%s", ctrl ? "ctrl+" : shift ? "shift+" : "", base);
    return buf;
}

typedef struct {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int tw, th;        /* texture size, pixels */
    double px_per_pt;  /* drawable pixels per window coordinate */
} window;

/* The drawable's pixel size (HiDPI: larger than the window's). */
static void pixel_size(window *w, int *pw, int *ph)
{
    int ww, wh;
    SDL_GetWindowSize(w->win, &ww, &wh);
    if (SDL_GetRendererOutputSize(w->ren, pw, ph) != 0 || *pw <= 0 || *ph <= 0) {
        *pw = ww;
        *ph = wh;
    }
    w->px_per_pt = ww > 0 ? (double)*pw / ww : 1;
}

static void present(window *w, const ls_view *v)
{
    ls_view_state s;
    ls_view_get_state(v, &s);
    if (w->tex == NULL || w->tw != s.width || w->th != s.height) {
        if (w->tex)
            SDL_DestroyTexture(w->tex);
        w->tex = SDL_CreateTexture(w->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING,
                                   s.width, s.height);
        w->tw = s.width;
        w->th = s.height;
    }
    cairo_surface_t *img = ls_view_render_image(v);
    if (w->tex && cairo_surface_status(img) == CAIRO_STATUS_SUCCESS)
        SDL_UpdateTexture(w->tex, NULL, cairo_image_surface_get_data(img),
                          cairo_image_surface_get_stride(img));
    cairo_surface_destroy(img);
    SDL_RenderClear(w->ren);
    if (w->tex)
        SDL_RenderCopy(w->ren, w->tex, NULL, NULL);
    SDL_RenderPresent(w->ren);
}

/* One SDL event as an action name (NULL: none). */
static const char *event_action(window *w, const SDL_Event *e, bool *dragging, char *buf,
                                size_t size)
{
    double s = w->px_per_pt;
    switch (e->type) {
    case SDL_QUIT: return "q";
    case SDL_KEYDOWN: return key_name(&e->key, buf, size);
    case SDL_TEXTINPUT:
        if (strcmp(e->text.text, " ") == 0)
            return "space";
        if (strlen(e->text.text) != 1 || !ls_view_action_valid(e->text.text))
            return NULL;
        snprintf(buf, size, "%s", e->text.text);
        return buf;
    case SDL_MOUSEWHEEL: snprintf(buf, size, "wheel %d", e->wheel.y > 0 ? 1 : -1); return buf;
    case SDL_MOUSEBUTTONDOWN: *dragging = e->button.button == SDL_BUTTON_LEFT; return NULL;
    case SDL_MOUSEBUTTONUP: *dragging = false; return NULL;
    case SDL_MOUSEMOTION:
        if (*dragging)
            snprintf(buf, size, "pan %d,%d", (int)(e->motion.xrel * s), (int)(e->motion.yrel * s));
        else
            snprintf(buf, size, "hover %d,%d", (int)(e->motion.x * s), (int)(e->motion.y * s));
        return buf;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            return "leave";
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            int pw, ph;
            pixel_size(w, &pw, &ph);
            snprintf(buf, size, "resize %dx%d", pw < 64 ? 64 : pw, ph < 64 ? 64 : ph);
            return buf;
        }
        return NULL;
    default: return NULL;
    }
}

int ls_cli_view_window(ls_cli_view_session *sess, ls_diag *diag)
{
    const ls_cli_view_opts *o = sess->o;
    /* With no display SDL falls back to a driver that draws nowhere
     * (offscreen, dummy) and the window would wait, unseen, for keys that
     * never come: refused unless SDL_VIDEODRIVER asks for it by name. */
    const char *asked = getenv("SDL_VIDEODRIVER");
    bool any_display = (getenv("DISPLAY") && *getenv("DISPLAY")) ||
                       (getenv("WAYLAND_DISPLAY") && *getenv("WAYLAND_DISPLAY"));
    if (!any_display && !(asked && *asked)) {
        ls_cli_error(CMD, "cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are "
                          "unset; --headless --keys renders frames without one)");
        return 1;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        ls_cli_error(CMD, "cannot open a window: %s (--headless --keys renders frames without one)",
                     SDL_GetError());
        return 1;
    }
    const char *driver = SDL_GetCurrentVideoDriver();
    if (driver && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0) &&
        !(asked && strcmp(asked, driver) == 0)) {
        ls_cli_error(CMD, "cannot open a window: SDL found only its '%s' video driver, which "
                          "shows nothing (--headless --keys renders frames without a display)",
                     driver);
        SDL_Quit();
        return 1;
    }
    window w = {0};
    w.win = SDL_CreateWindow("lanescope view", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                             o->width, o->height, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (w.win)
        w.ren = SDL_CreateRenderer(w.win, -1, 0);
    if (w.ren == NULL) {
        ls_cli_error(CMD, "cannot open a window: %s", SDL_GetError());
        if (w.win)
            SDL_DestroyWindow(w.win);
        SDL_Quit();
        return 1;
    }
    int pw, ph, rc = 0;
    pixel_size(&w, &pw, &ph);
    char buf[96];
    snprintf(buf, sizeof buf, "scale %g", w.px_per_pt);
    ls_view_action(sess->v, buf, diag);
    snprintf(buf, sizeof buf, "resize %dx%d", pw < 64 ? 64 : pw, ph < 64 ? 64 : ph);
    ls_view_action(sess->v, buf, diag);
    SDL_StartTextInput();
    present(&w, sess->v);
    bool dragging = false, quit = false;
    while (!quit) {
        SDL_Event e;
        ls_view_state s;
        ls_view_get_state(sess->v, &s);
        /* asleep until something happens; while playing, until the next tick */
        int got = s.playing
                      ? SDL_WaitEventTimeout(&e, (int)(ls_view_tick_interval(sess->v) * 1000))
                      : SDL_WaitEvent(&e);
        bool redraw = false;
        if (!got) {
            redraw = ls_view_tick(sess->v);
        } else {
            do {
                const char *name = event_action(&w, &e, &dragging, buf, sizeof buf);
                if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_EXPOSED)
                    redraw = true;
                if (name == NULL)
                    continue;
                ls_diag_clear(diag);
                /* a workgroup or reduction the engine could not run, a
                 * save that failed: say so, go on with the view as it is */
                int f = ls_cli_view_apply(sess, name, diag);
                if (f < 0) {
                    ls_cli_report(CMD, diag);
                    continue;
                }
                quit |= (f & LS_VIEW_QUIT) != 0;
                redraw |= (f & LS_VIEW_REDRAW) != 0;
            } while (!quit && SDL_PollEvent(&e));
        }
        if (redraw && !quit)
            present(&w, sess->v);
    }
    if (w.tex)
        SDL_DestroyTexture(w.tex);
    SDL_DestroyRenderer(w.ren);
    SDL_DestroyWindow(w.win);
    SDL_Quit();
    return rc;
}

#else /* no SDL2 */

int ls_cli_view_window(ls_cli_view_session *sess, ls_diag *diag)
{
    (void)sess;
    (void)diag;
    ls_cli_error(CMD, "cannot open a window: this lanescope was built without SDL2 "
                      "(--headless --keys renders frames without one)");
    return 1;
}
#endif
