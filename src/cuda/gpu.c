/* gpu.c: NVRTC and the CUDA driver API through dlopen (see gpu.h).
 *
 * The toolkit's headers give the types and the real symbol names: cuda.h
 * maps cuMemAlloc to cuMemAlloc_v2 and so on, and LS_SYM stringifies the
 * mapped name, so the symbol looked up is the one the header declares.
 * Nothing is linked against libcuda or libnvrtc.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/gpu.h"

#ifndef HAVE_CUDA

bool ls_cuda_built(void) { return false; }

static ls_status not_built(ls_diag *diag)
{
    return ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0,
                       "this lanescope was built without the CUDA path (configure found no "
                       "cuda.h/nvrtc.h; see --with-cuda)");
}

ls_status ls_nvrtc_open(ls_nvrtc **out, ls_diag *diag)
{
    *out = NULL;
    return not_built(diag);
}
void ls_nvrtc_close(ls_nvrtc *n) { (void)n; }
void ls_nvrtc_version(const ls_nvrtc *n, int *major, int *minor)
{
    (void)n;
    *major = *minor = 0;
}
ls_status ls_nvrtc_compile(ls_nvrtc *n, const char *src, const char *name, const char *arch,
                           bool cubin, char **image, size_t *size, char **log, ls_diag *diag)
{
    (void)n, (void)src, (void)name, (void)arch, (void)cubin, (void)size;
    *image = NULL;
    if (log)
        *log = NULL;
    return not_built(diag);
}
ls_status ls_gpu_open(int ordinal, ls_gpu **out, ls_diag *diag)
{
    (void)ordinal;
    *out = NULL;
    return not_built(diag);
}
void ls_gpu_close(ls_gpu *g) { (void)g; }
const ls_gpu_info *ls_gpu_get_info(const ls_gpu *g)
{
    (void)g;
    return NULL;
}
void ls_gpu_arch(const ls_gpu *g, char *buf, size_t size)
{
    (void)g;
    snprintf(buf, size, "none");
}
ls_status ls_gpu_alloc(ls_gpu *g, size_t bytes, ls_devptr *out, ls_diag *diag)
{
    (void)g, (void)bytes;
    *out = 0;
    return not_built(diag);
}
void ls_gpu_free(ls_gpu *g, ls_devptr p) { (void)g, (void)p; }
ls_status ls_gpu_upload(ls_gpu *g, ls_devptr dst, const void *src, size_t bytes, ls_diag *diag)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return not_built(diag);
}
ls_status ls_gpu_download(ls_gpu *g, void *dst, ls_devptr src, size_t bytes, ls_diag *diag)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return not_built(diag);
}
ls_status ls_gpu_memset(ls_gpu *g, ls_devptr dst, unsigned char value, size_t bytes,
                        ls_diag *diag)
{
    (void)g, (void)dst, (void)value, (void)bytes;
    return not_built(diag);
}
ls_status ls_gpu_kernel_load(ls_gpu *g, const char *src, const char *kernel, size_t smem_dyn,
                             ls_gpu_kernel **out, ls_diag *diag)
{
    (void)g, (void)src, (void)kernel, (void)smem_dyn;
    *out = NULL;
    return not_built(diag);
}
void ls_gpu_kernel_free(ls_gpu *g, ls_gpu_kernel *k) { (void)g, (void)k; }
void ls_gpu_kernel_attrs(ls_gpu *g, ls_gpu_kernel *k, int *regs, int *static_smem)
{
    (void)g, (void)k;
    *regs = *static_smem = 0;
}
int ls_gpu_kernel_occupancy(ls_gpu *g, ls_gpu_kernel *k, int block, size_t smem_dyn)
{
    (void)g, (void)k, (void)block, (void)smem_dyn;
    return 0;
}
ls_status ls_gpu_launch(ls_gpu *g, ls_gpu_kernel *k, const unsigned grid[3],
                        const unsigned block[3], size_t smem_dyn, void **args, int reps,
                        float *ms, ls_diag *diag)
{
    (void)g, (void)k, (void)grid, (void)block, (void)smem_dyn, (void)args, (void)reps, (void)ms;
    return not_built(diag);
}
ls_status ls_gpu_flush_l2(ls_gpu *g, ls_diag *diag)
{
    (void)g;
    return not_built(diag);
}
const char *ls_gpu_flush_source(void) { return ""; }
ls_status ls_gpu_copy_bandwidth(ls_gpu *g, size_t bytes, int reps, double *gbps, ls_diag *diag)
{
    (void)g, (void)bytes, (void)reps;
    *gbps = 0;
    return not_built(diag);
}

#else /* HAVE_CUDA */

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#define LS_STR(x) #x
#define LS_SYM(x) LS_STR(x) /* the name after cuda.h's version macros */

bool ls_cuda_built(void) { return true; }

/* dlopen the first of: $env, the configure-time folder + base, the names.
 * RTLD_NODELETE: libnvrtc brings libstdc++, whose emergency exception pool
 * would look leaked to LeakSanitizer once its library is unmapped. */
static void *open_lib(const char *env, const char *base, const char *const *names, char *tried,
                      size_t tsize)
{
    const char *e = getenv(env);
    size_t u = 0;
    tried[0] = 0;
    if (e && *e) {
        void *h = dlopen(e, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        u += (size_t)snprintf(tried + u, tsize - u, "%s", e);
        return h;
    }
#ifdef LS_CUDA_LIBDIR
    if (base) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", LS_CUDA_LIBDIR, base);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (h)
            return h;
        u += (size_t)snprintf(tried + u, tsize - u, "%s", path);
    }
#else
    (void)base;
#endif
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (h)
            return h;
        if (u < tsize)
            u += (size_t)snprintf(tried + u, tsize - u, "%s%s", u ? ", " : "", names[i]);
    }
    return NULL;
}

/* ---------------------------------------------------------------- NVRTC */

struct ls_nvrtc {
    void *lib;
    int major, minor;
    __typeof__(nvrtcVersion) *Version;
    __typeof__(nvrtcCreateProgram) *CreateProgram;
    __typeof__(nvrtcDestroyProgram) *DestroyProgram;
    __typeof__(nvrtcCompileProgram) *CompileProgram;
    __typeof__(nvrtcGetProgramLogSize) *GetProgramLogSize;
    __typeof__(nvrtcGetProgramLog) *GetProgramLog;
    __typeof__(nvrtcGetPTXSize) *GetPTXSize;
    __typeof__(nvrtcGetPTX) *GetPTX;
    __typeof__(nvrtcGetCUBINSize) *GetCUBINSize;
    __typeof__(nvrtcGetCUBIN) *GetCUBIN;
    __typeof__(nvrtcGetErrorString) *GetErrorString;
};

#define LOAD(lib, field, name, fail)                                                           \
    do {                                                                                       \
        *(void **)&(field) = dlsym(lib, LS_SYM(name));                                         \
        if (!(field)) {                                                                        \
            fail = LS_SYM(name);                                                               \
        }                                                                                      \
    } while (0)

ls_status ls_nvrtc_open(ls_nvrtc **out, ls_diag *diag)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    char tried[1024];
    *out = NULL;
    void *lib = open_lib("LANESCOPE_NVRTC", "libnvrtc.so", names, tried, sizeof tried);
    if (!lib)
        return ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0,
                           "NVRTC not found (tried %s; set LANESCOPE_NVRTC to libnvrtc.so)",
                           tried);
    ls_nvrtc *n = ls_xcalloc(1, sizeof *n);
    n->lib = lib;
    const char *missing = NULL;
    LOAD(lib, n->Version, nvrtcVersion, missing);
    LOAD(lib, n->CreateProgram, nvrtcCreateProgram, missing);
    LOAD(lib, n->DestroyProgram, nvrtcDestroyProgram, missing);
    LOAD(lib, n->CompileProgram, nvrtcCompileProgram, missing);
    LOAD(lib, n->GetProgramLogSize, nvrtcGetProgramLogSize, missing);
    LOAD(lib, n->GetProgramLog, nvrtcGetProgramLog, missing);
    LOAD(lib, n->GetPTXSize, nvrtcGetPTXSize, missing);
    LOAD(lib, n->GetPTX, nvrtcGetPTX, missing);
    LOAD(lib, n->GetCUBINSize, nvrtcGetCUBINSize, missing);
    LOAD(lib, n->GetCUBIN, nvrtcGetCUBIN, missing);
    LOAD(lib, n->GetErrorString, nvrtcGetErrorString, missing);
    if (missing) {
        dlclose(lib);
        free(n);
        return ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0,
                           "the NVRTC library found lacks %s (too old?)", missing);
    }
    n->Version(&n->major, &n->minor);
    *out = n;
    return LS_OK;
}

void ls_nvrtc_close(ls_nvrtc *n)
{
    if (!n)
        return;
    dlclose(n->lib);
    free(n);
}

void ls_nvrtc_version(const ls_nvrtc *n, int *major, int *minor)
{
    *major = n ? n->major : 0;
    *minor = n ? n->minor : 0;
}

ls_status ls_nvrtc_compile(ls_nvrtc *n, const char *src, const char *name, const char *arch,
                           bool cubin, char **image, size_t *size, char **log, ls_diag *diag)
{
    *image = NULL;
    *size = 0;
    if (log)
        *log = NULL;
    nvrtcProgram prog;
    nvrtcResult r = n->CreateProgram(&prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return ls_diag_set(diag, LS_ERR_INVALID, name, 0, 0, "NVRTC: %s",
                           n->GetErrorString(r));
    char archopt[64];
    /* CUBIN needs a real architecture (sm_XX), PTX a virtual one (compute_XX). */
    const char *num = strncmp(arch, "sm_", 3) == 0 ? arch + 3 : arch;
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s_%s", cubin ? "sm" : "compute", num);
    /* cuda_fp16.h / cuda_bf16.h are not built into NVRTC: the toolkit's
     * include folder ($LANESCOPE_CUDA_INCLUDE, configure's, or the usual one) */
    char incopt[600];
    const char *inc = getenv("LANESCOPE_CUDA_INCLUDE");
#ifdef LS_CUDA_INCDIR
    if (!inc || !*inc)
        inc = LS_CUDA_INCDIR;
#endif
    if (!inc || !*inc)
        inc = "/usr/local/cuda/include";
    snprintf(incopt, sizeof incopt, "--include-path=%s", inc);
    const char *opts[] = {archopt, "--std=c++17", incopt};
    r = n->CompileProgram(prog, 3, opts);
    size_t lsz = 0;
    n->GetProgramLogSize(prog, &lsz);
    char *text = ls_xcalloc(lsz + 1, 1);
    if (lsz)
        n->GetProgramLog(prog, text);
    /* NVRTC's empty log is "" or a lone NUL/newline */
    size_t tl = strlen(text);
    while (tl && (text[tl - 1] == '\n' || text[tl - 1] == ' '))
        text[--tl] = 0;
    if (r != NVRTC_SUCCESS) {
        char first[400];
        size_t k = 0;
        while (text[k] && text[k] != '\n' && k + 1 < sizeof first) {
            first[k] = text[k];
            k++;
        }
        first[k] = 0;
        ls_diag_set(diag, LS_ERR_INVALID, name, 0, 0, "NVRTC (%s) failed: %s",
                    archopt + strlen("--gpu-architecture="), k ? first : n->GetErrorString(r));
        if (log)
            *log = text;
        else
            free(text);
        n->DestroyProgram(&prog);
        return diag->status;
    }
    size_t isz = 0;
    if (cubin) {
        n->GetCUBINSize(prog, &isz);
        *image = ls_xmalloc(isz + 1);
        n->GetCUBIN(prog, *image);
    } else {
        n->GetPTXSize(prog, &isz);
        *image = ls_xmalloc(isz + 1);
        n->GetPTX(prog, *image);
    }
    (*image)[isz] = 0;
    *size = isz;
    if (log)
        *log = text;
    else
        free(text);
    n->DestroyProgram(&prog);
    return LS_OK;
}

/* ---------------------------------------------------------------- driver */

struct ls_gpu {
    void *lib;
    ls_nvrtc *nvrtc;
    CUdevice dev;
    CUcontext ctx;
    ls_gpu_info info;
    ls_devptr flush_buf;
    size_t flush_bytes;
    struct ls_gpu_kernel *flush_kernel;
    __typeof__(cuInit) *Init;
    __typeof__(cuDriverGetVersion) *DriverGetVersion;
    __typeof__(cuDeviceGetCount) *DeviceGetCount;
    __typeof__(cuDeviceGet) *DeviceGet;
    __typeof__(cuDeviceGetName) *DeviceGetName;
    __typeof__(cuDeviceGetAttribute) *DeviceGetAttribute;
    __typeof__(cuDeviceTotalMem) *DeviceTotalMem;
    __typeof__(cuDevicePrimaryCtxRetain) *PrimaryCtxRetain;
    __typeof__(cuDevicePrimaryCtxRelease) *PrimaryCtxRelease;
    __typeof__(cuCtxSetCurrent) *CtxSetCurrent;
    __typeof__(cuCtxSynchronize) *CtxSynchronize;
    __typeof__(cuGetErrorString) *GetErrorString;
    __typeof__(cuMemAlloc) *MemAlloc;
    __typeof__(cuMemFree) *MemFree;
    __typeof__(cuMemcpyHtoD) *MemcpyHtoD;
    __typeof__(cuMemcpyDtoH) *MemcpyDtoH;
    __typeof__(cuMemcpyDtoD) *MemcpyDtoD;
    __typeof__(cuMemsetD8) *MemsetD8;
    __typeof__(cuModuleLoadData) *ModuleLoadData;
    __typeof__(cuModuleUnload) *ModuleUnload;
    __typeof__(cuModuleGetFunction) *ModuleGetFunction;
    __typeof__(cuFuncGetAttribute) *FuncGetAttribute;
    __typeof__(cuFuncSetAttribute) *FuncSetAttribute;
    __typeof__(cuOccupancyMaxActiveBlocksPerMultiprocessor) *Occupancy;
    __typeof__(cuLaunchKernel) *LaunchKernel;
    __typeof__(cuEventCreate) *EventCreate;
    __typeof__(cuEventDestroy) *EventDestroy;
    __typeof__(cuEventRecord) *EventRecord;
    __typeof__(cuEventSynchronize) *EventSynchronize;
    __typeof__(cuEventElapsedTime) *EventElapsedTime;
};

struct ls_gpu_kernel {
    CUmodule mod;
    CUfunction fn;
};

static ls_status cu_fail(ls_gpu *g, CUresult r, const char *what, ls_diag *diag)
{
    const char *s = NULL;
    if (g->GetErrorString)
        g->GetErrorString(r, &s);
    return ls_diag_set(diag, r == CUDA_ERROR_OUT_OF_MEMORY ? LS_ERR_NOMEM : LS_ERR_IO, "", 0, 0,
                       "CUDA driver: %s failed: %s (error %d)", what, s ? s : "unknown",
                       (int)r);
}

#define CU(g, call, what)                                                                      \
    do {                                                                                       \
        CUresult cu_r_ = (call);                                                               \
        if (cu_r_ != CUDA_SUCCESS)                                                             \
            return cu_fail(g, cu_r_, what, diag);                                              \
    } while (0)

static int attr(ls_gpu *g, CUdevice_attribute a)
{
    int v = 0;
    g->DeviceGetAttribute(&v, a, g->dev);
    return v;
}

/* Every driver entry point; the name of the first one missing, or NULL. */
static const char *load_driver(ls_gpu *g, void *lib)
{
    const char *missing = NULL;
    LOAD(lib, g->Init, cuInit, missing);
    LOAD(lib, g->DriverGetVersion, cuDriverGetVersion, missing);
    LOAD(lib, g->DeviceGetCount, cuDeviceGetCount, missing);
    LOAD(lib, g->DeviceGet, cuDeviceGet, missing);
    LOAD(lib, g->DeviceGetName, cuDeviceGetName, missing);
    LOAD(lib, g->DeviceGetAttribute, cuDeviceGetAttribute, missing);
    LOAD(lib, g->DeviceTotalMem, cuDeviceTotalMem, missing);
    LOAD(lib, g->PrimaryCtxRetain, cuDevicePrimaryCtxRetain, missing);
    LOAD(lib, g->PrimaryCtxRelease, cuDevicePrimaryCtxRelease, missing);
    LOAD(lib, g->CtxSetCurrent, cuCtxSetCurrent, missing);
    LOAD(lib, g->CtxSynchronize, cuCtxSynchronize, missing);
    LOAD(lib, g->GetErrorString, cuGetErrorString, missing);
    LOAD(lib, g->MemAlloc, cuMemAlloc, missing);
    LOAD(lib, g->MemFree, cuMemFree, missing);
    LOAD(lib, g->MemcpyHtoD, cuMemcpyHtoD, missing);
    LOAD(lib, g->MemcpyDtoH, cuMemcpyDtoH, missing);
    LOAD(lib, g->MemcpyDtoD, cuMemcpyDtoD, missing);
    LOAD(lib, g->MemsetD8, cuMemsetD8, missing);
    LOAD(lib, g->ModuleLoadData, cuModuleLoadData, missing);
    LOAD(lib, g->ModuleUnload, cuModuleUnload, missing);
    LOAD(lib, g->ModuleGetFunction, cuModuleGetFunction, missing);
    LOAD(lib, g->FuncGetAttribute, cuFuncGetAttribute, missing);
    LOAD(lib, g->FuncSetAttribute, cuFuncSetAttribute, missing);
    LOAD(lib, g->Occupancy, cuOccupancyMaxActiveBlocksPerMultiprocessor, missing);
    LOAD(lib, g->LaunchKernel, cuLaunchKernel, missing);
    LOAD(lib, g->EventCreate, cuEventCreate, missing);
    LOAD(lib, g->EventDestroy, cuEventDestroy, missing);
    LOAD(lib, g->EventRecord, cuEventRecord, missing);
    LOAD(lib, g->EventSynchronize, cuEventSynchronize, missing);
    LOAD(lib, g->EventElapsedTime, cuEventElapsedTime, missing);
    return missing;
}

ls_status ls_gpu_open(int ordinal, ls_gpu **out, ls_diag *diag)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    char tried[1024];
    *out = NULL;
    void *lib = open_lib("LANESCOPE_LIBCUDA", NULL, names, tried, sizeof tried);
    if (!lib)
        return ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0,
                           "no NVIDIA driver/GPU found (the CUDA driver library is not "
                           "installed: tried %s)",
                           tried);
    ls_gpu *g = ls_xcalloc(1, sizeof *g);
    g->lib = lib;
    const char *missing = load_driver(g, lib);
    if (missing) {
        ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0,
                    "no usable NVIDIA driver found: libcuda lacks %s (driver too old?)",
                    missing);
        ls_gpu_close(g);
        return diag->status;
    }
    CUresult r = g->Init(0);
    int count = 0;
    if (r == CUDA_SUCCESS)
        r = g->DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0) {
        const char *s = NULL;
        g->GetErrorString(r, &s);
        ls_diag_set(diag, LS_ERR_UNAVAILABLE, "", 0, 0, "no NVIDIA driver/GPU found (%s)",
                    r != CUDA_SUCCESS ? (s ? s : "cuInit failed") : "no device");
        ls_gpu_close(g);
        return diag->status;
    }
    if (ordinal < 0 || ordinal >= count) {
        ls_diag_set(diag, LS_ERR_USAGE, "--device", 0, 0,
                    "device %d does not exist (%d device%s: 0..%d)", ordinal, count,
                    count == 1 ? "" : "s", count - 1);
        ls_gpu_close(g);
        return diag->status;
    }
    ls_status st = LS_OK;
    if ((r = g->DeviceGet(&g->dev, ordinal)) != CUDA_SUCCESS ||
        (r = g->PrimaryCtxRetain(&g->ctx, g->dev)) != CUDA_SUCCESS ||
        (r = g->CtxSetCurrent(g->ctx)) != CUDA_SUCCESS) {
        st = cu_fail(g, r, "opening the device", diag);
        ls_gpu_close(g);
        return st;
    }
    if ((st = ls_nvrtc_open(&g->nvrtc, diag)) != LS_OK) {
        ls_gpu_close(g);
        return st;
    }
    ls_gpu_info *in = &g->info;
    in->ordinal = ordinal;
    g->DeviceGetName(in->name, (int)sizeof in->name, g->dev);
    in->cc_major = attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    in->cc_minor = attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    in->sm_count = attr(g, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    in->clock_khz = attr(g, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    in->mem_clock_khz = attr(g, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    in->mem_bus_bits = attr(g, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    in->l2_bytes = attr(g, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    in->smem_per_sm = attr(g, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    in->smem_per_block_optin = attr(g, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    in->max_threads_per_sm = attr(g, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    in->max_blocks_per_sm = attr(g, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    in->regs_per_sm = attr(g, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    size_t mem = 0;
    g->DeviceTotalMem(&mem, g->dev);
    in->total_mem = (int64_t)mem;
    g->DriverGetVersion(&in->driver_version);
    ls_nvrtc_version(g->nvrtc, &in->nvrtc_major, &in->nvrtc_minor);
    *out = g;
    return LS_OK;
}

void ls_gpu_close(ls_gpu *g)
{
    if (!g)
        return;
    ls_gpu_kernel_free(g, g->flush_kernel);
    if (g->flush_buf)
        g->MemFree((CUdeviceptr)g->flush_buf);
    if (g->ctx)
        g->PrimaryCtxRelease(g->dev);
    ls_nvrtc_close(g->nvrtc);
    dlclose(g->lib);
    free(g);
}

const ls_gpu_info *ls_gpu_get_info(const ls_gpu *g) { return &g->info; }

void ls_gpu_arch(const ls_gpu *g, char *buf, size_t size)
{
    snprintf(buf, size, "sm_%d%d", g->info.cc_major, g->info.cc_minor);
}

ls_status ls_gpu_alloc(ls_gpu *g, size_t bytes, ls_devptr *out, ls_diag *diag)
{
    CUdeviceptr p = 0;
    *out = 0;
    CU(g, g->MemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
    *out = (ls_devptr)p;
    return LS_OK;
}

void ls_gpu_free(ls_gpu *g, ls_devptr p)
{
    if (p)
        g->MemFree((CUdeviceptr)p);
}

ls_status ls_gpu_upload(ls_gpu *g, ls_devptr dst, const void *src, size_t bytes, ls_diag *diag)
{
    CU(g, g->MemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD");
    return LS_OK;
}

ls_status ls_gpu_download(ls_gpu *g, void *dst, ls_devptr src, size_t bytes, ls_diag *diag)
{
    CU(g, g->MemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH");
    return LS_OK;
}

ls_status ls_gpu_memset(ls_gpu *g, ls_devptr dst, unsigned char value, size_t bytes,
                        ls_diag *diag)
{
    CU(g, g->MemsetD8((CUdeviceptr)dst, value, bytes), "cuMemsetD8");
    return LS_OK;
}

ls_status ls_gpu_kernel_load(ls_gpu *g, const char *src, const char *kernel, size_t smem_dyn,
                             ls_gpu_kernel **out, ls_diag *diag)
{
    char arch[32], *image = NULL;
    size_t size;
    *out = NULL;
    ls_gpu_arch(g, arch, sizeof arch);
    ls_status st = ls_nvrtc_compile(g->nvrtc, src, kernel, arch, true, &image, &size, NULL, diag);
    if (st)
        return st;
    ls_gpu_kernel *k = ls_xcalloc(1, sizeof *k);
    CUresult r = g->ModuleLoadData(&k->mod, image);
    free(image);
    if (r == CUDA_SUCCESS)
        r = g->ModuleGetFunction(&k->fn, k->mod, kernel);
    if (r == CUDA_SUCCESS && smem_dyn > 48 * 1024)
        r = g->FuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                (int)smem_dyn);
    if (r != CUDA_SUCCESS) {
        if (k->mod)
            g->ModuleUnload(k->mod);
        free(k);
        return cu_fail(g, r, "loading the kernel", diag);
    }
    *out = k;
    return LS_OK;
}

void ls_gpu_kernel_free(ls_gpu *g, ls_gpu_kernel *k)
{
    if (!k)
        return;
    g->ModuleUnload(k->mod);
    free(k);
}

void ls_gpu_kernel_attrs(ls_gpu *g, ls_gpu_kernel *k, int *regs, int *static_smem)
{
    *regs = *static_smem = 0;
    g->FuncGetAttribute(regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
    g->FuncGetAttribute(static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
}

int ls_gpu_kernel_occupancy(ls_gpu *g, ls_gpu_kernel *k, int block, size_t smem_dyn)
{
    int n = 0;
    if (g->Occupancy(&n, k->fn, block, smem_dyn) != CUDA_SUCCESS)
        return 0;
    return n;
}

ls_status ls_gpu_launch(ls_gpu *g, ls_gpu_kernel *k, const unsigned grid[3],
                        const unsigned block[3], size_t smem_dyn, void **args, int reps,
                        float *ms, ls_diag *diag)
{
    CUevent ev[2] = {NULL, NULL};
    ls_status st = LS_OK;
    CUresult r = CUDA_SUCCESS;
    if (ms) {
        *ms = 0;
        if ((r = g->EventCreate(&ev[0], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
            (r = g->EventCreate(&ev[1], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
            (r = g->EventRecord(ev[0], NULL)) != CUDA_SUCCESS) {
            st = cu_fail(g, r, "cuEventCreate/Record", diag);
            goto out;
        }
    }
    for (int i = 0; i < reps; i++) {
        r = g->LaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                            (unsigned)smem_dyn, NULL, args, NULL);
        if (r != CUDA_SUCCESS) {
            st = cu_fail(g, r, "cuLaunchKernel", diag);
            goto out;
        }
    }
    if (ms) {
        if ((r = g->EventRecord(ev[1], NULL)) != CUDA_SUCCESS ||
            (r = g->EventSynchronize(ev[1])) != CUDA_SUCCESS ||
            (r = g->EventElapsedTime(ms, ev[0], ev[1])) != CUDA_SUCCESS) {
            st = cu_fail(g, r, "timing the launch (a kernel fault shows here)", diag);
            goto out;
        }
    } else if ((r = g->CtxSynchronize()) != CUDA_SUCCESS) {
        st = cu_fail(g, r, "running the kernel", diag);
    }
out:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            g->EventDestroy(ev[i]);
    return st;
}

/* Reading (not writing) a buffer of twice the L2 leaves L2 full of clean
 * lines: a memset would leave dirty ones whose write-back then lands inside
 * the next timed kernel. */
static const char flush_src[] =
    "extern \"C\" __global__ void ls_flush_read(const uint4 *p, unsigned long long n, "
    "unsigned int *sink)\n"
    "{\n"
    "    unsigned int x = 0;\n"
    "    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; "
    "i < n;\n"
    "         i += (unsigned long long)gridDim.x * blockDim.x) {\n"
    "        const uint4 v = p[i];\n"
    "        x ^= v.x ^ v.y ^ v.z ^ v.w;\n"
    "    }\n"
    "    if (x == 0x9e3779b9u) /* never, as the buffer holds zeros: keeps the loads */\n"
    "        sink[0] = x;\n"
    "}\n";

const char *ls_gpu_flush_source(void) { return flush_src; }

ls_status ls_gpu_flush_l2(ls_gpu *g, ls_diag *diag)
{
    ls_status st;
    if (!g->flush_buf) {
        g->flush_bytes = (size_t)(g->info.l2_bytes > 0 ? g->info.l2_bytes : (64 << 20)) * 2;
        g->flush_bytes = (g->flush_bytes + 15) / 16 * 16;
        if ((st = ls_gpu_alloc(g, g->flush_bytes + 16, &g->flush_buf, diag)) ||
            (st = ls_gpu_memset(g, g->flush_buf, 0, g->flush_bytes + 16, diag)) ||
            (st = ls_gpu_kernel_load(g, flush_src, "ls_flush_read", 0, &g->flush_kernel, diag)))
            return st;
    }
    ls_devptr sink = g->flush_buf + g->flush_bytes;
    unsigned long long n = g->flush_bytes / 16;
    void *args[] = {&g->flush_buf, &n, &sink};
    const unsigned grid[3] = {(unsigned)(g->info.sm_count > 0 ? g->info.sm_count * 4 : 512), 1, 1};
    const unsigned block[3] = {512, 1, 1};
    return ls_gpu_launch(g, g->flush_kernel, grid, block, 0, args, 1, NULL, diag);
}

ls_status ls_gpu_copy_bandwidth(ls_gpu *g, size_t bytes, int reps, double *gbps, ls_diag *diag)
{
    ls_devptr a = 0, b = 0;
    CUevent ev[2] = {NULL, NULL};
    ls_status st;
    *gbps = 0;
    if ((st = ls_gpu_alloc(g, bytes, &a, diag)) || (st = ls_gpu_alloc(g, bytes, &b, diag)))
        goto out;
    CUresult r;
    if ((r = g->MemsetD8((CUdeviceptr)a, 1, bytes)) != CUDA_SUCCESS ||
        (r = g->MemcpyDtoD((CUdeviceptr)b, (CUdeviceptr)a, bytes)) != CUDA_SUCCESS || /* warm-up */
        (r = g->EventCreate(&ev[0], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (r = g->EventCreate(&ev[1], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (r = g->EventRecord(ev[0], NULL)) != CUDA_SUCCESS) {
        st = cu_fail(g, r, "copy bandwidth", diag);
        goto out;
    }
    for (int i = 0; i < reps; i++)
        if ((r = g->MemcpyDtoD((CUdeviceptr)(i % 2 ? a : b), (CUdeviceptr)(i % 2 ? b : a),
                               bytes)) != CUDA_SUCCESS) {
            st = cu_fail(g, r, "cuMemcpyDtoD", diag);
            goto out;
        }
    float ms = 0;
    if ((r = g->EventRecord(ev[1], NULL)) != CUDA_SUCCESS ||
        (r = g->EventSynchronize(ev[1])) != CUDA_SUCCESS ||
        (r = g->EventElapsedTime(&ms, ev[0], ev[1])) != CUDA_SUCCESS) {
        st = cu_fail(g, r, "copy bandwidth", diag);
        goto out;
    }
    *gbps = ms > 0 ? 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9 : 0;
out:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            g->EventDestroy(ev[i]);
    ls_gpu_free(g, a);
    ls_gpu_free(g, b);
    return st;
}

#endif /* HAVE_CUDA */
