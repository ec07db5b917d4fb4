// A matvec with neither a partial_reduction nor a reduction level: the
// whole row (200, padded to 2 batches x 32 lanes x 4 elements) is one
// vector.contract, distributed whole (DistributeContract).  Each thread holds
// 4 rows (the workgroup tile over one lane and one subgroup: 4 batches), and
// each row's 8 registers are one math.fma chain from 0, last first
// (ContractToChainFMA), with no thread reduce after it.  The last workgroup
// has 2 rows of its 4.  tests/cli_cuda.sh checks the generated kernel
// against the simulator.
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [4, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [32, 1, 1] subgroup_size = 32>
func.func @exp_matvec_whole(%mat: tensor<6x200xf32>, %vec: tensor<200xf32>) -> tensor<6xf32> attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mat, %vec : tensor<6x200xf32>, tensor<200xf32>) outs(%f : tensor<6xf32>) attrs = {lowering_config = #config} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %x = math.exp %in : f32
    %m = arith.mulf %x, %in_0 : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
