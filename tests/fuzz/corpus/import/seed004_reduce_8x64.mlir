// Seed 004 (reduction stages): the 8x64xf32 -> 8xf32 sum from check_log.mlir,
// workgroup size [64, 1, 1], subgroup size 64: one row per workgroup, one element
// per thread (thread_tile = [64]), then gpu.subgroup_reduce over 64 lanes.
// The config is the one IREE's reduction heuristic picks for it on gfx942.
#config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 64], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 1], workgroup = [1, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64>
func.func @reduce_dispatch_0_reduction_8x64_f32() attributes {translation_info = #translation} {
  %r = linalg.reduce ins(%2 : tensor<8x64xf32>) outs(%4 : tensor<8xf32>) dimensions = [1] {lowering_config = #config}
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return
}
