// A row sum over a gather-like producer on MI300: the elementwise op reads
// its values with tensor.extract at the loop coordinates (linalg.index 0
// and 1), which IREE fuses into the reduction like any producer; the
// extract is then a read of %src through the identity map.  Its own input
// (%idx) is never read by its body.  No config.
// SOURCE: @test_gather_config of iree-org/iree
//   compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx942.mlir
//   (its CHECK lines: VectorDistribute, 64 threads, subgroup 64, and no
//   lowering_config on the gather), 1024 rows instead of 4096.  The config
//   by hand from setReductionConfig (ReductionConfigUtils.cpp): reduction
//   64, subgroup 64; bit width 32 from the largest operand, the gathered
//   1024 x 64 f32 %g, so 128 / 32 = 4 a load, halved until 64 / TL is a
//   multiple of 64: TL = 1; one 64-thread workgroup a row.
// Plan facts by hand: 1024 workgroups, one iteration (loop elided), one
// input (%src) read 1 element a thread.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 64], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 1], workgroup = [1, 0]}>
// PLAN 0: workgroups=1024 iterations=1 workgroup_size=64 subgroup_size=64 n_inputs=1
// PLAN 0: loads.0=1 width.0=1 subgroup_reduces=1 cluster.0=64 stride.0=1 dpp.0=1 cross_subgroup=0
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @gather_rowsum() {
  %c0 = arith.constant 0 : index
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024xi64>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x64xf32>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1024xf32>>
  %idx = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0], sizes = [1024], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024xi64>> -> tensor<1024xi64>
  %src = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0], sizes = [1024, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x64xf32>> -> tensor<1024x64xf32>
  %e = tensor.empty() : tensor<1024x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<1024xi64>) outs(%e : tensor<1024x64xf32>) {
  ^bb0(%i: i64, %out: f32):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %v = tensor.extract %src[%r, %c] : tensor<1024x64xf32>
    linalg.yield %v : f32
  } -> tensor<1024x64xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%g : tensor<1024x64xf32>) outs(%e2 : tensor<1024xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %b2, offsets = [0], sizes = [1024], strides = [1] : tensor<1024xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1024xf32>>
  return
}
