#r = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#e = #iree_gpu.lowering_config<{serial = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#ti = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>
func.func @norm() attributes {translation_info = #ti} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %in = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>
  %out = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>> -> tensor<64x4096xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) attrs = {lowering_config = #r} {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<64x4096xf32>, tensor<64xf32>) outs(%e2 : tensor<64x4096xf32>) attrs = {lowering_config = #e} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x4096xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : tensor<64x4096xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>
  return
}
