/* import_attention.c: iree_linalg_ext.attention and online_attention read
 * into the dispatch view, so `suggest` can give IREE's config for them;
 * and the iree_linalg_ext.gather ops a paged attention reads its key and
 * value through.
 *
 * The ops (IREE's Dialect/LinalgExt/IR/LinalgExtOps.td):
 *
 *   iree_linalg_ext.online_attention {indexing_maps = [Q, K, V, scale,
 *       [mask,] O, max, sum], ...} ins(%q, %k, %v, %scale[, %mask] : ...)
 *       outs(%o, %max, %sum : ...) { ^bb0(%score: f32): ... } -> ...
 *
 * attention has the same form with one init.  The loop bounds come from
 * the operand shapes through the maps; the reduced loops are K1 and K2 as
 * AttentionOpDetail classifies them (ls_attention_classify).  lanescope
 * does not simulate attention yet, so the op is also recorded as a
 * reduction the simulator cannot run, with that reason (the first such
 * record is what `sim` reports when the file has nothing else to run),
 * unless the caller asks for attention ops to be read (LS_IMPORT_ATTENTION:
 * `explain`).  Either way the op and the configs written on it go to
 * ls_module.attentions.
 */
#include "import_internal.h"

/* The score region, which the config does not read: skipped, braces
 * balanced.  *identity: it holds no op (no '=') and its yield returns the
 * block argument, `^bb0(%s: f32): iree_linalg_ext.yield %s : f32`, the
 * only form the simulator runs. */
static bool skip_region(importer *im, bool *identity)
{
    int line = tok(im)->line, col = tok(im)->col;
    char arg[64] = "", yielded[64] = "";
    bool has_op = false, after_yield = false;
    if (!expect(im, '{'))
        return false;
    for (int depth = 1; depth > 0;) {
        const ls_token *t = tok(im);
        if (t->kind == LS_TOK_EOF) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, line, col,
                        "unterminated region: no '}' matches this '{'");
            return false;
        }
        if (t->kind == LS_TOK_PERCENT && arg[0] == 0)
            copy_tok(arg, sizeof arg, t);
        else if (t->kind == LS_TOK_PERCENT && after_yield && yielded[0] == 0)
            copy_tok(yielded, sizeof yielded, t);
        has_op |= ls_tok_is(t, '=');
        after_yield |= ls_tok_ident(t, "iree_linalg_ext.yield");
        depth += ls_tok_is(t, '{') - ls_tok_is(t, '}');
        next(im);
    }
    *identity = !has_op && arg[0] && strcmp(arg, yielded) == 0;
    return true;
}

/* One lowering_config, at `key` of dict (NULL: absent). */
static bool read_config(importer *im, const ls_attr *dict, const char *key, bool *has,
                        ls_lowering_config *out)
{
    const ls_attr *a = dict ? ls_attr_get(dict, key) : NULL;
    *has = a != NULL;
    return !a || ls_lowering_config_from_attr(a, im->file, out, im->diag) == LS_OK;
}

/* The op in ls_module.attentions with the configs written on it:
 * lowering_config, and decomposition_config = {qk_attrs = {lowering_config
 * = ...}, pv_attrs = {...}} (IREE's DecomposeAttention hands each to its
 * matmul). */
static bool record_attention(importer *im, const ls_attr *dict, const ls_dop *dop,
                             const operand_list *ins, const operand_list *outs, bool identity,
                             int region_line, int region_col)
{
    if (im->m->n_attentions >= LS_IMPORT_MAX_FUNCS)
        return ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, dop->line, dop->col,
                           "more than %d attention ops in one file", LS_IMPORT_MAX_FUNCS) == LS_OK;
    ls_module_attention *a = &im->m->attentions[im->m->n_attentions];
    memset(a, 0, sizeof *a);
    a->dispatch = (int)(im->cur - im->m->dispatches);
    a->op = (int)(dop - im->cur->ops);
    if (!read_config(im, dict, "lowering_config", &a->has_config, &a->config))
        return false;
    const ls_attr *dc = ls_attr_get(dict, "decomposition_config");
    if (dc) {
        if (dc->kind != LS_AV_DICT)
            return ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dc->line, dc->col,
                               "decomposition_config: expected {qk_attrs = {...}, pv_attrs = "
                               "{...}}, found %s",
                               ls_attr_kind_name(dc->kind)) == LS_OK;
        const ls_attr *qk = ls_attr_get(dc, "qk_attrs"), *pv = ls_attr_get(dc, "pv_attrs");
        if (!read_config(im, qk && qk->kind == LS_AV_DICT ? qk : NULL, "lowering_config",
                         &a->has_qk, &a->qk) ||
            !read_config(im, pv && pv->kind == LS_AV_DICT ? pv : NULL, "lowering_config",
                         &a->has_pv, &a->pv))
            return false;
    }
    if (im->has_ti) {
        a->has_ti = true;
        a->ti = im->ti;
    }
    a->has_scale = ls_imp_constant_of(im, ins->names[3], &a->scale_type, &a->scale_bits);
    for (int i = 0; i < outs->n && i < 3; i++)
        a->init_filled[i] = ls_imp_fill_of(im, outs->names[i], outs->types[i].elem, &a->init_bits[i]);
    for (int k = 0; k < ins->n && k < 5; k++)
        for (int i = 0; i < im->n_opaque; i++)
            if (strcmp(im->opaque[i].name, ins->names[k]) == 0) {
                snprintf(a->opaque_kind[k], sizeof a->opaque_kind[k], "%s", im->opaque[i].kind);
                a->opaque_line[k] = im->opaque[i].line;
            }
    for (int k = 1; k < ins->n && k < 3; k++)
        for (int i = im->n_gathers; i-- > 0;)
            if (strcmp(im->gathers[i].name, ins->names[k]) == 0 &&
                strcmp(a->opaque_kind[k], "iree_linalg_ext.gather") == 0) {
                a->gather[k] = im->gathers[i].g;
                break;
            }
    a->region_identity = identity;
    a->region_line = region_line;
    a->region_col = region_col;
    im->m->n_attentions++;
    return true;
}

void ls_imp_gather_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    ls_imp_note_opaque(im, result_name, "iree_linalg_ext.gather", op.line);
    next(im);
    ls_module_gather g;
    memset(&g, 0, sizeof g);
    g.line = op.line;
    g.col = op.col;
    if (ls_tok_is(tok(im), '{')) { /* attr-dict: nothing lanescope reads, so kept to refuse */
        ls_attr *ad = ls_parse_attr(&im->p);
        if (ad == NULL)
            return;
        if (ad->kind == LS_AV_DICT && ad->n > 0) {
            snprintf(g.unread, sizeof g.unread, "%s", ad->keys && ad->keys[0] ? ad->keys[0] : "?");
            g.unread_line = ad->line;
            g.unread_col = ad->col;
        }
    }
    if (!ls_tok_ident(tok(im), "dimension_map")) {
        syntax(im, "'dimension_map = [...]'");
        return;
    }
    next(im);
    if (!expect(im, '='))
        return;
    ls_attr *dm = ls_parse_attr(&im->p);
    if (dm == NULL)
        return;
    if (dm->kind != LS_AV_ARRAY || dm->n < 1 || dm->n > LS_MAX_SHAPE_RANK) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dm->line, dm->col,
                    "dimension_map: expected 1 to %d source dims, as [0]", LS_MAX_SHAPE_RANK);
        return;
    }
    for (size_t i = 0; i < dm->n; i++) {
        if (dm->items[i]->kind != LS_AV_INT) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dm->items[i]->line,
                        dm->items[i]->col, "dimension_map: expected an integer");
            return;
        }
        g.dimension_map[i] = dm->items[i]->i;
    }
    g.depth = (int)dm->n;
    operand_list ins, outs;
    if (!ls_imp_operands(im, "ins", &ins) || !ls_imp_operands(im, "outs", &outs))
        return;
    if (ins.n < 2 || ins.n > 3 || outs.n != 1) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, op.line, op.col,
                    "iree_linalg_ext.gather takes a source, indices and an optional mask, and "
                    "one output; found %d inputs and %d outputs",
                    ins.n, outs.n);
        return;
    }
    snprintf(g.source, sizeof g.source, "%s", ins.names[0]);
    snprintf(g.indices, sizeof g.indices, "%s", ins.names[1]);
    g.source_rank = ins.types[0].rank;
    g.index_rank = ins.types[1].rank;
    memcpy(g.source_shape, ins.types[0].dims, sizeof g.source_shape);
    memcpy(g.index_shape, ins.types[1].dims, sizeof g.index_shape);
    g.source_elem = ins.types[0].elem;
    g.index_elem = ins.types[1].elem;
    g.has_mask = ins.n == 3;
    g.on = true;
    if (im->n_gathers == MAX_GATHERS) { /* the latest are the ones read next */
        memmove(im->gathers, im->gathers + 1, (MAX_GATHERS - 1) * sizeof im->gathers[0]);
        im->n_gathers--;
    }
    snprintf(im->gathers[im->n_gathers].name, sizeof im->gathers[0].name, "%s", result_name);
    im->gathers[im->n_gathers++].g = g;
}

void ls_imp_attention_op(importer *im, const char *result_name)
{
    ls_token op = *tok(im);
    bool online = ls_tok_ident(&op, "iree_linalg_ext.online_attention");
    const char *kind = online ? "iree_linalg_ext.online_attention" : "iree_linalg_ext.attention";
    next(im);
    if (!ls_tok_is(tok(im), '{')) {
        syntax(im, "'{' with indexing_maps");
        return;
    }
    ls_attr *dict = ls_parse_attr(&im->p);
    if (dict == NULL)
        return;
    operand_list ins, outs;
    if (!ls_imp_operands_ex(im, "ins", true, &ins) || !ls_imp_operands(im, "outs", &outs))
        return;
    bool identity = true;
    int region_line = tok(im)->line, region_col = tok(im)->col;
    if (ls_tok_is(tok(im), '{') && !skip_region(im, &identity))
        return;
    const ls_attr *maps = ls_attr_get(dict, "indexing_maps");
    int want_outs = online ? 3 : 1;
    if (ins.n < 4 || ins.n > 5 || outs.n != want_outs) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, op.line, op.col,
                    "%s takes query, key, value, scale and an optional mask, and %d init%s; "
                    "found %d inputs and %d inits",
                    kind, want_outs, want_outs == 1 ? "" : "s", ins.n, outs.n);
        return;
    }
    if (maps == NULL || maps->kind != LS_AV_ARRAY || maps->n != (size_t)(ins.n + outs.n)) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, dict->line, dict->col,
                    "%s needs indexing_maps with one affine_map per operand (%d)", kind,
                    ins.n + outs.n);
        return;
    }
    int rank = -1;
    const ls_affine_map *am[LS_DISPATCH_MAX_OPERANDS] = {NULL};
    for (size_t k = 0; k < maps->n; k++) {
        const ls_attr *m = maps->items[k];
        if (m->kind != LS_AV_AFFINE_MAP || (rank >= 0 && m->map->num_dims != rank)) {
            ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, m->line, m->col,
                        "expected an affine_map over the %s's loops in indexing_maps", kind);
            return;
        }
        rank = m->map->num_dims;
        am[k] = m->map;
    }
    if (rank < 1 || rank > LS_MAX_RANK) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, maps->line, maps->col,
                    "%s has %d loops; the rank limit is %d", kind, rank, LS_MAX_RANK);
        return;
    }
    bool red[LS_MAX_RANK] = {false};
    ls_dop *dop = ls_imp_add_dop(im, kind, op.line, op.col, rank, red, am, &ins, &outs, NULL,
                                 result_name, op.text);
    if (failed(im))
        return;
    if (dop) {
        ls_attention_dims ad;
        ls_attention_classify(dop, &ad);
        for (int i = 0; i < ad.n_k1; i++)
            dop->is_reduction[ad.k1[i]] = true;
        for (int i = 0; i < ad.n_k2; i++)
            dop->is_reduction[ad.k2[i]] = true;
        if (!record_attention(im, dict, dop, &ins, &outs, identity, region_line, region_col))
            return;
    }
    if (im->flags & LS_IMPORT_ATTENTION)
        return;
    ls_problem *p = ls_imp_new_problem(im, op.line, op.col, online ? "online_attention" : "attention");
    if (p == NULL)
        return;
    ls_diag local, *saved;
    ls_imp_begin_problem_checks(im, &local, &saved);
    ls_diag_set(im->diag, LS_ERR_INVALID, im->file, op.line, op.col,
                "%s is not a reduction, which this command takes: `lanescope sim` times it "
                "and runs its values as IREE lowers them (--dump-plan lists its kernel), "
                "`view` steps through it, `sweep` tries IREE's rules with other seeds, `draw` "
                "draws its layouts and kernel, `explain` lays it out and `suggest` gives "
                "IREE's config for it",
                kind);
    ls_imp_end_problem_checks(im, &local, saved);
}
