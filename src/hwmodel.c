/* hwmodel.c: parse hardware model files (see hwmodel.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/datadir.h"
#include "lanescope/atomic.h"
#include "lanescope/arena.h"
#include "lanescope/hwmodel.h"
#include "lanescope/mlir.h"

typedef struct {
    const char *key;
    size_t offset;
    bool is_double;
    int64_t min, max;
    /* Optional keys name mechanisms a model may leave out (an L1, a
     * request limit, chiplets, ...): absent, the value is def_value and the
     * mechanism is off, which docs/timing-model.md and `sim`'s model line
     * say; the key set that older model files give stays enough. */
    bool optional;
    int64_t def_value;
} field;

#define F(k, lo, hi) {#k, offsetof(ls_hw, k), false, lo, hi, false, 0}
#define O(k, lo, hi, def) {#k, offsetof(ls_hw, k), false, lo, hi, true, def}
static const field fields[] = {
    F(wgp_count, 1, 100000),           F(clock_mhz, 1, 100000),
    F(subgroup_size, 1, 1024),         F(schedulers_per_wgp, 1, 64),
    F(max_threads_per_wgp, 1, 1 << 20), F(max_subgroups_per_wgp, 1, 4096),
    F(max_workgroups_per_wgp, 1, 4096), F(smem_bytes_per_wgp, 0, INT64_C(1) << 32),
    F(smem_banks, 1, 1024),            F(smem_bank_bytes, 1, 64),
    F(smem_latency, 0, 100000),        F(alu_latency, 1, 100000),
    F(shuffle_latency, 1, 100000),     F(shuffle_interval, 1, 100000),
    F(dpp_latency, 1, 100000),         F(barrier_latency, 0, 100000),
    F(l2_bytes, 1024, INT64_C(1) << 40), F(l2_ways, 1, 255),
    F(l2_line_bytes, 16, 4096),        F(sector_bytes, 4, 4096),
    F(l2_latency, 0, 1000000),         F(dram_latency, 0, 1000000),
    {"dram_gbps", offsetof(ls_hw, dram_gbps), true, 1, 1000000, false, 0},
    {"launch_us", offsetof(ls_hw, launch_us), true, 0, 1000, false, 0},
    O(l1_bytes, 0, INT64_C(1) << 24, 0),  O(l1_ways, 1, 255, 4),
    O(l1_latency, 0, 100000, 0),          O(mshrs_per_wgp, 0, 65536, 0),
    O(regs_per_wgp, 0, INT64_C(1) << 24, 0), O(max_regs_per_thread, 0, 65536, 0),
    O(reg_granule, 1, 1024, 1),           O(l2_partitions, 1, 64, 1),
    O(l2_far_latency, 0, 1000000, -1),    O(xcds, 1, 64, 1),
    O(mall_bytes, 0, INT64_C(1) << 40, 0), O(mall_ways, 1, 255, 16),
    O(mall_latency, 0, 1000000, 0),       O(dispatch_cycles, 0, 1000000, 0),
    O(unroll_threshold, 0, 100000, 0),    O(unroll_partial_threshold, 0, 100000, 0),
    O(unroll_be_insns, 0, 1000, 0),
    O(sfu_interval, 0, 100000, 0),        O(sfu_latency, 0, 100000, 0),
};
#undef F
#undef O
#define NFIELDS (sizeof fields / sizeof fields[0])

/* A key given a second time, on `line`: never the last one winning. */
static ls_status given_twice(ls_diag *diag, const char *file, int line, const char *key,
                             int first)
{
    return ls_diag_set(diag, LS_ERR_INVALID, file, line, 1,
                       "'%s' is given twice (first on line %d); a model gives each key once", key,
                       first);
}

/* The optional mechanisms' keys against each other: the caches' sizes
 * divide into their lines, ways and instances, the chiplets divide the
 * WGPs, a request queue holds at least one line, a special-function unit
 * has both its figures. */
static ls_status check_caches(const ls_hw *hw, const char *file, ls_diag *diag)
{
    int64_t line = hw->l2_line_bytes;
    if (hw->l1_bytes > 0 && hw->l1_bytes % (line * hw->l1_ways) != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "l1_bytes (%lld) must be a multiple of l2_line_bytes x l1_ways (%lld): "
                           "the L1 keeps the L2's lines and sectors",
                           (long long)hw->l1_bytes, (long long)(line * hw->l1_ways));
    if (hw->l1_bytes > 0 && hw->l1_latency == 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "a model with l1_bytes needs l1_latency (its hit latency)");
    if (hw->wgp_count % hw->xcds != 0 || hw->l2_bytes % (hw->xcds * line * hw->l2_ways) != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "xcds (%lld) must divide wgp_count (%lld), and l2_bytes must be a "
                           "multiple of xcds x l2_line_bytes x l2_ways (each XCD has its own L2)",
                           (long long)hw->xcds, (long long)hw->wgp_count);
    /* the engine tracks the memory-side cache in blocks of up to 4 KiB */
    int64_t unit = (line > 4096 ? line : 4096) * hw->mall_ways;
    if (hw->mall_bytes > 0 && (hw->mall_bytes % unit != 0 || hw->mall_latency == 0))
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "mall_bytes must be a multiple of 4 KiB x mall_ways (%lld), and a "
                           "model with mall_bytes needs mall_latency",
                           (long long)unit);
    if (hw->mshrs_per_wgp > 0 && hw->mshrs_per_wgp < line / hw->sector_bytes)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "mshrs_per_wgp (%lld sectors) must hold at least one line (%lld "
                           "sectors)",
                           (long long)hw->mshrs_per_wgp, (long long)(line / hw->sector_bytes));
    if (hw->l2_partitions > 1 && hw->wgp_count < hw->l2_partitions)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "l2_partitions (%lld) is more than wgp_count", (long long)hw->l2_partitions);
    if ((hw->sfu_interval > 0) != (hw->sfu_latency > 0))
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "sfu_interval (%lld) and sfu_latency (%lld) go together: the "
                           "special-function unit needs its rate and its latency (both 0 or "
                           "absent: no unit)",
                           (long long)hw->sfu_interval, (long long)hw->sfu_latency);
    return LS_OK;
}

/* Key s (fields[fi]) = v at line:vcol, with its comment src (NULL: none):
 * sourced, a number, in the field's range, stored. */
static ls_status set_field(ls_hw *hw, size_t fi, const char *s, const char *v, const char *src,
                           const char *file, int line, int vcol, ls_diag *diag)
{
    bool sourced = src != NULL && strncmp(src, "source:", 7) == 0;
    size_t said = 0; /* the source's own characters, blanks not counted */
    for (const char *q = sourced ? src + 7 : ""; *q; q++)
        said += !isspace((unsigned char)*q);
    if (!sourced || said < 3)
        return ls_diag_set(diag, LS_ERR_INVALID, file, line, vcol,
                           "'%s' has no '# source: ...'; every number in a model needs one", s);
    errno = 0;
    char *end;
    double dv = strtod(v, &end);
    if (*v == 0 || *end != 0 || errno == ERANGE)
        return ls_diag_set(diag, LS_ERR_SYNTAX, file, line, vcol,
                           "expected a number for '%s', found '%.40s'", s, v);
    /* isfinite first: NaN passes every comparison, and nan/inf parse */
    if (!isfinite(dv) || dv < (double)fields[fi].min || dv > (double)fields[fi].max ||
        (!fields[fi].is_double && dv != (double)(int64_t)dv))
        return ls_diag_set(diag, LS_ERR_LIMIT, file, line, vcol,
                           "'%s' = %s is outside %lld..%lld%s", s, v, (long long)fields[fi].min,
                           (long long)fields[fi].max, fields[fi].is_double ? "" : " (an integer)");
    if (fields[fi].is_double)
        *(double *)((char *)hw + fields[fi].offset) = dv;
    else
        *(int64_t *)((char *)hw + fields[fi].offset) = (int64_t)dv;
    return LS_OK;
}

/* After the last line: defaults for the optional fields absent, then the
 * model's own consistency (names, cache geometry) and derived figures. */
static ls_status finish_model(ls_hw *hw, const int *seen, const char *file, ls_diag *diag)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (seen[i])
            continue;
        if (!fields[i].optional)
            return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0, "model has no '%s'",
                               fields[i].key);
        *(int64_t *)((char *)hw + fields[i].offset) = fields[i].def_value;
    }
    if (hw->l2_far_latency < 0) /* absent: one L2 latency */
        hw->l2_far_latency = hw->l2_latency;
    if (hw->name[0] == 0 || hw->arch[0] == 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0, "model needs 'name' and 'arch'");
    if (hw->l2_line_bytes % hw->sector_bytes != 0 ||
        hw->l2_bytes % (hw->l2_line_bytes * hw->l2_ways) != 0)
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "l2_bytes must be a multiple of l2_line_bytes x l2_ways and the line "
                           "a multiple of sector_bytes");
    if ((hw->sector_bytes & (hw->sector_bytes - 1)) ||
        (hw->l2_line_bytes & (hw->l2_line_bytes - 1)))
        return ls_diag_set(diag, LS_ERR_INVALID, file, 0, 0,
                           "sector_bytes and l2_line_bytes must be powers of two");
    if (hw->l2_line_bytes / hw->sector_bytes > 64)
        return ls_diag_set(diag, LS_ERR_LIMIT, file, 0, 0, "at most 64 sectors per line");
    ls_status cst = check_caches(hw, file, diag);
    if (cst)
        return cst;
    hw->dram_bytes_per_cycle = hw->dram_gbps * 1e9 / (hw->clock_mhz * 1e6);
    return LS_OK;
}

ls_status ls_hw_parse(const char *text, const char *file, ls_hw *hw, ls_diag *diag)
{
    memset(hw, 0, sizeof *hw);
    int seen[NFIELDS] = {0}; /* the line a key was given on, 0: not yet */
    int name_line = 0, arch_line = 0, target_line = 0;
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char buf[4096];
        if (len >= sizeof buf)
            return ls_diag_set(diag, LS_ERR_LIMIT, file, line, 1,
                               "line longer than %zu characters", sizeof buf - 1);
        memcpy(buf, p, len);
        buf[len] = 0;
        p = eol ? eol + 1 : p + len;
        char *s = buf;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == 0 || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL)
            return ls_diag_set(diag, LS_ERR_SYNTAX, file, line, (int)(s - buf) + 1,
                               "expected 'key = value  # source: ...', found '%.40s'", s);
        char *kend = eq;
        while (kend > s && isspace((unsigned char)kend[-1]))
            kend--;
        *kend = 0;
        if (strcmp(s, "iree_target") == 0) {
            if (target_line)
                return given_twice(diag, file, line, "iree_target", target_line);
            target_line = line;
            /* the attribute text contains '#': parse the raw rest of the line
             * before the comment split below cuts it */
            const char *raw = eq + 1;
            ls_arena arena;
            ls_arena_init(&arena);
            ls_diag local;
            ls_diag_clear(&local);
            ls_attr *a = ls_parse_attr_string(raw, strlen(raw), file, &arena, NULL, &local);
            if (a == NULL || ls_target_from_attr(a, file, &hw->iree_target, &local)) {
                ls_arena_fini(&arena);
                return ls_diag_set(diag, local.status ? local.status : LS_ERR_SYNTAX, file,
                                   line, local.col + (int)(raw - buf), "iree_target: %s",
                                   local.msg);
            }
            ls_arena_fini(&arena);
            hw->has_iree_target = true;
            continue;
        }
        char *v = eq + 1;
        while (isspace((unsigned char)*v))
            v++;
        char *hash = strchr(v, '#');
        char *src = NULL;
        if (hash) {
            *hash = 0;
            src = hash + 1;
            while (isspace((unsigned char)*src))
                src++;
        }
        char *vend = v + strlen(v);
        while (vend > v && isspace((unsigned char)vend[-1]))
            *--vend = 0;
        int vcol = (int)(v - buf) + 1;
        if (strcmp(s, "name") == 0 || strcmp(s, "arch") == 0) {
            int *at = strcmp(s, "name") == 0 ? &name_line : &arch_line;
            if (*at)
                return given_twice(diag, file, line, s, *at);
            *at = line;
            snprintf(strcmp(s, "name") == 0 ? hw->name : hw->arch, sizeof hw->name, "%s", v);
            continue;
        }
        size_t fi = 0;
        while (fi < NFIELDS && strcmp(fields[fi].key, s) != 0)
            fi++;
        if (fi == NFIELDS)
            return ls_diag_set(diag, LS_ERR_SYNTAX, file, line, 1, "unknown key '%.40s'", s);
        if (seen[fi])
            return given_twice(diag, file, line, s, seen[fi]);
        if (set_field(hw, fi, s, v, src, file, line, vcol, diag))
            return diag->status;
        seen[fi] = line;
    }
    return finish_model(hw, seen, file, diag);
}

const char *ls_hw_names(void)
{
    return "h100, h200, a100, mi300x, mi355x, rx7900xtx, any IREE target name (sm_80, gfx942, "
           "gfx1201, ...), a .hw file or an .mlir file with an #iree_gpu.target";
}

/* A field a target gives the model keeps the bounds a .hw file's has: the
 * engine multiplies them (WGPs x occupancy, WGPs x schedulers, ...). */
static ls_status target_field(const ls_target *t, const char *key, int64_t v, ls_diag *diag)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].key, key) == 0 && (v < fields[i].min || v > fields[i].max))
            return ls_diag_set(diag, LS_ERR_LIMIT, "--target", 0, 0,
                               "target %s gives the model %s = %lld, outside %lld..%lld (the "
                               "limit of a model's field)",
                               t->arch, key, (long long)v, (long long)fields[i].min,
                               (long long)fields[i].max);
    return LS_OK;
}

/* The built-in model whose timing a target borrows. */
static const char *family_of(const char *arch)
{
    if (strncmp(arch, "sm_", 3) == 0)
        return atoi(arch + 3) >= 90 ? "h100" : "a100";
    if (strncmp(arch, "gfx", 3) == 0) {
        if (strcmp(arch, "gfx950") == 0)
            return "mi355x";
        return strlen(arch + 3) >= 4 ? "rx7900xtx" : "mi300x"; /* gfx10xx..gfx12xx : gfx9xx */
    }
    return NULL;
}

ls_status ls_hw_for_target(const ls_target *t, ls_hw *hw, ls_diag *diag)
{
    if (t->sku[0]) { /* a chip with a model file of its own keeps it */
        ls_diag quiet;
        ls_diag_clear(&quiet);
        if (ls_hw_load(t->sku, hw, &quiet) == LS_OK) {
            hw->iree_target = *t;
            hw->has_iree_target = true;
            return LS_OK;
        }
    }
    const char *fam = family_of(t->arch);
    if (!fam)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, "--target", 0, 0,
                           "no timing model for arch '%s' (lanescope models NVIDIA sm_XY and AMD "
                           "gfxN targets)",
                           t->arch);
    ls_status st = ls_hw_load(fam, hw, diag);
    if (st)
        return st;
    char fam_name[32];
    snprintf(fam_name, sizeof fam_name, "%s", hw->name);
    snprintf(hw->name, sizeof hw->name, "%s", t->sku[0] ? t->sku : t->arch);
    snprintf(hw->arch, sizeof hw->arch, "%s", t->arch);
    bool sg_ok = false;
    for (int i = 0; i < t->n_subgroup_choices; i++)
        sg_ok |= t->subgroup_choices[i] == hw->subgroup_size;
    if (!sg_ok && t->n_subgroup_choices > 0)
        hw->subgroup_size = t->subgroup_choices[0];
    if (target_field(t, "subgroup_size", hw->subgroup_size, diag) ||
        (t->wgp_count > 0 && target_field(t, "wgp_count", t->wgp_count, diag)) ||
        (t->max_workgroup_memory_bytes > hw->smem_bytes_per_wgp &&
         target_field(t, "smem_bytes_per_wgp", t->max_workgroup_memory_bytes, diag)) ||
        (t->simds_per_wgp > 0 && target_field(t, "schedulers_per_wgp", t->simds_per_wgp, diag)))
        return diag->status;
    char wgps[96];
    if (t->wgp_count > 0) {
        hw->wgp_count = t->wgp_count;
        snprintf(wgps, sizeof wgps, "%lld WGPs from the target's chip", (long long)t->wgp_count);
    } else {
        snprintf(wgps, sizeof wgps, "no chip in the target: %lld WGPs assumed (%s's)",
                 (long long)hw->wgp_count, fam_name);
    }
    if (t->max_workgroup_memory_bytes > hw->smem_bytes_per_wgp)
        hw->smem_bytes_per_wgp = t->max_workgroup_memory_bytes;
    if (t->simds_per_wgp > 0)
        hw->schedulers_per_wgp = t->simds_per_wgp;
    hw->iree_target = *t;
    hw->has_iree_target = true;
    snprintf(hw->note, sizeof hw->note,
             "model for %s built from IREE's target fields (subgroup size, workgroup memory, "
             "SIMDs; %s) with %s's timing parameters: clock, latencies, caches and DRAM "
             "bandwidth are estimates",
             hw->name, wgps, fam_name);
    return LS_OK;
}

static const char *arch_alias(const char *name)
{
    static const char *pairs[][2] = {
        {"sm_90", "h100"}, {"sm_80", "a100"}, {"gfx942", "mi300x"}, {"gfx1100", "rx7900xtx"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(name, pairs[i][0]) == 0)
            return pairs[i][1];
    return name;
}

ls_status ls_hw_load(const char *name, ls_hw *hw, ls_diag *diag)
{
    name = arch_alias(name);
    char path[1024];
    const char *env = getenv("LANESCOPE_TARGETS");
    FILE *f = NULL;
    if (strchr(name, '/') || strstr(name, ".hw")) {
        if ((size_t)snprintf(path, sizeof path, "%s", name) >= sizeof path)
            return ls_diag_set(diag, LS_ERR_LIMIT, "--target", 0, 0,
                               "the model's file name is longer than %zu bytes", sizeof path - 1);
        if ((f = ls_open_input(path, diag)) == NULL)
            return diag->status;
    } else {
        char beside[1024];
        const char *dirs[] = {env, ls_exe_data_dir("targets", beside, sizeof beside),
                              LS_TARGETS_DIR, LS_SRC_TARGETS_DIR};
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && f == NULL; i++) {
            if (dirs[i] == NULL)
                continue;
            int n = snprintf(path, sizeof path, "%s/%s.hw", dirs[i], name);
            if (n < 0 || (size_t)n >= sizeof path)
                continue; /* a shortened name could open another model */
            f = fopen(path, "rb");
        }
        if (f == NULL)
            return ls_diag_set(diag, LS_ERR_NOTFOUND, "--target", 0, 0,
                               "no hardware model '%s' (built in: %s; or give a .hw file)", name,
                               ls_hw_names());
    }
    if (f == NULL)
        return ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    ls_io_note_input(fileno(f), path);
    char *buf = ls_xmalloc(65537);
    size_t n = fread(buf, 1, 65536, f);
    bool big = n == 65536 && fgetc(f) != EOF;
    fclose(f);
    buf[n] = 0;
    ls_status st = big ? ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0,
                                     "model file larger than 64 KiB")
                       : ls_diag_check_text(diag, path, buf, 0, n);
    if (st == LS_OK)
        st = ls_hw_parse(buf, path, hw, diag);
    free(buf);
    return st;
}
