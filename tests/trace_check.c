/* trace_check.c: checks a Chrome trace (JSON Trace Event Format) the way
 * Perfetto's JSON importer reads it, for tests/cli.sh.  No trace processor
 * is packaged where this project builds, so the rules are written out here:
 *
 *  - the file is an object with a "traceEvents" array (and, optionally,
 *    "displayTimeUnit" "ns" or "ms"); nothing else at the top;
 *  - every event has a one-letter "ph" this tool knows (X, M, C), a string
 *    "name" and an integer "pid"; X events an integer "tid", a "ts" and a
 *    "dur" >= 0; C events a "ts" and numeric, finite args;
 *  - metadata (M) names processes and threads: process_name and
 *    thread_name with a string args.name, *_sort_index with an integer
 *    args.sort_index; each at most once per pid or pid/tid;
 *  - every pid that holds an event and every pid/tid that holds a slice is
 *    named (Perfetto otherwise shows bare numbers);
 *  - times are converted as Perfetto converts them (llround(us * 1000),
 *    json_utils.h CoerceToTs), and on each track, in file order, start
 *    times never decrease and slices nest strictly: a slice ends at or
 *    before the end of every slice still open around it (no partial
 *    overlap, which Perfetto draws wrongly); a counter's samples never go
 *    back in time.
 *
 * Usage: trace_check FILE [--slices N] [--threads N] [--processes N]
 *                         [--counters N] [--name-prefix PID TEXT]
 * prints "processes P threads T slices S counters C samples K" and exits 0
 * when every rule holds and every expectation given matches, 1 otherwise
 * (the first broken rule on standard error, with the event's index). */
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t pid, tid;
    bool named, has_slice;
    int64_t last_ts;
    int depth;
    int64_t ends[64]; /* ends of the slices still open, innermost last */
    int64_t slices;
} track;

typedef struct {
    int64_t pid;
    bool named, has_event;
    char name[128];
} process;

typedef struct {
    int64_t pid;
    char name[128];
    int64_t last_ts;
} counter;

static track *tracks;
static size_t n_tracks, cap_tracks;
static process *procs;
static size_t n_procs, cap_procs;
static counter *counters;
static size_t n_counters, cap_counters;
static int64_t n_samples, n_slices;

static int fail(size_t i, const char *what, const char *detail)
{
    fprintf(stderr, "trace_check: event %zu: %s%s%s\n", i, what, detail ? ": " : "",
            detail ? detail : "");
    return 1;
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 64;
    v = realloc(v, *cap * size);
    if (v == NULL) {
        fprintf(stderr, "trace_check: out of memory\n");
        exit(2);
    }
    return v;
}

static track *find_track(int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < n_tracks; i++)
        if (tracks[i].pid == pid && tracks[i].tid == tid)
            return &tracks[i];
    tracks = grow(tracks, &cap_tracks, n_tracks, sizeof *tracks);
    track *t = &tracks[n_tracks++];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->tid = tid;
    t->last_ts = INT64_MIN;
    return t;
}

static process *find_process(int64_t pid)
{
    for (size_t i = 0; i < n_procs; i++)
        if (procs[i].pid == pid)
            return &procs[i];
    procs = grow(procs, &cap_procs, n_procs, sizeof *procs);
    process *p = &procs[n_procs++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    return p;
}

static counter *find_counter(int64_t pid, const char *name)
{
    for (size_t i = 0; i < n_counters; i++)
        if (counters[i].pid == pid && strcmp(counters[i].name, name) == 0)
            return &counters[i];
    counters = grow(counters, &cap_counters, n_counters, sizeof *counters);
    counter *c = &counters[n_counters++];
    memset(c, 0, sizeof *c);
    c->pid = pid;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->last_ts = INT64_MIN;
    return c;
}

static bool get_int(json_object *e, const char *key, int64_t *out)
{
    json_object *v;
    if (!json_object_object_get_ex(e, key, &v) || !json_object_is_type(v, json_type_int))
        return false;
    *out = json_object_get_int64(v);
    return true;
}

/* A time in microseconds, as Perfetto reads it, in nanoseconds. */
static bool get_ns(json_object *e, const char *key, int64_t *out)
{
    json_object *v;
    if (!json_object_object_get_ex(e, key, &v))
        return false;
    if (json_object_is_type(v, json_type_int)) {
        *out = json_object_get_int64(v) * 1000;
        return true;
    }
    if (!json_object_is_type(v, json_type_double))
        return false;
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return false;
    *out = llround(d * 1000.0);
    return true;
}

static int check_metadata(size_t i, json_object *e, const char *name, int64_t pid)
{
    json_object *args, *v;
    if (!json_object_object_get_ex(e, "args", &args) || !json_object_is_type(args, json_type_object))
        return fail(i, "metadata without args", name);
    bool thread = strncmp(name, "thread_", 7) == 0;
    int64_t tid = 0;
    if (thread && !get_int(e, "tid", &tid))
        return fail(i, "thread metadata without an integer tid", name);
    if (strcmp(name, "process_name") == 0 || strcmp(name, "thread_name") == 0) {
        if (!json_object_object_get_ex(args, "name", &v) || !json_object_is_type(v, json_type_string) ||
            json_object_get_string_len(v) == 0)
            return fail(i, "a name event needs a non-empty string args.name", name);
        if (thread) {
            track *t = find_track(pid, tid);
            if (t->named)
                return fail(i, "thread named twice", json_object_get_string(v));
            t->named = true;
        } else {
            process *p = find_process(pid);
            if (p->named)
                return fail(i, "process named twice", json_object_get_string(v));
            p->named = true;
            snprintf(p->name, sizeof p->name, "%s", json_object_get_string(v));
        }
        return 0;
    }
    if (strcmp(name, "process_sort_index") == 0 || strcmp(name, "thread_sort_index") == 0) {
        if (!json_object_object_get_ex(args, "sort_index", &v) || !json_object_is_type(v, json_type_int))
            return fail(i, "a sort index event needs an integer args.sort_index", name);
        return 0;
    }
    return fail(i, "unknown metadata event", name);
}

static int check_slice(size_t i, json_object *e, int64_t pid)
{
    int64_t tid, ts, dur;
    if (!get_int(e, "tid", &tid))
        return fail(i, "a slice needs an integer tid", NULL);
    if (!get_ns(e, "ts", &ts) || ts < 0)
        return fail(i, "a slice needs a time ts >= 0", NULL);
    if (!get_ns(e, "dur", &dur) || dur < 0)
        return fail(i, "a complete (X) slice needs a duration dur >= 0", NULL);
    track *t = find_track(pid, tid);
    find_process(pid)->has_event = true;
    t->has_slice = true;
    if (ts < t->last_ts) {
        char d[96];
        snprintf(d, sizeof d, "pid %lld tid %lld: %lld ns after %lld ns", (long long)pid,
                 (long long)tid, (long long)ts, (long long)t->last_ts);
        return fail(i, "start time goes back on its track", d);
    }
    t->last_ts = ts;
    while (t->depth > 0 && t->ends[t->depth - 1] <= ts)
        t->depth--;
    if (t->depth > 0 && ts + dur > t->ends[t->depth - 1]) {
        char d[128];
        snprintf(d, sizeof d, "pid %lld tid %lld: [%lld, %lld] ns crosses the end %lld of the slice around it",
                 (long long)pid, (long long)tid, (long long)ts, (long long)(ts + dur),
                 (long long)t->ends[t->depth - 1]);
        return fail(i, "slices overlap without nesting", d);
    }
    if (t->depth == 64)
        return fail(i, "slices nested deeper than 64", NULL);
    t->ends[t->depth++] = ts + dur;
    t->slices++;
    n_slices++;
    return 0;
}

static int check_counter(size_t i, json_object *e, const char *name, int64_t pid)
{
    int64_t ts;
    json_object *args;
    if (!get_ns(e, "ts", &ts) || ts < 0)
        return fail(i, "a counter sample needs a time ts >= 0", name);
    if (!json_object_object_get_ex(e, "args", &args) || !json_object_is_type(args, json_type_object) ||
        json_object_object_length(args) == 0)
        return fail(i, "a counter sample needs args with its values", name);
    json_object_object_foreach(args, key, v)
    {
        if (!json_object_is_type(v, json_type_int) &&
            !(json_object_is_type(v, json_type_double) && isfinite(json_object_get_double(v))))
            return fail(i, "a counter value must be a finite number", key);
    }
    counter *c = find_counter(pid, name);
    if (ts < c->last_ts)
        return fail(i, "counter sample goes back in time", name);
    c->last_ts = ts;
    find_process(pid)->has_event = true;
    n_samples++;
    return 0;
}

static int check_event(size_t i, json_object *e)
{
    json_object *v;
    if (!json_object_is_type(e, json_type_object))
        return fail(i, "not an object", NULL);
    json_object_object_foreach(e, key, val)
    {
        (void)val;
        static const char *known[] = {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args", "id"};
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            ok = ok || strcmp(key, known[k]) == 0;
        if (!ok)
            return fail(i, "unknown key", key);
    }
    if (!json_object_object_get_ex(e, "ph", &v) || !json_object_is_type(v, json_type_string) ||
        json_object_get_string_len(v) != 1)
        return fail(i, "ph must be a one-letter string", NULL);
    char ph = json_object_get_string(v)[0];
    if (!json_object_object_get_ex(e, "name", &v) || !json_object_is_type(v, json_type_string))
        return fail(i, "name must be a string", NULL);
    const char *name = json_object_get_string(v);
    int64_t pid;
    if (!get_int(e, "pid", &pid))
        return fail(i, "pid must be an integer", NULL);
    switch (ph) {
    case 'M':
        return check_metadata(i, e, name, pid);
    case 'X':
        return check_slice(i, e, pid);
    case 'C':
        return check_counter(i, e, name, pid);
    default: {
        char d[2] = {ph, 0};
        return fail(i, "a phase this trace should not hold", d);
    }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: trace_check FILE [--slices N] [--threads N] [--processes N] "
                        "[--counters N] [--name-prefix PID TEXT]\n");
        return 2;
    }
    json_object *root = json_object_from_file(argv[1]);
    if (root == NULL || !json_object_is_type(root, json_type_object)) {
        fprintf(stderr, "trace_check: %s: not a JSON object (%s)\n", argv[1],
                json_util_get_last_err());
        return 1;
    }
    int bad = 0;
    json_object *events = NULL;
    json_object_object_foreach(root, key, val)
    {
        if (strcmp(key, "traceEvents") == 0 && json_object_is_type(val, json_type_array))
            events = val;
        else if (strcmp(key, "displayTimeUnit") == 0 && json_object_is_type(val, json_type_string) &&
                 (strcmp(json_object_get_string(val), "ns") == 0 ||
                  strcmp(json_object_get_string(val), "ms") == 0))
            continue;
        else if (strcmp(key, "traceEvents") != 0) {
            fprintf(stderr, "trace_check: top-level key '%s' is not one of the format's\n", key);
            bad = 1;
        }
    }
    if (events == NULL) {
        fprintf(stderr, "trace_check: no traceEvents array\n");
        bad = 1;
    }
    for (size_t i = 0; !bad && events && i < json_object_array_length(events); i++)
        bad = check_event(i, json_object_array_get_idx(events, i));
    for (size_t i = 0; !bad && i < n_tracks; i++)
        if (tracks[i].has_slice && !tracks[i].named) {
            fprintf(stderr, "trace_check: pid %lld tid %lld holds slices but has no thread_name\n",
                    (long long)tracks[i].pid, (long long)tracks[i].tid);
            bad = 1;
        }
    for (size_t i = 0; !bad && i < n_procs; i++)
        if (procs[i].has_event && !procs[i].named) {
            fprintf(stderr, "trace_check: pid %lld holds events but has no process_name\n",
                    (long long)procs[i].pid);
            bad = 1;
        }
    size_t n_threads = 0;
    for (size_t i = 0; i < n_tracks; i++)
        n_threads += tracks[i].has_slice;
    if (!bad)
        printf("processes %zu threads %zu slices %lld counters %zu samples %lld\n", n_procs, n_threads,
               (long long)n_slices, n_counters, (long long)n_samples);
    for (int a = 2; !bad && a < argc; a++) {
        long long want = a + 1 < argc ? atoll(argv[a + 1]) : -1, have = -1;
        if (strcmp(argv[a], "--name-prefix") == 0 && a + 2 < argc) {
            process *p = find_process(atoll(argv[a + 1]));
            if (strncmp(p->name, argv[a + 2], strlen(argv[a + 2])) != 0) {
                fprintf(stderr, "trace_check: pid %s is named '%s', not '%s...'\n", argv[a + 1],
                        p->name, argv[a + 2]);
                bad = 1;
            }
            a += 2;
            continue;
        }
        if (strcmp(argv[a], "--slices") == 0)
            have = n_slices;
        else if (strcmp(argv[a], "--threads") == 0)
            have = (long long)n_threads;
        else if (strcmp(argv[a], "--processes") == 0)
            have = (long long)n_procs;
        else if (strcmp(argv[a], "--counters") == 0)
            have = (long long)n_counters;
        else {
            fprintf(stderr, "trace_check: unknown option %s\n", argv[a]);
            return 2;
        }
        if (have != want) {
            fprintf(stderr, "trace_check: %s: expected %lld, found %lld\n", argv[a], want, have);
            bad = 1;
        }
        a++;
    }
    json_object_put(root);
    free(tracks);
    free(procs);
    free(counters);
    return bad;
}
