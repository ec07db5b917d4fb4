// A 1 x 4096 by 32000 x 4096 f16 matvec written with the serial `reduction`
// tiling level: each of the 32 loop iterations contracts a thread's 8
// elements and reduces them across the 16 lanes of its row inside the loop,
// folding the result into the carried accumulator.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/pipeline_vector_distribute_reduction_gfx942.mlir
//   (@matvec_fp16): its CHECK lines give `scf.for 0 to 4096 step 128`,
//   vector.contract of vector<1x1x1x1x1x8xf16>, gpu.subgroup_reduce inside
//   the loop, and workgroup_size = [64, 1, 1] subgroup_size = 64.
// Plan facts by hand: lane_basis [[1, 4, 16], [0, 1, 2]] gives 4 lanes on the
// rows and 16 on K, so a 16-lane cluster (stride 1: DPP on gfx942); no
// GPUPackPartialReductions (that pass reads partial_reduction only).
// TARGET: gfx942
// PLAN 0: serial=1 iterations=32 workgroup_size=64 subgroup_size=64 workgroups=8000
// PLAN 0: width.0=8 width.1=8 subgroup_reduces=1 cluster.0=16 stride.0=1 dpp.0=1 cross_subgroup=0
// PLAN 0: distributed.0=vector<1x1x1x1x1x8xf16> distributed.1=vector<1x1x1x1x1x8xf16>
#config = #iree_gpu.lowering_config<{workgroup = [0, 4, 0], reduction = [0, 0, 128], thread = [0, 0, 8], subgroup_basis = [[1, 1, 1], [0, 1, 2]], lane_basis = [[1, 4, 16], [0, 1, 2]]}>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64, {}>
func.func @matvec_serial() attributes {translation_info = #translation} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  %x = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [1, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>> -> tensor<1x4096xf16>
  %w = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [32000, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>> -> tensor<32000x4096xf16>
  %e = tensor.empty() : tensor<1x32000xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<1x32000xf16>) -> tensor<1x32000xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x4096xf16>, tensor<32000x4096xf16>) outs(%init : tensor<1x32000xf16>) attrs = {lowering_config = #config} {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<1x32000xf16>
  iree_tensor_ext.dispatch.tensor.store %y, %b2, offsets = [0, 0], sizes = [1, 32000], strides = [1, 1] : tensor<1x32000xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  return
}
