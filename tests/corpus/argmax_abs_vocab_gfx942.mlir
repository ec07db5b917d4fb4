// The largest magnitude of a 32000-entry vocabulary row (LLM decode's
// sampling step), indices offset by an index_base of 1000 (a shard).
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/Common/GPU/GPUNestedLayoutDistributionPatterns.cpp
//   (analyzeComparatorForThreadReduction: `cmpf ogt (absf a), (absf b)` is
//   one unary op on both arguments, so the ballot path reduces absf(v) and
//   shuffles the value too) and Dialect/LinalgExt/Transforms/test/tiling.mlir
//   (@arg_compare_outer_reduction_with_base: addi %IV, %IDX; addi %BASE;
//   index_cast).
// Config by hand (docs/arg-compare-lowering.md §1.4, the vocab row):
// 32000 / 4 = 8000 threads > 1024, gcd(8000, 1024) = 64: one subgroup, chunk
// gcd(64 x 4, 32000) = 256, 125 iterations, no workgroup memory.
// Plan facts by hand: the comparator is absf, absf, cmpf (3 ops); index
// arithmetic addi, addi base, index_cast (3); 2 shuffles per ballot combine.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>
// PLAN 0: argcmp=1 ballot=1 ballot_shuffles=2 workgroups=1 workgroup_size=64 iterations=125
// PLAN 0: cmp_ops=3 index_ops=3 body_ops=8 local_reduce_ops=20 cross_subgroup=0
func.func @argmax_abs_vocab() {
  %c0 = arith.constant 0 : index
  %base = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x32000xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1xi32>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [1, 32000], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x32000xf32>> -> tensor<1x32000xf32>
  %4 = tensor.empty() : tensor<1xf32>
  %5 = tensor.empty() : tensor<1xi32>
  %6 = linalg.fill ins(%zero : f32) outs(%4 : tensor<1xf32>) -> tensor<1xf32>
  %7 = linalg.fill ins(%izero : i32) outs(%5 : tensor<1xi32>) -> tensor<1xi32>
  %8:2 = iree_linalg_ext.arg_compare dimension(1)
    ins(%3 : tensor<1x32000xf32>)
    outs(%6, %7 : tensor<1xf32>, tensor<1xi32>)
    index_base(%base : index) {
  ^bb0(%a: f32, %b: f32):
    %aa = math.absf %a : f32
    %ab = math.absf %b : f32
    %cmp = arith.cmpf ogt, %aa, %ab : f32
    iree_linalg_ext.yield %cmp : i1
  } -> tensor<1xf32>, tensor<1xi32>
  iree_tensor_ext.dispatch.tensor.store %8#0, %1, offsets = [0], sizes = [1], strides = [1] : tensor<1xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1xf32>>
  iree_tensor_ext.dispatch.tensor.store %8#1, %2, offsets = [0], sizes = [1], strides = [1] : tensor<1xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1xi32>>
  return
}
