// A matvec with a serial `reduction` level and no partial_reduction: each
// iteration's vector.contract is distributed whole (DistributeContract), so
// a thread's 8 registers per row (2 batches x 4 elements) are one math.fma
// chain from 0, last first (ContractToChainFMA), before the subgroup
// reduce; the reduced value is then added to the carried one.  The tail
// (1000 = 3 x 256 + 232) pads.  tests/cli_cuda.sh checks the generated
// kernel against the simulator.
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], reduction = [0, 256], subgroup_basis = [[4, 1], [0, 1]], thread = [0, 4], workgroup = [4, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [128, 1, 1] subgroup_size = 32>
func.func @exp_matvec_serial(%mat: tensor<16x1000xf32>, %vec: tensor<1000xf32>) -> tensor<16xf32> attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mat, %vec : tensor<16x1000xf32>, tensor<1000xf32>) outs(%f : tensor<16xf32>) attrs = {lowering_config = #config} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %x = math.exp %in : f32
    %m = arith.mulf %x, %in_0 : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
