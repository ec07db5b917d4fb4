/* cli_view.c: `lanescope view` -- step through one workgroup of a reduction
 * in an SDL2 window, or, with --headless, feed a script of keys to the same
 * handler and write every frame as a PNG (no display, no SDL at all).
 *
 * The window itself is in cli_view_window.c, built when configure finds
 * SDL2 (--without-gui leaves it out; --headless still works).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_sim.h"
#include "cli_view.h"
#include "lanescope/arena.h"
#include "lanescope/view.h"

#define MAX_KEYS 4096

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope view [INPUT | --shape AxB.. --iter pr..] [--config ATTR]\n"
            "                      [--target MODEL] [--index N] [--workgroup N]\n"
            "                      [--dim N=SIZE]... [--seed N] [--size WxH]\n"
            "                      [--keys \"KEY KEY ...\" [--headless --out DIR]]\n"
            "\n"
            "Step through one workgroup of a simulated reduction the way a debugger steps\n"
            "through code: the tile and who owns it, the lanes and their butterfly rounds,\n"
            "shared memory and barriers, the timeline, the traffic, the whole GPU, with a\n"
            "caption explaining every step.  INPUT is an .mlir file (none: the bundled seed\n"
            "example 2); without a lowering_config it gets IREE's default, as in sim.  A\n"
            "file whose op is an attention steps its kernel: the keys each thread holds,\n"
            "the max, sum and acc each lane carries after every K2 step and the merge,\n"
            "the workgroup buffers, the timeline.\n"
            "\n"
            "  --target MODEL   hardware model: %s\n"
            "  --index N        which reduction of INPUT to start on (a multi-op dispatch;\n"
            "                   o and O change it; default 0)\n"
            "  --workgroup N    the workgroup stepped through (default 0)\n"
            "  --dim N=SIZE     size of dynamic ('?') loop dim dN of the ops (repeatable)\n"
            "  --seed N         input generator seed (default 1)\n"
            "  --size WxH       window or frame size in pixels (default 1280x800)\n"
            "  --keys \"...\"     keys applied in order (names below, plus \"hover X,Y\",\n"
            "                   \"pan DX,DY\", \"resize WxH\", \"wheel N\", \"scale S\": text\n"
            "                   pixels per point, as on a HiDPI screen)\n"
            "  --headless       no window: render a frame after every key to\n"
            "                   DIR/frame-NNN.png (frame-000: the start) and print one\n"
            "                   line per frame: key, position, cycle, stage, subgroup,\n"
            "                   workgroup, panel, zoom, op\n"
            "  --out DIR        where frames (headless) and saved views (s) go\n"
            "  --config ATTR    use this #iree_gpu.lowering_config<{...}> for every reduction\n"
            "  --shape AxBx..   describe the problem by flags instead of INPUT ...\n"
            "  --iter pr..      ... one letter per dim: p(arallel) or r(eduction)\n"
            "  --type T[:U]     ... element type T, reduced in U (default T)\n"
            "  --combiner K     ... add, mul, minsi, maxnumf, ... (default add)\n"
            "  -h, --help       this help\n"
            "\n"
            "keys:\n",
            ls_hw_names());
    for (int i = 0; ls_view_help[i]; i++) {
        const char *tab = strchr(ls_view_help[i], '\t');
        fprintf(f, "  %-30.*s %s\n", (int)(tab - ls_view_help[i]), ls_view_help[i], tab + 1);
    }
    fprintf(f, "\n--keys names: right n shift+right ctrl+right left shift+left ctrl+left home\n"
               "end tab shift+tab 1..6 [ ] { } o O i + - 0 space < > ? s q escape leave\n");
}


/* --keys: words, with "hover X,Y" and the other commands taking the next
 * word as their argument.  Every name is checked before anything runs. */
static int split_keys(const char *keys, char (*out)[64], int max)
{
    int n = 0, word = 0;
    const char *s = keys;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        word++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
        bool takes_arg = strcmp(name, "hover") == 0 || strcmp(name, "pan") == 0 ||
                         strcmp(name, "resize") == 0 || strcmp(name, "wheel") == 0 ||
                         strcmp(name, "scale") == 0;
        if (takes_arg) {
            const char *a = e;
            while (*a == ' ')
                a++;
            const char *b = a;
            while (*b && *b != ' ' && *b != '\t')
                b++;
            snprintf(name + strlen(name), sizeof name - strlen(name), " %.*s", (int)(b - a), a);
            e = b;
        }
        if (n == max) {
            ls_cli_error(CMD, "--keys: more than %d keys", max);
            return -1;
        }
        if (e - s >= 60 || !ls_view_action_valid(name)) {
            ls_cli_error(CMD, "--keys: '%s' (word %d) is not a key (see lanescope view --help)",
                         name, word);
            return -1;
        }
        snprintf(out[n++], 64, "%s", name);
        s = e;
    }
    return n;
}

/* ------------------------------------------------------------ headless */

static void frame_line(const ls_view *v, int k, const char *key)
{
    ls_view_state s;
    ls_view_get_state(v, &s);
    char stage[32];
    snprintf(stage, sizeof stage, "%s", s.record ? ls_stage_name(s.stage) : "start");
    for (char *c = stage; *c; c++)
        if (*c == ' ')
            *c = '-';
    printf("frame %03d key=%s position=%lld length=%lld cycle=%lld stage=%s subgroup=%d "
           "workgroup=%lld panel=%d zoom=%.3g op=%d\n",
           k, key, (long long)s.position, (long long)s.length, (long long)s.cycle, stage,
           s.subgroup, (long long)s.workgroup, (int)s.panel + 1, s.zoom, s.op);
}

static bool save_view(const ls_view *v, const char *dir, ls_diag *diag)
{
    ls_view_state s;
    ls_view_get_state(v, &s);
    char path[4096], op[32] = "";
    if (s.n_ops > 1)
        snprintf(op, sizeof op, "op%d-", s.op);
    int n = snprintf(path, sizeof path, "%s/lanescope-view-%swg%lld-pos%lld-%d.png",
                     dir ? dir : ".", op, (long long)s.workgroup, (long long)s.position + 1,
                     (int)s.panel + 1);
    if (n < 0 || (size_t)n >= sizeof path) /* never a shortened name: another file */
        return ls_diag_set(diag, LS_ERR_LIMIT, "--out", 0, 0,
                           "the saved view's path would pass %zu bytes", sizeof path - 1) == LS_OK;
    if (ls_view_save_png(v, path, diag))
        return false;
    printf("saved %s\n", path);
    fflush(stdout);
    return true;
}

/* ------------------------------------------------------------ reductions */

static void op_fini(ls_cli_view_op *op)
{
    ls_free_intermediates(&op->in);
    free(op->d);
    memset(op, 0, sizeof *op);
}

/* Model, derived sizes, plan and inputs of reduction `index` into op. */
static ls_status op_load(ls_cli_view_session *s, size_t index, ls_cli_view_op *op, ls_diag *diag)
{
    const ls_cli_view_opts *o = s->o;
    ls_problem *p = &s->m->problems[index];
    op->d = ls_xcalloc(1, sizeof *op->d);
    op->in = (ls_input_source){(uint64_t)o->seed, NULL, {NULL}};
    if (ls_cli_model(s->m, p, o->target, &op->hw, diag) || ls_derive(p, op->d, diag) ||
        ls_plan_build(p, op->d, ls_plan_target_from_arch(op->hw.arch), &op->plan, diag) ||
        ls_bind_intermediates(s->m->problems, s->m->n_problems, index, &op->in, diag))
        return diag->status;
    return LS_OK;
}

/* The view on reduction `index` in the free slot, keeping what the person
 * set; the old view stays when anything fails (its reason in diag). */
static ls_status switch_op(ls_cli_view_session *s, int index, ls_diag *diag)
{
    ls_cli_view_op *next = &s->slot[1 - s->cur];
    op_fini(next);
    ls_view_config vc;
    ls_view *v;
    if (op_load(s, (size_t)index, next, diag)) {
        op_fini(next);
        return diag->status;
    }
    ls_view_config_like(s->v, &next->plan, &next->hw, next->in, index, &vc);
    if (ls_view_new(&vc, &v, diag)) {
        op_fini(next);
        return diag->status;
    }
    ls_view_free(s->v);
    op_fini(&s->slot[s->cur]);
    s->v = v;
    s->cur = 1 - s->cur;
    return LS_OK;
}

int ls_cli_view_apply(ls_cli_view_session *s, const char *key, ls_diag *diag)
{
    int f = ls_view_action(s->v, key, diag);
    if (f < 0)
        return f;
    if ((f & LS_VIEW_SAVE) && !save_view(s->v, s->o->out, diag))
        return diag->status;
    if ((f & (LS_VIEW_NEXT_OP | LS_VIEW_PREV_OP)) && !s->att) { /* an attention: one op */
        ls_view_state st;
        ls_view_get_state(s->v, &st);
        int n = st.n_ops, to = (st.op + ((f & LS_VIEW_NEXT_OP) ? 1 : n - 1)) % n;
        if (switch_op(s, to, diag))
            return diag->status;
        f |= LS_VIEW_REDRAW;
    }
    return f;
}

static int run_headless(ls_cli_view_session *s, char (*keys)[64], int n, ls_diag *diag)
{
    char path[4096];
    for (int k = 0; k <= n; k++) {
        const char *key = k == 0 ? "start" : keys[k - 1];
        int flags = 0;
        if (k > 0 && (flags = ls_cli_view_apply(s, key, diag)) < 0)
            return 1;
        int len = snprintf(path, sizeof path, "%s/frame-%03d.png", s->o->out, k);
        if (len < 0 || (size_t)len >= sizeof path) {
            ls_diag_set(diag, LS_ERR_LIMIT, "--out", 0, 0,
                        "a frame's path would pass %zu bytes; give a shorter --out",
                        sizeof path - 1);
            return 1;
        }
        if (ls_view_save_png(s->v, path, diag))
            return 1;
        frame_line(s->v, k, key);
        if (flags & LS_VIEW_QUIT)
            break;
    }
    return 0;
}

/* ------------------------------------------------------------ setup */

/* Show the session's view: headless frames, or the keys then the window. */
static int show(ls_cli_view_session *s, char (*keys)[64], int n_keys, ls_diag *diag)
{
    if (s->o->headless)
        return run_headless(s, keys, n_keys, diag);
    for (int k = 0; k < n_keys; k++)
        if (ls_cli_view_apply(s, keys[k], diag) < 0)
            return 1;
    return ls_cli_view_window(s, diag);
}

/* A file whose op is an attention: its kernel as the engine sees it
 * (cli_sim_attention.c), stepped as a reduction's is, with its values
 * (sim/attention_snapshot.c) in the lanes panel. */
static int run_attention(ls_cli_view_session *s, const char *src, char (*keys)[64], int n_keys,
                         ls_diag *diag)
{
    const ls_cli_view_opts *o = s->o;
    if ((size_t)o->index >= s->m->n_attentions) {
        ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0,
                    "%s has %zu attention op%s; --index %lld is outside 0..%zu", src,
                    s->m->n_attentions, ls_s((long long)s->m->n_attentions), (long long)o->index,
                    s->m->n_attentions - 1);
        return 1;
    }
    ls_cli_view_op *op = &s->slot[0];
    if (ls_cli_attention_view(s->m, (size_t)o->index, o->target, &op->hw, &s->att, &s->att_view,
                              diag) ||
        ls_attention_values_check(s->m, &s->m->attentions[o->index], s->att, diag))
        return 1;
    const ls_plan *pl = ls_att_view_plan(s->att_view);
    if (o->workgroup >= pl->derived->total_workgroups) {
        ls_diag_set(diag, LS_ERR_USAGE, "--workgroup", 0, 0,
                    "workgroup %lld is outside 0..%lld (%s has %lld workgroups)",
                    (long long)o->workgroup, (long long)pl->derived->total_workgroups - 1,
                    s->att->name, (long long)pl->derived->total_workgroups);
        return 1;
    }
    if (o->headless && mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        ls_diag_set(diag, LS_ERR_USAGE, "--out", 0, 0, "cannot create %s: %s", o->out,
                    strerror(errno));
        return 1;
    }
    s->va = (ls_view_attention){s->m, &s->m->attentions[o->index], s->att, s->att_view};
    op->in = (ls_input_source){(uint64_t)o->seed, NULL, {NULL}};
    ls_view_config vc = {pl,    &op->hw, op->in, o->workgroup, o->width, o->height, 1,
                         LS_VIEW_TILE, 0, 1, src, &s->va};
    if (ls_view_new(&vc, &s->v, diag))
        return 1;
    return show(s, keys, n_keys, diag);
}

static int run(const ls_cli_view_opts *o, char (*keys)[64], int n_keys)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_cli_view_session s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.m = ls_xcalloc(1, sizeof *s.m);
    int rc = 1;
    const char *src = o->input ? o->input : "--shape";
    ls_cli_problem_flags pf = o->pf;
    pf.import_flags |= LS_IMPORT_ATTENTION; /* a file of an attention steps its kernel */
    if (ls_cli_problem_load(o->input, &pf, &o->dims, s.m, &diag))
        goto fail;
    if (s.m->n_problems == 0 && s.m->n_attentions > 0) {
        rc = run_attention(&s, src, keys, n_keys, &diag);
        if (rc && diag.status)
            goto fail;
        goto done;
    }
    if (s.m->n_problems == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, src, 0, 0,
                    "no linalg.generic/linalg.reduce with a reduction to view");
        goto fail;
    }
    if ((size_t)o->index >= s.m->n_problems) {
        ls_diag_set(&diag, LS_ERR_USAGE, "--index", 0, 0,
                    "%s has %zu reduction%s; --index %lld is outside 0..%zu", src,
                    s.m->n_problems, ls_s((long long)s.m->n_problems), (long long)o->index,
                    s.m->n_problems - 1);
        goto fail;
    }
    ls_cli_view_op *op = &s.slot[0];
    if (op_load(&s, (size_t)o->index, op, &diag))
        goto fail;
    if (o->workgroup >= op->d->total_workgroups) {
        ls_diag_set(&diag, LS_ERR_USAGE, "--workgroup", 0, 0,
                    "workgroup %lld is outside 0..%lld (%s has %lld workgroups)",
                    (long long)o->workgroup, (long long)op->d->total_workgroups - 1,
                    s.m->problems[o->index].name, (long long)op->d->total_workgroups);
        goto fail;
    }
    if (o->headless && mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        ls_diag_set(&diag, LS_ERR_USAGE, "--out", 0, 0, "cannot create %s: %s", o->out,
                    strerror(errno));
        goto fail;
    }
    ls_view_config vc = {&op->plan, &op->hw, op->in, o->workgroup, o->width, o->height, 1,
                         LS_VIEW_TILE, (int)o->index, (int)s.m->n_problems, src, NULL};
    if (ls_view_new(&vc, &s.v, &diag))
        goto fail;
    if (o->headless) {
        rc = run_headless(&s, keys, n_keys, &diag);
    } else {
        rc = 0;
        for (int k = 0; k < n_keys && rc == 0; k++)
            if (ls_cli_view_apply(&s, keys[k], &diag) < 0)
                rc = 1;
        if (rc == 0)
            rc = ls_cli_view_window(&s, &diag);
    }
    if (rc && diag.status)
        goto fail;
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    ls_view_free(s.v);
    op_fini(&s.slot[0]);
    op_fini(&s.slot[1]);
    ls_att_view_free(s.att_view);
    free(s.att);
    ls_viz_shutdown();
    free(s.m);
    return rc;
}

static bool parse_size(const char *s, int *w, int *h)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != 'x')
        return false;
    const char *t = end + 1;
    long b = strtol(t, &end, 10);
    if (end == t || *end || a < 64 || b < 64 || a > 16384 || b > 16384)
        return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

int ls_cmd_view(int argc, char **argv)
{
    enum { O_TARGET = 256, O_INDEX, O_WG, O_DIM, O_SEED, O_SIZE, O_KEYS, O_HEADLESS, O_OUT };
    static const struct option longopts[] = {
        {"target", required_argument, NULL, O_TARGET}, {"index", required_argument, NULL, O_INDEX},
        {"workgroup", required_argument, NULL, O_WG},  {"dim", required_argument, NULL, O_DIM},
        {"seed", required_argument, NULL, O_SEED},     {"size", required_argument, NULL, O_SIZE},
        {"keys", required_argument, NULL, O_KEYS},     {"headless", no_argument, NULL, O_HEADLESS},
        {"out", required_argument, NULL, O_OUT},       {"help", no_argument, NULL, 'h'},
        LS_CLI_PROBLEM_LONGOPTS,                       {NULL, 0, NULL, 0}};
    ls_cli_view_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.width = 1280;
    o.height = 800;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &o.target, optarg))
                return 2;
            break;
        case O_INDEX:
            if (!ls_flag_int(CMD, "--index", optarg, 0, LS_IMPORT_MAX_ITEMS - 1, &o.index))
                return 2;
            break;
        case O_WG:
            if (!ls_flag_int(CMD, "--workgroup", optarg, 0, INT64_MAX, &o.workgroup))
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &o.dims))
                return 2;
            break;
        case O_SEED:
            if (!ls_flag_int(CMD, "--seed", optarg, 0, INT64_MAX, &o.seed))
                return 2;
            break;
        case O_SIZE:
            if (!parse_size(optarg, &o.width, &o.height)) {
                ls_cli_error(CMD, "--size: expected WxH with each side in 64..16384, found '%s'",
                             optarg);
                return 2;
            }
            break;
        case O_KEYS:
            if (!ls_flag_once(CMD, "--keys", &o.keys, optarg))
                return 2;
            break;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &o.pf, c, optarg) < 0)
                return 2;
            break;
        case O_HEADLESS: o.headless = true; break;
        case O_OUT:
            if (!ls_flag_once(CMD, "--out", &o.out, optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope view --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind > 1) {
        ls_cli_error(CMD, "expected at most one INPUT, found %d", argc - optind);
        return 2;
    }
    if (o.headless && o.out == NULL) {
        ls_cli_error(CMD, "--headless needs --out DIR for the frames");
        return 2;
    }
    char exbuf[1024];
    o.input = optind < argc ? argv[optind] : NULL;
    if (!ls_cli_problem_source(CMD, o.input, &o.pf))
        return 2;
    if (o.input == NULL && !o.pf.shape &&
        (o.input = ls_cli_bundled_example("seed000_example2.mlir", exbuf, sizeof exbuf)) == NULL) {
        ls_cli_error(CMD, "no INPUT given and the bundled examples were not found (set "
                          "LANESCOPE_EXAMPLES)");
        return 2;
    }
    char(*keys)[64] = ls_xcalloc(MAX_KEYS, sizeof *keys);
    int n = o.keys ? split_keys(o.keys, keys, MAX_KEYS) : 0;
    int rc = n < 0 ? 2 : run(&o, keys, n);
    free(keys);
    return rc;
}
