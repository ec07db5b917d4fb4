// A full reduction to a scalar (tensor<f32>, an init map with no results):
// no parallel dims, one workgroup.  Eight 32-lane subgroups split the 8192
// elements, eight partial-reduction iterations of 1024; a maximumf
// combiner.  tests/cli.sh and tests/cli_cuda.sh (--emulate).
#config = #iree_gpu.lowering_config<{workgroup = [0, 0], thread = [1, 4], partial_reduction = [1, 1024], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 8], [0, 1]]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [256, 1, 1] subgroup_size = 32>
func.func @max_1x8192() attributes {translation_info = #translation} {
  %cst = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x8192xf32>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<f32>>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [1, 8192], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x8192xf32>> -> tensor<1x8192xf32>
  %3 = tensor.empty() : tensor<f32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<f32>) -> tensor<f32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%2 : tensor<1x8192xf32>) outs(%4 : tensor<f32>) attrs = {lowering_config = #config} {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.maximumf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<f32>
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [], sizes = [], strides = [] : tensor<f32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<f32>>
  return
}
