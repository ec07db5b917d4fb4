/* codegen_check.c: what the CUDA generator refuses, each with its reason
 * (arg_compare forms it does not emit, AMD lowerings, promoted operands it
 * cannot copy, types NVIDIA shuffles cannot carry, limits of a CUDA grid and
 * block), checked before anything is emitted. */
#include "lanescope/functional.h"
#include "codegen.h"

/* The largest offset into input k a thread forms: register 0's (o%d) is
 * computed before the mask, so a padded thread's reaches past the tensor,
 * to sum (ls_tile_reach - 1) x stride.  False past int64. */
bool cg_padded_offset(const ls_plan *plan, int k, int64_t *out)
{
    const ls_problem *p = plan->problem;
    int64_t strides[LS_MAX_RANK], o = 0, t;
    ls_operand_strides(p, k, strides);
    for (int i = 0; i < p->rank; i++)
        if (!ls_mul_ok(ls_tile_reach(plan->derived, p, i) - 1, strides[i], &t) ||
            __builtin_add_overflow(o, t, &o))
            return false;
    *out = o;
    return true;
}

ls_status cg_check_plan(const ls_plan *plan, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const ls_derived *d = plan->derived;
    if (plan->amd)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "the CUDA path runs NVIDIA plans; this one is lowered for an AMD "
                           "target (DPP steps); give --target h100 or another NVIDIA model");
    if (d->subgroup_size != 32)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "the config's subgroup size is %lld; NVIDIA warps have 32 lanes",
                           (long long)d->subgroup_size);
    if (d->workgroup_size > 1024)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "workgroup of %lld threads; a CUDA block holds at most 1024",
                           (long long)d->workgroup_size);
    if (d->total_workgroups > 2147483647)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "%lld workgroups; a CUDA grid holds at most 2^31-1 blocks in x",
                           (long long)d->total_workgroups);
    ls_status st = p->argcmp.on ? cg_check_argcmp(plan, diag) : cg_check_promote(plan, diag);
    if (st)
        return st;
    if (p->n_inputs > 1 && p->body.n == 0 && !p->argcmp.on)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s reads %d inputs but has no body combining them", p->name,
                           p->n_inputs);
    char why[400];
    if (!cg_body_supported(p, why, sizeof why))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col, "%s", why);
    if (cg_narrow_input(p->acc_type))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s reduces in %s; the CUDA path reads i4 and f8 inputs but reduces in "
                           "8 bits or more (f8 not at all)",
                           p->name, ls_elem_type_name(p->acc_type));
    bool shuffles = plan->n_subgroup_reduces > 0 || (plan->cross_subgroup && plan->read_cluster > 1);
    if (!cg_storage_type(p->acc_type) || (ls_elem_type_bits(p->acc_type) > 32 && shuffles))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s: the CUDA path reduces in f16, bf16, f32, i8, i16 and i32 "
                           "(NVIDIA shuffles are 32 bits wide), and in f64 and i64 where no "
                           "lane exchanges values (TileAndFuse)",
                           ls_elem_type_name(p->acc_type));
    if (p->body.n > 0 && p->body.inst[p->body.n - 1].type != p->acc_type)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s's body yields %s but reduces in %s", p->name,
                           ls_elem_type_name((ls_elem_type)p->body.inst[p->body.n - 1].type),
                           ls_elem_type_name(p->acc_type));
    int64_t regs = ls_nl_registers(&d->layout);
    if (regs > LS_CUDA_MAX_REGISTERS)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "%lld registers per thread per iteration; the generator unrolls at "
                           "most %d",
                           (long long)regs, LS_CUDA_MAX_REGISTERS);
    for (int k = 0; k < p->n_inputs; k++) {
        int64_t o;
        if (!cg_padded_offset(plan, k, &o))
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                               "input %d: a padded thread's offset (formed before the mask) "
                               "overflows int64",
                               k);
    }
    return LS_OK;
}
