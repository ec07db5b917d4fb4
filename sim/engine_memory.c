/* engine_memory.c: the engine's memory system (see engine.h): shared-memory
 * bank conflicts by phase, the sectored L2 with its hashed set index and
 * the DRAM queue, and the coalesced byte intervals of every global load
 * (precomputed for interior tiles, recomputed for ragged ones).  engine.c
 * calls in through engine_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"

#include "engine_internal.h"

/* Distinct words in the busiest bank among accesses [from, to) of addr. */
static int64_t phase_degree(const int64_t *addr, int from, int to, int64_t bytes, int64_t banks,
                            int64_t bank_bytes)
{
    /* distinct words per bank; O(n * words^2) with n <= 1024 lanes */
    int64_t words[4096];
    int nw = 0;
    for (int i = from; i < to; i++)
        for (int64_t b = 0; b < bytes; b += bank_bytes) {
            int64_t wd = (addr[i] + b) / bank_bytes;
            bool dup = false;
            for (int j = 0; j < nw && !dup; j++)
                dup = words[j] == wd;
            if (!dup && nw < 4096)
                words[nw++] = wd;
        }
    int64_t worst = 0;
    for (int j = 0; j < nw; j++) {
        int64_t bank = words[j] % banks, count = 0;
        for (int k = 0; k < nw; k++)
            count += words[k] % banks == bank;
        if (count > worst)
            worst = count;
    }
    return worst ? worst : 1;
}

int64_t ls_bank_phase_lanes(int64_t bytes, int64_t banks, int64_t bank_bytes)
{
    return bytes > bank_bytes ? banks * bank_bytes / bytes : 0;
}

int ls_bank_phase_end(const int64_t *lanes, int n, int i, int64_t per)
{
    if (per <= 0 || i >= n)
        return n;
    int64_t phase = (lanes ? lanes[i] : i) / per;
    int j = i;
    while (j < n && (lanes ? lanes[j] : j) / per == phase)
        j++;
    return j;
}

int64_t ls_bank_conflict_degree(const int64_t *lanes, const int64_t *addr, int n, int64_t bytes,
                                int64_t banks, int64_t bank_bytes)
{
    /* An access wider than a bank is served in phases: as many lanes as
     * one pass of the banks holds (128 B on 32 x 4-byte banks: 16 lanes of
     * 8 bytes, 8 lanes of 16), each phase costing its own degree
     * (shared/reference/hardware.md: MI300X's ds_write_b128 is serviced in
     * phases of 8 lanes; NVIDIA splits 64- and 128-bit shared accesses
     * into half- and quarter-warp phases the same way).  Narrower accesses
     * are one phase. */
    int64_t per_phase = ls_bank_phase_lanes(bytes, banks, bank_bytes);
    if (per_phase <= 0)
        return phase_degree(addr, 0, n, bytes, banks, bank_bytes);
    int64_t total = 0;
    for (int i = 0; i < n;) {
        int j = ls_bank_phase_end(lanes, n, i, per_phase);
        total += phase_degree(addr, i, j, bytes, banks, bank_bytes);
        i = j;
    }
    return total;
}

/* Portable popcount (the build does not assume the POPCNT instruction). */
static int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The L2 set of a line.  Hashed: the line address's higher bits are folded
 * into the index bits, as GPU L2s hash addresses over slices and sets, so
 * rows with a power-of-two pitch do not all land in a few sets (Accel-Sim
 * hashes its L2 set index the same way: the "P" (IPOLY) set function of its
 * tested configs, e.g. SM7_QV100's -gpgpu_cache:dl2; its README: XOR and
 * polynomial hashing "to reduce bank and cache set conflicts").  The higher
 * bits go through a multiplicative scramble first: a plain XOR fold maps a
 * pitch of sets + 1 lines back onto one set.  The scramble only changes
 * every 2^set_bits lines, so a walk over consecutive lines keeps the last
 * one (*hi, *scr) and pays for the multiply once per block. */
static inline int64_t l2_set(const l2model *c, int64_t line, uint64_t *hi, uint64_t *scr)
{
    uint64_t h = (uint64_t)line >> c->set_bits;
    if (h != *hi) {
        *hi = h;
        *scr = (h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - c->set_bits);
    }
    uint64_t fold = (uint64_t)line ^ *scr;
    return c->sets_pow2 ? (int64_t)(fold & (uint64_t)(c->sets - 1))
                        : (int64_t)(fold % (uint64_t)c->sets);
}

/* Make the L2 hold n slots (sets), the new ones with empty ways: all the
 * sets of a dense L2 at once, a sparse one's as they are first touched. */
static void l2_grow(l2model *c, int64_t n)
{
    size_t lines = (size_t)(n * c->ways), old = (size_t)(c->slots_alloc * c->ways);
    c->way = ls_xrealloc(c->way, lines * sizeof *c->way);
    c->order = ls_xrealloc(c->order, lines);
    c->fp = ls_xrealloc(c->fp, lines);
    for (size_t i = old; i < lines; i++) {
        c->way[i] = (l2way){.tag = -1};
        c->order[i] = (uint8_t)(i % (size_t)c->ways);
        c->fp[i] = 0;
    }
    c->slots_alloc = n;
}

static inline uint64_t slot_hash(int64_t set, int64_t cap)
{
    return ((uint64_t)set * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - __builtin_ctzll((uint64_t)cap));
}

/* The set -> slot table at cap entries (a power of two), every entry kept. */
static void slot_table(l2model *c, int64_t cap)
{
    int64_t *key = ls_xmalloc((size_t)cap * sizeof *key);
    int32_t *of = ls_xmalloc((size_t)cap * sizeof *of);
    for (int64_t j = 0; j < cap; j++)
        key[j] = -1;
    for (int64_t j = 0; j < c->slot_cap; j++) {
        if (c->slot_key[j] < 0)
            continue;
        uint64_t h = slot_hash(c->slot_key[j], cap);
        while (key[h] >= 0)
            h = (h + 1) & (uint64_t)(cap - 1);
        key[h] = c->slot_key[j];
        of[h] = c->slot_of[j];
    }
    free(c->slot_key);
    free(c->slot_of);
    c->slot_key = key;
    c->slot_of = of;
    c->slot_cap = cap;
}

/* The slot of a set in a sparse L2, made (empty) on its first touch.  The
 * table stays at most half full, so a probe is short. */
static int64_t l2_slot(l2model *c, int64_t set)
{
    uint64_t mask = (uint64_t)c->slot_cap - 1, i = slot_hash(set, c->slot_cap);
    while (c->slot_key[i] >= 0) {
        if (c->slot_key[i] == set)
            return c->slot_of[i];
        i = (i + 1) & mask;
    }
    if (2 * (c->nslots + 1) > c->slot_cap) {
        slot_table(c, c->slot_cap * 2);
        return l2_slot(c, set); /* probes the new table, finds the empty entry */
    }
    if (c->nslots == c->slots_alloc)
        l2_grow(c, 2 * c->slots_alloc);
    c->slot_key[i] = set;
    c->slot_of[i] = (int32_t)c->nslots;
    return c->nslots++;
}

void ls_engine_l2_init(engine *e)
{
    const ls_hw *hw = e->hw;
    l2model *c = &e->l2;
    c->sets = hw->l2_bytes / (hw->l2_line_bytes * hw->l2_ways);
    c->sets_pow2 = (c->sets & (c->sets - 1)) == 0;
    c->set_bits = 1;
    while (c->set_bits < 62 && (INT64_C(1) << c->set_bits) < c->sets)
        c->set_bits++;
    c->ways = (int)hw->l2_ways;
    c->sector_shift = __builtin_ctzll((uint64_t)hw->sector_bytes);
    c->sectors_per_line_shift = __builtin_ctzll((uint64_t)(hw->l2_line_bytes / hw->sector_bytes));
    c->latency = hw->l2_latency;
    c->dram_latency = hw->dram_latency;
    c->sector_bytes = hw->sector_bytes;
    c->sector_ticks = llround((double)hw->sector_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    if (c->sets * c->ways > LS_L2_DENSE_LINES) {
        slot_table(c, 4096);
        l2_grow(c, 1024);
    } else {
        l2_grow(c, c->sets);
    }
}

void ls_engine_l2_free(engine *e)
{
    free(e->l2.way);
    free(e->l2.order);
    free(e->l2.fp);
    free(e->l2.slot_key);
    free(e->l2.slot_of);
}

/* Look up one line's sectors (mask, nsect of them) at cycle t in its set;
 * returns the data-ready cycle and adds the sectors that missed to
 * *nmiss_out.  Statistics are summed by the caller: this runs once per line
 * of every load, so it keeps to the lookup itself. */
static inline int64_t l2_access(const l2model *c, int64_t *dram_free, int64_t line, int64_t set,
                                uint64_t mask, int nsect, int64_t t, int64_t *nmiss_out)
{
    int ways = c->ways;
    int64_t base = set * ways;
    l2way *ways_of_set = c->way + base;
    uint8_t *order = c->order + base; /* way indices, most recent first */
    /* 8-bit fingerprints filter the scan: a miss reads 16 bytes, not 16 tags */
    uint8_t fp = (uint8_t)(line ^ (line >> 8) ^ (line >> 16));
    uint8_t *fps = c->fp + base;
    int w = ways, pos = ways - 1;
    if (ways == 16) {
        /* SWAR: candidate ways are the zero bytes of fps ^ fp, two words at a time */
        const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        uint64_t fpx = fp * ones;
        for (int half = 0; half < 2 && w == ways; half++) {
            uint64_t v;
            memcpy(&v, fps + 8 * half, 8);
            v ^= fpx;
            uint64_t cand = (v - ones) & ~v & highs;
            while (cand) {
                int k = 8 * half + __builtin_ctzll(cand) / 8;
                if (ways_of_set[k].tag == line) {
                    w = k;
                    break;
                }
                cand &= cand - 1;
            }
        }
    } else {
        w = 0;
        while (w < ways && (fps[w] != fp || ways_of_set[w].tag != line))
            w++;
    }
    if (w == ways) { /* miss: the least recently used way is last in the order */
        w = order[pos];
        ways_of_set[w].tag = line;
        ways_of_set[w].valid = 0;
        ways_of_set[w].fill = 0;
        fps[w] = fp;
    } else {
        pos = 0;
        while (order[pos] != w)
            pos++;
    }
    if (pos > 0) { /* move w to the front (already there: nothing to do) */
        if (ways == 16) {
            /* bytes 0..pos shift up by one, in one 128-bit step */
            unsigned __int128 v, moved, m;
            memcpy(&v, order, 16);
            m = pos == 15 ? ~(unsigned __int128)0
                          : (((unsigned __int128)1 << (8 * (pos + 1))) - 1);
            moved = (v << 8) | (unsigned __int128)(uint8_t)w;
            v = (v & ~m) | (moved & m);
            memcpy(order, &v, 16);
        } else {
            for (; pos > 0; pos--)
                order[pos] = order[pos - 1];
            order[0] = (uint8_t)w;
        }
    }
    l2way *lw = &ways_of_set[w];
    uint64_t missing = mask & ~lw->valid;
    int64_t ready = t + c->latency;
    if (missing) {
        int nmiss = missing == mask ? nsect : popcount64(missing);
        *nmiss_out += nmiss;
        int64_t now = t << LS_TICK_SHIFT;
        *dram_free = (*dram_free > now ? *dram_free : now) + nmiss * c->sector_ticks;
        int64_t fill = ((*dram_free + LS_TICK - 1) >> LS_TICK_SHIFT) + c->dram_latency;
        lw->valid |= missing;
        if (fill > lw->fill)
            lw->fill = fill;
    }
    /* a sector still in flight (MSHR merge) is ready when its fill arrives */
    if (lw->fill > ready)
        ready = lw->fill;
    return ready;
}

/* Touch the sectors of byte range [lo, hi); returns the latest ready cycle.
 * Sector and line sizes are powers of two (checked by the model parser), so
 * the walk is shifts and masks, one L2 lookup per line; only the first and
 * last line of a range can be partial. */
int64_t ls_engine_touch_range(engine *e, int64_t lo, int64_t hi, int64_t t, ls_stage_stats *st)
{
    l2model c = e->l2;
    int64_t dram_free = e->dram_free;
    int64_t ready = t;
    int sls = c.sectors_per_line_shift;
    int64_t s0 = lo >> c.sector_shift, s1 = (hi - 1) >> c.sector_shift;
    int64_t l0 = s0 >> sls, l1 = s1 >> sls;
    int64_t spl = INT64_C(1) << sls;
    uint64_t full = spl >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << spl) - 1;
    int64_t nmiss = 0;
    uint64_t blk = ~UINT64_C(0), scr = 0; /* l2_set's last block and scramble */
    for (int64_t line = l0; line <= l1; line++) {
        uint64_t mask = full;
        int64_t nsect = spl;
        if (line == l0 || line == l1) {
            int64_t first = line << sls;
            int64_t a = s0 > first ? s0 - first : 0;
            int64_t b = s1 < first + spl - 1 ? s1 - first : spl - 1;
            nsect = b - a + 1;
            mask = (nsect >= 64 ? ~UINT64_C(0) : ((UINT64_C(1) << nsect) - 1)) << a;
        }
        int64_t set = l2_set(&c, line, &blk, &scr);
        if (c.slot_cap) { /* sparse: the slot may be new, and the arrays moved */
            set = l2_slot(&e->l2, set);
            c.way = e->l2.way;
            c.order = e->l2.order;
            c.fp = e->l2.fp;
        }
        int64_t r = l2_access(&c, &dram_free, line, set, mask, (int)nsect, t, &nmiss);
        if (r > ready)
            ready = r;
    }
    int64_t nsect_all = s1 - s0 + 1;
    st->sectors += nsect_all;
    st->sector_hits += nsect_all - nmiss;
    /* One range adds at most 2^33 bytes (a load's lanes x width x 8) at
     * 2^26.6 ticks a byte (0.01 bytes a cycle), about 2^59.6 ticks, to a
     * queue held at LS_MAX_SIM_TICKS: the sum above stays below 2^61. */
    if (dram_free > LS_MAX_SIM_TICKS) {
        dram_free = LS_MAX_SIM_TICKS;
        e->clock_over = true;
    }
    e->dram_free = dram_free;
    int64_t bytes = nmiss * c.sector_bytes;
    st->dram_bytes += bytes;
    e->res->dram_bytes += bytes;
    return ready;
}

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Merge lane intervals (sorted in place) into disjoint ones; returns count. */
static int merge_intervals(interval *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_interval);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && v[i].lo <= v[m - 1].hi) {
            if (v[i].hi > v[m - 1].hi)
                v[m - 1].hi = v[i].hi;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

/* The bytes element `index` of ebits-bit elements occupies: a packed
 * sub-byte element touches the byte holding it. */
static void element_bytes(interval *out, int *n, int64_t index, int64_t ebits,
                          int64_t *active_bits)
{
    int64_t a = index * ebits;
    out[*n].lo = a >> 3;
    out[*n].hi = (a + ebits + 7) >> 3;
    (*n)++;
    *active_bits += ebits;
}

/* Byte intervals a subgroup's load of input k touches in workgroup /
 * iteration coords, relative to the tile base. */
int ls_engine_load_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                             const int64_t *it_coord, interval *out, int64_t *active_bytes)
{
    const ls_derived *d = e->d;
    int64_t w = e->plan->inputs[k].width, ebits = e->plan->inputs[k].elem_bits;
    int n = 0;
    int64_t active_bits = 0;
    *active_bytes = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t tid = (int64_t)sg * d->subgroup_size + ln;
        for (int64_t el = 0; el < w; el++) {
            int64_t x[LS_MAX_RANK];
            bool valid;
            int64_t reg = ls_operand_register(d, &e->oregs[k], load, el);
            ls_thread_element(d, e->p, tid, wg_coord, it_coord, reg, x, &valid);
            if (!valid)
                continue;
            element_bytes(out, &n, ls_operand_index(e->p, k, x), ebits, &active_bits);
        }
    }
    *active_bytes = (active_bits + 7) / 8;
    return merge_intervals(out, n);
}

/* A promoted input's copy vector `load` of every lane of subgroup sg: the
 * derived thread layout's elements of the operand tile, at the tile's
 * origin (elements past a ragged edge are masked). */
int ls_engine_copy_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                             const int64_t *it_coord, interval *out, int64_t *active_bytes)
{
    const ls_derived *d = e->d;
    const ls_problem *p = e->p;
    const ls_operand *o = &p->inputs[k];
    int64_t w = e->plan->promote[k].copy_width, ebits = e->plan->inputs[k].elem_bits;
    int64_t origin[LS_MAX_RANK];
    ls_tile_origin(d, p, wg_coord, it_coord, origin);
    int n = 0;
    int64_t active_bits = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t tid = (int64_t)sg * d->subgroup_size + ln;
        for (int64_t el = 0; el < w; el++) {
            int64_t y[LS_MAX_RANK], x[LS_MAX_RANK] = {0};
            ls_plan_promote_coord(e->plan, k, tid, load, el, y);
            bool valid = true;
            for (int j = 0; j < o->map_n; j++) {
                x[o->map[j]] = origin[o->map[j]] + y[j];
                valid &= x[o->map[j]] < p->size[o->map[j]];
            }
            if (!valid)
                continue;
            element_bytes(out, &n, ls_operand_index(p, k, x), ebits, &active_bits);
        }
    }
    *active_bytes = (active_bits + 7) / 8;
    return merge_intervals(out, n);
}

void ls_engine_precompute_loads(engine *e)
{
    const ls_derived *d = e->d;
    const ls_plan *pl = e->plan;
    /* subgroups x registers <= 2^27 (1 GiB of engine state, 8 bytes a
     * template entry, checked before), times lanes (<= 1024) and 4 inputs:
     * total < 2^39, entries < 2^30 (an int) */
    int64_t entries = 0, total = 0;
    for (int k = 0; k < pl->n_inputs; k++) {
        e->ival_first[k] = (int)entries;
        entries += e->nsub * pl->inputs[k].loads;
        total += e->nsub * pl->inputs[k].loads * d->subgroup_size * pl->inputs[k].width;
    }
    for (int k = 0; k < pl->n_inputs; k++) {
        e->copy_first[k] = (int)entries;
        if (!pl->promote[k].on)
            continue;
        entries += e->nsub * pl->promote[k].copy_loads;
        total += e->nsub * pl->promote[k].copy_loads * d->subgroup_size * pl->promote[k].copy_width;
    }
    int64_t zero[LS_MAX_RANK] = {0};
    e->ival_start = ls_xcalloc((size_t)entries, sizeof *e->ival_start);
    e->ival_count = ls_xcalloc((size_t)entries, sizeof *e->ival_count);
    e->ivals = ls_xcalloc((size_t)total, sizeof *e->ivals);
    int64_t at = 0, dummy;
    for (int k = 0; k < pl->n_inputs; k++)
        for (int sg = 0; sg < e->nsub; sg++)
            for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
                /* workgroup 0, iteration 0 is an interior tile unless the problem
                 * is smaller than one tile; ragged tiles take the slow path anyway. */
                int c = ls_engine_load_intervals(e, k, sg, (int)l, zero, zero, e->ivals + at, &dummy);
                int64_t i = e->ival_first[k] + sg * pl->inputs[k].loads + l;
                e->ival_start[i] = at;
                e->ival_count[i] = c;
                at += c;
            }
    for (int k = 0; k < pl->n_inputs; k++)
        for (int sg = 0; pl->promote[k].on && sg < e->nsub; sg++)
            for (int64_t l = 0; l < pl->promote[k].copy_loads; l++) {
                int c = ls_engine_copy_intervals(e, k, sg, (int)l, zero, zero, e->ivals + at, &dummy);
                int64_t i = e->copy_first[k] + sg * pl->promote[k].copy_loads + l;
                e->ival_start[i] = at;
                e->ival_count[i] = c;
                at += c;
            }
}

