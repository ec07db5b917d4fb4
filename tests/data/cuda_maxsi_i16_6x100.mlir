// Test input for the CUDA path (tests/cli_cuda.sh): a small i16 signed-max
// reduction with a ragged tail (100 = 3 x 32 + 4), two rows per workgroup, two
// subgroups splitting the reduction (a cross-subgroup stage) and 16 lanes per row.
#config = #iree_gpu.lowering_config<{lane_basis = [[2, 16], [0, 1]], partial_reduction = [0, 64], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 2], workgroup = [2, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 32>
func.func @maxsi_i16_6x100() attributes {translation_info = #translation} {
  %cst = arith.constant -32768 : i16
  %3 = tensor.empty() : tensor<6xi16>
  %4 = linalg.fill ins(%cst : i16) outs(%3 : tensor<6xi16>) -> tensor<6xi16>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<6x100xi16>) outs(%4 : tensor<6xi16>) attrs = {lowering_config = #config} {
  ^bb0(%in: i16, %out: i16):
    %6 = arith.maxsi %in, %out : i16
    linalg.yield %6 : i16
  } -> tensor<6xi16>
  return
}
