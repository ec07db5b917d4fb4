/* import.c: scan IREE dispatch IR for reductions and layout attributes.
 *
 * This is not an MLIR parser: it lexes the whole file and recognises, at any
 * nesting, the few constructs it needs (alias definitions, linalg.generic,
 * linalg.reduce, translation_info = ..., iree_vector_ext.to_layout and the
 * IREE attributes listed in import.h).  Other tokens are skipped one at a
 * time, so unknown syntax is passed over quietly; errors are reported only
 * for the constructs it reads (linalg.generic / linalg.reduce in
 * import_generic.c, the named ops, arg_compare and softmax in their own
 * files).  Alias definitions that fail to parse are kept
 * with their error, which surfaces only if a read construct uses the alias.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/atomic.h"
#include "import_internal.h"

/* ---- collecting IREE attributes found anywhere ---- */

static bool seen_before(importer *im, const ls_attr *a)
{
    for (int i = 0; i < im->n_seen; i++)
        if (im->seen_attrs[i] == a)
            return true;
    if (im->n_seen < (int)(sizeof im->seen_attrs / sizeof im->seen_attrs[0]))
        im->seen_attrs[im->n_seen++] = a;
    return false;
}

static ls_module_layout *find_layout(importer *im, const ls_attr *a);

static void collect(importer *im, const ls_attr *a, const char *alias, int depth)
{
    if (a == NULL || depth > LS_MLIR_MAX_DEPTH || failed(im))
        return;
    if (a->kind == LS_AV_DIALECT && a->s) {
        if (strcmp(a->s, "iree_gpu.target") == 0) {
            if (ls_target_from_attr(a, im->file, &im->m->target, im->diag) == LS_OK)
                im->m->has_target = true;
            return;
        }
        if (strcmp(a->s, "iree_vector_ext.nested_layout") == 0) {
            if (seen_before(im, a))
                return;
            if (im->m->n_layouts >= LS_IMPORT_MAX_ITEMS) {
                ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, a->line, a->col,
                            "more than %d nested layouts in one file", LS_IMPORT_MAX_ITEMS);
                return;
            }
            ls_module_layout *ml = &im->m->layouts[im->m->n_layouts];
            memset(ml, 0, sizeof *ml);
            if (ls_nested_layout_from_attr(a, im->file, &ml->layout, im->diag) == LS_OK) {
                snprintf(ml->name, sizeof ml->name, "%s", alias ? alias : "");
                im->m->n_layouts++;
            }
            return;
        }
        if (strcmp(a->s, "iree_codegen.xor_shuffle") == 0 ||
            strcmp(a->s, "iree_codegen.rotate_rows") == 0) {
            if (seen_before(im, a))
                return;
            if (im->m->n_swizzles >= LS_IMPORT_MAX_ITEMS) {
                ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, a->line, a->col,
                            "more than %d swizzle attributes in one file", LS_IMPORT_MAX_ITEMS);
                return;
            }
            ls_module_swizzle *ms = &im->m->swizzles[im->m->n_swizzles];
            memset(ms, 0, sizeof *ms);
            if (ls_swizzle_from_attr(a, im->file, &ms->swizzle, im->diag) == LS_OK) {
                snprintf(ms->name, sizeof ms->name, "%s", alias ? alias : "");
                im->m->n_swizzles++;
            }
            return;
        }
    }
    for (size_t i = 0; i < a->n; i++)
        collect(im, a->items[i], NULL, depth + 1);
}

static ls_module_layout *find_layout(importer *im, const ls_attr *a)
{
    /* Layouts are recorded in file order; match by position of the attribute. */
    for (size_t i = 0; i < im->m->n_layouts; i++)
        if (im->m->layouts[i].layout.line == a->line && im->m->layouts[i].layout.col == a->col)
            return &im->m->layouts[i];
    return NULL;
}

/* ---- alias definitions:  #name = value ---- */

/* The value of an alias definition `NAME = ...` at the current token,
 * parsed with a private diag: a broken alias is an error only where it is
 * used, so its error is kept in the alias and the reader resynchronises at
 * the next token in column 1 (top-level syntax). */
static ls_alias alias_body(importer *im, ls_token name, bool type)
{
    next(im); /* '=' */
    next(im);
    ls_alias al;
    memset(&al, 0, sizeof al);
    al.name = ls_arena_strndup(&im->arena, name.text + 1, name.len - 1);
    al.line = name.line;
    al.col = name.col;
    ls_diag local;
    ls_diag_clear(&local);
    im->p.diag = &local;
    im->lx.diag = &local;
    im->p.depth = 0;
    al.value = type ? ls_parse_type(&im->p) : ls_parse_attr(&im->p);
    im->p.diag = im->diag;
    im->lx.diag = im->diag;
    if (al.value == NULL) {
        al.error = local;
        while (tok(im)->kind != LS_TOK_EOF && !(tok(im)->col == 1 && tok(im)->line > name.line))
            next(im);
        /* its text is passed over by the bracket check too, but for one
         * that runs to the end of the file: a file cut short there */
        if (tok(im)->kind == LS_TOK_EOF)
            return al;
        if (im->n_skipped == im->cap_skipped) {
            im->cap_skipped = im->cap_skipped ? im->cap_skipped * 2 : 16;
            im->skipped = ls_xrealloc(im->skipped, im->cap_skipped * sizeof *im->skipped);
        }
        im->skipped[im->n_skipped].begin = name.text;
        im->skipped[im->n_skipped].end = tok(im)->text;
        im->n_skipped++;
    }
    return al;
}

static void alias_definition(importer *im)
{
    ls_token name = *tok(im);
    ls_alias al = alias_body(im, name, false);
    ls_alias_add(&im->aliases, &al);
    if (al.value)
        collect(im, al.value, al.name, 0);
}

/* ---- type alias definitions:  !name = type ----
 *
 * IREE's test dispatches name their tensor types once (!A = tensor<...>)
 * and use !A in op and binding types.  Unlike attribute aliases, a second
 * definition is an error (as in MLIR): with types the last-wins rule would
 * silently change the shapes of ops already read.  A definition that does
 * not parse is kept with its error, reported only where it is used. */
static void type_alias_definition(importer *im)
{
    ls_token name = *tok(im);
    const ls_alias *prev = ls_alias_find(&im->type_aliases, name.text + 1, name.len - 1);
    if (prev) {
        ls_diag_set(im->diag, LS_ERR_SYNTAX, im->file, name.line, name.col,
                    "type alias !%s is already defined at line %d, column %d", prev->name,
                    prev->line, prev->col);
        return;
    }
    ls_alias al = alias_body(im, name, true);
    ls_alias_add(&im->type_aliases, &al);
}

/* ---- lowering_config / compilation_info in an op's attribute dictionary ---- */

bool ls_imp_take_op_attrs(importer *im, const ls_attr *dict, ls_problem *p)
{
    if (dict == NULL)
        return true;
    const ls_attr *lc = ls_attr_get(dict, "lowering_config");
    const ls_attr *ci = ls_attr_get(dict, "compilation_info");
    if (ci && ci->kind == LS_AV_DIALECT) {
        if (!lc)
            lc = ls_attr_get(ci, "lowering_config");
        const ls_attr *ti = ls_attr_get(ci, "translation_info");
        if (ti) {
            if (ls_translation_info_from_attr(ti, im->file, &p->ti, im->diag))
                return false;
            p->has_ti = true;
        }
    }
    if (lc) {
        if (ls_lowering_config_from_attr(lc, im->file, &p->config, im->diag))
            return false;
        p->has_config = true;
    }
    return true;
}

ls_problem *ls_imp_new_problem(importer *im, int line, int col, const char *opname)
{
    if (im->m->n_problems >= LS_IMPORT_MAX_ITEMS) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, line, col,
                    "more than %d reductions in one file", LS_IMPORT_MAX_ITEMS);
        return NULL;
    }
    ls_problem *p = &im->m->problems[im->m->n_problems];
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", im->file);
    p->n_inputs = 1;
    p->line = line;
    p->col = col;
    im->op_index++;
    snprintf(p->name, sizeof p->name, "%s%s%s#%d", im->func, im->func[0] ? ":" : "", opname,
             im->op_index);
    if (im->has_ti) {
        p->has_ti = true;
        p->ti = im->ti;
    }
    return p;
}

bool ls_imp_bind_map(importer *im, ls_problem *p, const ls_affine_map *am, int line, int col,
                     const ls_type_info *t, int *map, int *map_n, int64_t *scale,
                     int64_t *shape, const char *what)
{
    struct {
        int line, col;
    } loc = {line, col}, *m = &loc;
    if (am->num_dims != p->rank)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                           "%s indexing map has %d dims but iterator_types has %d", what,
                           am->num_dims, p->rank) == LS_OK;
    if (am->num_results != t->rank)
        return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                           "%s indexing map has %d results but the operand has rank %d", what,
                           am->num_results, t->rank) == LS_OK;
    bool used[LS_MAX_RANK] = {false};
    for (int j = 0; j < am->num_results; j++) {
        const ls_aff_expr *e = &am->results[j];
        bool strided = e->kind == LS_AFF_SCALED && scale != NULL;
        if ((e->kind != LS_AFF_DIM && !strided) || used[e->value])
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                               "%s indexing map result %d is not a distinct loop dimension%s; "
                               "lanescope models projected permutations%s",
                               what, j, e->kind == LS_AFF_SCALED ? " (a strided init)" : "",
                               scale ? " and strided inputs (d1 * 2)" : "") == LS_OK;
        used[e->value] = true;
        int d = (int)e->value;
        int64_t s = t->dims[j];
        map[j] = d;
        if (scale) {
            scale[j] = strided ? e->scale : 0;
            shape[j] = strided ? s : 0;
        }
        if (strided) {
            /* the operand's own size; the loop's comes from another operand */
            if (s < 0)
                return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                                   "%s dimension %d is read with stride %lld but its size is "
                                   "dynamic; lanescope needs it static",
                                   what, j, (long long)e->scale) == LS_OK;
            continue;
        }
        if (s < 0) {
            /* Bound by --dim, else sized by the other operand (checked by
             * the caller once both maps are read). */
            if (dim_binding(im, d) <= 0)
                continue;
            s = dim_binding(im, d);
        }
        if (p->size[d] != 0 && p->size[d] != s)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, m->line, m->col,
                               "loop dimension d%d is %lld in one operand and %lld in the %s", d,
                               (long long)p->size[d], (long long)s, what) == LS_OK;
        p->size[d] = s;
    }
    *map_n = am->num_results;
    return true;
}

/* The simulator's own checks of a reduction op run against a private diag:
 * an op it cannot model is still a valid op of the dispatch, so the first
 * such problem is kept in the module (unsupported) and the import goes on. */
void ls_imp_begin_problem_checks(importer *im, ls_diag *saved_owner, ls_diag **saved)
{
    ls_diag_clear(saved_owner);
    *saved = im->diag;
    im->diag = saved_owner;
}

void ls_imp_end_problem_checks(importer *im, ls_diag *local, ls_diag *saved)
{
    im->diag = saved;
    if (local->status != LS_OK) {
        if (im->m->n_unsupported++ == 0)
            im->m->unsupported = *local;
    }
}

void ls_imp_link_problem(importer *im, ls_dop *o)
{
    ls_problem *p = &im->m->problems[im->m->n_problems];
    p->dispatch = -1;
    p->dispatch_op = -1;
    if (o && im->cur) {
        o->problem = (int)im->m->n_problems;
        p->dispatch = (int)(im->cur - im->m->dispatches);
        p->dispatch_op = (int)(o - im->cur->ops);
    }
    im->m->n_problems++;
}

bool ls_imp_check_loops(importer *im, ls_problem *p, const bool *in_input, int line, int col,
                        int maps_line, int maps_col)
{
    for (int d = 0; d < p->rank; d++) {
        bool in_out = false;
        for (int j = 0; j < p->out_map_n; j++)
            in_out |= p->out_map[j] == d;
        if (p->size[d] == 0 && (in_input[d] || in_out))
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, line, col,
                               "loop dimension d%d is dynamic ('?') in every operand; give its "
                               "size with --dim %d=N",
                               d, d) == LS_OK;
        if (p->size[d] == 0)
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, maps_line, maps_col,
                               "loop dimension d%d appears in no operand's indexing map",
                               d) == LS_OK;
        if (in_out == p->is_reduction[d])
            return ls_diag_set(im->diag, LS_ERR_INVALID, im->file, maps_line, maps_col,
                               "loop dimension d%d is %s but %s the init's indexing map", d,
                               p->is_reduction[d] ? "a reduction" : "parallel",
                               in_out ? "appears in" : "is missing from") == LS_OK;
    }
    return true;
}

static void store_op(importer *im, bool insert)
{
    ls_token op = *tok(im);
    next(im);
    if (tok(im)->kind != LS_TOK_PERCENT)
        return;
    ls_dispatch *d = ls_imp_cur_dispatch(im, op.line, op.col);
    if (d == NULL)
        return;
    int *n = insert ? &d->n_inserts : &d->n_stores;
    if (*n >= LS_DISPATCH_MAX_STORES) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, op.line, op.col,
                    "more than %d stores in function @%s", LS_DISPATCH_MAX_STORES, d->func);
        return;
    }
    char(*names)[48] = insert ? d->inserted : d->stored;
    copy_tok(names[(*n)++], sizeof names[0], tok(im));
}

static bool token_contains(const ls_token *t, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= t->len; i++)
        if (memcmp(t->text + i, word, n) == 0)
            return true;
    return false;
}

/* scf.forall ... { region } {mapping = [...]}: counted, its region's text
 * remembered so the ops inside are marked, its mapping checked for IREE's
 * split-reduction mapping.  The tokens are then read again as usual. */
static void forall_op(importer *im)
{
    ls_token op = *tok(im);
    ls_dispatch *d = ls_imp_cur_dispatch(im, op.line, op.col);
    if (d == NULL)
        return;
    ls_lexer save = im->lx;
    ls_diag quiet;
    ls_diag_clear(&quiet);
    im->lx.diag = &quiet;
    next(im);
    while (tok(im)->kind != LS_TOK_EOF && !ls_tok_is(tok(im), '{'))
        next(im);
    const char *begin = tok(im)->text, *end = begin;
    int depth = 0;
    while (tok(im)->kind != LS_TOK_EOF) {
        if (ls_tok_is(tok(im), '{'))
            depth++;
        if (ls_tok_is(tok(im), '}') && --depth == 0) {
            end = tok(im)->text;
            break;
        }
        next(im);
    }
    bool split = false;
    next(im);
    if (ls_tok_is(tok(im), '{')) {
        depth = 0;
        do {
            if (ls_tok_is(tok(im), '{'))
                depth++;
            if (ls_tok_is(tok(im), '}'))
                depth--;
            if (token_contains(tok(im), "split_reduction_mapping"))
                split = true;
            next(im);
        } while (depth > 0 && tok(im)->kind != LS_TOK_EOF);
    }
    im->lx = save;
    im->lx.diag = im->diag;
    if (d->n_forall++ == 0) {
        d->forall_split_mapping = split;
        d->forall_line = op.line;
        d->forall_col = op.col;
        im->forall_begin = begin;
        im->forall_end = end;
    }
    next(im);
}

/* iree_vector_ext.to_layout %x to layout(#layout) [attrs] : vector<...> */
static void to_layout_op(importer *im)
{
    next(im);
    int guard = 0;
    while (!ls_tok_ident(tok(im), "layout") && tok(im)->kind != LS_TOK_EOF && guard++ < 8)
        next(im);
    if (!ls_tok_ident(tok(im), "layout"))
        return;
    next(im);
    if (!expect(im, '('))
        return;
    ls_attr *a = ls_parse_attr(&im->p);
    if (a == NULL)
        return;
    collect(im, a, NULL, 0);
    if (!expect(im, ')'))
        return;
    if (ls_tok_is(tok(im), '{') && ls_parse_attr(&im->p) == NULL)
        return;
    if (!ls_tok_is(tok(im), ':'))
        return;
    next(im);
    ls_attr *t = ls_parse_type(&im->p);
    if (t == NULL)
        return;
    ls_module_layout *ml = a->kind == LS_AV_DIALECT ? find_layout(im, a) : NULL;
    if (ml && t->type && t->type->shaped && t->type->rank <= LS_MAX_RANK * 2) {
        ml->vector_rank = t->type->rank;
        memcpy(ml->vector_shape, t->type->dims, (size_t)t->type->rank * sizeof(int64_t));
    }
}

static bool wanted_inline(const ls_token *t)
{
    static const char *names[] = {"#iree_gpu.target", "#iree_vector_ext.nested_layout",
                                  "#iree_codegen.xor_shuffle", "#iree_codegen.rotate_rows",
                                  "#hal.executable.target"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (t->len == strlen(names[i]) && memcmp(t->text, names[i], t->len) == 0)
            return true;
    return false;
}

/* Read ops until the end of the current lexer's text. */
/* func.func at t: its name and signature; the function's state starts
 * afresh (a dispatch starts with its first op). */
static void func_header(importer *im, const ls_token *t)
{
    next(im);
    while (tok(im)->kind == LS_TOK_IDENT)
        next(im); /* visibility */
    if (tok(im)->kind == LS_TOK_AT)
        snprintf(im->func, sizeof im->func, "%.*s", tok(im)->len > 90 ? 90 : (int)tok(im)->len,
                 tok(im)->text);
    ls_imp_ssa_clear(&im->func_names);
    im->n_func_args = 0;
    im->n_opaque = 0;
    im->n_gathers = 0;
    im->func_depth = -1;
    im->func_body_at = NULL;
    if (tok(im)->kind == LS_TOK_AT)
        ls_imp_func_signature(im);
    im->op_index = 0;
    im->cur = NULL; /* a dispatch starts with the function's first op */
    im->func_line = t->line;
    im->func_col = t->col;
    im->forall_begin = im->forall_end = NULL;
}

/* Any other token: an op the dispatch view does not model (noted when it
 * defines pending), or a brace that opens or closes the function's body. */
static void other_token(importer *im, const ls_token *t, const char *pending)
{
    if (pending[0] && t->kind == LS_TOK_IDENT && !ls_tok_ident(t, "tensor.empty")) {
        /* `%x = some.op`: a value the dispatch view does not model */
        char kind[48];
        copy_tok(kind, sizeof kind, t);
        ls_imp_note_opaque(im, pending, kind, t->line);
    }
    if (ls_tok_is(t, '{')) {
        im->brace_depth++;
        if (t->text == im->func_body_at)
            im->func_depth = im->brace_depth; /* the function's body opens */
    } else if (ls_tok_is(t, '}')) {
        if (im->func_depth >= 0 && im->brace_depth <= im->func_depth) {
            im->func_depth = -1; /* and ends */
            im->func_body_at = NULL;
            im->n_func_args = 0;
            ls_imp_ssa_clear(&im->func_names);
        }
        im->brace_depth--;
    }
    next(im);
}

void ls_imp_scan_ops(importer *im)
{
    char pending[64] = "";
    while (!failed(im) && tok(im)->kind != LS_TOK_EOF) {
        ls_token t = *tok(im);
        im->p.depth = 0;
        if ((t.kind == LS_TOK_HASH || t.kind == LS_TOK_BANG) &&
            memchr(t.text, '.', t.len) == NULL && !ls_lex_adjacent(&im->lx, '<')) {
            /* #name = attr / !name = type: an alias definition when '=' follows */
            ls_lexer save = im->lx;
            next(im);
            bool def = ls_tok_is(tok(im), '=');
            im->lx = save;
            if (def) {
                if (t.kind == LS_TOK_HASH)
                    alias_definition(im);
                else
                    type_alias_definition(im);
                continue;
            }
            next(im);
        } else if (t.kind == LS_TOK_HASH && ls_lex_adjacent(&im->lx, '<') && wanted_inline(&t)) {
            ls_attr *a = ls_parse_attr(&im->p);
            if (a)
                collect(im, a, NULL, 0);
        } else if (t.kind == LS_TOK_PERCENT) {
            if (!ls_imp_top_level_definition(im, &t))
                return;
            copy_tok(pending, sizeof pending, &t);
            next(im);
            if (!ls_tok_is(tok(im), '=') && !ls_tok_is(tok(im), ':') && !ls_tok_is(tok(im), ','))
                pending[0] = 0;
            continue;
        } else if (ls_tok_is(&t, '=') && pending[0]) {
            next(im); /* keep the pending result name for the op that follows */
            continue;
        } else if (ls_tok_is(&t, ':') && pending[0]) {
            next(im); /* %5:2 = ...: results %5#0 and %5#1 */
            if (tok(im)->kind == LS_TOK_INT) {
                next(im);
                continue;
            }
            pending[0] = 0;
            continue;
        } else if (ls_tok_ident(&t, "func.func")) {
            func_header(im, &t);
        } else if (ls_tok_ident(&t, "translation_info")) {
            next(im);
            if (ls_tok_is(tok(im), '=')) {
                next(im);
                ls_attr *a = ls_parse_attr(&im->p);
                if (a && ls_translation_info_from_attr(a, im->file, &im->ti, im->diag) == LS_OK)
                    im->has_ti = true;
            }
        } else if (ls_tok_ident(&t, "linalg.generic")) {
            ls_imp_generic_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "linalg.softmax")) {
            ls_imp_softmax_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "iree_linalg_ext.arg_compare")) {
            ls_imp_arg_compare_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "iree_linalg_ext.online_attention") ||
                   ls_tok_ident(&t, "iree_linalg_ext.attention")) {
            ls_imp_attention_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "iree_linalg_ext.gather") && pending[0]) {
            ls_imp_gather_op(im, pending);
        } else if (ls_tok_ident(&t, "linalg.reduce")) {
            ls_imp_reduce_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "arith.constant") && pending[0]) {
            ls_imp_constant(im, pending);
        } else if (ls_imp_is_named_op(&t)) {
            ls_imp_named_op(im, pending[0] ? pending : NULL);
        } else if (ls_tok_ident(&t, "iree_tensor_ext.dispatch.tensor.store") ||
                   ls_tok_ident(&t, "flow.dispatch.tensor.store") ||
                   ls_tok_ident(&t, "iree_codegen.store_to_buffer")) {
            store_op(im, false);
        } else if (ls_tok_ident(&t, "hal.interface.binding.subspan") ||
                   ls_tok_ident(&t, "iree_tensor_ext.dispatch.tensor.load") ||
                   ls_tok_ident(&t, "flow.dispatch.tensor.load") ||
                   ls_tok_ident(&t, "iree_codegen.load_from_buffer")) {
            ls_dispatch *d = ls_imp_cur_dispatch(im, t.line, t.col);
            if (d)
                d->has_bindings = true;
            next(im);
        } else if (ls_tok_ident(&t, "tensor.parallel_insert_slice")) {
            store_op(im, true);
        } else if (ls_tok_ident(&t, "scf.forall")) {
            forall_op(im);
        } else if (ls_tok_ident(&t, "iree_vector_ext.to_layout")) {
            to_layout_op(im);
        } else {
            other_token(im, &t, pending);
        }
        pending[0] = 0;
    }
}

void ls_imp_note_opaque(importer *im, const char *name, const char *kind, int line)
{
    /* past the table's end the oldest goes (a function with that many is
     * far past IREE's dispatches) */
    if (im->n_opaque == MAX_OPAQUE) {
        memmove(im->opaque, im->opaque + 1, (MAX_OPAQUE - 1) * sizeof im->opaque[0]);
        im->n_opaque--;
    }
    snprintf(im->opaque[im->n_opaque].name, sizeof im->opaque[0].name, "%s", name);
    snprintf(im->opaque[im->n_opaque].kind, sizeof im->opaque[0].kind, "%s", kind);
    im->opaque[im->n_opaque++].line = line;
}

ls_status ls_module_parse(const char *text, size_t len, const char *file, ls_module *m,
                          ls_diag *diag)
{
    return ls_module_parse_ex(text, len, file, 0, m, diag);
}

ls_status ls_module_parse_ex(const char *text, size_t len, const char *file, int flags,
                             ls_module *m, ls_diag *diag)
{
    return ls_module_parse_dims(text, len, file, flags, NULL, m, diag);
}

ls_status ls_module_parse_dims(const char *text, size_t len, const char *file, int flags,
                               const ls_import_dims *dims, ls_module *m, ls_diag *diag)
{
    memset(m, 0, sizeof *m);
    snprintf(m->file, sizeof m->file, "%s", file);
    importer *im = ls_xcalloc(1, sizeof *im);
    im->m = m;
    im->diag = diag;
    im->file = file;
    im->flags = flags;
    im->func_depth = -1;
    if (dims)
        im->dims = *dims;
    ls_arena_init(&im->arena);
    ls_alias_table_init(&im->aliases);
    ls_lexer_init(&im->lx, text, len, file, diag);
    ls_alias_table_init(&im->type_aliases);
    im->p = (ls_parser){&im->lx, &im->arena, &im->aliases, diag, 0, &im->type_aliases};
    next(im);
    ls_imp_scan_ops(im);
    if (!failed(im))
        ls_imp_check_brackets(im, text, len);
    /* a --dim that sized nothing was meant for another file or another
     * dim: said, not ignored */
    for (int d = 0; d < LS_MAX_RANK && !failed(im); d++)
        if (im->dims.size[d] > 0 && !im->dims_used[d])
            ls_diag_set(diag, LS_ERR_USAGE, "--dim", 0, 0,
                        "%d=%lld: no op in %s has a dynamic ('?') d%d; --dim sizes dynamic "
                        "dims only",
                        d, (long long)im->dims.size[d], file, d);
    if (!failed(im) && m->n_unsupported > 0 && !(flags & LS_IMPORT_KEEP_UNSUPPORTED))
        *diag = m->unsupported;
    if (!failed(im) && m->has_target)
        for (size_t i = 0; i < m->n_problems; i++) {
            m->problems[i].has_target = true;
            m->problems[i].target = m->target;
        }
    ls_alias_table_fini(&im->aliases);
    ls_alias_table_fini(&im->type_aliases);
    ls_arena_fini(&im->arena);
    free(im->func_names.slot);
    free(im->skipped);
    free(im);
    return diag->status;
}

ls_status ls_module_load(const char *path, ls_module *m, ls_diag *diag)
{
    return ls_module_load_ex(path, 0, m, diag);
}

ls_status ls_module_load_ex(const char *path, int flags, ls_module *m, ls_diag *diag)
{
    return ls_module_load_dims(path, flags, NULL, m, diag);
}

ls_status ls_module_load_dims(const char *path, int flags, const ls_import_dims *dims, ls_module *m,
                              ls_diag *diag)
{
    memset(m, 0, sizeof *m);
    char *buf;
    size_t len;
    if (ls_read_text(path, LS_IMPORT_MAX_BYTES, &buf, &len, diag))
        return diag->status;
    /* locations in standard input read as MLIR's tools print them */
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    ls_status st = ls_module_parse_dims(buf, len, name, flags, dims, m, diag);
    free(buf);
    return st;
}
