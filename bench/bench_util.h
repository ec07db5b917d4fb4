/* bench_util.h: the host clock, a sort order and the peak RSS, shared by
 * the benchmarks (bench.c, bench_view.c). */
#ifndef LANESCOPE_BENCH_UTIL_H
#define LANESCOPE_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline long peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

#endif
