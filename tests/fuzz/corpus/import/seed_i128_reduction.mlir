// A row sum of 8 x 4096 i128 (IREE's @reduction_i128, reduced to its
// dispatch).  No config: IREE's heuristic chooses it.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx942.mlir
//   (@reduction_i128: 128 bits pass the bitwidth gate on AMD and reach
//   VectorDistribute), the config from Dialect/GPU/TargetUtils/
//   ReductionConfigUtils.cpp setReductionVectorDistributionConfig.
// Config by hand: rsize 4096; subgroup 64 (the first of gfx942's choices
// dividing 4096); bitwidth 128 is a power of two, AMD shuffles it, and it
// fits the 128-bit load, so TL = 128 / 128 = 1, and 4096 / 1 is a multiple
// of 64.  8 parallel elements are not above gfx942's 304 WGPs x 4 SIMDs,
// so maxWG stays 1024; 4096 / 1 > 1024 -> WG = gcd(4096, 1024) = 1024; 8
// rows are not above 256, so no halving.  partial_reduction = gcd(1024 x 1,
// 4096) = 1024, thread = TL = 1, 64 lanes (64 x 1 divides 1024), 1024 /
// 64 = 16 subgroups, workgroup tile 1 on the row.
// Plan facts by hand: 8 workgroups of 1024 threads; 4096 / 1024 = 4
// iterations of one 1-element (16-byte) load; one subgroup reduce over 64
// lanes; a cross-subgroup stage whose buffer is 1 x 16 i128 = 256 bytes,
// not padded: GPUReduceBankConflicts pads by 64 / 128 = 0 elements
// (Common/GPU/GPUReduceBankConflicts.cpp padAlloc).  The value is 128 bits
// wide, and every exchange moves it as four 32-bit pieces.
// lanescope carries an i128's low 64 bits (include/lanescope/value.h): the
// sum's low half is exact whatever the high half holds, and the functional
// run checks it.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 16], [0, 1]], thread = [0, 1], workgroup = [1, 0]}>
// PLAN 0: workgroups=8 workgroup_size=1024 subgroup_size=64 iterations=4 loads.0=1 width.0=1
// PLAN 0: subgroup_reduces=1 cross_subgroup=1 buffer_bytes=256 buffer_pad=0 shuffle_bits=128
// PLAN 0: acc_elem_bytes=16 combiner=add
func.func @reduction_i128() {
  %c0 = arith.constant 0 : index
  %czero = arith.constant 0 : i128
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x4096xi128>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi128>>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [8, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x4096xi128>> -> tensor<8x4096xi128>
  %3 = tensor.empty() : tensor<8xi128>
  %4 = linalg.fill ins(%czero : i128) outs(%3 : tensor<8xi128>) -> tensor<8xi128>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<8x4096xi128>) outs(%4 : tensor<8xi128>) {
  ^bb0(%in: i128, %out: i128):
    %6 = arith.addi %in, %out : i128
    linalg.yield %6 : i128
  } -> tensor<8xi128>
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [0], sizes = [8], strides = [1] : tensor<8xi128> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi128>>
  return
}
