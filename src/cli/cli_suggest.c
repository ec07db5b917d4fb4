/* cli_suggest.c: `lanescope suggest` -- the lowering_config, workgroup_size
 * and subgroup_size IREE's reduction heuristic would choose, printed in
 * IREE's attribute syntax with the rules that decided each number. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lanescope/suggest.h"

#define CMD "suggest"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope suggest [INPUT] --target NAME|FILE [--format text|json] [-o FILE]\n"
            "       lanescope suggest --shape AxB.. --iter pr.. [--type T[:U]] [--combiner K]\n"
            "                         --target NAME|FILE\n"
            "\n"
            "Compute the config IREE's reduction heuristic (setReductionConfig) would choose:\n"
            "each op's #iree_gpu.lowering_config and the function's translation_info\n"
            "(workgroup_size, subgroup_size), ready to paste into IR, with the rule behind\n"
            "every number.  A dispatch IREE would reject is an error that says why.\n"
            "INPUT is dispatch IR (.mlir; every function with a reduction is suggested for,\n"
            "configs already in it are ignored); flags describe a one-op dispatch instead,\n"
            "where '?' is a dynamic size and T may be any iN / fN width.\n"
            "\n"
            "  --target NAME|FILE  %s,\n"
            "                      or a file with #iree_gpu.target (default: INPUT's own)\n"
            "  --format text|json  output format (default text)\n"
            "  -o, --output FILE   write to FILE (atomically)\n"
            "  -h, --help          this help\n",
            ls_target_names());
}

static void print_text(FILE *f, const ls_dispatch *d, const ls_target *t, const ls_suggestion *s)
{
    const ls_dop *root = &d->ops[s->root];
    if (root->line > 0)
        fprintf(f, "@%s (%s:%d:%d) on %s%s%s:\n", d->func, d->file, root->line, root->col, t->arch,
                t->sku[0] ? "/" : "", t->sku);
    else /* --shape: no file */
        fprintf(f, "@%s (%s) on %s%s%s:\n", d->func, d->file, t->arch, t->sku[0] ? "/" : "",
                t->sku);
    char buf[1024];
    ls_suggest_format_translation(s, buf, sizeof buf);
    fprintf(f, "  translation_info = %s\n", buf);
    if (s->attention) {
        char dec[2048];
        ls_attention_format(s, buf, sizeof buf, dec, sizeof dec);
        fprintf(f,
                "  %s%s (root):\n    lowering_config = %s\n"
                "    decomposition_config = %s\n",
                root->kind, ls_dop_where_of(root).s, buf, dec);
        fprintf(f, "  workgroup %lld threads = %lld subgroup%s of %lld\n",
                (long long)s->workgroup_size, (long long)(s->workgroup_size / s->subgroup_size),
                s->workgroup_size / s->subgroup_size == 1 ? "" : "s", (long long)s->subgroup_size);
    }
    for (int k = 0; k < s->n_configs; k++) {
        const ls_op_config *c = &s->configs[k];
        const ls_dop *o = &d->ops[c->op];
        ls_op_config_format(c, buf, sizeof buf);
        fprintf(f, "  %s%s%s:\n    lowering_config = %s\n", o->kind, ls_dop_where_of(o).s,
                c->op == s->root ? " (root)" : "", buf);
    }
    if (!s->attention)
        fprintf(f, "  workgroup %lld threads = %lld subgroup%s of %lld; %lld element%s per load "
               "(%lld-bit)\n",
            (long long)s->workgroup_size, (long long)(s->workgroup_size / s->subgroup_size),
            s->workgroup_size / s->subgroup_size == 1 ? "" : "s", (long long)s->subgroup_size,
            (long long)s->thread_loads, s->thread_loads == 1 ? "" : "s",
            (long long)s->bitwidth);
    fprintf(f, "  how IREE chose it:\n");
    for (int i = 0; i < s->n_steps; i++)
        fprintf(f, "    %2d. %s\n", i + 1, s->steps[i]);
}

static json_object *jlist(const int64_t *v, int n)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_int64(v[i]));
    return a;
}

static json_object *json_suggestion(const ls_dispatch *d, const ls_target *t,
                                    const ls_suggestion *s)
{
    json_object *o = json_object_new_object();
    char buf[1024];
    json_object_object_add(o, "function", json_object_new_string(d->func));
    json_object_object_add(o, "target", json_object_new_string(t->sku[0] ? t->sku : t->arch));
    json_object_object_add(o, "arch", json_object_new_string(t->arch));
    json_object_object_add(o, "workgroup_size", json_object_new_int64(s->workgroup_size));
    json_object_object_add(o, "subgroup_size", json_object_new_int64(s->subgroup_size));
    json_object_object_add(o, "thread_loads", json_object_new_int64(s->thread_loads));
    json_object_object_add(o, "bitwidth", json_object_new_int64(s->bitwidth));
    json_object_object_add(o, "reduction_size", json_object_new_int64(s->reduction_size));
    json_object_object_add(o, "parallel_size", s->parallel_size == LS_DYN
                                                   ? NULL
                                                   : json_object_new_int64(s->parallel_size));
    ls_suggest_format_translation(s, buf, sizeof buf);
    json_object_object_add(o, "translation_info", json_object_new_string(buf));
    if (s->attention) {
        char lc[1024], dec[2048];
        ls_attention_format(s, lc, sizeof lc, dec, sizeof dec);
        json_object *j = json_object_new_object();
        json_object_object_add(j, "op", json_object_new_string(d->ops[s->root].kind));
        json_object_object_add(j, "line", json_object_new_int(d->ops[s->root].line));
        json_object_object_add(j, "lowering_config", json_object_new_string(lc));
        json_object_object_add(j, "decomposition_config", json_object_new_string(dec));
        json_object_object_add(j, "workgroup", jlist(s->att_workgroup, s->att_rank));
        json_object_object_add(j, "partial_reduction", jlist(s->att_partial, s->att_rank));
        json_object_object_add(o, "attention", j);
    }
    json_object *ops = json_object_new_array();
    for (int k = 0; k < s->n_configs; k++) {
        const ls_op_config *c = &s->configs[k];
        const ls_dop *dop = &d->ops[c->op];
        json_object *j = json_object_new_object();
        json_object_object_add(j, "op", json_object_new_string(dop->kind));
        json_object_object_add(j, "line", json_object_new_int(dop->line));
        json_object_object_add(j, "col", json_object_new_int(dop->col));
        json_object_object_add(j, "root", json_object_new_boolean(c->op == s->root));
        ls_op_config_format(c, buf, sizeof buf);
        json_object_object_add(j, "lowering_config", json_object_new_string(buf));
        if (c->has_workgroup)
            json_object_object_add(j, "workgroup", jlist(c->workgroup, c->rank));
        json_object_object_add(j, c->is_reduction ? "partial_reduction" : "serial",
                               jlist(c->tile, c->rank));
        json_object_object_add(j, "thread", jlist(c->thread, c->rank));
        json_object_object_add(j, "lane_counts", jlist(c->lanes, c->rank));
        json_object_object_add(j, "subgroup_counts", jlist(c->subgroups, c->rank));
        json_object_array_add(ops, j);
    }
    json_object_object_add(o, "configs", ops);
    json_object *steps = json_object_new_array();
    for (int i = 0; i < s->n_steps; i++)
        json_object_array_add(steps, json_object_new_string(s->steps[i]));
    json_object_object_add(o, "steps", steps);
    return o;
}

static bool has_reduction_op(const ls_dispatch *d)
{
    for (int i = 0; i < d->n_ops; i++)
        for (int l = 0; l < d->ops[i].rank; l++)
            if (d->ops[i].is_reduction[l] && !d->ops[i].is_fill)
                return true;
    return false;
}

/* What the command line asked for. */
typedef struct {
    const char *target, *shape, *iter, *type, *combiner, *output, *input;
    bool json;
} suggest_opts;

/* The flags into *o: -1 to go on, else the exit code (0 after --help). */
static int parse_args(int argc, char **argv, suggest_opts *o)
{
    enum { O_TARGET = 256, O_SHAPE, O_ITER, O_TYPE, O_COMB, O_FORMAT };
    static const struct option longopts[] = {
        {"target", required_argument, NULL, O_TARGET},
        {"shape", required_argument, NULL, O_SHAPE},
        {"iter", required_argument, NULL, O_ITER},
        {"type", required_argument, NULL, O_TYPE},
        {"combiner", required_argument, NULL, O_COMB},
        {"format", required_argument, NULL, O_FORMAT},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &o->target, optarg))
                return 2;
            break;
        case O_SHAPE:
            if (!ls_flag_once(CMD, "--shape", &o->shape, optarg))
                return 2;
            break;
        case O_ITER:
            if (!ls_flag_once(CMD, "--iter", &o->iter, optarg))
                return 2;
            break;
        case O_TYPE:
            if (!ls_flag_once(CMD, "--type", &o->type, optarg))
                return 2;
            break;
        case O_COMB:
            if (!ls_flag_once(CMD, "--combiner", &o->combiner, optarg))
                return 2;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "json") == 0)
                o->json = true;
            else if (strcmp(optarg, "text") != 0) {
                ls_cli_error(CMD, "--format: expected text or o->json, found '%s'", optarg);
                return 2;
            }
            break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &o->output, optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope suggest --help)",
                         argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind > 1) {
        ls_cli_error(CMD, "expected one INPUT, found %d", argc - optind);
        return 2;
    }
    o->input = optind < argc ? argv[optind] : NULL;
    if ((o->input != NULL) == (o->shape != NULL)) {
        ls_cli_error(CMD, "give INPUT (.mlir) or --shape/--iter, exactly one of them");
        return 2;
    }
    if (!o->shape && (o->iter || o->type || o->combiner)) {
        ls_cli_error(CMD, "--iter, --type and --combiner describe a --shape problem");
        return 2;
    }
    return -1;
}

int ls_cmd_suggest(int argc, char **argv)
{
    suggest_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *target = o.target, *input = o.input, *output = o.output;
    bool json = o.json;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_target t;
    bool have_target = false;
    if (target) {
        if (!ls_cli_target(target, &t, &diag)) {
            ls_cli_report(CMD, &diag);
            return diag.status == LS_ERR_USAGE ? 2 : 1;
        }
        have_target = true;
    }
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    json_object *root = NULL;
    ls_out out;
    bool out_open = false;
    rc = 1;
    if (input) {
        if (ls_module_load_ex(input, LS_IMPORT_KEEP_UNSUPPORTED, m, &diag))
            goto fail;
        if (!have_target && m->has_target) {
            t = m->target;
            have_target = true;
        }
    } else {
        int in_bits = 0, out_bits = 0;
        if (!ls_cli_flags_problem(o.shape, o.iter, o.type, o.combiner, true, &m->problems[0],
                                  &in_bits, &out_bits, &diag))
            goto fail;
        m->n_problems = 1;
        ls_dispatch_from_problem(&m->problems[0], in_bits, out_bits, &m->dispatches[0]);
        m->n_dispatches = 1;
    }
    if (!have_target) {
        ls_diag_set(&diag, LS_ERR_USAGE, "--target", 0, 0,
                    "no target: give --target (%s) or put an #iree_gpu.target in INPUT",
                    ls_target_names());
        goto fail;
    }
    ls_out_open(&out);
    out_open = true;
    if (json) {
        root = ls_cli_json_root("suggest");
        json_object_object_add(root, "input", json_object_new_string(input ? input : "--shape"));
        json_object_object_add(root, "dispatches", json_object_new_array());
    }
    int suggested = 0;
    for (size_t i = 0; i < m->n_dispatches; i++) {
        const ls_dispatch *d = &m->dispatches[i];
        if (!has_reduction_op(d))
            continue;
        if (ls_suggest(d, &t, s, &diag))
            goto fail;
        suggested++;
        if (json) {
            json_object *arr;
            json_object_object_get_ex(root, "dispatches", &arr);
            json_object_array_add(arr, json_suggestion(d, &t, s));
        } else {
            print_text(out.f, d, &t, s);
        }
    }
    if (suggested == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, input, 0, 0,
                    "no function with a linalg op that has a reduction iterator");
        goto fail;
    }
    if (json)
        fprintf(out.f, "%s\n",
                json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    rc = ls_out_commit(&out, output);
    out_open = false;
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    if (out_open)
        ls_out_discard(&out);
    if (root)
        json_object_put(root);
    free(s);
    free(m);
    return rc;
}
