// A min and a max of every row of 2048 x 1024 f32 in one linalg.generic with
// two results (the form of IREE's @minmax_reduction test), inits filled with
// +inf and -inf.  No config: IREE's heuristic chooses it.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/Common/GPU/test/gpu_apply_padding_partial_reduction.mlir
//   (@minmax_reduction: the two-result body), and the route IREE takes for
//   it in LLVMGPU/KernelConfig.cpp setRootConfig: setReductionConfig fails
//   at checkSingleCombiner (Dialect/GPU/TargetUtils/ReductionConfigUtils.cpp:
//   a second init reduced by a single combiner), no convolution, transpose or
//   argmax-ukernel config applies, so setTileAndFuseLoweringConfig
//   (Dialect/GPU/TargetUtils/ConfigUtils.cpp) gives the config.
// Config by hand (distributeToThreads with 64 threads, no loss): one
// partitionable loop d0 = 2048; the widest permuted input is f32, so 128/32 =
// 4 elements a vector and the first candidate is 4 x 64 = 256, which divides
// 2048 and leaves 8 > 2 workgroups: workgroup d0 = 256, thread d0 = 4, 64
// threads, all distributed.  Reduction tiling: 1024 % 4 == 0 -> 4.
// Plan facts by hand: 2048 / 256 = 8 workgroups of 64 threads, each thread
// walks its 4 rows' 1024 elements 4 at a time (256 iterations, one
// transfer_read of the 4 x 4 f32 tile: 16 elements, which the backend issues
// as 4 row reads of 16 bytes), no lane, subgroup or workgroup-memory combine.
// Each result is its own problem with its own combiner and its own init.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [256, 0]}>
// SUGGEST 1: #iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [256, 0]}>
// PLAN 0: workgroups=8 workgroup_size=64 subgroup_size=64 iterations=256 loads.0=1 width.0=16
// PLAN 0: subgroup_reduces=0 cross_subgroup=0 combiner=minimumf
// PLAN 1: workgroups=8 workgroup_size=64 iterations=256 subgroup_reduces=0 cross_subgroup=0
// PLAN 1: combiner=maximumf
func.func @minmax_rows() {
  %c0 = arith.constant 0 : index
  %pinf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x1024xf32>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf32>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0], sizes = [2048, 1024], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2048x1024xf32>> -> tensor<2048x1024xf32>
  %e = tensor.empty() : tensor<2048xf32>
  %lo = linalg.fill ins(%pinf : f32) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  %hi = linalg.fill ins(%ninf : f32) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2048x1024xf32>) outs(%lo, %hi : tensor<2048xf32>, tensor<2048xf32>) {
  ^bb0(%in: f32, %mn: f32, %mx: f32):
    %a = arith.minimumf %in, %mn : f32
    %b = arith.maximumf %in, %mx : f32
    linalg.yield %a, %b : f32, f32
  } -> (tensor<2048xf32>, tensor<2048xf32>)
  iree_tensor_ext.dispatch.tensor.store %r#0, %b1, offsets = [0], sizes = [2048], strides = [1] : tensor<2048xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf32>>
  iree_tensor_ext.dispatch.tensor.store %r#1, %b2, offsets = [0], sizes = [2048], strides = [1] : tensor<2048xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2048xf32>>
  return
}
