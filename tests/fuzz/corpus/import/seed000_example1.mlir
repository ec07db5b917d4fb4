// Seed 000 (lowering configs), Example 1:
//   iteration space [d0 = parallel(4), d1 = parallel(6656), d2 = reduction(16384)]
//   64 lanes along d2, 8 elements per thread per load, chunks of 512: 32 iterations,
//   a single 64-thread subgroup, 4x1 output tile per workgroup -> 6656 workgroups.
// Run: lanescope explain examples/seed000_example1.mlir --thread 5
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 0, 512], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 0, 8], workgroup = [4, 1, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 0, no_reduce_shared_memory_bank_conflicts = false>}>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @example1_sum_4x6656x16384() attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x6656x16384xf32>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x6656xf32>>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0, 0], sizes = [4, 6656, 16384], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x6656x16384xf32>> -> tensor<4x6656x16384xf32>
  %3 = tensor.empty() : tensor<4x6656xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4x6656xf32>) -> tensor<4x6656xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%2 : tensor<4x6656x16384xf32>) outs(%4 : tensor<4x6656xf32>) attrs =  {lowering_config = #config} {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<4x6656xf32>
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [0, 0], sizes = [4, 6656], strides = [1, 1] : tensor<4x6656xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x6656xf32>>
  return
}
