// An FP8 decode matvec on MI300: 8192 x 4096 f8E4M3FNUZ weights times a
// 4096 f8E4M3FNUZ vector, both widened to f32 in the body (arith.extf), no
// config.  gfx942 is the FNUZ generation of FP8 (bias 8, NaN 0x80).
// SOURCE: the f8E4M3FNUZ contraction of iree-org/iree
//   compiler/src/iree/compiler/Codegen/LLVMGPU/test/config_matvec.mlir
//   (@test_dyn_reduction), made static and matvec-shaped.  Config by hand
//   from setReductionConfig (Dialect/GPU/TargetUtils/ReductionConfigUtils.cpp):
//   reduction 4096, subgroup 64 (divides it); bit width 8 from the largest
//   operand (the weights), so 128 / 8 = 16 elements a thread load; 4096 / 16 =
//   256 > 64 threads, so a 64-thread workgroup; ROCm's local split-k gives
//   the largest power of two below 64 / 4 = 16 dividing 8192 (8) rows a
//   workgroup; partial_reduction gcd(64 x 16, 4096) = 1024.
// Plan facts by hand: 8192 / 8 = 1024 workgroups, 4096 / 1024 = 4
// iterations; the vector one 16-wide (16-byte) load, the weights 8 of them;
// a thread accumulates 8 rows; one 64-lane DPP subgroup reduce (ROCm,
// stride 1); body ops: two extf and a mulf (the addf is the combiner).
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 1024], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, 16], workgroup = [1, 8, 0]}>
// PLAN 0: workgroups=1024 iterations=4 workgroup_size=64 subgroup_size=64
// PLAN 0: loads.0=1 width.0=16 loads.1=8 width.1=16 acc_registers=8 results_per_thread=8
// PLAN 0: subgroup_reduces=1 cluster.0=64 stride.0=1 dpp.0=1 cross_subgroup=0 body_ops=3
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @fp8_matvec() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf8E4M3FNUZ>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8192x4096xf8E4M3FNUZ>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x8192xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [1, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf8E4M3FNUZ>> -> tensor<1x4096xf8E4M3FNUZ>
  %w = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [8192, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8192x4096xf8E4M3FNUZ>> -> tensor<8192x4096xf8E4M3FNUZ>
  %e = tensor.empty() : tensor<1x8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x4096xf8E4M3FNUZ>, tensor<8192x4096xf8E4M3FNUZ>) outs(%init : tensor<1x8192xf32>) {
  ^bb0(%a: f8E4M3FNUZ, %b: f8E4M3FNUZ, %acc: f32):
    %af = arith.extf %a : f8E4M3FNUZ to f32
    %bf = arith.extf %b : f8E4M3FNUZ to f32
    %p = arith.mulf %af, %bf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8192xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %b2, offsets = [0, 0], sizes = [1, 8192], strides = [1, 1] : tensor<1x8192xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x8192xf32>>
  return
}
