/* lanescope measure: CUDA C for @few_t4_s1:linalg.generic#1 of share/lanescope/examples/suite/few_t4_s1.mlir, as IREE's VectorDistribute lowers it.
 *   lowering_config: #iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 4], partial_reduction = [0, 128], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>
 *   layout: #iree_vector_ext.nested_layout<subgroup_tile = [1, 1, 1], batch_tile = [1, 1, 1], outer_tile = [1, 1, 1], thread_tile = [1, 32, 1], element_tile = [1, 1, 4], subgroup_strides = [0, 0, 0], thread_strides = [0, 1, 0]>
 *   add f32 reduction, f32 in memory; iteration space 32x65536r
 *   grid 32 x 1 x 1, block 32 x 1 x 1 (1 subgroup of 32), 0 bytes of shared memory
 *   input 0: 2097152 elements (8388608 bytes), 16-byte vector loads
 *   output 32 elements (128 bytes)
 * Stages are marked [load+accumulate] ... [store] as in `lanescope sim --dump-plan`.
 */

typedef float ls_in0_t; /* input 0: f32 in memory */
typedef ls_in0_t ls_in_t;
typedef float ls_acc_t; /* f32, the type reduced in */
typedef int ls_idx_t; /* every index fits 32 bits */
typedef struct __align__(16) { ls_in0_t e[4]; } ls_vec0_t; /* one 16-byte load of input 0 */

/* arith.addf on f32 */
static __device__ __forceinline__ ls_acc_t ls_combine(ls_acc_t a, ls_acc_t b)
{
    const float x = (a), y = (b);
    return (x + y);
}

static __device__ __forceinline__ ls_acc_t ls_extend(ls_in_t v)
{
    return v;
}

static __device__ __forceinline__ ls_acc_t ls_shfl_xor(ls_acc_t v, int offset)
{
    return __shfl_xor_sync(0xffffffffu, v, offset);
}

extern "C" __global__ void __launch_bounds__(32)
lanescope_reduce(const ls_in0_t *__restrict__ in0, ls_acc_t *__restrict__ out)
{
    const int tid = threadIdx.x, lane = tid % 32, sg = tid / 32;
    (void)lane;
    (void)sg;
    const ls_acc_t ident = __uint_as_float(0x00000000u); /* identity of add */
    /* workgroup coordinates (linear id, last dim fastest) */
    const int wg0 = (int)blockIdx.x / 1 % 32;
    /* nested layout: virtual subgroup and thread ids -> body coordinates */
    const int tb0 = 0;
    (void)tb0;
    const int tb1 = 0 + (lane / 1) % 32 * 1;
    (void)tb1;
    const int tb2 = 0;
    (void)tb2;
    const int tx0 = 0 + tb0 * 1;
    const int tx1 = 0 + tb1 * 4 + tb2 * 1;

    /* [load+accumulate] %acc = splat identity : 1 accumulators */
    ls_acc_t acc[1];
#pragma unroll
    for (int i = 0; i < 1; ++i)
        acc[i] = ident;
    /* scf.for over the partial-reduction chunks: 512 iterations */
    /* unrolled by 4, as the simulator models LLVM's unroller for the target (IREE's kernel); NVRTC would choose its own count */
#pragma unroll 4
    for (int it = 0; it < 512; ++it) {
        const int x1 = (it / 1) % 512 * 128 + tx1;
        const int x0 = wg0 * 1 + tx0;
        (void)x0;
        (void)x1;
        const int o0 = 0 + x0 * 65536 + x1 * 1; /* input 0's offset of register 0 */
        /* registers 0..3: vector.transfer_read vector<4xf32> of input 0; */
        {
            const ls_vec0_t w0 = *(const ls_vec0_t *)(in0 + o0 + 0);
            acc[0] = ls_combine(acc[0], ls_extend(w0.e[0]));
            acc[0] = ls_combine(acc[0], ls_extend(w0.e[1]));
            acc[0] = ls_combine(acc[0], ls_extend(w0.e[2]));
            acc[0] = ls_combine(acc[0], ls_extend(w0.e[3]));
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
    res[0] = ls_combine(res[0], __uint_as_float(0x00000000u));

    /* [store] one thread per output element */
    if (lane < 32 && sg < 1 && (lane / 1 % 32) == 0) {
        out[0 + (wg0 * 1 + tx0 + 0) * 1] = res[0];
    }
}
