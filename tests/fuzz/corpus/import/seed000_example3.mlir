// Seed 000 (lowering configs), Example 3:
//   iteration space [d0 = parallel(4096), d1 = reduction(32), d2 = reduction(128)]
//   d1 is walked serially one element at a time (partial_reduction 1: 32 iterations);
//   d2's chunk of 128 covers the whole dim, so its loop is elided; each thread loads
//   2 contiguous elements along d2 for each of the 8 rows of its workgroup.
// Run: lanescope explain examples/seed000_example3.mlir
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 64], [0, 1, 2]], partial_reduction = [0, 1, 128], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 1, 2], workgroup = [8, 0, 0]}>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>
func.func @example3_sum_4096x32x128() attributes {translation_info = #translation} {
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<reduction>]} ins(%2 : tensor<4096x32x128xf16>) outs(%4 : tensor<4096xf32>) attrs =  {lowering_config = #config} {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    %6 = arith.addf %e, %out : f32
    linalg.yield %6 : f32
  } -> tensor<4096xf32>
  return
}
