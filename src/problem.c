/* problem.c: combiners and validation of a problem + config (see problem.h). */
#include <stdio.h>
#include <string.h>

#include "lanescope/import.h"
#include "lanescope/problem.h"

static const struct {
    ls_combiner k;
    const char *name, *fop, *iop;
} combiners[] = {
    {LS_COMB_ADD, "add", "arith.addf", "arith.addi"},
    {LS_COMB_MUL, "mul", "arith.mulf", "arith.muli"},
    {LS_COMB_MINUI, "minui", NULL, "arith.minui"},
    {LS_COMB_MINSI, "minsi", NULL, "arith.minsi"},
    {LS_COMB_MAXUI, "maxui", NULL, "arith.maxui"},
    {LS_COMB_MAXSI, "maxsi", NULL, "arith.maxsi"},
    {LS_COMB_MINIMUMF, "minimumf", "arith.minimumf", NULL},
    {LS_COMB_MINNUMF, "minnumf", "arith.minnumf", NULL},
    {LS_COMB_MAXIMUMF, "maximumf", "arith.maximumf", NULL},
    {LS_COMB_MAXNUMF, "maxnumf", "arith.maxnumf", NULL},
    {LS_COMB_AND, "and", NULL, "arith.andi"},
    {LS_COMB_OR, "or", NULL, "arith.ori"},
    {LS_COMB_XOR, "xor", NULL, "arith.xori"},
};
#define NCOMB (sizeof combiners / sizeof combiners[0])

bool ls_combiner_from_op(const char *op, ls_combiner *out)
{
    for (size_t i = 0; i < NCOMB; i++)
        if ((combiners[i].fop && strcmp(op, combiners[i].fop) == 0) ||
            (combiners[i].iop && strcmp(op, combiners[i].iop) == 0)) {
            *out = combiners[i].k;
            return true;
        }
    return false;
}

bool ls_combiner_from_name(const char *name, ls_combiner *out)
{
    for (size_t i = 0; i < NCOMB; i++)
        if (strcmp(name, combiners[i].name) == 0) {
            *out = combiners[i].k;
            return true;
        }
    return ls_combiner_from_op(name, out);
}

const char *ls_combiner_name(ls_combiner k)
{
    return (unsigned)k < NCOMB ? combiners[k].name : "?";
}

const char *ls_combiner_op(ls_combiner k, bool is_float)
{
    if ((unsigned)k >= NCOMB)
        return "?";
    const char *op = is_float ? combiners[k].fop : combiners[k].iop;
    return op ? op : (combiners[k].fop ? combiners[k].fop : combiners[k].iop);
}

bool ls_combiner_is_float_only(ls_combiner k)
{
    return (unsigned)k < NCOMB && combiners[k].iop == NULL;
}

bool ls_combiner_is_int_only(ls_combiner k)
{
    return (unsigned)k < NCOMB && combiners[k].fop == NULL;
}

bool ls_mul_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static int64_t basis_product(const ls_basis *b)
{
    int64_t p = 1;
    for (int i = 0; i < b->counts.n; i++)
        if (!ls_mul_ok(p, b->counts.v[i], &p))
            return -1;
    return p;
}

void ls_problem_sizes(const ls_problem *p, int64_t *subgroup_size, int64_t *workgroup_size,
                      bool *assumed)
{
    bool a = false;
    int64_t sg = 64;
    if (p->has_ti && p->ti.has_subgroup_size && p->ti.subgroup_size > 0) {
        sg = p->ti.subgroup_size;
    } else {
        a = true;
        if (p->has_target && p->target.n_subgroup_choices > 0)
            sg = p->target.subgroup_choices[0];
    }
    int64_t wg = sg;
    if (p->has_ti && p->ti.has_workgroup_size) {
        wg = 1;
        for (int i = 0; i < 3; i++)
            if (!ls_mul_ok(wg, p->ti.workgroup_size[i], &wg))
                wg = -1;
    } else {
        a = true;
        int64_t sgs = p->has_config ? basis_product(&p->config.subgroup_basis) : 1;
        if (sgs < 1 || !ls_mul_ok(sg, sgs, &wg))
            wg = -1;
    }
    *subgroup_size = sg;
    *workgroup_size = wg;
    if (assumed)
        *assumed = a;
}

static ls_status verr(ls_diag *d, const ls_problem *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static ls_status verr(ls_diag *d, const ls_problem *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (line == 0) {
        line = p->line;
        col = p->col;
    }
    ls_status st = ls_diag_vset(d, LS_ERR_INVALID, p->file, line, col, fmt, ap);
    va_end(ap);
    return st;
}

/* n elements of `bits` bits, plus the partial byte a bit offset rounds up
 * to, fit int64 (byte sizes and bit offsets are then exact). */
static bool tensor_bits_fit(int64_t n, int bits, int64_t *out)
{
    return ls_mul_ok(n, bits, out) && !__builtin_add_overflow(*out, 7, out);
}

static ls_status check_rank(ls_diag *d, const ls_problem *p, const ls_i64_list *l,
                            const char *what)
{
    if (l->present && l->n != p->rank)
        return verr(d, p, l->line, l->col,
                    "%s has %d entries but the iteration space has rank %d", what, l->n, p->rank);
    return LS_OK;
}

/* promote_operands names op operands (inputs, then the init).  lanescope
 * lowers IREE's promotion of an input read from memory through a plain
 * (projected permutation) map; anything else is named and refused. */
static ls_status check_promote(ls_diag *d, const ls_problem *p)
{
    const ls_i64_list *l = &p->config.promote_operands;
    for (int i = 0; l->present && i < l->n; i++) {
        int64_t k = l->v[i];
        if (k >= p->n_inputs + 1)
            return verr(d, p, l->line, l->col,
                        "promote_operands[%d] = %lld: the op has %d operands (%d input%s and "
                        "the init)",
                        i, (long long)k, p->n_inputs + 1, p->n_inputs, p->n_inputs == 1 ? "" : "s");
        if (k == p->n_inputs)
            return verr(d, p, l->line, l->col,
                        "promote_operands[%d] = %lld is the init; lanescope promotes inputs "
                        "only (IREE's reduction configs never promote the accumulator)",
                        i, (long long)k);
        const ls_operand *o = &p->inputs[k];
        if (o->intermediate)
            return verr(d, p, l->line, l->col,
                        "promote_operands[%d] = %lld: input %s is a result already in "
                        "registers; nothing is read from memory to promote",
                        i, (long long)k, o->name);
        for (int j = 0; j < o->map_n; j++)
            if (o->scale[j] > 1)
                return verr(d, p, l->line, l->col,
                            "promote_operands[%d] = %lld: input %s is read through a strided "
                            "map; lanescope promotes plainly indexed inputs only",
                            i, (long long)k, o->name);
        if (p->argcmp.on)
            return verr(d, p, l->line, l->col,
                        "promote_operands on an arg_compare: lanescope does not lower it");
    }
    return LS_OK;
}

static ls_status check_basis(ls_diag *d, const ls_problem *p, const ls_basis *b,
                             const char *name)
{
    char what[64];
    if (!b->present)
        return verr(d, p, p->config.line, p->config.col,
                    "lowering_config has no %s; VectorDistribute needs it to distribute the "
                    "iteration space (IREE stops there too: LLVMGPUConfigureTensorLayouts' "
                    "'Could not find a subgroup basis from lowering config')",
                    name);
    snprintf(what, sizeof what, "%s counts", name);
    if (check_rank(d, p, &b->counts, what))
        return d->status;
    snprintf(what, sizeof what, "%s mapping", name);
    if (check_rank(d, p, &b->mapping, what))
        return d->status;
    bool seen[LS_MAX_RANK] = {false};
    for (int i = 0; i < b->mapping.n; i++) {
        int64_t m = b->mapping.v[i];
        if (m < 0 || m >= p->rank || seen[m]) {
            char buf[128];
            ls_format_list(buf, sizeof buf, b->mapping.v, b->mapping.n);
            return verr(d, p, b->mapping.line, b->mapping.col,
                        "%s mapping %s is not a permutation of 0..%d (entry %d is %lld)", name,
                        buf, p->rank - 1, i, (long long)m);
        }
        seen[m] = true;
    }
    for (int i = 0; i < b->counts.n; i++)
        if (b->counts.v[i] < 1)
            return verr(d, p, b->counts.line, b->counts.col,
                        "%s counts[%d] is %lld; counts must be at least 1 (1 means not "
                        "distributed)",
                        name, i, (long long)b->counts.v[i]);
    if (basis_product(b) < 0)
        return verr(d, p, b->counts.line, b->counts.col, "%s counts: product overflows int64",
                    name);
    return LS_OK;
}

/* The iteration space: its rank, sizes and element count, and a
 * reduction dim. */
static ls_status validate_space(const ls_problem *p, ls_diag *d)
{
    if (p->rank < 1 || p->rank > LS_MAX_RANK)
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "iteration space has rank %d; the limit is %d", p->rank, LS_MAX_RANK);
    int64_t total = 1;
    bool any_red = false;
    for (int i = 0; i < p->rank; i++) {
        if (p->size[i] < 1)
            return verr(d, p, 0, 0, "dimension d%d has size %lld; dynamic or empty "
                                    "dimensions are not supported",
                        i, (long long)p->size[i]);
        if (!ls_mul_ok(total, p->size[i], &total))
            return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "the iteration space's element count overflows int64");
        any_red |= p->is_reduction[i];
    }
    if (!any_red)
        return verr(d, p, 0, 0, "the op has no reduction dimension");
    return LS_OK;
}

/* The inputs: their maps, strided reads, element types, and the element
 * and bit counts their addressing forms. */
static ls_status validate_inputs(const ls_problem *p, ls_diag *d)
{
    if (p->n_inputs < 1 || p->n_inputs > LS_MAX_INPUTS)
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the op has %d inputs; lanescope simulates 1 to %d", p->n_inputs,
                           LS_MAX_INPUTS);
    for (int k = 0; k < p->n_inputs; k++) {
        const ls_operand *o = &p->inputs[k];
        for (int j = 0; j < o->map_n; j++)
            if (o->map[j] < 0 || o->map[j] >= p->rank)
                return verr(d, p, 0, 0, "input %d's indexing map names loop dimension %d of %d",
                            k, o->map[j], p->rank);
        for (int j = 0; j < o->map_n; j++) {
            int64_t last; /* the last index read: a loop size up to int64 times a stride */
            if (o->scale[j] <= 1)
                continue;
            if (!ls_mul_ok(p->size[o->map[j]] - 1, o->scale[j], &last))
                return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                                   "input %d dimension %d is read at d%d * %lld: its last index "
                                   "(%lld x %lld) overflows int64",
                                   k, j, o->map[j], (long long)o->scale[j],
                                   (long long)(p->size[o->map[j]] - 1), (long long)o->scale[j]);
            if (last >= o->shape[j])
                return verr(d, p, 0, 0,
                            "input %d dimension %d is read at d%d * %lld up to %lld, past its "
                            "size %lld",
                            k, j, o->map[j], (long long)o->scale[j], (long long)last,
                            (long long)o->shape[j]);
        }
        int bits = ls_elem_type_bits(o->type);
        if (bits < 4 || (bits > 4 && bits % 8 != 0) || o->type == LS_ET_INDEX)
            return verr(d, p, 0, 0,
                        "input %d holds %s elements; lanescope loads " LS_ELEM_TYPES_TEXT,
                        k, ls_elem_type_name(o->type));
        /* The addressing of the engine, the functional check and the CUDA
         * path forms the operand's element count, its strides (a stride
         * times a map's scale) and bit offsets: a strided operand's own
         * sizes are not bounded by the iteration space's count. */
        int64_t n = 1, stride, nbits;
        for (int j = o->map_n - 1; j >= 0; j--) {
            int64_t dim = o->shape[j] ? o->shape[j] : p->size[o->map[j]];
            if (!ls_mul_ok(n, o->scale[j] ? o->scale[j] : 1, &stride) || !ls_mul_ok(n, dim, &n))
                return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                                   "input %d: its element count or a stride overflows int64", k);
        }
        if (!tensor_bits_fit(n, bits, &nbits))
            return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "input %d: %lld elements of %d bits overflow int64 as a bit "
                               "count",
                               k, (long long)n, bits);
    }
    return LS_OK;
}

static ls_status validate_output(const ls_problem *p, ls_diag *d)
{
    /* The output (the init): its elements, parallel loop sizes, are within
     * the iteration space's count when the map's dims are distinct; its
     * size in bits need not be. */
    int64_t out_n = 1, out_bits = 0;
    int acc_bits = ls_elem_type_bits(p->acc_type);
    if (p->argcmp.on && ls_elem_type_bits(p->argcmp.index_type) > acc_bits)
        acc_bits = ls_elem_type_bits(p->argcmp.index_type);
    bool out_ok = true;
    for (int j = 0; j < p->out_map_n; j++)
        if (p->out_map[j] >= 0 && p->out_map[j] < p->rank)
            out_ok &= ls_mul_ok(out_n, p->size[p->out_map[j]], &out_n);
    if (!out_ok)
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the output's element count overflows int64");
    if (!tensor_bits_fit(out_n, acc_bits, &out_bits))
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the output's %lld elements of %d bits overflow int64 as a bit count",
                           (long long)out_n, acc_bits);
    return LS_OK;
}

/* The body, and the combiner against the reduction's type. */
static ls_status validate_body(const ls_problem *p, ls_diag *d)
{
    if (p->body.n > 0) {
        int bad;
        const char *why;
        if (!ls_body_check(&p->body, &bad, &why))
            return verr(d, p, p->body.inst[bad].line, p->body.inst[bad].col, "%s: %s",
                        ls_body_opcode_name((ls_body_opcode)p->body.inst[bad].op), why);
        const ls_body_inst *last = &p->body.inst[p->body.n - 1];
        if (last->type != p->acc_type)
            return verr(d, p, last->line, last->col,
                        "the body's value folded into the init is %s but the init is %s",
                        ls_elem_type_name((ls_elem_type)last->type),
                        ls_elem_type_name(p->acc_type));
        for (int i = 0; i < p->body.n; i++)
            if (p->body.inst[i].op == LS_BOP_INPUT && p->body.inst[i].index >= p->n_inputs)
                return verr(d, p, 0, 0, "the body reads input %d of %d", p->body.inst[i].index,
                            p->n_inputs);
    } else if (p->n_inputs != 1 && !p->argcmp.on) { /* arg_compare: values, indices */
        return verr(d, p, 0, 0, "%d inputs but no body computes one value from them",
                    p->n_inputs);
    }
    bool is_float = ls_elem_type_is_float(p->acc_type);
    if (is_float && ls_combiner_is_int_only(p->combiner))
        return verr(d, p, 0, 0, "combiner %s needs an integer type, but the reduction is in %s",
                    ls_combiner_name(p->combiner), ls_elem_type_name(p->acc_type));
    if (!is_float && ls_combiner_is_float_only(p->combiner))
        return verr(d, p, 0, 0, "combiner %s needs a float type, but the reduction is in %s",
                    ls_combiner_name(p->combiner), ls_elem_type_name(p->acc_type));
    /* i128 (value.h): the low 64 bits decide sums, products and bitwise
     * ops exactly; an order (min, max, arg_compare) needs the high ones. */
    if ((p->acc_type == LS_ET_I128 || (p->argcmp.on && p->inputs[0].type == LS_ET_I128)) &&
        (p->argcmp.on || (p->combiner != LS_COMB_ADD && p->combiner != LS_COMB_MUL &&
                          p->combiner != LS_COMB_AND && p->combiner != LS_COMB_OR &&
                          p->combiner != LS_COMB_XOR)))
        return verr(d, p, 0, 0,
                    "%s over i128: lanescope carries the low 64 bits of an i128, which decide "
                    "add, mul, and, or and xor exactly but not an order",
                    p->argcmp.on ? "arg_compare" : ls_combiner_name(p->combiner));
    return LS_OK;
}

static ls_status validate_config_keys(const ls_problem *p, ls_diag *d)
{
    const ls_lowering_config *c = &p->config;
    /* honour a config field or reject it: never drop it silently */
    for (int k = 0; k < c->n_ignored; k++) {
        if (c->ignored_inert[k])
            continue;
        const char *key = c->ignored[k];
        const char *why =
            strcmp(key, "serial") == 0
                ? "the serial tiling level, which IREE's reduction configs put on elementwise "
                  "ops only and lanescope does not lower on a reduction (all zeros, which "
                  "tiles nothing, is accepted; a serial loop over reduction dims is the "
                  "`reduction` level)"
            : strcmp(key, "promotion_types") == 0
                ? "promotion kinds other than IREE's default (derived_thread_config), which "
                  "lanescope does not lower"
            /* no pass in IREE's compiler reads it (git grep of compiler/ at the
             * mirror docs/reduction-families.md names); its own
             * gpu_apply_padding_partial_reduction.mlir carries it to no effect */
            : strcmp(key, "truncation") == 0
                ? "a field no IREE pass reads (IREE's own tests carry it with no effect); "
                  "lanescope does not drop a key silently, so remove it"
                : "a field the reduction lowering lanescope models does not read (nor does "
                  "IREE's VectorDistribute pipeline, as far as lanescope knows: "
                  "docs/reduction-families.md lists the keys it reads)";
        return verr(d, p, c->ignored_line[k], c->ignored_col[k],
                    "lowering_config key '%s' asks for %s", key, why);
    }
    return LS_OK;
}

/* Each tiling level's and basis's rank, and each level on the dims it
 * applies to. */
static ls_status validate_config_dims(const ls_problem *p, ls_diag *d)
{
    const ls_lowering_config *c = &p->config;
    if (check_rank(d, p, &c->workgroup, "workgroup") ||
        check_rank(d, p, &c->thread, "thread") ||
        check_rank(d, p, &c->partial_reduction, "partial_reduction") ||
        check_rank(d, p, &c->reduction, "reduction"))
        return d->status;
    if (check_basis(d, p, &c->lane_basis, "lane_basis") ||
        check_basis(d, p, &c->subgroup_basis, "subgroup_basis"))
        return d->status;
    if (check_promote(d, p))
        return d->status;
    for (int i = 0; i < p->rank; i++) {
        if (p->is_reduction[i] && c->workgroup.present && c->workgroup.v[i] != 0)
            return verr(d, p, c->workgroup.line, c->workgroup.col,
                        "workgroup[%d] = %lld tiles reduction dimension d%d; workgroup tiles "
                        "apply to parallel dimensions only (use 0)",
                        i, (long long)c->workgroup.v[i], i);
        if (!p->is_reduction[i] && c->partial_reduction.present &&
            c->partial_reduction.v[i] != 0)
            return verr(d, p, c->partial_reduction.line, c->partial_reduction.col,
                        "partial_reduction[%d] = %lld is on parallel dimension d%d; it applies "
                        "to reduction dimensions only (use 0)",
                        i, (long long)c->partial_reduction.v[i], i);
        if (!p->is_reduction[i] && c->reduction.present && c->reduction.v[i] != 0)
            return verr(d, p, c->reduction.line, c->reduction.col,
                        "reduction[%d] = %lld is on parallel dimension d%d; the reduction "
                        "tiling level applies to reduction dimensions only (use 0)",
                        i, (long long)c->reduction.v[i], i);
        if (p->is_reduction[i] && c->reduction.present && c->reduction.v[i] != 0 &&
            c->partial_reduction.present && c->partial_reduction.v[i] != 0)
            return verr(d, p, c->reduction.line, c->reduction.col,
                        "d%d is tiled by both reduction (%lld) and partial_reduction (%lld); "
                        "lanescope lowers one of the two per dimension",
                        i, (long long)c->reduction.v[i], (long long)c->partial_reduction.v[i]);
        if (p->is_reduction[i] && c->partial_reduction.present && c->thread.present &&
            c->partial_reduction.v[i] > 1 && c->thread.v[i] > 1 &&
            c->partial_reduction.v[i] % c->thread.v[i] != 0)
            return verr(d, p, c->partial_reduction.line, c->partial_reduction.col,
                        "partial_reduction[%d] = %lld is not a multiple of thread[%d] = %lld; "
                        "GPUPackPartialReductions splits the chunk into chunk/thread x thread",
                        i, (long long)c->partial_reduction.v[i], i, (long long)c->thread.v[i]);
        if (!p->is_reduction[i] && c->thread.present && c->thread.v[i] != 0 && !p->tf_view)
            return verr(d, p, c->thread.line, c->thread.col,
                        "thread[%d] = %lld is on parallel dimension d%d; thread tiles apply to "
                        "reduction dimensions only (use 0)",
                        i, (long long)c->thread.v[i], i);
    }
    return LS_OK;
}

/* The subgroup and workgroup sizes against the bases, the limits, the
 * products the layout math forms and the target's offer. */
static ls_status validate_sizes(const ls_problem *p, ls_diag *d)
{
    const ls_lowering_config *c = &p->config;
    int64_t sg, wg;
    bool assumed;
    ls_problem_sizes(p, &sg, &wg, &assumed);
    if (sg < 1)
        return verr(d, p, p->ti.line, p->ti.col, "subgroup_size %lld must be positive",
                    (long long)sg);
    if (wg < 1)
        return verr(d, p, p->ti.line, p->ti.col,
                    "workgroup size is not positive or its product overflows int64");
    if (sg > LS_MAX_SUBGROUP_SIZE || wg > LS_MAX_WORKGROUP_SIZE)
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, p->has_ti ? p->ti.line : p->line,
                           p->has_ti ? p->ti.col : p->col,
                           "subgroup size %lld / workgroup size %lld: the limits are %d and %d",
                           (long long)sg, (long long)wg, LS_MAX_SUBGROUP_SIZE,
                           LS_MAX_WORKGROUP_SIZE);
    int64_t lanes = basis_product(&c->lane_basis);
    if (lanes > sg || sg % lanes != 0) {
        char buf[128];
        ls_format_list(buf, sizeof buf, c->lane_basis.counts.v, c->lane_basis.counts.n);
        return verr(d, p, c->lane_basis.line, c->lane_basis.col,
                    "lane_basis counts %s multiply to %lld, which is not the subgroup size %lld "
                    "(nor a divisor of it, which IREE allows as duplicated lanes)",
                    buf, (long long)lanes, (long long)sg);
    }
    int64_t sgs = basis_product(&c->subgroup_basis);
    int64_t need;
    if (!ls_mul_ok(sg, sgs, &need))
        return ls_diag_set(d, LS_ERR_LIMIT, p->file, c->subgroup_basis.line,
                           c->subgroup_basis.col,
                           "subgroup_size x subgroup_basis product overflows int64");
    if (wg % sg != 0 || wg < need || wg % need != 0) {
        char buf[128];
        ls_format_list(buf, sizeof buf, c->subgroup_basis.counts.v, c->subgroup_basis.counts.n);
        int line = p->has_ti ? p->ti.line : c->subgroup_basis.line;
        int col = p->has_ti ? p->ti.col : c->subgroup_basis.col;
        return verr(d, p, line, col,
                    "workgroup size %lld != subgroup_size %lld x product(subgroup_basis counts "
                    "%s) = %lld",
                    (long long)wg, (long long)sg, buf, (long long)need);
    }
    /* Every product the layout math forms must fit int64. */
    for (int i = 0; i < p->rank; i++) {
        int64_t t = c->thread.present ? c->thread.v[i] : 0, x;
        if (!ls_mul_ok(t ? t : 1, lanes, &x) || !ls_mul_ok(x, sgs, &x))
            return ls_diag_set(d, LS_ERR_LIMIT, p->file, c->thread.line, c->thread.col,
                               "thread[%d] x lanes x subgroups overflows int64", i);
    }
    if (p->has_target) {
        const ls_target *t = &p->target;
        bool offered = false;
        char buf[128];
        ls_format_list(buf, sizeof buf, t->subgroup_choices, t->n_subgroup_choices);
        for (int i = 0; i < t->n_subgroup_choices; i++)
            offered |= t->subgroup_choices[i] == sg;
        if (!offered)
            return verr(d, p, p->has_ti ? p->ti.line : 0, p->has_ti ? p->ti.col : 0,
                        "subgroup size %lld is not offered by target %s%s%s "
                        "(subgroup_size_choices = %s)",
                        (long long)sg, t->arch, t->sku[0] ? "/" : "", t->sku, buf);
        int64_t limit = t->max_thread_count;
        if (t->max_workgroup_sizes[0] > 0 && (limit == 0 || t->max_workgroup_sizes[0] < limit))
            limit = t->max_workgroup_sizes[0];
        if (limit > 0 && wg > limit)
            return verr(d, p, p->has_ti ? p->ti.line : 0, p->has_ti ? p->ti.col : 0,
                        "workgroup size %lld is above target %s's limit of %lld threads "
                        "(max_thread_count_per_workgroup / max_workgroup_sizes)",
                        (long long)wg, t->arch, (long long)limit);
    }
    return LS_OK;
}

ls_status ls_problem_validate(const ls_problem *p, ls_diag *d)
{
    if (validate_space(p, d) || validate_inputs(p, d) || validate_output(p, d) ||
        validate_body(p, d))
        return d->status;
    if (!p->has_config)
        return ls_diag_set(d, LS_ERR_NOTFOUND, p->file, p->line, p->col,
                           "%s has no lowering_config (pass one with --config)", p->name);
    if (validate_config_keys(p, d) || validate_config_dims(p, d) || validate_sizes(p, d))
        return d->status;
    return LS_OK;
}

ls_math_mode ls_math_mode_for_arch(const char *arch)
{
    return strncmp(arch, "gfx", 3) == 0 ? LS_MATH_ROCM : LS_MATH_MLIR;
}

void ls_module_set_math(ls_module *m, ls_math_mode mode)
{
    for (size_t i = 0; i < m->n_problems; i++) {
        m->problems[i].body.math = (uint8_t)mode;
        m->problems[i].argcmp.cmp.math = (uint8_t)mode;
    }
    for (size_t i = 0; i < m->n_elementwise; i++)
        m->elementwise[i].body.math = (uint8_t)mode;
}
