/* gpu.h: the host side of the CUDA path -- NVRTC (CUDA C -> PTX/CUBIN at run
 * time) and the CUDA driver API, both opened with dlopen so the same binary
 * starts on a machine with no CUDA at all and says so.
 *
 * Library lookup: $LANESCOPE_NVRTC / $LANESCOPE_LIBCUDA when set, else the
 * toolkit folder configure found (CUDA_LIBDIR), else the dynamic linker's
 * search (libnvrtc.so.13, libnvrtc.so; libcuda.so.1).  A missing library or
 * device is LS_ERR_UNAVAILABLE with a one-line reason; the CLI maps it to
 * exit status 3.  When configure ran with --with-cuda=no every call returns
 * LS_ERR_UNAVAILABLE ("built without the CUDA path").
 *
 * Nothing here keeps global state: each ls_nvrtc / ls_gpu owns its handles.
 */
#ifndef LANESCOPE_GPU_H
#define LANESCOPE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lanescope/diag.h"

/* Exit status of a command that needs a GPU on a machine without one. */
#define LS_EXIT_NO_GPU 3

/* True when this build has the CUDA path (configure found cuda.h/nvrtc.h). */
bool ls_cuda_built(void);

/* ---- NVRTC: works without a GPU ---- */
typedef struct ls_nvrtc ls_nvrtc;

ls_status ls_nvrtc_open(ls_nvrtc **out, ls_diag *diag);
void ls_nvrtc_close(ls_nvrtc *n);
void ls_nvrtc_version(const ls_nvrtc *n, int *major, int *minor);
/* Compile src (file name `name` in messages) for arch "sm_90" (CUBIN when
 * cubin, else PTX for compute_XX).  *image (malloc'd, NUL-terminated for
 * PTX) and *log (malloc'd, "" when the compiler said nothing; NULL allowed)
 * are the caller's.  A compile error is LS_ERR_INVALID with the log's first
 * line in the message and the whole log in *log. */
ls_status ls_nvrtc_compile(ls_nvrtc *n, const char *src, const char *name, const char *arch,
                           bool cubin, char **image, size_t *size, char **log, ls_diag *diag);

/* ---- the driver API ---- */
typedef struct ls_gpu ls_gpu;
typedef uint64_t ls_devptr;

typedef struct {
    char name[256];
    int ordinal;
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz, mem_clock_khz, mem_bus_bits; /* reported maxima */
    int64_t l2_bytes, total_mem;
    int64_t smem_per_sm, smem_per_block_optin;
    int max_threads_per_sm, max_blocks_per_sm, regs_per_sm;
    int driver_version;          /* cuDriverGetVersion: 13000 = 13.0 */
    int nvrtc_major, nvrtc_minor;
} ls_gpu_info;

/* Open device `ordinal`: libcuda, libnvrtc, cuInit, the primary context. */
ls_status ls_gpu_open(int ordinal, ls_gpu **out, ls_diag *diag);
void ls_gpu_close(ls_gpu *g);
const ls_gpu_info *ls_gpu_get_info(const ls_gpu *g);
/* "sm_90" for the open device. */
void ls_gpu_arch(const ls_gpu *g, char *buf, size_t size);

ls_status ls_gpu_alloc(ls_gpu *g, size_t bytes, ls_devptr *out, ls_diag *diag);
void ls_gpu_free(ls_gpu *g, ls_devptr p);
ls_status ls_gpu_upload(ls_gpu *g, ls_devptr dst, const void *src, size_t bytes, ls_diag *diag);
ls_status ls_gpu_download(ls_gpu *g, void *dst, ls_devptr src, size_t bytes, ls_diag *diag);
ls_status ls_gpu_memset(ls_gpu *g, ls_devptr dst, unsigned char value, size_t bytes,
                        ls_diag *diag);

typedef struct ls_gpu_kernel ls_gpu_kernel;
/* Compile src with NVRTC for the device (CUBIN) and load `kernel` from it;
 * dynamic shared memory above 48 KB is enabled up to smem_dyn bytes. */
ls_status ls_gpu_kernel_load(ls_gpu *g, const char *src, const char *kernel, size_t smem_dyn,
                             ls_gpu_kernel **out, ls_diag *diag);
void ls_gpu_kernel_free(ls_gpu *g, ls_gpu_kernel *k);
/* Registers per thread and static shared bytes the compiler gave the kernel. */
void ls_gpu_kernel_attrs(ls_gpu *g, ls_gpu_kernel *k, int *regs, int *static_smem);
/* Resident blocks per SM for a block size (the driver's occupancy answer). */
int ls_gpu_kernel_occupancy(ls_gpu *g, ls_gpu_kernel *k, int block, size_t smem_dyn);

/* Launch `reps` times back to back between two CUDA events and wait;
 * *ms: the events' elapsed time (NULL: untimed).  args as cuLaunchKernel's. */
ls_status ls_gpu_launch(ls_gpu *g, ls_gpu_kernel *k, const unsigned grid[3],
                        const unsigned block[3], size_t smem_dyn, void **args, int reps,
                        float *ms, ls_diag *diag);
/* Read a scratch buffer of twice the L2 size so no input stays cached (and
 * no dirty line is left to be written back during the next kernel). */
ls_status ls_gpu_flush_l2(ls_gpu *g, ls_diag *diag);
/* The CUDA C of that read kernel (the tests compile it). */
const char *ls_gpu_flush_source(void);
/* Device-to-device copy of `bytes`, timed: GB/s counting bytes read and written. */
ls_status ls_gpu_copy_bandwidth(ls_gpu *g, size_t bytes, int reps, double *gbps,
                                ls_diag *diag);

#endif
