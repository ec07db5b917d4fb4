/* emulate.c: run the generated CUDA C on the CPU (see measure.h).
 *
 * The kernel source is compiled unchanged by the host C++ compiler after a
 * prelude that gives CUDA's names a CPU meaning: every CUDA thread of a
 * block is a fiber (a ucontext with its own stack) on the calling thread,
 * __syncthreads is a barrier of the block, __shfl_xor_sync writes the
 * lane's 32 bits to its warp's exchange row, waits for the warp, reads
 * lane ^ offset, waits again; __shared__ is a static (blocks run one after
 * another, with a barrier between them).  A barrier yields to a round-robin
 * scheduler until its last thread arrives: switching fibers costs a small
 * fraction of what the kernel's scheduling of a POSIX thread a CUDA thread
 * cost (IREE's 12x128x40960 softmax test dispatch emulates in minutes, not
 * hours), and a barrier some thread never reaches is reported, not a hang.
 * The 16-bit float types convert with round-to-nearest-even, as the GPU
 * does.  This checks the generator's index math, combine order, butterflies
 * and buffer slots against the reference with no GPU; it says nothing
 * about time.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lanescope/arena.h"
#include "lanescope/atomic.h"
#include "lanescope/functional.h"
#include "lanescope/measure.h"

/* One string per line of the prelude, as the compiler sees it. */
/* clang-format off */
static const char prelude[] =
    "/* lanescope emulation prelude: CUDA names for the CPU */\n"
    "#include <cstdlib>\n"
    "#include <cstring>\n"
    "#include <math.h>\n"
    "#include <dlfcn.h>\n"
    "#include <sys/mman.h>\n"
    "#include <ucontext.h>\n"
    "#define __global__\n"
    "#define __device__\n"
    "#define __forceinline__ inline\n"
    "#define __launch_bounds__(n)\n"
    "#define __restrict__ __restrict\n"
    "#define __align__(n) alignas(n)\n"
    "#define __shared__ static\n"
    "struct ls_dim3 { unsigned x, y, z; };\n"
    "static ls_dim3 threadIdx, blockIdx; /* the running fiber's, set at every switch */\n"
    "struct ls_emu_bar { unsigned need, count, gen; };\n"
    "static ls_emu_bar ls_block_bar, ls_warp_bar[32];\n"
    "static unsigned ls_warp_row[32][32];\n"
    "static ucontext_t ls_emu_sched, *ls_emu_self;\n"
    "/* libc's own swapcontext where the process has one: a sanitizer's interceptor warns on\n"
    " * stderr, and these stacks, which only uninstrumented code runs on, need none of it */\n"
    "static int (*ls_emu_swap)(ucontext_t *, const ucontext_t *) = swapcontext;\n"
    "static unsigned long ls_emu_progress; /* arrivals: the scheduler's deadlock test */\n"
    "static void ls_emu_wait(ls_emu_bar *b)\n"
    "{\n"
    "    unsigned g = b->gen;\n"
    "    ls_emu_progress++;\n"
    "    if (++b->count == b->need) { b->count = 0; b->gen++; return; }\n"
    "    while (b->gen == g) ls_emu_swap(ls_emu_self, &ls_emu_sched);\n"
    "}\n"
    "static inline void __syncthreads() { ls_emu_wait(&ls_block_bar); }\n"
    "static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }\n"
    "static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }\n"
    "static inline unsigned ls_emu_shfl(unsigned v, int off)\n"
    "{\n"
    "    unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;\n"
    "    ls_warp_row[w][l] = v;\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    unsigned r = ls_warp_row[w][l ^ (unsigned)off];\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    return r;\n"
    "}\n"
    "static inline unsigned ls_emu_shfl_idx(unsigned v, int src)\n"
    "{\n"
    "    unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;\n"
    "    ls_warp_row[w][l] = v;\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    unsigned r = ls_warp_row[w][(unsigned)src % 32]; /* the lane, modulo the width */\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    return r;\n"
    "}\n"
    "static inline unsigned __ballot_sync(unsigned, int pred)\n"
    "{\n"
    "    unsigned w = threadIdx.x / 32, l = threadIdx.x % 32, m = 0;\n"
    "    ls_warp_row[w][l] = pred != 0;\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    for (unsigned k = 0; k < 32; k++) m |= ls_warp_row[w][k] << k;\n"
    "    ls_emu_wait(&ls_warp_bar[w]);\n"
    "    return m;\n"
    "}\n"
    "static inline int __ffs(int x) { return __builtin_ffs(x); }\n"
    "static inline unsigned __shfl_xor_sync(unsigned, unsigned v, int off) { return ls_emu_shfl(v, off); }\n"
    "static inline unsigned __shfl_sync(unsigned, unsigned v, int src) { return ls_emu_shfl_idx(v, src); }\n"
    "static inline float __shfl_sync(unsigned, float v, int src)\n"
    "{ return __uint_as_float(ls_emu_shfl_idx(__float_as_uint(v), src)); }\n"
    "static inline float __shfl_xor_sync(unsigned, float v, int off)\n"
    "{ return __uint_as_float(ls_emu_shfl(__float_as_uint(v), off)); }\n"
    "struct __half { unsigned short bits; };\n"
    "struct __nv_bfloat16 { unsigned short bits; };\n"
    "static inline unsigned short __half_as_ushort(__half h) { return h.bits; }\n"
    "static inline __half __ushort_as_half(unsigned short b) { __half h; h.bits = b; return h; }\n"
    "static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.bits; }\n"
    "static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { __nv_bfloat16 h; h.bits = b; return h; }\n"
    "static inline float __half2float(__half h) { _Float16 v; memcpy(&v, &h.bits, 2); return (float)v; }\n"
    "static inline __half __float2half_rn(float f) { _Float16 v = (_Float16)f; __half h; memcpy(&h.bits, &v, 2); return h; }\n"
    "static inline float __bfloat162float(__nv_bfloat16 h) { return __uint_as_float((unsigned)h.bits << 16); }\n"
    "static inline __nv_bfloat16 __float2bfloat16_rn(float f)\n"
    "{\n"
    "    unsigned u = __float_as_uint(f);\n"
    "    if ((u & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16((unsigned short)((u >> 16) | 0x40));\n"
    "    u += 0x7fffu + ((u >> 16) & 1u);\n"
    "    return __ushort_as_bfloat16((unsigned short)(u >> 16));\n"
    "}\n"
    "/* __hfma: x * y + c rounded once.  The product is exact in double; an inexact sum is\n"
    " * moved one double ulp towards the exact value (TwoSum's error), so that rounding it to\n"
    " * 16 bits rounds as the exact value would (sim/body.c's fma_in) */\n"
    "static inline double ls_emu_fma_d(double x, double y, double c)\n"
    "{\n"
    "    double p = x * y, s = p + c;\n"
    "    if (!isfinite(s)) return s;\n"
    "    double bp = s - p, err = (p - (s - bp)) + (c - bp);\n"
    "    return err == 0 ? s : nextafter(s, err > 0 ? INFINITY : -INFINITY);\n"
    "}\n"
    "static inline __half __hfma(__half a, __half b, __half c)\n"
    "{\n"
    "    _Float16 v = (_Float16)ls_emu_fma_d(__half2float(a), __half2float(b), __half2float(c));\n"
    "    __half h; memcpy(&h.bits, &v, 2); return h;\n"
    "}\n"
    "static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)\n"
    "{\n"
    "    double d = ls_emu_fma_d(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c));\n"
    "    float f = (float)d; /* to odd: the rounding to bf16 is then the single one */\n"
    "    if ((double)f != d && f == f) {\n"
    "        if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);\n"
    "        f = __uint_as_float(__float_as_uint(f) | 1u);\n"
    "    }\n"
    "    return __float2bfloat16_rn(f);\n"
    "}\n"
    "/* correctly rounded float and double ops: the host's IEEE arithmetic (ISO C++ mode: no\n"
    " * contraction into FMA) */\n"
    "static inline float __fadd_rn(float a, float b) { return a + b; }\n"
    "static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }\n"
    "static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }\n"
    "static inline float __fsub_rn(float a, float b) { return a - b; }\n"
    "static inline float __fmul_rn(float a, float b) { return a * b; }\n"
    "static inline float __fdiv_rn(float a, float b) { return a / b; }\n"
    "static inline float __fsqrt_rn(float a) { return sqrtf(a); }\n"
    "static inline double __dadd_rn(double a, double b) { return a + b; }\n"
    "static inline double __dsub_rn(double a, double b) { return a - b; }\n"
    "static inline double __dmul_rn(double a, double b) { return a * b; }\n"
    "static inline double __ddiv_rn(double a, double b) { return a / b; }\n"
    "static inline double __dsqrt_rn(double a) { return sqrt(a); }\n"
    "static inline float __double2float_rn(double d) { return (float)d; }\n"
    "static inline int __float2int_rz(float x) /* cvt.rzi.s32.f32: saturated, NaN -> 0 */\n"
    "{ return x != x ? 0 : x >= 2147483648.0f ? 2147483647 : x <= -2147483648.0f ? -2147483647 - 1 : (int)x; }\n"
    "static inline float __double2float_rz(double d)\n"
    "{\n"
    "    float f = (float)d;\n"
    "    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);\n"
    "    return f;\n"
    "}\n"
    "static inline double __longlong_as_double(long long v) { double d; memcpy(&d, &v, 8); return d; }\n"
    "static inline long long __double_as_longlong(double d) { long long v; memcpy(&v, &d, 8); return v; }\n"
    "#line 1 \"kernel.cu\"\n";
/* clang-format on */

/* The launcher: one fiber per CUDA thread, each running the blocks one
 * after another, and a round-robin scheduler resuming every fiber that has
 * not finished; a pass in which no fiber arrives at a barrier or finishes
 * is a deadlock (returns -2).  call is the kernel's call, its arguments
 * t->in[k] and t->out[j]. */
static char *launcher(const char *call)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(
        f,
        "\n/* lanescope emulation launcher */\n"
        "struct ls_emu_thread { const void *const *in; void *const *out; };\n"
        "struct ls_emu_fiber { ucontext_t ctx; void *stack; unsigned block; bool done; };\n"
        "static ls_emu_fiber *ls_emu_fibers;\n"
        "static ls_emu_thread ls_emu_args;\n"
        "static unsigned ls_emu_grid, ls_emu_starting;\n"
        "static void ls_emu_body()\n"
        "{\n"
        "    ls_emu_fiber *me = &ls_emu_fibers[ls_emu_starting];\n"
        "    ls_emu_thread *t = &ls_emu_args;\n"
        "    for (unsigned b = 0; b < ls_emu_grid; b++) {\n"
        "        me->block = blockIdx.x = b;\n"
        "        %s;\n"
        "        __syncthreads(); /* the next block reuses __shared__ */\n"
        "    }\n"
        "    me->done = true; /* back to the scheduler through uc_link */\n"
        "}\n"
        "extern \"C\" int ls_emu_run(const void *const *in, void *const *out, unsigned grid, "
        "unsigned block)\n"
        "{\n"
        "    const size_t stack = (size_t)1 << 20; /* reserved; pages come as touched */\n"
        "    if (block == 0 || block > 1024) return -1;\n"
        "    if (void *libc = dlopen(\"libc.so.6\", RTLD_NOW | RTLD_NOLOAD)) {\n"
        "        if (void *fn = dlsym(libc, \"swapcontext\")) *(void **)&ls_emu_swap = fn;\n"
        "        dlclose(libc);\n"
        "    }\n"
        "    ls_emu_args = {in, out};\n"
        "    ls_emu_grid = grid;\n"
        "    ls_block_bar = {block, 0, 0};\n"
        "    for (unsigned w = 0; w < 32; w++)\n"
        "        ls_warp_bar[w] = {block - 32 * w < 32 ? block - 32 * w : 32, 0, 0};\n"
        "    ls_emu_fibers = new ls_emu_fiber[block]();\n"
        "    int rc = 0;\n"
        "    for (unsigned i = 0; i < block && rc == 0; i++) {\n"
        "        ls_emu_fiber *fb = &ls_emu_fibers[i];\n"
        "        fb->stack = mmap(nullptr, stack, PROT_READ | PROT_WRITE,\n"
        "                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);\n"
        "        if (fb->stack == MAP_FAILED || getcontext(&fb->ctx) != 0) { rc = -1; continue; }\n"
        "        fb->ctx.uc_stack.ss_sp = fb->stack;\n"
        "        fb->ctx.uc_stack.ss_size = stack;\n"
        "        fb->ctx.uc_link = &ls_emu_sched;\n"
        "        makecontext(&fb->ctx, ls_emu_body, 0);\n"
        "    }\n"
        "    for (unsigned left = block; rc == 0 && left > 0;) {\n"
        "        unsigned long before = ls_emu_progress;\n"
        "        unsigned finished = 0;\n"
        "        for (unsigned i = 0; i < block; i++) {\n"
        "            ls_emu_fiber *fb = &ls_emu_fibers[i];\n"
        "            if (fb->done) continue;\n"
        "            ls_emu_starting = i;\n"
        "            threadIdx.x = i; threadIdx.y = threadIdx.z = 0;\n"
        "            blockIdx.x = fb->block; blockIdx.y = blockIdx.z = 0;\n"
        "            ls_emu_self = &fb->ctx;\n"
        "            ls_emu_swap(&ls_emu_sched, &fb->ctx);\n"
        "            finished += fb->done;\n"
        "        }\n"
        "        left -= finished;\n"
        "        if (left > 0 && finished == 0 && ls_emu_progress == before) rc = -2;\n"
        "    }\n"
        "    for (unsigned i = 0; i < block; i++)\n"
        "        if (ls_emu_fibers[i].stack && ls_emu_fibers[i].stack != MAP_FAILED)\n"
        "            munmap(ls_emu_fibers[i].stack, stack);\n"
        "    delete[] ls_emu_fibers;\n"
        "    return rc;\n"
        "}\n",
        call);
    fclose(f);
    return text;
}

static int write_file(const char *path, const char *a, const char *b, const char *c)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(a, f);
    if (b)
        fputs(b, f);
    if (c)
        fputs(c, f);
    return fclose(f);
}

/* folder/name, allocated to its length (owned). */
static char *in_folder(const char *folder, const char *name)
{
    size_t n = strlen(folder);
    bool slash = n > 0 && folder[n - 1] == '/';
    size_t size = n + !slash + strlen(name) + 1;
    char *path = ls_xmalloc(size);
    snprintf(path, size, "%s%s%s", folder, slash ? "" : "/", name);
    return path;
}

/* Run the compiler without a shell: argv, output to log. */
static int compile(const char *cxx, const char *src, const char *so, const char *incdir,
                   const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *l = freopen(log, "w", stderr);
        (void)l;
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execlp(cxx, cxx, "-std=c++17", "-O1", "-w", "-fPIC", "-shared", "-I", incdir, "-x", "c++",
               src, "-o", so, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void first_line(const char *path, char *buf, size_t size)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    /* the first line that says "error" */
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strstr(line, "error")) {
            line[strcspn(line, "\n")] = 0;
            size_t n = strlen(line) < size - 1 ? strlen(line) : size - 1;
            memcpy(buf, line, n);
            buf[n] = 0;
            break;
        }
    fclose(f);
}

ls_status ls_cuda_compare_sim(const ls_plan *plan, ls_input_source in, const void *out, int64_t n,
                              int64_t *equal, ls_diag *diag)
{
    *equal = 0;
    const ls_problem *p = plan->problem;
    if (p->argcmp.on)
        return LS_OK;
    ls_value *sim = ls_xcalloc((size_t)n + 1, sizeof *sim);
    ls_functional_opts fo = {NULL, NULL, false, sim};
    ls_functional_result fr;
    ls_diag quiet = {0};
    ls_status st = ls_functional_run_opts(plan, in, 0, -1, &fo, &fr, &quiet);
    /* past the functional budget: not compared; a mismatch with the
     * reference is the caller's to report */
    if (st != LS_OK && st != LS_ERR_INVALID) {
        free(sim);
        return LS_OK;
    }
    int eb = ls_elem_type_bits(p->acc_type) / 8;
    ls_value mask = eb >= 8 ? ~(ls_value)0 : ((ls_value)1 << (8 * eb)) - 1;
    const unsigned char *o = out;
    for (int64_t lin = 0; lin < n; lin++) {
        ls_value v = 0;
        for (int b = 0; b < eb; b++)
            v |= (ls_value)o[lin * eb + b] << (8 * b);
        ls_value w = sim[lin] & mask;
        bool nan = ls_elem_type_is_float(p->acc_type) &&
                   isnan(ls_value_to_double(v, p->acc_type)) &&
                   isnan(ls_value_to_double(w, p->acc_type));
        if (v != w && !nan) {
            char sv[48], sw[48];
            ls_value_format(v, p->acc_type, sv, sizeof sv);
            ls_value_format(w, p->acc_type, sw, sizeof sw);
            free(sim);
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                               "the generated kernel's output %lld (row-major over the init) is "
                               "%s but the simulator, combining in IREE's order, gives %s: the "
                               "generator does not lower this plan as the simulator does",
                               (long long)lin, sv, sw);
        }
        (*equal)++;
    }
    free(sim);
    return LS_OK;
}

ls_status ls_cuda_emulate(const ls_plan *plan, ls_input_source in, ls_cuda_emu_result *res,
                          ls_diag *diag)
{
    char *src = NULL;
    ls_cuda_launch L;
    memset(res, 0, sizeof *res);
    ls_status st = ls_cuda_generate(plan, 0, plan->problem->file, &src, &L, diag);
    if (st)
        return st;
    void *out = NULL;
    st = ls_cuda_emulate_output(plan, src, &L, in, &out, diag);
    free(src);
    if (!st)
        st = ls_cuda_check_output(plan, in, out, &res->checked, &res->max_bound_ratio, diag);
    if (!st)
        st = ls_cuda_compare_sim(plan, in, out, L.out_elems, &res->sim_equal, diag);
    free(out);
    return st;
}

ls_status ls_cuda_emulate_source(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, int64_t *checked, double *max_bound_ratio,
                                 ls_diag *diag)
{
    *checked = 0;
    *max_bound_ratio = 0;
    void *out = NULL;
    ls_status st = ls_cuda_emulate_output(plan, src, launch, in, &out, diag);
    if (!st)
        st = ls_cuda_check_output(plan, in, out, checked, max_bound_ratio, diag);
    int64_t equal;
    if (!st)
        st = ls_cuda_compare_sim(plan, in, out, launch->out_elems, &equal, diag);
    free(out);
    return st;
}

ls_status ls_cuda_emulate_call(const char *src, const char *call, const void *const *in,
                               void *const *out, unsigned grid, unsigned block, const char *file,
                               int line, int col, ls_diag *diag)
{
    ls_status st;
    /* The sources and the kernel in a folder of $TMPDIR (/tmp when unset)
     * that a signal removes too (ls_io_temp_dir_make); every name built to
     * its length, never cut to fit. */
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *dir = in_folder(tmpdir, "lanescope-emu-XXXXXX");
    if (ls_io_temp_dir_make(dir) != 0) {
        st = ls_diag_set(diag, LS_ERR_IO, tmpdir, 0, 0, "cannot make a temporary folder: %s",
                         strerror(errno));
        free(dir);
        return st;
    }
    char *cu = in_folder(dir, "kernel.cc"), *so = in_folder(dir, "kernel.so"),
         *log = in_folder(dir, "log"), *h1 = in_folder(dir, "cuda_fp16.h"),
         *h2 = in_folder(dir, "cuda_bf16.h");
    const char *cxx = getenv("CXX") && *getenv("CXX") ? getenv("CXX") : "c++";
    void *lib = NULL;
    char *launch_text = launcher(call);
    int wrote = write_file(cu, prelude, src, launch_text);
    free(launch_text);
    if (wrote || write_file(h1, "", NULL, NULL) || write_file(h2, "", NULL, NULL)) {
        st = ls_diag_set(diag, LS_ERR_IO, dir, 0, 0, "cannot write the emulation sources");
        goto out;
    }
    int rc = compile(cxx, cu, so, dir, log);
    if (rc != 0) {
        char why[400];
        first_line(log, why, sizeof why);
        st = ls_diag_set(diag, rc == 127 ? LS_ERR_UNAVAILABLE : LS_ERR_INVALID, file, line, col,
                         "%s",
                         rc == 127 ? "--emulate needs a C++ compiler ($CXX or c++ on PATH)" : why);
        goto out;
    }
    lib = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE); /* its libstdc++ stays: LSan */
    int (*run)(const void *const *, void *const *, unsigned, unsigned) = NULL;
    if (lib)
        *(void **)&run = dlsym(lib, "ls_emu_run");
    if (!run) {
        st = ls_diag_set(diag, LS_ERR_IO, so, 0, 0, "cannot load the emulated kernel: %s",
                         dlerror());
        goto out;
    }
    int ran = run(in, out, grid, block);
    if (ran == -2) { /* a generator's bug: say where, never hang */
        st = ls_diag_set(diag, LS_ERR_INVALID, file, line, col,
                         "the emulated kernel deadlocked: threads of a block wait at a barrier "
                         "(__syncthreads or a warp shuffle) that others never reach");
        goto out;
    }
    if (ran != 0) {
        st = ls_diag_set(diag, LS_ERR_NOMEM, so, 0, 0,
                         "the emulator could not make its %u threads' stacks", block);
        goto out;
    }
    st = LS_OK;
out:
    if (lib)
        dlclose(lib);
    ls_io_temp_dir_remove(dir); /* and all in it, whatever the compiler left */
    free(cu);
    free(so);
    free(log);
    free(h1);
    free(h2);
    free(dir);
    return st;
}

ls_status ls_cuda_emulate_output(const ls_plan *plan, const char *src, const ls_cuda_launch *launch,
                                 ls_input_source in, void **output, ls_diag *diag)
{
    const ls_problem *p = plan->problem;
    const ls_cuda_launch L = *launch;
    *output = NULL;
    char call[600];
    size_t u = (size_t)snprintf(call, sizeof call, "lanescope_reduce(");
    for (int k = 0; k < L.n_inputs && u < sizeof call; k++)
        u += (size_t)snprintf(call + u, sizeof call - u, "(const ls_in%d_t *)t->in[%d], ", k, k);
    if (u < sizeof call)
        snprintf(call + u, sizeof call - u, "(ls_acc_t *)t->out[0])");
    void *hin[LS_MAX_INPUTS] = {NULL};
    for (int k = 0; k < L.n_inputs; k++)
        hin[k] = ls_cuda_make_input(plan, in, &L, k);
    void *hout = ls_xmalloc((size_t)L.out_bytes + 1);
    memset(hout, 0xa5, (size_t)L.out_bytes); /* an unwritten output cannot pass */
    ls_status st = ls_cuda_emulate_call(src, call, (const void *const *)hin, &hout, L.grid[0],
                                        L.block[0], p->file, p->line, p->col, diag);
    for (int k = 0; k < LS_MAX_INPUTS; k++)
        free(hin[k]);
    if (st)
        free(hout);
    else
        *output = hout;
    return st;
}
