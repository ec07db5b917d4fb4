// An LLM-decode matvec with no M dim: 32000 x 4096 f16 weights times a
// 4096 vector, no config.  IREE's heuristic gives ROCm a local split-k of
// 8 rows per workgroup.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/config_matvec.mlir
//   (@matvec_like_no_m_dim, gfx942): its CHECK gives the config below.
// Plan facts by hand from LLVMGPUConfigureTensorLayouts.cpp (the iteration
// layout projected per operand) and GPUPackPartialReductions.cpp: the
// 512-chunk packs as 64 lanes x 8; a thread holds 8 rows x 8 elements; the
// vector, which has no row dim, is one 8-wide load; the matrix 8 of them;
// one 64-lane DPP subgroup reduce (ROCm, stride 1); one subgroup, so no
// workgroup memory.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 512], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 8], workgroup = [8, 0]}>
// PLAN 0: workgroups=4000 iterations=8 n_inputs=2 loads.0=1 width.0=8 loads.1=8 width.1=8
// PLAN 0: acc_registers=8 inner_elems=8 results_per_thread=8 body_ops=1
// PLAN 0: subgroup_reduces=1 cluster.0=64 stride.0=1 dpp.0=1 cross_subgroup=0
func.func @matvec_no_m() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf16>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32000xf16>>
  %v = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0], sizes = [4096], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf16>> -> tensor<4096xf16>
  %w = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [32000, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>> -> tensor<32000x4096xf16>
  %e = tensor.empty() : tensor<32000xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<32000xf16>) -> tensor<32000xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(n, k) -> (k)>, affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"]} ins(%v, %w : tensor<4096xf16>, tensor<32000x4096xf16>) outs(%init : tensor<32000xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<32000xf16>
  iree_tensor_ext.dispatch.tensor.store %y, %b2, offsets = [0], sizes = [32000], strides = [1] : tensor<32000xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32000xf16>>
  return
}
