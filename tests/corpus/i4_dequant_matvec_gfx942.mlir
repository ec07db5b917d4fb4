// An int4 weight-only-quantised decode matvec on MI300: 2048 x 32 x 128 i4
// weights, one f16 scale and zero point per group of 128, dequantised by an
// elementwise producer (extui, uitofp, subf, mulf) that IREE fuses into the
// reduction's tile, times a 32 x 128 f16 vector; no config.
// SOURCE: @i4_dequant_matvec of iree-org/iree
//   compiler/src/iree/compiler/Codegen/LLVMGPU/test/config_matvec.mlir,
//   with 2048 rows instead of 4096.  Config by hand from setReductionConfig
//   (Dialect/GPU/TargetUtils/ReductionConfigUtils.cpp): the last reduction
//   dim is 128, which subgroup 64 divides; bit width 16 from the largest
//   operand (the dequantised f16 weights), so 128 / 16 = 8 a load, halved
//   until 128 / TL is a multiple of 64: TL = 2; a 64-thread workgroup;
//   ROCm's local split-k: the largest power of two below 64 / 4 = 16
//   dividing 2048 is 8 rows a workgroup; partial_reduction gcd(64 x 2, 128).
// Plan facts by hand: 2048 / 8 = 256 workgroups, 32 x 128 / 128 = 32
// iterations; the vector one 2-wide load; the packed weights 8 loads (one a
// row) of 2 i4 (one byte); the scales and zero points 8 loads of 1; 8
// accumulators; one 64-lane DPP reduce; body ops: extui, uitofp, subf and
// two mulf.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 1, 128], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 1, 2], workgroup = [8, 0, 0]}>
// PLAN 0: workgroups=256 iterations=32 workgroup_size=64 subgroup_size=64 n_inputs=4
// PLAN 0: loads.0=1 width.0=2 loads.1=8 width.1=2 loads.2=8 width.2=1 loads.3=8 width.3=1
// PLAN 0: acc_registers=8 subgroup_reduces=1 cluster.0=64 stride.0=1 dpp.0=1 cross_subgroup=0 body_ops=5
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @i4_dequant_matvec() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32x128xi4>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32xf16>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32xf16>>
  %b3 = hal.interface.binding.subspan layout(#layout) binding(3) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x128xf16>>
  %b4 = hal.interface.binding.subspan layout(#layout) binding(4) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf16>>
  %q = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0, 0], sizes = [2048, 32, 128], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32x128xi4>> -> tensor<2048x32x128xi4>
  %scale = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [2048, 32], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32xf16>> -> tensor<2048x32xf16>
  %zp = iree_tensor_ext.dispatch.tensor.load %b2, offsets = [0, 0], sizes = [2048, 32], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x32xf16>> -> tensor<2048x32xf16>
  %x = iree_tensor_ext.dispatch.tensor.load %b3, offsets = [0, 0], sizes = [32, 128], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x128xf16>> -> tensor<32x128xf16>
  %e_out = tensor.empty() : tensor<2048xf16>
  %e_w = tensor.empty() : tensor<2048x32x128xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e_out : tensor<2048xf16>) -> tensor<2048xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %scale, %zp : tensor<2048x32x128xi4>, tensor<2048x32xf16>, tensor<2048x32xf16>) outs(%e_w : tensor<2048x32x128xf16>) {
  ^bb0(%in: i4, %s: f16, %z: f16, %out: f16):
    %u = arith.extui %in : i4 to i32
    %f = arith.uitofp %u : i32 to f16
    %c = arith.subf %f, %z : f16
    %d = arith.mulf %c, %s : f16
    linalg.yield %d : f16
  } -> tensor<2048x32x128xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x, %w : tensor<32x128xf16>, tensor<2048x32x128xf16>) outs(%init : tensor<2048xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %s2 = arith.addf %p, %acc : f16
    linalg.yield %s2 : f16
  } -> tensor<2048xf16>
  iree_tensor_ext.dispatch.tensor.store %y, %b4, offsets = [0], sizes = [2048], strides = [1] : tensor<2048xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf16>>
  return
}
