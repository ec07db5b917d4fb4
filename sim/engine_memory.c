/* engine_memory.c: the engine's memory system (see engine.h): shared-memory
 * bank conflicts by phase, the sectored L2 with its hashed set index and
 * the DRAM queue, and the coalesced byte intervals of every global load
 * (precomputed for interior tiles, recomputed for ragged ones; each
 * iteration's share of a tile's address tabled once).  engine.c
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

/* The set of a line within one instance of a cache.  Hashed: the line
 * address's higher bits are folded into the index bits, as GPU L2s hash
 * addresses over slices and sets, so rows with a power-of-two pitch do not
 * all land in a few sets (Accel-Sim hashes its L2 set index the same way:
 * the "P" (IPOLY) set function of its tested configs, e.g. SM7_QV100's
 * -gpgpu_cache:dl2; its README: XOR and polynomial hashing "to reduce bank
 * and cache set conflicts").  The higher bits go through a multiplicative
 * scramble first: a plain XOR fold maps a pitch of sets + 1 lines back onto
 * one set.  The scramble only changes every 2^set_bits lines, so the cache
 * keeps the last one (hash_block, hash_scramble) and a walk over
 * consecutive lines pays for the multiply once per block. */
static inline int64_t cache_set(cachemodel *c, int64_t line)
{
    uint64_t h = (uint64_t)line >> c->set_bits;
    if (h != c->hash_block) {
        c->hash_block = h;
        c->hash_scramble = (h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - c->set_bits);
    }
    uint64_t fold = (uint64_t)line ^ c->hash_scramble;
    return c->sets_pow2 ? (int64_t)(fold & (uint64_t)(c->sets - 1))
                        : (int64_t)(fold % (uint64_t)c->sets);
}

/* Make the cache hold n slots (sets), the new ones empty.  Empty is all
 * zero bytes (a way's tag is line + 1, 0 for none; the order bytes are
 * stored XORed with their position, so zero is the order 0, 1, 2, ...),
 * so a dense cache is one calloc whose pages the system maps as the run
 * first touches them: memory follows the run, not the model. */
static void cache_grow(cachemodel *c, int64_t n)
{
    size_t lines = (size_t)(n * c->ways), old = (size_t)(c->slots_alloc * c->ways);
    if (old == 0) {
        c->way = ls_xcalloc(lines, sizeof *c->way);
        c->meta = ls_xcalloc(lines, 2);
    } else {
        c->way = ls_xrealloc(c->way, lines * sizeof *c->way);
        c->meta = ls_xrealloc(c->meta, 2 * lines);
        memset(c->way + old, 0, (lines - old) * sizeof *c->way);
        memset(c->meta + 2 * old, 0, 2 * (lines - old));
    }
    c->slots_alloc = n;
}

static inline uint64_t slot_hash(int64_t set, int64_t cap)
{
    return ((uint64_t)set * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - __builtin_ctzll((uint64_t)cap));
}

/* The set -> slot table at cap entries (a power of two), every entry kept. */
static void slot_table(cachemodel *c, int64_t cap)
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

/* The slot of a set in a sparse cache, made (empty) on its first touch.
 * The table stays at most half full, so a probe is short. */
static int64_t cache_slot(cachemodel *c, int64_t set)
{
    uint64_t mask = (uint64_t)c->slot_cap - 1, i = slot_hash(set, c->slot_cap);
    while (c->slot_key[i] >= 0) {
        if (c->slot_key[i] == set)
            return c->slot_of[i];
        i = (i + 1) & mask;
    }
    if (2 * (c->nslots + 1) > c->slot_cap) {
        slot_table(c, c->slot_cap * 2);
        return cache_slot(c, set); /* probes the new table, finds the empty entry */
    }
    if (c->nslots == c->slots_alloc)
        cache_grow(c, 2 * c->slots_alloc);
    c->slot_key[i] = set;
    c->slot_of[i] = (int32_t)c->nslots;
    return c->nslots++;
}

/* A cache of `bytes` in `instances` copies (0 bytes or instances: off). */
static void cache_init(cachemodel *c, int64_t bytes, int64_t instances, int64_t line_bytes,
                       int64_t ways)
{
    memset(c, 0, sizeof *c);
    if (bytes <= 0 || instances <= 0)
        return;
    c->instances = instances;
    c->ways = (int)ways;
    c->sets = bytes / (line_bytes * ways);
    c->sets_pow2 = (c->sets & (c->sets - 1)) == 0;
    c->set_bits = 1;
    while (c->set_bits < 62 && (INT64_C(1) << c->set_bits) < c->sets)
        c->set_bits++;
    if (c->sets * instances * c->ways > LS_L2_DENSE_LINES) {
        slot_table(c, 4096);
        cache_grow(c, 1024);
    } else {
        cache_grow(c, c->sets * instances);
    }
}

static void cache_free(cachemodel *c)
{
    free(c->way);
    free(c->meta);
    free(c->slot_key);
    free(c->slot_of);
}

void ls_engine_memory_init(engine *e)
{
    const ls_hw *hw = e->hw;
    memconst *m = &e->mc;
    m->sector_shift = __builtin_ctzll((uint64_t)hw->sector_bytes);
    m->sectors_per_line_shift = __builtin_ctzll((uint64_t)(hw->l2_line_bytes / hw->sector_bytes));
    m->sector_bytes = hw->sector_bytes;
    m->l1_latency = hw->l1_latency;
    m->l2_latency = hw->l2_latency;
    m->l2_far_latency = hw->l2_far_latency;
    m->mall_latency = hw->mall_latency;
    m->dram_latency = hw->dram_latency;
    m->sector_ticks = llround((double)hw->sector_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    m->partitions = hw->l2_partitions;
    m->wgps = hw->wgp_count;
    m->xcds = hw->xcds;
    m->mshrs = hw->mshrs_per_wgp;
    m->has_l1 = hw->l1_bytes > 0 && hw->l1_ways > 0;
    m->has_mall = hw->mall_bytes > 0 && hw->mall_ways > 0;
    if (!e->streaming) { /* a streaming run never looks a line up */
        cache_init(&e->l1, hw->l1_bytes, hw->wgp_count, hw->l2_line_bytes, hw->l1_ways);
        cache_init(&e->l2, hw->l2_bytes / hw->xcds, hw->xcds, hw->l2_line_bytes, hw->l2_ways);
    }
    /* The memory-side cache is tracked in blocks of up to 64 sectors and
     * 4 KiB, each with its sectors' valid mask: a sectored cache with large
     * lines.  Its state then fits the host's caches (MI300X's 256 MB in
     * 128-byte lines would be 2M ways, a host cache miss per lookup).  A
     * block is allocated and evicted as one, where the hardware replaces
     * lines: a modelling choice, documented in docs/timing-model.md. */
    int64_t spl = hw->l2_line_bytes / hw->sector_bytes, block_lines = 1;
    while (block_lines * 2 * spl <= 64 && block_lines * 2 * hw->l2_line_bytes <= 4096)
        block_lines *= 2;
    m->mall_block_shift = __builtin_ctzll((uint64_t)block_lines);
    if (!e->streaming)
        cache_init(&e->mall, hw->mall_bytes, 1, block_lines * hw->l2_line_bytes, hw->mall_ways);
    m->partitions_pow2 = (m->partitions & (m->partitions - 1)) == 0;
    if (m->partitions > 1) { /* a WGP is wired to the partition of its share of the chip */
        int64_t used = e->n_wg_slots < hw->wgp_count ? e->n_wg_slots : hw->wgp_count;
        e->near_partition = ls_xcalloc((size_t)used, sizeof *e->near_partition);
        for (int64_t w = 0; w < used; w++)
            e->near_partition[w] = w * m->partitions / m->wgps;
    }
    if (m->mshrs > 0) { /* the WGPs in use: slot w runs on WGP w mod wgp_count */
        int64_t used = e->n_wg_slots < hw->wgp_count ? e->n_wg_slots : hw->wgp_count;
        e->mshr_done = ls_xcalloc((size_t)(used * m->mshrs), sizeof *e->mshr_done);
        e->mshr_next = ls_xcalloc((size_t)used, sizeof *e->mshr_next);
    }
}

void ls_engine_memory_free(engine *e)
{
    cache_free(&e->l1);
    cache_free(&e->l2);
    cache_free(&e->mall);
    free(e->mshr_done);
    free(e->mshr_next);
    free(e->near_partition);
}

/* The way holding line in instance inst of cache c, made most recently
 * used; a missing line takes the least recently used way, emptied.  The
 * statistics and fills are the caller's: this runs once per line of every
 * load, so it keeps to the lookup itself. */
static inline cway *cache_way(cachemodel *c, int64_t inst, int64_t line)
{
    int64_t set = inst * c->sets + cache_set(c, line);
    if (c->slot_cap) /* sparse: the slot may be new */
        set = cache_slot(c, set);
    int ways = c->ways;
    int64_t base = set * ways;
    cway *ways_of_set = c->way + base;
    /* 8-bit fingerprints filter the scan: a miss reads 16 bytes, not 16 tags */
    uint8_t fp = (uint8_t)(line ^ (line >> 8) ^ (line >> 16));
    int64_t tag = line + 1; /* 0: an empty way */
    uint8_t *fps = c->meta + 2 * base;
    uint8_t *order = fps + ways; /* way indices, most recent first */
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
                if (ways_of_set[k].tag == tag) {
                    w = k;
                    break;
                }
                cand &= cand - 1;
            }
        }
    } else {
        w = 0;
        while (w < ways && (fps[w] != fp || ways_of_set[w].tag != tag))
            w++;
    }
    /* order bytes are stored XORed with their position (zero: 0, 1, 2, ...) */
    if (w == ways) { /* miss: the least recently used way is last in the order */
        w = order[pos] ^ pos;
        ways_of_set[w].tag = tag;
        ways_of_set[w].valid = 0;
        ways_of_set[w].fill = 0;
        fps[w] = fp;
    } else {
        pos = 0;
        while ((order[pos] ^ pos) != w)
            pos++;
    }
    if (pos > 0) { /* move w to the front (already there: nothing to do) */
        if (ways == 16) {
            /* decode, shift bytes 0..pos up by one in one 128-bit step, encode */
            const unsigned __int128 id = ((unsigned __int128)0x0f0e0d0c0b0a0908ull << 64) |
                                         0x0706050403020100ull;
            unsigned __int128 v, moved, msk;
            memcpy(&v, order, 16);
            v ^= id;
            msk = pos == 15 ? ~(unsigned __int128)0
                            : (((unsigned __int128)1 << (8 * (pos + 1))) - 1);
            moved = (v << 8) | (unsigned __int128)(uint8_t)w;
            v = ((v & ~msk) | (moved & msk)) ^ id;
            memcpy(order, &v, 16);
        } else {
            for (; pos > 0; pos--)
                order[pos] = (uint8_t)(order[pos - 1] ^ (pos - 1) ^ pos);
            order[0] = (uint8_t)w;
        }
    }
    return &ways_of_set[w];
}

/* Sectors `missing` (n of them) of a way arrive at fill: a sector still in
 * flight when asked for again (an MSHR merge) is ready when its fill
 * arrives, so the way keeps the latest. */
static inline void way_fill(cway *w, uint64_t missing, int64_t fill)
{
    w->valid |= missing;
    if (fill > w->fill)
        w->fill = fill;
}

/* n sectors read from DRAM at cycle t: queued behind the DRAM's earlier
 * transfers, then dram_latency; returns the arrival cycle. */
static inline int64_t dram_read(engine *e, int64_t n, int64_t t)
{
    /* The queue takes requests in event order.  A request its WGP's
     * request slots hold back (t past the current event) joins it now:
     * queued at t, it would reserve the DRAM ahead of the requests other
     * WGPs make before t and leave the DRAM idle until then (an H100 run of
     * 8 loads in flight per subgroup timed 50x slow).  Its data still
     * leaves no earlier than t. */
    int64_t q = (t < e->now ? t : e->now) << LS_TICK_SHIFT;
    e->dram_free = (e->dram_free > q ? e->dram_free : q) + n * e->mc.sector_ticks;
    int64_t out = (e->dram_free + LS_TICK - 1) >> LS_TICK_SHIFT;
    return (out > t ? out : t) + e->mc.dram_latency;
}

/* Popcount without assuming the POPCNT instruction. */
static inline int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The L2 latency WGP wgp sees for line: the near partition's, or the far
 * one's when the line's address hashes to the other partition (a WGP is
 * wired to the partition of its half, or share, of the chip). */
static inline int64_t l2_latency_of(const engine *e, int wgp, int64_t line)
{
    const memconst *m = &e->mc;
    if (m->partitions <= 1)
        return m->l2_latency;
    uint64_t h = ((uint64_t)line * UINT64_C(0x9E3779B97F4A7C15)) >> 40;
    int64_t home = (int64_t)(m->partitions_pow2 ? h & (uint64_t)(m->partitions - 1)
                                                : h % (uint64_t)m->partitions);
    return home != e->near_partition[wgp] ? m->l2_far_latency : m->l2_latency;
}

/* Sectors `mask` (nsect) of line, asked of the L2 by WGP wgp at cycle t:
 * the L2 of the WGP's XCD, at the near or far partition's latency; its
 * misses go to the memory-side cache when there is one, then DRAM.
 * Returns the ready cycle; counts hits and DRAM sectors. */
static int64_t l2_read(engine *e, int wgp, int64_t line, uint64_t mask, int nsect, int64_t t,
                       ls_stage_stats *st)
{
    const memconst *m = &e->mc;
    int64_t xcd = m->xcds > 1 ? wgp % m->xcds : 0;
    cway *w = cache_way(&e->l2, xcd, line);
    int64_t latency = l2_latency_of(e, wgp, line);
    uint64_t missing = mask & ~w->valid;
    int64_t ready = t + latency;
    if (missing) {
        int nmiss = missing == mask ? nsect : popcount64(missing);
        int64_t fill;
        if (e->mall.ways) {
            /* the memory-side cache keeps blocks of mall_block_lines lines
             * (see ls_engine_memory_init), a sector mask each */
            int64_t block = line >> m->mall_block_shift;
            int off = (int)((line & ((INT64_C(1) << m->mall_block_shift) - 1))
                            << m->sectors_per_line_shift);
            uint64_t want = missing << off;
            cway *mw = cache_way(&e->mall, 0, block);
            uint64_t out = want & ~mw->valid;
            fill = t + m->mall_latency;
            if (want & mw->valid && mw->fill > fill)
                fill = mw->fill;
            int nout = popcount64(out);
            if (nout) {
                int64_t arrive = dram_read(e, nout, t);
                way_fill(mw, out, arrive);
                if (arrive > fill)
                    fill = arrive;
            }
            st->mall_hits += nmiss - nout;
            nmiss = nout;
        } else {
            fill = dram_read(e, nmiss, t);
        }
        st->dram_bytes += nmiss * m->sector_bytes;
        e->res->dram_bytes += nmiss * m->sector_bytes;
        way_fill(w, missing, fill);
        st->sector_hits += nsect - (missing == mask ? nsect : popcount64(missing));
    } else {
        st->sector_hits += nsect;
    }
    if (w->fill > ready)
        ready = w->fill;
    return ready;
}

/* A WGP's requests past its L1 take one of its mshrs_per_wgp slots per
 * sector, in the order they are made: request j waits for request
 * j - mshrs to come back.  Returns the cycle n sectors can go at t. */
static inline int64_t mshr_acquire(const engine *e, int wgp, int n, int64_t t)
{
    int64_t m = e->mc.mshrs, next = e->mshr_next[wgp];
    const int64_t *done = e->mshr_done + (int64_t)wgp * m;
    for (int i = 0; i < n; i++) {
        int64_t free_at = done[(next + i) % m];
        if (free_at > t)
            t = free_at;
    }
    return t;
}

static inline void mshr_release(engine *e, int wgp, int n, int64_t ready)
{
    int64_t m = e->mc.mshrs;
    int64_t *done = e->mshr_done + (int64_t)wgp * m;
    for (int i = 0; i < n; i++)
        done[(e->mshr_next[wgp] + i) % m] = ready;
    e->mshr_next[wgp] += n;
}

/* Sectors `mask` (nsect) of line, read by WGP wgp at cycle t: its L1 first
 * when the model has one (read-allocate; a hit costs l1_latency), the
 * sectors it lacks through the WGP's request slots to the L2. */
static inline int64_t line_read(engine *e, int wgp, int64_t line, uint64_t mask, int nsect,
                                int64_t t, ls_stage_stats *st)
{
    const memconst *m = &e->mc;
    if (e->l1.ways == 0) {
        int64_t at = m->mshrs ? mshr_acquire(e, wgp, nsect, t) : t;
        int64_t r = l2_read(e, wgp, line, mask, nsect, at, st);
        if (m->mshrs)
            mshr_release(e, wgp, nsect, r);
        return r;
    }
    cway *w = cache_way(&e->l1, wgp, line);
    uint64_t missing = mask & ~w->valid;
    int64_t ready = t + m->l1_latency;
    if ((mask & w->valid) && w->fill > ready)
        ready = w->fill;
    if (missing) {
        int n = missing == mask ? nsect : popcount64(missing);
        int64_t at = m->mshrs ? mshr_acquire(e, wgp, n, t) : t;
        int64_t r = l2_read(e, wgp, line, missing, n, at, st);
        if (m->mshrs)
            mshr_release(e, wgp, n, r);
        way_fill(w, missing, r);
        if (r > ready)
            ready = r;
        st->l1_hits += nsect - n;
    } else {
        st->l1_hits += nsect;
    }
    return ready;
}

/* A streaming run's read of n sectors of a line nobody asked for before
 * (engine_stream.c): what line_read and l2_read do when every cache
 * misses -- the request slots, the L2's latency, the memory-side cache's
 * latency under the DRAM queue's -- without the lookups, whose contents
 * could never be found again. */
static inline int64_t stream_line(engine *e, int wgp, int64_t line, int nsect, int64_t t,
                                  ls_stage_stats *st)
{
    const memconst *m = &e->mc;
    int64_t at = m->mshrs ? mshr_acquire(e, wgp, nsect, t) : t;
    int64_t fill = dram_read(e, nsect, at);
    if (m->has_mall && at + m->mall_latency > fill)
        fill = at + m->mall_latency;
    int64_t r = at + l2_latency_of(e, wgp, line);
    if (fill > r)
        r = fill;
    if (m->mshrs)
        mshr_release(e, wgp, nsect, r);
    if (m->has_l1 && t + m->l1_latency > r)
        r = t + m->l1_latency;
    st->dram_bytes += nsect * m->sector_bytes;
    e->res->dram_bytes += nsect * m->sector_bytes;
    return r;
}

/* touch_range for a streaming run.  Without request slots or partitions
 * every line of the range leaves at t and sees one latency, and the DRAM
 * queue only grows, so the last line's arrival is the latest: the range
 * costs one queue update, whatever its length. */
static int64_t stream_range(engine *e, int wgp, int64_t s0, int64_t s1, int64_t t,
                            ls_stage_stats *st)
{
    const memconst *m = &e->mc;
    int sls = m->sectors_per_line_shift;
    if (!m->mshrs && m->partitions <= 1) {
        int64_t n = s1 - s0 + 1;
        int64_t r = dram_read(e, n, t);
        int64_t floor = t + m->l2_latency;
        if (m->has_mall && t + m->mall_latency > floor)
            floor = t + m->mall_latency;
        if (m->has_l1 && t + m->l1_latency > floor)
            floor = t + m->l1_latency;
        st->dram_bytes += n * m->sector_bytes;
        e->res->dram_bytes += n * m->sector_bytes;
        return r > floor ? r : floor;
    }
    int64_t ready = t, spl = INT64_C(1) << sls;
    for (int64_t line = s0 >> sls, l1 = s1 >> sls; line <= l1; line++) {
        int64_t first = line << sls, a = s0 > first ? s0 : first;
        int64_t b = s1 < first + spl - 1 ? s1 : first + spl - 1;
        int64_t r = stream_line(e, wgp, line, (int)(b - a + 1), t, st);
        if (r > ready)
            ready = r;
    }
    return ready;
}

/* Ask the host for the set of line in a dense cache ahead of its lookup:
 * a range's lines are independent, so their sets' misses in the host's
 * caches overlap instead of queueing one after another. */
static inline void cache_prefetch(cachemodel *c, int64_t inst, int64_t line)
{
    if (c->ways == 0 || c->slot_cap)
        return;
    int64_t set = inst * c->sets + cache_set(c, line);
    __builtin_prefetch(c->meta + 2 * set * c->ways, 1);
    __builtin_prefetch(c->way + set * c->ways, 1);
}

/* Touch the sectors of byte range [lo, hi); returns the latest ready cycle.
 * Sector and line sizes are powers of two (checked by the model parser), so
 * the walk is shifts and masks, one lookup per line; only the first and
 * last line of a range can be partial. */
int64_t ls_engine_touch_range(engine *e, int wgp, int64_t lo, int64_t hi, int64_t t,
                              ls_stage_stats *st)
{
    int sls = e->mc.sectors_per_line_shift;
    int64_t s0 = lo >> e->mc.sector_shift, s1 = (hi - 1) >> e->mc.sector_shift;
    int64_t ready = t;
    if (e->streaming) {
        ready = stream_range(e, wgp, s0, s1, t, st);
        goto counted;
    }
    int64_t l0 = s0 >> sls, l1 = s1 >> sls;
    int64_t spl = INT64_C(1) << sls;
    uint64_t full = spl >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << spl) - 1;
    for (int64_t line = l0; line <= l1 && line < l0 + 16; line++) {
        cache_prefetch(&e->l1, wgp, line);
        cache_prefetch(&e->l2, e->mc.xcds > 1 ? wgp % e->mc.xcds : 0, line);
        cache_prefetch(&e->mall, 0, line >> e->mc.mall_block_shift);
    }
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
        int64_t r = line_read(e, wgp, line, mask, (int)nsect, t, st);
        if (r > ready)
            ready = r;
    }
counted:
    st->sectors += s1 - s0 + 1;
    /* One range adds at most 2^33 bytes (a load's lanes x width x 8) at
     * 2^26.6 ticks a byte (0.01 bytes a cycle), about 2^59.6 ticks, to a
     * queue held at LS_MAX_SIM_TICKS: the sum stays below 2^61. */
    if (e->dram_free > LS_MAX_SIM_TICKS) {
        e->dram_free = LS_MAX_SIM_TICKS;
        e->clock_over = true;
    }
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
    const ls_derived *d = e->in_d[k];
    const ls_problem *p = e->in_p[k];
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
            ls_thread_element(d, p, tid, wg_coord, it_coord, reg, x, &valid);
            if (!valid)
                continue;
            element_bytes(out, &n, ls_operand_index(p, e->in_k[k], x), ebits, &active_bits);
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

void ls_engine_iteration_table(engine *e)
{
    const ls_plan *pl = e->plan;
    e->it_half = NULL;
    e->it_ragged = NULL;
    int64_t iters = e->max_iterations;
    if (iters > LS_ITER_TABLE_MAX)
        return; /* ls_engine_tile_at computes each iteration's when it needs it */
    e->it_half = ls_xcalloc((size_t)(iters * pl->n_inputs) + 1, sizeof *e->it_half);
    e->it_ragged = ls_xcalloc((size_t)iters + 1, sizeof *e->it_ragged);
    int64_t it_coord[LS_MAX_RANK];
    for (int64_t it = 0; it < iters; it++) {
        /* an own-layout loop's tiles are never ragged; the plan's are
         * where its loop reaches */
        if (it < pl->iterations) {
            ls_iteration_coord(e->d, e->p, it, it_coord);
            e->it_ragged[it] = ls_tile_ragged_half(e->d, e->p, it_coord, true);
        }
        for (int k = 0; k < pl->n_inputs; k++) {
            if (e->in_own[k] && it >= e->in_d[k]->total_iterations)
                continue; /* past its loop's end */
            ls_iteration_coord(e->in_d[k], e->in_p[k], it, it_coord);
            e->it_half[it * pl->n_inputs + k] =
                ls_tile_offset_half(e->in_d[k], e->in_p[k], e->in_strides[k], it_coord, true);
        }
    }
}
