/* engine_queue.h: the engine's event queue (engine.c's only): a timing
 * wheel of per-cycle FIFO buckets that link subgroup slots, an overflow
 * heap for events past the wheel, and the prefetch of what the next
 * events' steps will read.  A header, so that the event loop can inline
 * what every event passes through. */
#ifndef LANESCOPE_ENGINE_QUEUE_H
#define LANESCOPE_ENGINE_QUEUE_H

#include "engine_internal.h"

/* ------------------------------------------------------------- events
 *
 * A timing wheel of LS_WHEEL buckets (one per cycle, FIFO lists) holds the
 * events of the next LS_WHEEL cycles; later ones wait in a binary heap.
 * Order is (cycle, sequence): sequence numbers grow with push order, so a
 * FIFO bucket is already in sequence order, provided an overflow event
 * enters its bucket before any direct push to that cycle -- which holds
 * because overflow events migrate as soon as the wheel's window reaches
 * them (advance_to), and a direct push to cycle c only happens once c is
 * inside the window.  Push and pop are O(1) amortised.
 *
 * A subgroup slot has at most one event pending (step pushes its next
 * wake or nothing; a barrier's release and a dispatch push the subgroups
 * of one workgroup, none of which has one), so a bucket's list links the
 * slots themselves (next_slot) and every bucket holds one cycle's events:
 * the wheel stores no cycles, and allocates nothing while it runs.  (A
 * ring list, holding only the last slot, halves the wheel but makes pop
 * two dependent loads: measured 1.2x slower on Example 1.) */

enum { LS_WHEEL = 1 << 15 };

static inline void bucket_append(engine *e, int64_t cycle, int32_t slot)
{
    bucket *bk = &e->wheel[cycle & (LS_WHEEL - 1)]; /* the tail's next_slot is stale */
    if (bk->tail < 0)
        bk->head = slot;
    else
        e->next_slot[bk->tail] = slot;
    bk->tail = slot;
    e->in_wheel++;
}

static void heap_push(engine *e, event ev)
{
    if (e->nheap == e->capheap) {
        e->capheap = e->capheap ? e->capheap * 2 : 1024;
        e->heap = ls_xrealloc(e->heap, (size_t)e->capheap * sizeof *e->heap);
    }
    int i = e->nheap++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        event *pe = &e->heap[parent];
        if (pe->cycle < ev.cycle || (pe->cycle == ev.cycle && pe->seq < ev.seq))
            break;
        e->heap[i] = *pe;
        i = parent;
    }
    e->heap[i] = ev;
}

static event heap_pop(engine *e)
{
    event top = e->heap[0];
    event last = e->heap[--e->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->nheap)
            break;
        if (c + 1 < e->nheap &&
            (e->heap[c + 1].cycle < e->heap[c].cycle ||
             (e->heap[c + 1].cycle == e->heap[c].cycle && e->heap[c + 1].seq < e->heap[c].seq)))
            c++;
        if (last.cycle < e->heap[c].cycle ||
            (last.cycle == e->heap[c].cycle && last.seq < e->heap[c].seq))
            break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    e->heap[i] = last;
    return top;
}

static inline void push(engine *e, int64_t cycle, int slot)
{
    if (__builtin_expect(cycle < e->wheel_end, 1)) /* wheel_end <= LS_MAX_SIM_CYCLES + 1 */
        bucket_append(e, cycle, slot);
    else if (cycle > LS_MAX_SIM_CYCLES) /* the run stops: see LS_MAX_SIM_CYCLES */
        e->clock_over = true;
    else /* only the heap needs sequence numbers: a bucket is FIFO */
        heap_push(e, (event){cycle, e->seq++, slot});
}

/* Take in the overflow events inside the wheel's window from cycle t. */
static void take_overflow(engine *e, int64_t t)
{
    while (e->nheap > 0 && e->heap[0].cycle < t + LS_WHEEL) {
        event ev = heap_pop(e);
        bucket_append(e, ev.cycle, ev.slot);
    }
}

/* Move the wheel to cycle t, taking in overflow events that are now
 * inside (once a cycle: the common case is inline). */
static inline void advance_to(engine *e, int64_t t)
{
    e->now = t;
    e->wheel_end = t + LS_WHEEL <= LS_MAX_SIM_CYCLES ? t + LS_WHEEL : LS_MAX_SIM_CYCLES + 1;
    if (e->nheap > 0 && e->heap[0].cycle < t + LS_WHEEL)
        take_overflow(e, t);
}

/* Ask the host for what the next events' steps will read: the state of
 * the subgroup two events ahead, and the operands' ready cycles of the
 * one next (whose state the previous pop asked for).  The queue knows the
 * order of the coming steps, and a step's cost is mostly these misses. */
static inline void prefetch_next(const engine *e, int32_t next, int32_t tail)
{
    const sgstate *g = &e->sgs[next];
    const hinst *in = g->hp;
    const int64_t *sb = g->sb;
    __builtin_prefetch(&sb[in->rd[0]]);
    __builtin_prefetch(&sb[in->rd[1]]);
    __builtin_prefetch(&sb[in->wr], 1);
    if (next != tail)
        __builtin_prefetch(&e->sgs[e->next_slot[next]]);
}

/* The slot of the next event, at cycle e->now; -1 when none is left. */
static int32_t pop(engine *e)
{
    for (;;) {
        bucket *bk = &e->wheel[e->now & (LS_WHEEL - 1)];
        int32_t n = bk->head;
        if (n >= 0) {
            if (n == bk->tail) { /* its last: next_slot[n] is stale */
                bk->head = bk->tail = -1;
            } else {
                bk->head = e->next_slot[n];
                prefetch_next(e, bk->head, bk->tail);
            }
            e->in_wheel--;
            return n;
        }
        if (e->in_wheel > 0)
            advance_to(e, e->now + 1);
        else if (e->nheap > 0)
            advance_to(e, e->heap[0].cycle); /* jump over idle time */
        else
            return -1;
    }
}

#endif
