/* lanescope measure: CUDA C for @mv_default:linalg.generic#1 of share/lanescope/examples/suite/mv_default.mlir, as IREE's VectorDistribute lowers it.
 *   lowering_config: #iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 8], partial_reduction = [0, 256], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}> (IREE's default)
 *   layout: #iree_vector_ext.nested_layout<subgroup_tile = [1, 1, 1], batch_tile = [1, 1, 1], outer_tile = [1, 1, 1], thread_tile = [1, 32, 1], element_tile = [1, 1, 8], subgroup_strides = [0, 0, 0], thread_strides = [0, 1, 0]>
 *   add f16 reduction, f16 in memory; iteration space 32000x4096r
 *   grid 32000 x 1 x 1, block 32 x 1 x 1 (1 subgroup of 32), 0 bytes of shared memory
 *   input 0: 131072000 elements (262144000 bytes), 16-byte vector loads
 *   input 1: 4096 elements (8192 bytes), 16-byte vector loads
 *   output 32000 elements (64000 bytes)
 *   body: 3 ops, as sim/body.c evaluates them (codegen_body.c)
 * Stages are marked [load+accumulate] ... [store] as in `lanescope sim --dump-plan`.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef __half ls_in0_t; /* input 0: f16 in memory */
typedef __half ls_in1_t; /* input 1: f16 in memory */
typedef ls_in0_t ls_in_t;
typedef __half ls_acc_t; /* f16, the type reduced in */
typedef int ls_idx_t; /* every index fits 32 bits */
typedef struct __align__(16) { ls_in0_t e[8]; } ls_vec0_t; /* one 16-byte load of input 0 */
typedef struct __align__(16) { ls_in1_t e[8]; } ls_vec1_t; /* one 16-byte load of input 1 */

/* arith.addf on f16 */
static __device__ __forceinline__ ls_acc_t ls_combine(ls_acc_t a, ls_acc_t b)
{
    const float x = __half2float(a), y = __half2float(b);
    return __float2half_rn(x + y);
}

/* body helpers: values rounded to their type, integers masked to their width */
static __device__ __forceinline__ float ls_rnd_f16(float x) { return __half2float(__float2half_rn(x)); }

/* the linalg body: one iteration point's contribution */
static __device__ __forceinline__ ls_acc_t ls_body(ls_in0_t a0, ls_in1_t a1)
{
    const float v0 = __half2float(a0); /* input : f16 */
    const float v1 = __half2float(a1); /* input : f16 */
    const float v2 = ls_rnd_f16(__fmul_rn(v0, v1)); /* arith.mulf : f16 */
    return __float2half_rn(v2);
}

static __device__ __forceinline__ ls_acc_t ls_shfl_xor(ls_acc_t v, int offset)
{
    const unsigned int w = __half_as_ushort(v); /* widened to i32 */
    return __ushort_as_half((unsigned short)__shfl_xor_sync(0xffffffffu, w, offset));
}

extern "C" __global__ void __launch_bounds__(32)
lanescope_reduce(const ls_in0_t *__restrict__ in0, const ls_in1_t *__restrict__ in1, ls_acc_t *__restrict__ out)
{
    const int tid = threadIdx.x, lane = tid % 32, sg = tid / 32;
    (void)lane;
    (void)sg;
    const ls_acc_t ident = __ushort_as_half((unsigned short)0x0000); /* identity of add */
    /* workgroup coordinates (linear id, last dim fastest) */
    const int wg0 = (int)blockIdx.x / 1 % 32000;
    /* nested layout: virtual subgroup and thread ids -> body coordinates */
    const int tb0 = 0;
    (void)tb0;
    const int tb1 = 0 + (lane / 1) % 32 * 1;
    (void)tb1;
    const int tb2 = 0;
    (void)tb2;
    const int tx0 = 0 + tb0 * 1;
    const int tx1 = 0 + tb1 * 8 + tb2 * 1;

    /* [load+accumulate] %acc = splat identity : 1 accumulators */
    ls_acc_t acc[1];
#pragma unroll
    for (int i = 0; i < 1; ++i)
        acc[i] = ident;
    /* scf.for over the partial-reduction chunks: 16 iterations */
    /* unrolled by 2, as the simulator models LLVM's unroller for the target (IREE's kernel); NVRTC would choose its own count */
#pragma unroll 2
    for (int it = 0; it < 16; ++it) {
        const int x1 = (it / 1) % 16 * 256 + tx1;
        const int x0 = wg0 * 1 + tx0;
        (void)x0;
        (void)x1;
        const int o0 = 0 + x0 * 4096 + x1 * 1; /* input 0's offset of register 0 */
        const int o1 = 0 + x1 * 1; /* input 1's offset of register 0 */
        /* registers 0..7: vector.transfer_read vector<8xf16> of input 0; vector.transfer_read vector<8xf16> of input 1; */
        {
            const ls_vec0_t w0 = *(const ls_vec0_t *)(in0 + o0 + 0);
            const ls_vec1_t w1 = *(const ls_vec1_t *)(in1 + o1 + 0);
            acc[0] = ls_combine(acc[0], ls_body(w0.e[0], w1.e[0]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[1], w1.e[1]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[2], w1.e[2]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[3], w1.e[3]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[4], w1.e[4]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[5], w1.e[5]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[6], w1.e[6]));
            acc[0] = ls_combine(acc[0], ls_body(w0.e[7], w1.e[7]));
        }
    }

    /* [thread reduce] vector.multi_reduction over the reduced registers */
    ls_acc_t res[1];
    res[0] = ident;
    res[0] = ls_combine(res[0], acc[0]);

    /* [subgroup reduce] */
    /* gpu.subgroup_reduce add cluster(size = 32, stride = 1): XOR butterfly */
#pragma unroll
    for (int q = 0; q < 1; ++q) {
        res[q] = ls_combine(res[q], ls_shfl_xor(res[q], 1));
        res[q] = ls_combine(res[q], ls_shfl_xor(res[q], 2));
        res[q] = ls_combine(res[q], ls_shfl_xor(res[q], 4));
        res[q] = ls_combine(res[q], ls_shfl_xor(res[q], 8));
        res[q] = ls_combine(res[q], ls_shfl_xor(res[q], 16));
    }

    /* [cross-subgroup] none: no reduced dim is split across subgroups */

    /* [acc combine] %r = add(%r, %init): the init is the value of its linalg.fill */
    res[0] = ls_combine(res[0], __ushort_as_half((unsigned short)0x0000));

    /* [store] one thread per output element */
    if (lane < 32 && sg < 1 && (lane / 1 % 32) == 0) {
        out[0 + (wg0 * 1 + tx0 + 0) * 1] = res[0];
    }
}
