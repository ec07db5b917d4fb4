/* import_dispatch.c: the dispatch view -- every linalg op of a function
 * with its operands, maps and producers, as IREE's heuristic (suggest.h)
 * reads them. */
#include "import_internal.h"

/* ---- the dispatch: every linalg op of a function, for suggest.h ---- */

ls_dispatch *ls_imp_cur_dispatch(importer *im, int line, int col)
{
    if (im->cur)
        return im->cur;
    if (im->m->n_dispatches >= LS_IMPORT_MAX_FUNCS) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, line, col,
                    "more than %d functions with linalg ops in one file", LS_IMPORT_MAX_FUNCS);
        return NULL;
    }
    ls_dispatch *d = &im->m->dispatches[im->m->n_dispatches++];
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%s", im->file);
    snprintf(d->func, sizeof d->func, "%s", im->func[0] == '@' ? im->func + 1 : im->func);
    d->line = im->func_line ? im->func_line : line;
    d->col = im->func_line ? im->func_col : col;
    im->cur = d;
    return d;
}

/* Element width of a spelled element type; 0 for anything not an integer,
 * float or index type (complex, tuples...). */
int ls_imp_elem_bits_of(const char *t, bool *is_index)
{
    *is_index = false;
    if (t == NULL)
        return 0;
    if (strcmp(t, "index") == 0) {
        *is_index = true;
        return 64;
    }
    if (strcmp(t, "bf16") == 0 || strcmp(t, "tf32") == 0)
        return t[0] == 'b' ? 16 : 32;
    if ((t[0] == 'i' || t[0] == 'f') && t[1] >= '1' && t[1] <= '9') {
        char *end;
        long v = strtol(t + 1, &end, 10);
        if (v > 0 && v <= 1 << 16 && (*end == 0 || t[0] == 'f'))
            return (int)v; /* f8E4M3FN and friends: the digits give the width */
    }
    if ((t[0] == 's' || t[0] == 'u') && t[1] == 'i' && t[2] >= '1' && t[2] <= '9')
        return atoi(t + 2);
    return 0;
}

bool ls_imp_name_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ls_imp_is_conv_name(const char *kind)
{
    return ls_imp_name_has_prefix(kind, "linalg.conv") || ls_imp_name_has_prefix(kind, "linalg.depthwise_conv") ||
           ls_imp_name_has_prefix(kind, "linalg.pooling");
}

int ls_imp_find_producer(const ls_dispatch *d, const char *value, int *result)
{
    *result = 0;
    for (int i = d->n_ops; i-- > 0;) {
        size_t n = strlen(d->ops[i].result);
        if (n && strncmp(value, d->ops[i].result, n) == 0 &&
            (value[n] == 0 || value[n] == '#')) {
            if (value[n] == '#')
                *result = atoi(value + n + 1);
            return i;
        }
    }
    return -1;
}

/* The op's operands: names, producers, types and maps; the op's sizes
 * from the first operand dim each loop indexes (--dim for a '?'), and the
 * operand dims --dim binds.  True when an input's map has a non-dim
 * (strided) result. */
static bool dop_operands(importer *im, ls_dispatch *d, ls_dop *o, const operand_list *ins,
                         const operand_list *outs, const ls_affine_map *const *maps)
{
    int rank = o->rank;
    bool complex_in = false;
    for (int k = 0; k < ins->n + outs->n; k++) {
        const operand_list *l = k < ins->n ? ins : outs;
        int j0 = k < ins->n ? k : k - ins->n;
        const ls_type_info *t = &l->types[j0];
        ls_dop_operand *od = &o->operand[k];
        snprintf(od->value, sizeof od->value, "%s", l->names[j0]);
        od->producer = ls_imp_find_producer(d, od->value, &od->producer_result);
        od->rank = t->shaped ? t->rank : 0;
        if (od->rank > LS_MAX_RANK)
            od->rank = LS_MAX_RANK;
        for (int j = 0; j < od->rank; j++)
            od->dims[j] = t->dims[j] < 0 ? LS_DYN : t->dims[j];
        od->elem_bits = ls_imp_elem_bits_of(t->elem_text, &od->is_index);
        snprintf(od->elem, sizeof od->elem, "%s", t->elem_text ? t->elem_text : "");
        const ls_affine_map *am = maps ? maps[k] : NULL;
        if (am == NULL || am->num_dims != rank)
            continue;
        od->map_n = am->num_results > LS_MAX_RANK ? LS_MAX_RANK : am->num_results;
        for (int j = 0; j < od->map_n; j++) {
            const ls_aff_expr *e = &am->results[j];
            od->map[j] = e->kind == LS_AFF_DIM && e->value < rank ? (int)e->value : -1;
            complex_in |= k < ins->n && e->kind == LS_AFF_COMPLEX;
            if (od->map[j] >= 0 && j < od->rank && o->size[od->map[j]] == 0)
                o->size[od->map[j]] = od->dims[j];
        }
    }
    for (int i = 0; i < rank; i++)
        if (o->size[i] == 0 || o->size[i] == LS_DYN)
            o->size[i] = dim_binding(im, i) > 0 ? dim_binding(im, i) : LS_DYN;
    /* Operand dims bound by --dim, so IREE's heuristic sees the same sizes
     * as the reduction does. */
    for (int k = 0; k < ins->n + outs->n; k++) {
        ls_dop_operand *od = &o->operand[k];
        for (int j = 0; j < od->map_n && j < od->rank; j++)
            if (od->dims[j] == LS_DYN && od->map[j] >= 0)
                od->dims[j] = o->size[od->map[j]];
    }
    return complex_in;
}

/* IREE's checkSingleCombiner: exactly one init reduced by a single
 * combining op; any other init's map the identity.  o->combiner_why says
 * why not. */
static void dop_check_combiner(ls_dop *o, const region *r, int n_ins, int n_outs)
{
    int rank = o->rank;
    bool found = false;
    for (int k = 0; k < n_outs && o->combiner_ok; k++) {
        if (ls_imp_single_combiner(r, n_ins, k)) {
            o->reduced_inits++;
            if (found) {
                o->combiner_ok = false;
                snprintf(o->combiner_why, sizeof o->combiner_why,
                         "more than one init is reduced (one combiner per op is supported)");
            }
            found = true;
            continue;
        }
        const ls_dop_operand *init = &o->operand[n_ins + k];
        bool identity = init->map_n == rank;
        for (int j = 0; j < init->map_n && identity; j++)
            identity = init->map[j] == j;
        if (!identity) {
            char value[sizeof init->value];
            memcpy(value, init->value, sizeof value);
            o->combiner_ok = false;
            snprintf(o->combiner_why, sizeof o->combiner_why,
                     "init %s is not reduced by a single combining op, and its indexing "
                     "map is not the identity",
                     value);
        }
    }
    if (o->combiner_ok && !found) {
        o->combiner_ok = false;
        snprintf(o->combiner_why, sizeof o->combiner_why,
                 "no init is reduced by a single combining op (its chain from the init "
                 "to the yield is longer, or the init is used twice)");
    }
}

/* Every operand map a projected permutation of the loops (no repeated or
 * non-dim result), as a contraction's must be. */
static bool dop_projected(const ls_dop *o, const ls_affine_map *const *maps)
{
    bool projected = true;
    for (int k = 0; k < o->n_inputs + o->n_inits; k++) {
        const ls_dop_operand *od = &o->operand[k];
        bool used[LS_MAX_RANK] = {false};
        for (int j = 0; j < od->map_n; j++) {
            if (od->map[j] < 0 || used[od->map[j]])
                projected = false;
            else
                used[od->map[j]] = true;
        }
        if (maps == NULL || maps[k] == NULL)
            projected = false;
    }
    return projected;
}

/* Append one linalg op.  maps[k] (NULL: none known) gives operand k's
 * indexing map; the loop bounds come from the operand shapes through them. */
ls_dop *ls_imp_add_dop(importer *im, const char *kind, int line, int col, int rank, const bool *red,
                       const ls_affine_map *const *maps, const operand_list *ins,
                       const operand_list *outs, const region *r, const char *result,
                       const char *text_at)
{
    ls_dispatch *d = ls_imp_cur_dispatch(im, line, col);
    if (d == NULL)
        return NULL;
    if (d->n_ops >= LS_DISPATCH_MAX_OPS) {
        ls_diag_set(im->diag, LS_ERR_LIMIT, im->file, line, col,
                    "more than %d linalg ops in function @%s", LS_DISPATCH_MAX_OPS, d->func);
        return NULL;
    }
    if (rank > LS_MAX_RANK || ins->n + outs->n > LS_DISPATCH_MAX_OPERANDS)
        return NULL; /* the problem import reports the limit */
    ls_dop *o = &d->ops[d->n_ops];
    memset(o, 0, sizeof *o);
    snprintf(o->kind, sizeof o->kind, "%s", kind);
    o->line = line;
    o->col = col;
    o->rank = rank;
    o->problem = -1;
    o->in_forall = im->forall_begin && text_at >= im->forall_begin && text_at <= im->forall_end;
    snprintf(o->result, sizeof o->result, "%s", result ? result : "");
    o->n_inputs = ins->n;
    o->n_inits = outs->n;
    bool any_red = false;
    for (int i = 0; i < rank; i++) {
        o->is_reduction[i] = red[i];
        o->size[i] = 0;
        any_red |= red[i];
    }
    bool complex_in = dop_operands(im, d, o, ins, outs, maps);
    o->is_fill = strcmp(kind, "linalg.fill") == 0;
    /* linalg::isaConvolutionOpInterface wants an image and a filter: a
     * single-input reduction with a strided map is a (strided) reduction. */
    o->is_conv = ls_imp_is_conv_name(kind) || (any_red && complex_in && ins->n >= 2);
    o->combiner_ok = true;
    if (any_red && r)
        dop_check_combiner(o, r, ins->n, outs->n);
    if (!any_red && r && ins->n == 1 && outs->n == 1 && r->n_stmts == 1 && r->n_yield == 1 &&
        r->n_args >= 1) {
        const stmt *c = &r->stmts[0];
        o->is_bit_extend = ls_imp_is_ext_op(c->op) && c->n_args == 1 &&
                           strcmp(c->args[0], r->arg[0]) == 0 && strcmp(r->yield[0], c->res) == 0;
    }
    o->is_contraction = ins->n == 2 && outs->n == 1 && any_red && dop_projected(o, maps) && r &&
                        ls_imp_contraction_body(r);
    d->n_ops++;
    return o;
}
