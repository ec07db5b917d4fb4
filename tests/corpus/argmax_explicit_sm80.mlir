// Argmax of 8 x 2048 f16 values carrying their own i32 indices (explicit-
// index mode, what the merge of a split reduction reads), on sm_80.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/Common/GPU/test/gpu_nested_layout_vector_distribution_argcompare.mlir
//   (@argmin_explicit_index: the index input distributed with the values,
//   ballot without a cluster mask at stride 1) and
//   Dialect/LinalgExt/IR/test/roundtrip.mlir (@arg_compare_explicit_index).
// Config by hand (ReductionConfigUtils.cpp getBitWidth, docs/
// arg-compare-lowering.md §1.2 step 5): values and indices have the same
// shape, so the wider, 32 bits, counts: 4 per load; 2048 / 4 = 512 threads
// = 16 subgroups of 32 (sm_80's only choice); chunk 2048.
// Plan facts by hand: both inputs are read 4 wide (a 64-bit and a 128-bit
// load); no index arithmetic; the f16 value buffer is [1, 16 + 4] (64 bits
// of f16 padding) = 40 bytes, the i32 one [1, 16 + 2] = 72 bytes.
// TARGET: sm_80
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 2048], subgroup_basis = [[1, 16], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>
// PLAN 0: argcmp=1 ballot=1 n_inputs=2 workgroups=8 workgroup_size=512 loads.0=1 width.0=4 loads.1=1 width.1=4
// PLAN 0: index_ops=0 body_ops=3 cluster.0=32 dpp.0=0 cross_subgroup=1 buffer_bytes=40 index_buffer_bytes=72
func.func @argmax_explicit() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFC00 : f16
  %zero = arith.constant 0 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xf16>>
  %i = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xi32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf16>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(3) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [8, 2048], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xf16>> -> tensor<8x2048xf16>
  %idx = iree_tensor_ext.dispatch.tensor.load %i, offsets = [0, 0], sizes = [8, 2048], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xi32>> -> tensor<8x2048xi32>
  %4 = tensor.empty() : tensor<8xf16>
  %5 = tensor.empty() : tensor<8xi32>
  %6 = linalg.fill ins(%ninf : f16) outs(%4 : tensor<8xf16>) -> tensor<8xf16>
  %7 = linalg.fill ins(%zero : i32) outs(%5 : tensor<8xi32>) -> tensor<8xi32>
  %8:2 = iree_linalg_ext.arg_compare dimension(1)
    ins(%3, %idx : tensor<8x2048xf16>, tensor<8x2048xi32>)
    outs(%6, %7 : tensor<8xf16>, tensor<8xi32>) {
  ^bb0(%a: f16, %b: f16):
    %cmp = arith.cmpf ogt, %a, %b : f16
    iree_linalg_ext.yield %cmp : i1
  } -> tensor<8xf16>, tensor<8xi32>
  iree_tensor_ext.dispatch.tensor.store %8#0, %1, offsets = [0], sizes = [8], strides = [1] : tensor<8xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf16>>
  iree_tensor_ext.dispatch.tensor.store %8#1, %2, offsets = [0], sizes = [8], strides = [1] : tensor<8xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>
  return
}
