/* cli_trace.c: sim --trace's Chrome trace (see cli_trace.h).
 *
 * Times are whole nanoseconds written as microseconds with three decimals,
 * so the llround(us * 1000) by which Perfetto's JSON importer reads them
 * (src/trace_processor/importers/json/json_utils.h, CoerceToTs) gives back
 * exactly the nanoseconds computed here, and nesting that holds in cycles
 * holds in the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_trace.h"
#include "lanescope/atomic.h"

/* The counter process of a reduction: after any WGP's pid. */
#define COUNTER_PID 99999
/* Stage slices that overlap a sibling without nesting go to a second
 * track of the same slot and subgroup, this far up in tid. */
#define OVERLAP_TID (1 << 20)

void ls_trace_counters_reset(ls_trace_counters *c)
{
    memset(c, 0, sizeof *c);
    c->width = 16;
}

void ls_trace_counters_record(void *ctx, const ls_engine_record *r)
{
    ls_trace_counters *c = ctx;
    if (r->kind != LS_REC_ISSUE || (r->sectors == 0 && r->dram_bytes == 0))
        return;
    /* the traffic lands when its data does */
    int64_t at = r->ready > r->cycle ? r->ready : r->cycle;
    while (at / c->width >= LS_TRACE_MAX_BINS) {
        /* twice as wide: pairs of bins merged */
        for (int64_t i = 0; i < LS_TRACE_MAX_BINS / 2; i++) {
            c->dram[i] = c->dram[2 * i] + c->dram[2 * i + 1];
            c->sectors[i] = c->sectors[2 * i] + c->sectors[2 * i + 1];
            c->hits[i] = c->hits[2 * i] + c->hits[2 * i + 1];
        }
        size_t half = sizeof c->dram / 2;
        memset((char *)c->dram + half, 0, half);
        memset((char *)c->sectors + half, 0, half);
        memset((char *)c->hits + half, 0, half);
        c->width *= 2;
        c->n = (c->n + 1) / 2;
    }
    int64_t b = at / c->width;
    c->dram[b] += r->dram_bytes;
    c->sectors[b] += r->sectors;
    c->hits[b] += r->sector_hits;
    if (b + 1 > c->n)
        c->n = b + 1;
}

void ls_trace_writer_begin(ls_trace_writer *w, FILE *f, int n_reductions)
{
    w->f = f;
    w->first = true;
    w->n_reductions = n_reductions;
    fputs("{\"traceEvents\":[", f);
}

void ls_trace_writer_end(ls_trace_writer *w)
{
    fputs("\n],\"displayTimeUnit\":\"ns\"}\n", w->f);
}

/* A JSON string (names come from the IR: quotes and controls escaped). */
static void json_str(FILE *f, const char *v)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

/* cycle <= 2^40 (the engine clock's limit) x 1000: llround in range */
static int64_t ns_of(const ls_hw *hw, int64_t cycle)
{
    return llround((double)cycle * 1000.0 / hw->clock_mhz);
}

/* ",\n" between events; a time as microseconds with three decimals. */
static void open_event(ls_trace_writer *w)
{
    fputs(w->first ? "\n" : ",\n", w->f);
    w->first = false;
}

static void put_us(FILE *f, const char *key, int64_t ns)
{
    fprintf(f, ",\"%s\":%lld.%03lld", key, (long long)(ns / 1000), (long long)(ns % 1000));
}

static void meta(ls_trace_writer *w, const char *what, int pid, int64_t tid, const char *name,
                 int64_t sort)
{
    bool thread = strncmp(what, "thread", 6) == 0;
    open_event(w);
    fprintf(w->f, "{\"name\":\"%s_name\",\"ph\":\"M\",\"pid\":%d", what, pid);
    if (thread)
        fprintf(w->f, ",\"tid\":%lld", (long long)tid);
    fputs(",\"args\":{\"name\":", w->f);
    json_str(w->f, name);
    fputs("}}", w->f);
    open_event(w);
    fprintf(w->f, "{\"name\":\"%s_sort_index\",\"ph\":\"M\",\"pid\":%d", what, pid);
    if (thread)
        fprintf(w->f, ",\"tid\":%lld", (long long)tid);
    fprintf(w->f, ",\"args\":{\"sort_index\":%lld}}", (long long)sort);
}

static void slice(ls_trace_writer *w, const ls_hw *hw, const char *name, const char *cat, int pid,
                  int64_t tid, int64_t start, int64_t end, const ls_trace_slice *s, bool stage)
{
    int64_t t0 = ns_of(hw, start), t1 = ns_of(hw, end);
    open_event(w);
    fputs("{\"name\":", w->f);
    json_str(w->f, name);
    fputs(",\"cat\":", w->f);
    json_str(w->f, cat);
    fputs(",\"ph\":\"X\"", w->f);
    put_us(w->f, "ts", t0);
    put_us(w->f, "dur", t1 - t0);
    fprintf(w->f, ",\"pid\":%d,\"tid\":%lld,\"args\":{\"workgroup\":%lld,\"subgroup\":%d", pid,
            (long long)tid, (long long)s->workgroup, s->subgroup);
    if (stage)
        fprintf(w->f, ",\"start_cycle\":%lld,\"end_cycle\":%lld", (long long)start, (long long)end);
    fputs("}}", w->f);
}

static int by_track(const void *a, const void *b)
{
    const ls_trace_slice *x = a, *y = b;
    if (x->wgp != y->wgp)
        return x->wgp < y->wgp ? -1 : 1;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer first: it holds the shorter */
    return x->stage - y->stage;
}

typedef struct {
    int64_t cycle;
    int delta;
} change;

static int by_cycle(const void *a, const void *b)
{
    const change *x = a, *y = b;
    if (x->cycle != y->cycle)
        return x->cycle < y->cycle ? -1 : 1;
    return x->delta - y->delta; /* departures first */
}

static int by_workgroup(const void *a, const void *b)
{
    const ls_trace_slice *x = a, *y = b;
    return x->workgroup < y->workgroup ? -1 : x->workgroup > y->workgroup;
}

static void counter(ls_trace_writer *w, int pid, const char *name, const char *key, int64_t ns,
                    double v)
{
    open_event(w);
    fprintf(w->f, "{\"name\":\"%s\",\"ph\":\"C\"", name);
    put_us(w->f, "ts", ns);
    fprintf(w->f, ",\"pid\":%d,\"args\":{\"%s\":%.6g}}", pid, key, v);
}

/* Resident workgroups: each from its first stage's start to its last's
 * end, a sample at every change. */
static void resident(ls_trace_writer *w, const ls_hw *hw, int pid, ls_trace *tr)
{
    ls_trace_slice *s = ls_xmalloc((tr->n ? tr->n : 1) * sizeof *s);
    memcpy(s, tr->slices, tr->n * sizeof *s);
    qsort(s, tr->n, sizeof *s, by_workgroup);
    change *ch = ls_xmalloc((2 * tr->n + 1) * sizeof *ch);
    size_t nc = 0;
    for (size_t i = 0; i < tr->n;) {
        int64_t lo = s[i].start, hi = s[i].end;
        size_t j = i;
        for (; j < tr->n && s[j].workgroup == s[i].workgroup; j++) {
            lo = s[j].start < lo ? s[j].start : lo;
            hi = s[j].end > hi ? s[j].end : hi;
        }
        ch[nc++] = (change){lo, 1};
        ch[nc++] = (change){hi, -1};
        i = j;
    }
    qsort(ch, nc, sizeof *ch, by_cycle);
    int64_t count = 0;
    for (size_t i = 0; i < nc;) {
        size_t j = i;
        for (; j < nc && ch[j].cycle == ch[i].cycle; j++)
            count += ch[j].delta;
        counter(w, pid, "resident workgroups", "workgroups", ns_of(hw, ch[i].cycle), (double)count);
        i = j;
    }
    free(ch);
    free(s);
}

static void traffic(ls_trace_writer *w, const ls_hw *hw, int pid, const ls_trace_counters *c)
{
    double bin_ns = (double)c->width * 1000.0 / hw->clock_mhz;
    for (int64_t i = 0; i < c->n; i++) {
        int64_t at = ns_of(hw, i * c->width);
        /* bytes per nanosecond are GB/s */
        counter(w, pid, "DRAM bandwidth", "GB/s", at, (double)c->dram[i] / bin_ns);
        if (c->sectors[i] > 0)
            counter(w, pid, "L2 hit rate", "%", at, 100.0 * (double)c->hits[i] / (double)c->sectors[i]);
    }
    if (c->n > 0)
        counter(w, pid, "DRAM bandwidth", "GB/s", ns_of(hw, c->n * c->width), 0);
}

/* One track's slices (sorted by start): a workgroup slice around each
 * workgroup's stages; a stage that overlaps its sibling without nesting
 * goes to the slot's overlap track. *overlaps counts them. */
static void track_slices(ls_trace_writer *w, const ls_problem *p, const ls_hw *hw, int pid,
                         const ls_trace_slice *s, size_t n, size_t *overlaps)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t lo = s[i].start, hi = s[i].end;
        for (; j < n && s[j].workgroup == s[i].workgroup; j++)
            hi = s[j].end > hi ? s[j].end : hi;
        char name[64];
        snprintf(name, sizeof name, "workgroup %lld", (long long)s[i].workgroup);
        slice(w, hw, name, p->name, pid, s[i].track, lo, hi, &s[i], false);
        int64_t last_end = lo;
        for (size_t k = i; k < j; k++) {
            bool nests = s[k].start >= last_end || s[k].end <= last_end;
            int64_t tid = s[k].track + (nests ? 0 : OVERLAP_TID);
            if (!nests)
                (*overlaps)++;
            else if (s[k].end > last_end)
                last_end = s[k].end;
            slice(w, hw, ls_stage_name((ls_stage)s[k].stage), p->name, pid, tid, s[k].start,
                  s[k].end, &s[k], true);
        }
        i = j;
    }
}

void ls_trace_writer_add(ls_trace_writer *w, const ls_problem *p, const ls_hw *hw, ls_trace *tr,
                         const ls_trace_counters *c, int reduction)
{
    qsort(tr->slices, tr->n, sizeof *tr->slices, by_track);
    int nsub = 1;
    for (size_t i = 0; i < tr->n; i++)
        if (tr->slices[i].subgroup + 1 > nsub)
            nsub = tr->slices[i].subgroup + 1;
    char suffix[96] = "";
    if (w->n_reductions > 1)
        snprintf(suffix, sizeof suffix, " (reduction %d)", reduction + 1);
    int base = reduction * 100000;
    char name[256];
    size_t overlaps = 0;
    for (size_t i = 0; i < tr->n;) {
        const ls_trace_slice *s = &tr->slices[i];
        int pid = base + s->wgp;
        if (i == 0 || tr->slices[i - 1].wgp != s->wgp) {
            snprintf(name, sizeof name, "%s WGP %d%s", hw->name, s->wgp, suffix);
            meta(w, "process", pid, 0, name, s->wgp);
        }
        size_t j = i;
        while (j < tr->n && tr->slices[j].wgp == s->wgp && tr->slices[j].track == s->track)
            j++;
        snprintf(name, sizeof name, "slot %d, subgroup %d", (s->track - s->subgroup) / nsub,
                 s->subgroup);
        meta(w, "thread", pid, s->track, name, s->track);
        size_t before = overlaps;
        track_slices(w, p, hw, pid, s, j - i, &overlaps);
        if (overlaps > before) {
            snprintf(name, sizeof name, "slot %d, subgroup %d: overlapping stages",
                     (s->track - s->subgroup) / nsub, s->subgroup);
            meta(w, "thread", pid, s->track + OVERLAP_TID, name, s->track + OVERLAP_TID);
        }
        i = j;
    }
    if (tr->n > 0 || (c && c->n > 0)) {
        int pid = base + COUNTER_PID;
        snprintf(name, sizeof name, "%s counters%s", hw->name, suffix);
        meta(w, "process", pid, 0, name, COUNTER_PID);
        resident(w, hw, pid, tr);
        if (c)
            traffic(w, hw, pid, c);
    }
    tr->n = 0;
    tr->truncated = false;
}
