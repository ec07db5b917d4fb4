// An f16 matvec accumulated in f32 whose threads read both operands 2 wide
// (thread = [0, 2]): each accumulator's 2 packed products are an f32 FMA
// chain (ContractToChainFMA), which LLVM's AMDGPU backend may fuse into one
// v_dot2_f32_f16 (SIISelLowering.cpp performFMACombine: two lanes of two
// different <2 x half> values, AllowFPOpFusion::Fast).  lanescope computes
// the two FMAs and says so (tests/cli.sh).
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 2], workgroup = [1, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64>
func.func @matvec_pairs(%mat: tensor<8x1024xf16>, %vec: tensor<1024xf16>) -> tensor<8xf32> attributes {translation_info = #translation} {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mat, %vec : tensor<8x1024xf16>, tensor<1024xf16>) outs(%f : tensor<8xf32>) attrs = {lowering_config = #config} {
  ^bb0(%a: f16, %b: f16, %out: f32):
    %x = arith.extf %a : f16 to f32
    %y = arith.extf %b : f16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
