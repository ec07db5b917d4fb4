// A 1 x 4096 row times a transposed 32000 x 4096 f16 matrix, no config, on
// RDNA3 (wave32).
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/config_matvec.mlir
//   (@vmt2, run for gfx1100): its CHECK gives the config below.
// Plan facts by hand: 4 rows per workgroup, 32 lanes x 8 elements per
// 256-chunk (16 iterations); the row operand one 8-wide load, the matrix 4;
// one 32-lane subgroup reduce, lowered to DPP (ROCm, stride 1).
// TARGET: gfx1100
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 32], [0, 1, 2]], partial_reduction = [0, 0, 256], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, 8], workgroup = [1, 4, 0]}>
// PLAN 0: workgroups=8000 iterations=16 workgroup_size=32 subgroup_size=32
// PLAN 0: loads.0=1 width.0=8 loads.1=4 width.1=8 acc_registers=4 results_per_thread=4
// PLAN 0: subgroup_reduces=1 cluster.0=32 stride.0=1 dpp.0=1 cross_subgroup=0 body_ops=1
func.func @vecmat_t() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  %a = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [1, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>> -> tensor<1x4096xf16>
  %w = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [32000, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>> -> tensor<32000x4096xf16>
  %e = tensor.empty() : tensor<1x32000xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<1x32000xf16>) -> tensor<1x32000xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<1x4096xf16>, tensor<32000x4096xf16>) outs(%init : tensor<1x32000xf16>) {
  ^bb0(%x: f16, %y2: f16, %acc: f16):
    %p = arith.mulf %x, %y2 : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<1x32000xf16>
  iree_tensor_ext.dispatch.tensor.store %y, %b2, offsets = [0, 0], sizes = [1, 32000], strides = [1, 1] : tensor<1x32000xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  return
}
