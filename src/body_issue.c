/* body_issue.c: which of a reduction body's machine instructions each of a
 * thread's registers issues in an iteration (lanescope/body_issue.h). */
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/body_issue.h"
#include "lanescope/layout.h"

#define INDEX_BIT (1u << 31)
/* the most distinct operand elements a shared op keys on; past it the op
 * is issued per register (a bound on the tracker's memory, not a claim
 * about the compiler) */
#define MAX_KEYS (1 << 16)

typedef enum { ISSUED, FOLDED, HOISTED } op_fate;

typedef struct {
    int alu, sfu;
    int64_t values; /* a hoisted op: the distinct values among the registers */
    uint32_t mask;  /* the inputs it reads, INDEX_BIT: a linalg.index */
    op_fate fate;
    bool pairs;
    int64_t keys;  /* distinct values an iteration; 0: one a register */
    int32_t *seen; /* keys entries: the iteration stamp that computed it */
} op_info;

struct ls_body_issue {
    int n;
    op_info op[LS_MAX_BODY_INSTS];
    int n_inputs;
    int64_t regs;
    int64_t *elem; /* elem[k * regs + r]: input k's element register r reads */
    int64_t elems[LS_MAX_INPUTS];
    int32_t stamp;
};

static uint32_t mask_of(const ls_body *b, int i, const uint32_t *m)
{
    const ls_body_inst *in = &b->inst[i];
    if (in->op == LS_BOP_INPUT)
        return 1u << in->index;
    if (in->op == LS_BOP_INDEX)
        return INDEX_BIT;
    uint32_t x = 0;
    if (in->a >= 0)
        x |= m[in->a];
    if (in->b >= 0)
        x |= m[in->b];
    if (in->c >= 0)
        x |= m[in->c];
    return x;
}

/* Whether every input op reads is a value held from before the loop: a
 * reduction's result, or a loop-invariant input loaded before it. */
static bool invariant(const ls_plan *plan, uint32_t mask)
{
    const ls_problem *p = plan->problem;
    if (mask & INDEX_BIT)
        return false;
    for (int k = 0; k < p->n_inputs; k++)
        if ((mask & (1u << k)) && !p->inputs[k].intermediate && !plan->inputs[k].hoisted)
            return false;
    return true;
}

static bool computed_before(ls_body_issue *s, op_info *x, int64_t r);

ls_body_issue *ls_body_issue_new(const ls_plan *plan, bool fused)
{
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    const ls_body *b = &p->body;
    ls_body_issue *s = ls_xcalloc(1, sizeof *s);
    s->n = b->n;
    s->n_inputs = p->n_inputs;
    s->regs = d->elems_per_iteration > 0 ? d->elems_per_iteration : 1;
    s->elem =
        ls_xcalloc((size_t)(s->n_inputs > 0 ? s->n_inputs : 1) * (size_t)s->regs, sizeof *s->elem);
    for (int k = 0; k < p->n_inputs; k++) {
        ls_operand_regs o;
        ls_operand_regs_of(d, p, k, &o);
        s->elems[k] = o.loads * o.width;
        for (int64_t r = 0; r < s->regs; r++)
            s->elem[k * s->regs + r] = ls_operand_element_of(d, &o, r);
    }
    uint32_t m[LS_MAX_BODY_INSTS];
    bool fold_exts = fused && plan->body_fma_mix_exts > 0;
    for (int i = 0; i < b->n; i++) {
        op_info *x = &s->op[i];
        m[i] = mask_of(b, i, m);
        x->mask = m[i];
        ls_body_inst_machine_ops(b, i, plan->target, &x->alu, &x->sfu);
        if (x->alu + x->sfu == 0)
            continue;
        x->pairs = ls_body_op_pairs(b, i, plan->target);
        if ((fused && i == b->n - 1) || (fold_exts && ls_body_fma_mix_folds(b, i, plan->target)))
            x->fate = FOLDED;
        else if (invariant(plan, x->mask))
            x->fate = HOISTED;
        if (x->fate == FOLDED || (x->mask & INDEX_BIT))
            continue;
        int64_t keys = 1;
        for (int k = 0; k < p->n_inputs && keys <= MAX_KEYS; k++)
            if (x->mask & (1u << k))
                keys *= s->elems[k];
        if (keys < s->regs && keys <= MAX_KEYS) { /* some registers share a value */
            x->keys = keys;
            x->seen = ls_xcalloc((size_t)keys, sizeof *x->seen);
        }
    }
    /* a hoisted op's values: one per distinct key among the registers */
    ls_body_issue_next_iteration(s);
    for (int i = 0; i < b->n; i++) {
        op_info *x = &s->op[i];
        if (x->fate != HOISTED)
            continue;
        for (int64_t r = 0; r < s->regs; r++)
            x->values += !computed_before(s, x, r);
    }
    return s;
}

void ls_body_issue_free(ls_body_issue *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        free(s->op[i].seen);
    free(s->elem);
    free(s);
}

void ls_body_issue_next_iteration(ls_body_issue *s)
{
    s->stamp++;
}

/* op x's value for register r was computed earlier this iteration; marks
 * it computed now if not */
static bool computed_before(ls_body_issue *s, op_info *x, int64_t r)
{
    if (x->keys == 0)
        return false;
    int64_t key = 0;
    for (int k = 0; k < s->n_inputs; k++)
        if (x->mask & (1u << k))
            key = key * s->elems[k] + s->elem[k * s->regs + r];
    if (x->seen[key] == s->stamp + 1)
        return true;
    x->seen[key] = s->stamp + 1;
    return false;
}

void ls_body_issue_hoisted(const ls_body_issue *s, int *alu, int *sfu)
{
    *alu = *sfu = 0;
    for (int i = 0; i < s->n; i++)
        if (s->op[i].fate == HOISTED) {
            *alu += s->op[i].alu * (int)s->op[i].values;
            *sfu += s->op[i].sfu * (int)s->op[i].values;
        }
}

ls_body_issue_counts ls_body_issue_register(ls_body_issue *s, int64_t reg)
{
    ls_body_issue_counts c = {0, 0, 0};
    for (int i = 0; i < s->n; i++) {
        op_info *x = &s->op[i];
        if (x->alu + x->sfu == 0 || x->fate != ISSUED || computed_before(s, x, reg))
            continue;
        c.alu += x->alu;
        c.sfu += x->sfu;
        c.pairable += x->pairs ? x->alu : 0;
    }
    return c;
}

void ls_body_issue_totals_of(const ls_plan *plan, bool fused, ls_body_issue_totals *t)
{
    memset(t, 0, sizeof *t);
    ls_body_issue *s = ls_body_issue_new(plan, fused);
    ls_body_issue_next_iteration(s);
    int64_t all = 0;
    for (int i = 0; i < s->n; i++) {
        const op_info *x = &s->op[i];
        int64_t n = (int64_t)(x->alu + x->sfu) * s->regs;
        all += n;
        t->folded += x->fate == FOLDED ? n : 0;
        t->hoisted += x->fate == HOISTED ? n : 0;
    }
    int64_t run = ls_plan_pair_run(plan, false);
    for (int64_t r = 0; r < s->regs; r++) {
        ls_body_issue_counts c = ls_body_issue_register(s, r);
        t->alu += c.alu;
        t->sfu += c.sfu;
        t->paired += ls_plan_pairs_previous(run, r) ? c.pairable : 0;
    }
    t->shared = all - t->folded - t->hoisted - t->alu - t->sfu;
    int ha, hs;
    ls_body_issue_hoisted(s, &ha, &hs);
    t->before_loop = ha + hs; /* once, not an iteration */
    ls_body_issue_free(s);
}
