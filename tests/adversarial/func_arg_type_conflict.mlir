// %arg0 is declared tensor<64x255xf32> but used as tensor<64x256xf32>
#config = #iree_gpu.lowering_config<{lane_basis = [[16, 4], [1, 0]], partial_reduction = [0, 32], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 1], workgroup = [16, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [128, 1, 1] subgroup_size = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @base_64x256(%arg0: tensor<64x255xf32>) -> tensor<64xf32> attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64xf32>) -> tensor<64xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<64x256xf32>) outs(%1 : tensor<64xf32>) attrs =  {lowering_config = #config} {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<64xf32>
  return %2 : tensor<64xf32>
}
