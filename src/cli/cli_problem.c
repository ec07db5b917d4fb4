/* cli_problem.c: where a command's reductions come from -- an INPUT file
 * (or "-"), or a problem stated by flags (--shape/--iter/--type/--combiner),
 * with --config giving every reduction a lowering config.  One reading of
 * these flags for explain, sim and draw, so each means the same everywhere
 * and none is ignored: a describing flag without --shape is refused. */
#include <string.h>

#include "cli.h"
#include "lanescope/arena.h"
#include "lanescope/attrs.h"
#include "lanescope/mlir.h"

static const char *const problem_flag_names[] = {"--config", "--shape", "--iter", "--type",
                                                 "--combiner"};

int ls_cli_problem_flag(const char *cmd, ls_cli_problem_flags *pf, int which, const char *arg)
{
    const char **slot;
    const char *name;
    switch (which) {
    case LS_CLI_OPT_CONFIG: slot = &pf->config; name = problem_flag_names[0]; break;
    case LS_CLI_OPT_SHAPE: slot = &pf->shape; name = problem_flag_names[1]; break;
    case LS_CLI_OPT_ITER: slot = &pf->iter; name = problem_flag_names[2]; break;
    case LS_CLI_OPT_TYPE: slot = &pf->type; name = problem_flag_names[3]; break;
    case LS_CLI_OPT_COMBINER: slot = &pf->combiner; name = problem_flag_names[4]; break;
    default: return 0;
    }
    return ls_flag_once(cmd, name, slot, arg) ? 1 : -1;
}

bool ls_cli_problem_source(const char *cmd, const char *input, const ls_cli_problem_flags *pf)
{
    if (input && pf->shape) {
        ls_cli_error(cmd, "give INPUT or --shape, not both");
        return false;
    }
    if (!pf->shape) {
        const char *describing[] = {pf->iter, pf->type, pf->combiner};
        for (int i = 0; i < 3; i++)
            if (describing[i]) {
                ls_cli_error(cmd, "%s describes a --shape problem; %s", problem_flag_names[2 + i],
                             input ? "INPUT's reductions say their own (leave it out)"
                                   : "give --shape too");
                return false;
            }
    }
    return true;
}

ls_status ls_cli_problem_load(const char *input, const ls_cli_problem_flags *pf,
                              const ls_import_dims *dims, ls_module *m, ls_diag *diag)
{
    if (input) {
        if (ls_module_load_dims(input, pf->import_flags, dims, m, diag))
            return diag->status;
    } else {
        memset(m, 0, sizeof *m);
        bool any_dim = false;
        for (int d = 0; dims && d < LS_MAX_RANK; d++)
            any_dim |= dims->size[d] > 0;
        if (any_dim)
            return ls_diag_set(diag, LS_ERR_USAGE, "--dim", 0, 0,
                               "--shape states every size; --dim sizes a dynamic dim of INPUT");
        if (!ls_cli_flags_problem(pf->shape, pf->iter, pf->type, pf->combiner, false,
                                  &m->problems[0], NULL, NULL, diag))
            return diag->status;
        m->n_problems = 1;
    }
    if (pf->config) {
        ls_arena arena;
        ls_arena_init(&arena);
        ls_attr *a = ls_parse_attr_string(pf->config, strlen(pf->config), "--config", &arena,
                                          NULL, diag);
        ls_lowering_config cfg;
        ls_status st = a == NULL ? diag->status
                                 : ls_lowering_config_from_attr(a, "--config", &cfg, diag);
        ls_arena_fini(&arena);
        if (st)
            return st;
        /* an attention's configs are three (the op's lowering_config and
         * its decomposition_config's two): one flag cannot stand for them */
        if (m->n_attentions > 0 && (pf->import_flags & LS_IMPORT_ATTENTION))
            return ls_diag_set(diag, LS_ERR_USAGE, "--config", 0, 0,
                               "%s holds an attention op, whose configs are the op's "
                               "lowering_config and its decomposition_config's qk_attrs and "
                               "pv_attrs; write them on the op (--config replaces a "
                               "reduction's)",
                               input);
        for (size_t i = 0; i < m->n_problems; i++) {
            m->problems[i].has_config = true;
            m->problems[i].config = cfg;
            m->problems[i].config_from_flag = true;
        }
    }
    return LS_OK;
}

const char *ls_cli_config_source(const ls_problem *p)
{
    return p->config_suggested ? "iree-default" : p->config_from_flag ? "--config" : "input";
}
