// An f16 row max on NVIDIA: one subgroup of 32 lanes per row, 8 f16 a load
// (packed inner elements, folded from the identity each iteration), 4 loads
// an iteration (the thread reduce folds the 4 batch registers).  Both folds
// are llvm.vector.reduce.fmaximum, unordered: LLVM folds the vector's halves
// (max.NaN.f16x2 pairs on sm_80 and later), and the generated CUDA keeps
// that order.
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 1024], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 8], workgroup = [1, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [32, 1, 1] subgroup_size = 32>
func.func @rowmax_f16_8x2048() attributes {translation_info = #translation} {
  %cst = arith.constant 0xFC00 : f16
  %3 = tensor.empty() : tensor<8xf16>
  %4 = linalg.fill ins(%cst : f16) outs(%3 : tensor<8xf16>) -> tensor<8xf16>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<8x2048xf16>) outs(%4 : tensor<8xf16>) attrs = {lowering_config = #config} {
  ^bb0(%in: f16, %out: f16):
    %7 = arith.maximumf %in, %out : f16
    linalg.yield %7 : f16
  } -> tensor<8xf16>
  return
}
