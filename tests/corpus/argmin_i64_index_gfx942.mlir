// Argmin of 16 x 512 i32 with i64 indices and a signed compare; the inits are
// INT32_MAX and 0.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_argcompare.mlir
//   (@argcompare_i32, @argcompare_argmin: VectorDistribute) and
//   Common/GPU/test/gpu_nested_layout_vector_distribution_argcompare.mlir
//   (@argmax_integer_thread_reduction: cmpi, then maxsi/minsi, cmpi eq,
//   ballot, cttz, shuffle idx; @argcompare_index_i64: shuffle idx of i64).
// Config by hand (docs/arg-compare-lowering.md §1.4): the i32 input is the
// largest tensor, so 32 bits: 4 per load, 512 / 4 = 128 threads = 2
// subgroups of 64; chunk gcd(128 x 4, 512) = 512.
// Plan facts by hand: slt maps to minsi; the index is `index` cast to i64
// (addi + index_cast); two 2-slot buffers: [1, 2 + 2] i32 = 16 bytes and
// [1, 2 + 1] i64 = 24 bytes; the read cluster is the 2 subgroups.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 512], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>
// PLAN 0: argcmp=1 ballot=1 combiner=minsi workgroups=16 iterations=1 workgroup_size=128
// PLAN 0: cmp_ops=1 index_ops=2 index_bytes=8 cross_subgroup=1 read_cluster=2
// PLAN 0: buffer_bytes=16 index_buffer_bytes=24 hazard=0
func.func @argmin_i32() {
  %c0 = arith.constant 0 : index
  %max = arith.constant 2147483647 : i32
  %zero = arith.constant 0 : i64
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x512xi32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xi32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xi64>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [16, 512], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x512xi32>> -> tensor<16x512xi32>
  %4 = tensor.empty() : tensor<16xi32>
  %5 = tensor.empty() : tensor<16xi64>
  %6 = linalg.fill ins(%max : i32) outs(%4 : tensor<16xi32>) -> tensor<16xi32>
  %7 = linalg.fill ins(%zero : i64) outs(%5 : tensor<16xi64>) -> tensor<16xi64>
  %8:2 = iree_linalg_ext.arg_compare dimension(1)
    ins(%3 : tensor<16x512xi32>)
    outs(%6, %7 : tensor<16xi32>, tensor<16xi64>) {
  ^bb0(%a: i32, %b: i32):
    %cmp = arith.cmpi slt, %a, %b : i32
    iree_linalg_ext.yield %cmp : i1
  } -> tensor<16xi32>, tensor<16xi64>
  iree_tensor_ext.dispatch.tensor.store %8#0, %1, offsets = [0], sizes = [16], strides = [1] : tensor<16xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xi32>>
  iree_tensor_ext.dispatch.tensor.store %8#1, %2, offsets = [0], sizes = [16], strides = [1] : tensor<16xi64> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xi64>>
  return
}
