// An f16 row sum accumulated in f32 (arith.extf), configured for an NVIDIA
// H100 (subgroup size 32): one row per workgroup, 8 subgroups x 32 lanes on the
// reduction, 8 f16 per thread (one 16-byte load), 2048 elements per loop
// iteration (4 iterations), then the cross-subgroup stage through shared memory.
// It is what the CUDA path generates and runs:
//   lanescope measure examples/h100_rowsum_f16_2048x8192.mlir --emit-cuda
//   lanescope measure examples/h100_rowsum_f16_2048x8192.mlir     (on a GPU)
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], partial_reduction = [0, 2048], subgroup_basis = [[1, 8], [0, 1]], thread = [0, 8], workgroup = [1, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [256, 1, 1] subgroup_size = 32>
func.func @rowsum_f16_2048x8192() attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %3 = tensor.empty() : tensor<2048xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<2048xf32>) -> tensor<2048xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<2048x8192xf16>) outs(%4 : tensor<2048xf32>) attrs = {lowering_config = #config} {
  ^bb0(%in: f16, %out: f32):
    %6 = arith.extf %in : f16 to f32
    %7 = arith.addf %6, %out : f32
    linalg.yield %7 : f32
  } -> tensor<2048xf32>
  return
}
