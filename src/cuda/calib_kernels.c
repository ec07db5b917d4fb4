/* calib_kernels.c: the calibration microbenchmarks' CUDA C sources (see
 * calibrate.c for the method they share). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/calibrate.h"
#include "calib.h"

/* ---------------------------------------------------------------- kernels
 * Each source is the prelude plus one benchmark's kernels, and compiles on
 * its own.  Plain CUDA C (the stream kernel's template aside), no headers. */

#define PRELUDE                                                                                    \
    "typedef unsigned long long ls_u64;\n"                                                         \
    "\n"                                                                                           \
    "/* The SM cycle counter; volatile so the compiler keeps it in program order\n"                \
    " * with the volatile asm of the timed operations. */\n"                                       \
    "__device__ __forceinline__ long long ls_clock(void)\n"                                        \
    "{\n"                                                                                          \
    "    long long c;\n"                                                                           \
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c)::\"memory\");\n"                      \
    "    return c;\n"                                                                              \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "/* Cycles two back-to-back clock reads are apart: subtracted from every\n"                    \
    " * timed interval. */\n"                                                                      \
    "__device__ __forceinline__ long long ls_clock_overhead(void)\n"                               \
    "{\n"                                                                                          \
    "    long long a = ls_clock();\n"                                                              \
    "    long long b = ls_clock();\n"                                                              \
    "    return b - a;\n"                                                                          \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "/* A branch on v makes the next clock read wait until v has arrived (a\n"                     \
    " * value never used otherwise would let the read run ahead of the chain). */\n"               \
    "__device__ __forceinline__ void ls_wait_u64(ls_u64 v, long long *out)\n"                      \
    "{\n"                                                                                          \
    "    if (v == 1ull)\n"                                                                         \
    "        out[0] = 0;\n"                                                                        \
    "}\n"

#define SRC_SPIN                                                                                   \
    "/* Every thread spins until `cycles` SM cycles have passed: the host times\n"                 \
    " * two lengths with events, and the slope is the SM clock while running. */\n"                \
    "extern \"C\" __global__ void ls_cal_spin(long long cycles, long long *out)\n"                 \
    "{\n"                                                                                          \
    "    long long t0 = ls_clock(), t;\n"                                                          \
    "    do {\n"                                                                                   \
    "        t = ls_clock();\n"                                                                    \
    "    } while (t - t0 < cycles);\n"                                                             \
    "    if (threadIdx.x == 0)\n"                                                                  \
    "        out[blockIdx.x] = t - t0;\n"                                                          \
    "}\n"

#define SRC_CHASE                                                                                  \
    "/* A bijection of [0, 2^bits): an add, odd multiplies and xor-shifts, each\n"                 \
    " * invertible modulo 2^bits, so chain nodes land on distinct slots in an\n"                   \
    " * order no prefetcher follows. */\n"                                                         \
    "__device__ __forceinline__ ls_u64 ls_perm(ls_u64 x, unsigned bits)\n"                         \
    "{\n"                                                                                          \
    "    ls_u64 mask = (1ull << bits) - 1;\n"                                                      \
    "    unsigned sh = bits / 2 + 1;\n"                                                            \
    "    x = (x + 0x2545F4914F6CDD1Dull) & mask;\n"                                                \
    "    x = (x * 0x9E3779B97F4A7C15ull) & mask;\n"                                                \
    "    x ^= x >> sh;\n"                                                                          \
    "    x = (x * 0xBF58476D1CE4E5B9ull) & mask;\n"                                                \
    "    x ^= x >> sh;\n"                                                                          \
    "    return x;\n"                                                                              \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "/* Node i sits at the start of slot perm(i) and holds the address of node\n"                  \
    " * i + 1 (the last points back to the first): a cycle of `nodes` loads. */\n"                 \
    "extern \"C\" __global__ void ls_cal_chase_init(char *base, ls_u64 slot_bytes,\n"              \
    "                                             unsigned bits, unsigned nodes)\n"                \
    "{\n"                                                                                          \
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                    \
    "    if (i >= nodes)\n"                                                                        \
    "        return;\n"                                                                            \
    "    ls_u64 here = ls_perm(i, bits), next = ls_perm((i + 1) % nodes, bits);\n"                 \
    "    *(ls_u64 *)(base + here * slot_bytes) = (ls_u64)(base + next * slot_bytes);\n"            \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "/* One thread follows the chain: first one word tlb_offset bytes into every\n"                \
    " * tlb_stride bytes of the region (when tlb_stride is not 0) so page walks\n"                 \
    " * stay out of the timed loads without touching a chain line, then `warm`\n"                  \
    " * steps untimed (they fill the cache level the region is sized for), then\n"                 \
    " * `steps` (a multiple of 8) timed.  l1: ld.global.ca (cached in L1), else\n"                 \
    " * ld.global.cg (L2 and below).  Each load's address is the previous load's\n"                \
    " * value, so the loop runs at one load latency per step; its own counter\n"                   \
    " * work is independent of the chain and hides under it. */\n"                                 \
    "extern \"C\" __global__ void ls_cal_chase(const char *base, ls_u64 slot_bytes,\n"             \
    "                                        unsigned bits, int l1, unsigned warm,\n"              \
    "                                        unsigned steps, ls_u64 tlb_stride,\n"                 \
    "                                        ls_u64 tlb_offset, long long *out)\n"                 \
    "{\n"                                                                                          \
    "    ls_u64 p = (ls_u64)(base + ls_perm(0, bits) * slot_bytes);\n"                             \
    "    unsigned sink = 0;\n"                                                                     \
    "    if (tlb_stride) {\n"                                                                      \
    "        ls_u64 region = slot_bytes << bits;\n"                                                \
    "        for (ls_u64 o = tlb_offset; o < region; o += tlb_stride) {\n"                         \
    "            unsigned v;\n"                                                                    \
    "            asm volatile(\"ld.global.cg.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(base + o));\n"    \
    "            sink += v;\n"                                                                     \
    "        }\n"                                                                                  \
    "    }\n"                                                                                      \
    "    /* the region is zeroed, so never true; p now waits for the touches */\n"                 \
    "    if (sink == 0xFFFFFFFFu)\n"                                                               \
    "        p = 0;\n"                                                                             \
    "    for (unsigned i = 0; i < warm; i++) {\n"                                                  \
    "        if (l1)\n"                                                                            \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "        else\n"                                                                               \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "    }\n"                                                                                      \
    "    ls_wait_u64(p, out + 1);\n"                                                               \
    "    long long ovh = ls_clock_overhead();\n"                                                   \
    "    long long t0 = ls_clock();\n"                                                             \
    "    if (l1) {\n"                                                                              \
    "        for (unsigned i = 0; i < steps; i += 8) {\n"                                          \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.ca.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "        }\n"                                                                                  \
    "    } else {\n"                                                                               \
    "        for (unsigned i = 0; i < steps; i += 8) {\n"                                          \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "            asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                      \
    "        }\n"                                                                                  \
    "    }\n"                                                                                      \
    "    ls_wait_u64(p, out + 1);\n"                                                               \
    "    long long t1 = ls_clock();\n"                                                             \
    "    out[0] = t1 - t0 - ovh;\n"                                                                \
    "}\n"                                                                                         \
    "\n"                                                                                           \
    "/* The same chain, each load timed on its own: lat[i] = cycles of step i,\n"                  \
    " * the clock reads and the wait included (the caller subtracts what the\n"                    \
    " * averaged chase says they cost).  An L2 split in partitions shows two\n"                    \
    " * latencies: lines in the SM's own partition and lines in the other. */\n"                   \
    "extern \"C\" __global__ void ls_cal_chase_steps(const char *base, ls_u64 slot_bytes,\n"       \
    "                                              unsigned bits, unsigned warm,\n"                \
    "                                              unsigned steps, long long *lat)\n"              \
    "{\n"                                                                                          \
    "    ls_u64 p = (ls_u64)(base + ls_perm(0, bits) * slot_bytes);\n"                             \
    "    for (unsigned i = 0; i < warm; i++)\n"                                                    \
    "        asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                          \
    "    ls_wait_u64(p, lat);\n"                                                                   \
    "#pragma unroll 1\n"                                                                           \
    "    for (unsigned i = 0; i < steps; i++) {\n"                                                 \
    "        long long t0 = ls_clock();\n"                                                         \
    "        asm volatile(\"ld.global.cg.u64 %0, [%0];\" : \"+l\"(p));\n"                          \
    "        ls_wait_u64(p, lat);\n"                                                               \
    "        long long t1 = ls_clock();\n"                                                         \
    "        lat[i] = t1 - t0;\n"                                                                  \
    "    }\n"                                                                                      \
    "}\n"

#define SRC_SMEM                                                                                   \
    "/* One warp, for each conflict degree d = 1..32: lane i owns word\n"                          \
    " * (i % d) * 32 + i / d, so bank i / d holds d distinct words of the warp\n"                  \
    " * (the worst bank: degree d).  Each word holds its own shared address and\n"                 \
    " * every lane chases it: `steps` dependent warp-wide loads, each waiting for\n"               \
    " * all d wavefronts of the one before.  out[d - 1]: cycles net of the clock\n"                \
    " * read. */\n"                                                                                \
    "extern \"C\" __global__ void ls_cal_smem(unsigned steps, long long *out)\n"                   \
    "{\n"                                                                                          \
    "    __shared__ unsigned words[32 * 32];\n"                                                    \
    "    unsigned lane = threadIdx.x;\n"                                                           \
    "    long long ovh = ls_clock_overhead();\n"                                                   \
    "    for (unsigned d = 1; d <= 32; d++) {\n"                                                   \
    "        unsigned w = (lane % d) * 32 + lane / d;\n"                                           \
    "        unsigned p = (unsigned)__cvta_generic_to_shared(&words[w]);\n"                        \
    "        words[w] = p;\n"                                                                      \
    "        __syncwarp();\n"                                                                      \
    "        long long t0 = ls_clock();\n"                                                         \
    "        for (unsigned i = 0; i < steps; i += 8) {\n"                                          \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "            asm volatile(\"ld.shared.u32 %0, [%0];\" : \"+r\"(p));\n"                         \
    "        }\n"                                                                                  \
    "        ls_wait_u64(p, out + 32);\n"                                                          \
    "        long long t1 = ls_clock();\n"                                                         \
    "        if (lane == 0)\n"                                                                     \
    "            out[d - 1] = t1 - t0 - ovh;\n"                                                    \
    "        __syncwarp();\n"                                                                      \
    "    }\n"                                                                                      \
    "}\n"

#define SRC_DEP                                                                                    \
    "/* One warp: `steps` dependent FMAs (x = x * a + b), then `steps` dependent\n"                \
    " * butterfly shuffles (each lane's value comes back through the next XOR\n"                   \
    " * mask).  out[0]: FMA chain cycles, out[1]: shuffle chain cycles. */\n"                      \
    "extern \"C\" __global__ void ls_cal_dep(unsigned steps, float a, float b, long long *out)\n"  \
    "{\n"                                                                                          \
    "    long long ovh = ls_clock_overhead();\n"                                                   \
    "    float x = (float)threadIdx.x;\n"                                                          \
    "    long long t0 = ls_clock();\n"                                                             \
    "    for (unsigned i = 0; i < steps; i += 8) {\n"                                              \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "        asm volatile(\"fma.rn.f32 %0, %0, %1, %2;\" : \"+f\"(x) : \"f\"(a), \"f\"(b));\n"     \
    "    }\n"                                                                                      \
    "    ls_wait_u64((ls_u64)__float_as_uint(x), out + 2);\n"                                      \
    "    long long t1 = ls_clock();\n"                                                             \
    "    unsigned v = threadIdx.x;\n"                                                              \
    "    long long t2 = ls_clock();\n"                                                             \
    "    for (unsigned i = 0; i < steps; i += 8) {\n"                                              \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 2, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 4, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 8, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 2, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 4, 0x1f, 0xffffffff;\" : \"+r\"(v));\n"     \
    "    }\n"                                                                                      \
    "    ls_wait_u64(v, out + 2);\n"                                                               \
    "    long long t3 = ls_clock();\n"                                                             \
    "    if (threadIdx.x == 0) {\n"                                                                \
    "        out[0] = t1 - t0 - ovh;\n"                                                            \
    "        out[1] = t3 - t2 - ovh;\n"                                                            \
    "    }\n"                                                                                      \
    "}\n"

#define SRC_SHFL                                                                                   \
    "/* Every warp of the block runs 8 independent shuffle chains, `iters`\n"                      \
    " * shuffles each, so the SM's shuffle unit, not latency, sets the pace.\n"                    \
    " * out[block]: cycles from the first barrier to the last on this SM. */\n"                    \
    "extern \"C\" __global__ void ls_cal_shfl_tput(unsigned iters, long long *out)\n"              \
    "{\n"                                                                                          \
    "    unsigned v0 = threadIdx.x, v1 = v0 + 1, v2 = v0 + 2, v3 = v0 + 3;\n"                      \
    "    unsigned v4 = v0 + 4, v5 = v0 + 5, v6 = v0 + 6, v7 = v0 + 7;\n"                           \
    "    __syncthreads();\n"                                                                       \
    "    long long t0 = ls_clock();\n"                                                             \
    "    for (unsigned i = 0; i < iters; i++) {\n"                                                 \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;\" : \"+r\"(v0));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 2, 0x1f, 0xffffffff;\" : \"+r\"(v1));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 4, 0x1f, 0xffffffff;\" : \"+r\"(v2));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 8, 0x1f, 0xffffffff;\" : \"+r\"(v3));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffffff;\" : \"+r\"(v4));\n"   \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;\" : \"+r\"(v5));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 2, 0x1f, 0xffffffff;\" : \"+r\"(v6));\n"    \
    "        asm volatile(\"shfl.sync.bfly.b32 %0, %0, 4, 0x1f, 0xffffffff;\" : \"+r\"(v7));\n"    \
    "    }\n"                                                                                      \
    "    ls_wait_u64(v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7, out + gridDim.x);\n"                   \
    "    __syncthreads();\n"                                                                       \
    "    long long t1 = ls_clock();\n"                                                             \
    "    if (threadIdx.x == 0)\n"                                                                  \
    "        out[blockIdx.x] = t1 - t0;\n"                                                         \
    "}\n"

#define SRC_BARRIER                                                                                \
    "/* One block of the launch's warps: `iters` x 8 back-to-back __syncthreads.\n"                \
    " * out[0]: cycles net of the clock read, seen by thread 0. */\n"                              \
    "extern \"C\" __global__ void ls_cal_barrier(unsigned iters, long long *out)\n"                \
    "{\n"                                                                                          \
    "    long long ovh = ls_clock_overhead();\n"                                                   \
    "    __syncthreads();\n"                                                                       \
    "    long long t0 = ls_clock();\n"                                                             \
    "    for (unsigned i = 0; i < iters; i++) {\n"                                                 \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "        __syncthreads();\n"                                                                   \
    "    }\n"                                                                                      \
    "    long long t1 = ls_clock();\n"                                                             \
    "    if (threadIdx.x == 0)\n"                                                                  \
    "        out[0] = t1 - t0 - ovh;\n"                                                            \
    "}\n"

#define SRC_STREAM                                                                                 \
    "/* Streaming read: each thread keeps U independent 16-byte loads in flight\n"                 \
    " * (ld.global.cg: L2 and below), then folds them; iteration `it` of the\n"                    \
    " * grid reads U consecutive grid-wide rows, each row coalesced.  Bytes read:\n"               \
    " * passes x iters x U x 16 x threads.  The loop stays rolled, so exactly U\n"                \
    " * loads a thread are in flight (NVRTC would unroll it and keep more). */\n"                \
    "template <int U>\n"                                                                           \
    "__device__ __forceinline__ unsigned ls_stream(const char *buf, ls_u64 iters, int passes)\n"   \
    "{\n"                                                                                          \
    "    ls_u64 nthreads = (ls_u64)gridDim.x * blockDim.x;\n"                                      \
    "    ls_u64 tid = (ls_u64)blockIdx.x * blockDim.x + threadIdx.x;\n"                            \
    "    unsigned acc = 0;\n"                                                                      \
    "    for (int pass = 0; pass < passes; pass++) {\n"                                            \
    "#pragma unroll 1\n"                                                                          \
    "        for (ls_u64 it = 0; it < iters; it++) {\n"                                            \
    "            unsigned v[U][4];\n"                                                              \
    "#pragma unroll\n"                                                                             \
    "            for (int j = 0; j < U; j++) {\n"                                                  \
    "                const char *a = buf + ((it * U + j) * nthreads + tid) * 16;\n"                \
    "                asm volatile(\"ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\"\n"               \
    "                             : \"=r\"(v[j][0]), \"=r\"(v[j][1]),\n"                           \
    "                               \"=r\"(v[j][2]), \"=r\"(v[j][3])\n"                            \
    "                             : \"l\"(a));\n"                                                  \
    "            }\n"                                                                              \
    "#pragma unroll\n"                                                                             \
    "            for (int j = 0; j < U; j++)\n"                                                    \
    "                acc ^= v[j][0] ^ v[j][1] ^ v[j][2] ^ v[j][3];\n"                              \
    "        }\n"                                                                                  \
    "    }\n"                                                                                      \
    "    return acc;\n"                                                                            \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "/* One entry point per loads-in-flight count, so each gets only the\n"                        \
    " * registers it needs (a shared one would take the 8-load count's and lower\n"                \
    " * the occupancy of all).  The buffer holds equal words: acc is 0, never\n"                   \
    " * the magic value, and the store only keeps the loads' results alive. */\n"                  \
    "extern \"C\" __global__ void ls_cal_stream1(const char *buf, ls_u64 iters,\n"                 \
    "                                          int passes, unsigned *sink)\n"                      \
    "{\n"                                                                                          \
    "    unsigned acc = ls_stream<1>(buf, iters, passes);\n"                                       \
    "    if (acc == 0x9E3779B9u)\n"                                                                \
    "        sink[0] = acc;\n"                                                                     \
    "}\n"                                                                                          \
    "extern \"C\" __global__ void ls_cal_stream2(const char *buf, ls_u64 iters,\n"                 \
    "                                          int passes, unsigned *sink)\n"                      \
    "{\n"                                                                                          \
    "    unsigned acc = ls_stream<2>(buf, iters, passes);\n"                                       \
    "    if (acc == 0x9E3779B9u)\n"                                                                \
    "        sink[0] = acc;\n"                                                                     \
    "}\n"                                                                                          \
    "extern \"C\" __global__ void ls_cal_stream4(const char *buf, ls_u64 iters,\n"                 \
    "                                          int passes, unsigned *sink)\n"                      \
    "{\n"                                                                                          \
    "    unsigned acc = ls_stream<4>(buf, iters, passes);\n"                                       \
    "    if (acc == 0x9E3779B9u)\n"                                                                \
    "        sink[0] = acc;\n"                                                                     \
    "}\n"                                                                                          \
    "extern \"C\" __global__ void ls_cal_stream8(const char *buf, ls_u64 iters,\n"                 \
    "                                          int passes, unsigned *sink)\n"                      \
    "{\n"                                                                                          \
    "    unsigned acc = ls_stream<8>(buf, iters, passes);\n"                                       \
    "    if (acc == 0x9E3779B9u)\n"                                                                \
    "        sink[0] = acc;\n"                                                                     \
    "}\n"

#define SRC_EMPTY                                                                                  \
    "/* Launch overhead and block dispatch: a kernel that does nothing. */\n"                      \
    "extern \"C\" __global__ void ls_cal_empty(void) {}\n"


static const ls_calib_source sources[S_N] = {
    [S_CLOCK] = {"clock", "ls_cal_spin", PRELUDE SRC_SPIN},
    [S_CHASE] = {"chase", "ls_cal_chase_init ls_cal_chase ls_cal_chase_steps", PRELUDE SRC_CHASE},
    [S_SMEM] = {"smem_conflict", "ls_cal_smem", PRELUDE SRC_SMEM},
    [S_DEP] = {"dependent", "ls_cal_dep", PRELUDE SRC_DEP},
    [S_SHFL] = {"shuffle_throughput", "ls_cal_shfl_tput", PRELUDE SRC_SHFL},
    [S_BARRIER] = {"barrier", "ls_cal_barrier", PRELUDE SRC_BARRIER},
    [S_STREAM] = {"stream", "ls_cal_stream1 ls_cal_stream2 ls_cal_stream4 ls_cal_stream8",
                  PRELUDE SRC_STREAM},
    [S_EMPTY] = {"empty", "ls_cal_empty", PRELUDE SRC_EMPTY},
};

const ls_calib_source *ls_calib_sources(size_t *n)
{
    *n = S_N;
    return sources;
}

