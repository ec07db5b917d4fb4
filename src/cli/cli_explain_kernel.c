/* cli_explain_kernel.c: `lanescope explain` on a dispatch of several
 * reductions and stored elementwise ops -- the one kernel IREE builds for
 * it (fused.h): its loops in order, each elementwise op with its config
 * and body, or why lanescope times the reductions apart. */
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"
#include "lanescope/attrs.h"
#include "lanescope/fused.h"
#include "lanescope/plan.h"

/* The kernel of the dispatch whose last reduction is problem `last`:
 * fused and k built when its loops are one kernel, else why ("" when it
 * has one loop only). */
typedef struct {
    ls_plan *plans;
    ls_fused_kernel *k;
    char why[512];
    bool fused;
} kernel_view;

/* False (nothing built) when problem `last` is not the last reduction of
 * a dispatch: the kernel is said once, after the dispatch's reductions. */
static bool kernel_open(const ls_module *m, size_t last, const ls_derived *derived,
                        kernel_view *v)
{
    const ls_problem *p = &m->problems[last];
    memset(v, 0, sizeof *v);
    if (p->dispatch < 0 ||
        (last + 1 < m->n_problems && m->problems[last + 1].dispatch == p->dispatch))
        return false;
    v->plans = ls_xcalloc(m->n_problems, sizeof *v->plans);
    v->k = ls_xcalloc(1, sizeof *v->k);
    size_t first = ls_fused_first(m, last);
    ls_plan_target t = ls_plan_target_from_arch(p->target.arch);
    for (size_t j = first; j <= last; j++) {
        ls_diag d;
        ls_diag_clear(&d);
        if (ls_plan_build(&m->problems[j], &derived[j], t, &v->plans[j], &d)) {
            snprintf(v->why, sizeof v->why, "%s", d.msg);
            return true;
        }
    }
    v->fused = ls_fused_build(m, first, v->plans, v->k, v->why, sizeof v->why);
    return true;
}

static void kernel_close(kernel_view *v)
{
    free(v->k);
    free(v->plans);
}

static void elementwise_text(FILE *f, const ls_module *m, const ls_fused_kernel *k,
                             const ls_fused_phase *ph, const char *li)
{
    const ls_module_elementwise *e = &m->elementwise[ph->elementwise_op];
    char cfg[1024];
    if (e->has_config) {
        ls_lowering_config_format(&e->config, cfg, sizeof cfg);
        fprintf(f, "%s    lowering_config: %s\n", li, cfg);
    } else {
        fprintf(f, "%s    lowering_config: none in the input; IREE's heuristic tiles it as the "
                   "reductions (`lanescope suggest` prints its serial config)\n",
                li);
    }
    const ls_body *body = &k->view[ph - k->phase].body;
    int alu = ph->epilogue ? ph->epilogue_alu : ph->plan->body_machine_alu_ops;
    int sfu = ph->epilogue ? ph->epilogue_sfu : ph->plan->body_sfu_ops;
    fprintf(f, "%s    body, per %s (%d ALU and %d special-function instruction%s as the "
               "backend emits them):\n",
            li, ph->epilogue ? "result" : "element", alu, sfu, sfu == 1 ? "" : "s");
    char indent[32];
    snprintf(indent, sizeof indent, "%s      ", li);
    ls_body_print(body, indent, f);
}

void explain_text_kernel(FILE *f, const ls_module *m, size_t last, const ls_derived *derived,
                         const opts *o)
{
    kernel_view kv;
    if (!kernel_open(m, last, derived, &kv))
        return;
    const ls_fused_kernel *k = kv.k;
    const char *why = kv.why;
    bool md = o->fmt == FMT_MD;
    const char *li = md ? "- " : "  ";
    const ls_dispatch *d = &m->dispatches[m->problems[last].dispatch];
    if (kv.fused) {
        if (md)
            fprintf(f, "## The dispatch @%s: one kernel of %d loops\n\n", d->func,
                    ls_fused_loop_count(k));
        else
            fprintf(f, "dispatch @%s: one kernel of %d loops, one after another, as IREE builds "
                       "it (`lanescope sim` times it so)\n",
                    d->func, ls_fused_loop_count(k));
        for (int i = 0; i < k->n_phases; i++) {
            const ls_fused_phase *ph = &k->phase[i];
            if (ph->epilogue)
                fprintf(f, "%safter loop %d's reduce: %s on the results, stored (no loop of its "
                           "own)\n",
                        li, i, ph->what);
            else
                fprintf(f, "%sloop %d: %s, %lld trip%s%s\n", li, i + 1, ph->what,
                        (long long)ph->plan->iterations, ph->plan->iterations == 1 ? "" : "s",
                        ph->elementwise ? "; its result stored tile by tile"
                        : ph->store     ? "; then its reduce, its result stored"
                                        : "; then its reduce, its result kept in registers");
            if (ph->own_layout) {
                char lay[512];
                ls_nested_layout_format(&ph->plan->derived->layout, lay, sizeof lay);
                fprintf(f, "%s    laid out by its own lowering_config, not loop 1's: %s\n", li,
                        lay);
                if (ph->writers < ph->plan->derived->num_subgroups)
                    fprintf(f, "%s    its layout spans %d of the %lld subgroups: the others "
                               "compute the same elements and skip the store\n",
                            li, ph->writers, (long long)ph->plan->derived->num_subgroups);
            }
            if (ph->producer_op >= 0)
                fprintf(f, "%s    stores %s's result in the loop too (fused into it)\n", li,
                        ph->producer_what);
            const ls_problem *v = ph->elementwise ? &k->view[i] : ph->plan->problem;
            for (int a = 0; a < LS_MAX_INPUTS; a++)
                if (ph->held[a] >= 0)
                    fprintf(f, "%s    reads %s from registers: loop %d's result\n", li,
                            ph->epilogue ? m->elementwise[ph->elementwise_op].inputs[a].name
                                         : v->inputs[a].name,
                            ph->held[a] + 1);
            if (ph->elementwise)
                elementwise_text(f, m, k, ph, li);
        }
        fprintf(f, "\n");
    } else if (why[0]) {
        if (md)
            fprintf(f, "## The dispatch @%s: timed one reduction at a time\n\n", d->func);
        else
            fprintf(f, "dispatch @%s: one kernel in IREE; `lanescope sim` times its reductions "
                       "apart:\n",
                    d->func);
        fprintf(f, "%s%s\n\n", li, why);
    }
    kernel_close(&kv);
}

json_object *explain_json_kernel(const ls_module *m, size_t last, const ls_derived *derived)
{
    kernel_view kv;
    if (!kernel_open(m, last, derived, &kv))
        return NULL;
    const ls_fused_kernel *k = kv.k;
    const char *why = kv.why;
    bool fused = kv.fused;
    const ls_problem *p = &m->problems[last];
    json_object *o = NULL;
    if (fused || why[0]) {
        o = json_object_new_object();
        const ls_dispatch *d = &m->dispatches[p->dispatch];
        char name[128], where[400];
        snprintf(name, sizeof name, "@%s", d->func);
        snprintf(where, sizeof where, "%s:%d:%d", d->file, d->line, d->col);
        jset(o, "kind", json_object_new_string("dispatch_kernel"));
        jset(o, "name", json_object_new_string(name));
        jset(o, "location", json_object_new_string(where));
        jset(o, "one_kernel", json_object_new_boolean(fused));
        if (!fused)
            jset(o, "timed_apart", json_object_new_string(why));
        json_object *loops = json_object_new_array();
        for (int i = 0; fused && i < k->n_phases; i++) {
            const ls_fused_phase *ph = &k->phase[i];
            json_object *l = json_object_new_object();
            jset(l, "op", json_object_new_string(ph->what));
            jset(l, "elementwise", json_object_new_boolean(ph->elementwise));
            jset(l, "epilogue", json_object_new_boolean(ph->epilogue));
            jset(l, "trips", json_object_new_int64(ph->epilogue ? 0 : ph->plan->iterations));
            jset(l, "stores", json_object_new_boolean(ph->elementwise || ph->store ||
                                                      ph->producer_op >= 0));
            if (ph->elementwise) {
                const ls_module_elementwise *e = &m->elementwise[ph->elementwise_op];
                char cfg[1024] = "";
                if (e->has_config)
                    ls_lowering_config_format(&e->config, cfg, sizeof cfg);
                jset(l, "lowering_config", json_object_new_string(cfg));
                jset(l, "body_ops", json_object_new_int(ph->plan->body_alu_ops));
            }
            json_object_array_add(loops, l);
        }
        if (fused)
            jset(o, "loops", loops);
        else
            json_object_put(loops);
    }
    kernel_close(&kv);
    return o;
}
