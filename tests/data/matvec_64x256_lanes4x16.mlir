#config = #iree_gpu.lowering_config<{lane_basis = [[4, 16], [0, 1]], partial_reduction = [0, 64], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 2], workgroup = [8, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [128, 1, 1] subgroup_size = 64>
func.func @matvec_64x256(%mat: tensor<64x256xf16>, %vec: tensor<256xf16>) -> tensor<64xf16> attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<64xf16>
  %f = linalg.fill ins(%cst : f16) outs(%e : tensor<64xf16>) -> tensor<64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mat, %vec : tensor<64x256xf16>, tensor<256xf16>) outs(%f : tensor<64xf16>) attrs = {lowering_config = #config} {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %m = arith.mulf %in, %in_0 : f16
    %s = arith.addf %m, %out : f16
    linalg.yield %s : f16
  } -> tensor<64xf16>
  return %r : tensor<64xf16>
}
