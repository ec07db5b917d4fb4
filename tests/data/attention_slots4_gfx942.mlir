// A decode attention of 4 key slots a thread (K2: 8 lanes x 4, K1 over the
// other 8 lanes), K2 tiled at the reduction level: each step's max over
// the thread's keys is one vector.reduction, a chain of v_max3_f32 on gfx942.
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64>
func.func @r(%q: tensor<2x1x32xf16>, %k: tensor<2x128x32xf16>, %v: tensor<2x128x16xf16>, %o: tensor<2x1x16xf32>, %r: tensor<2x1xf32>) attributes {translation_info = #translation} {
  %s = arith.constant 1.250000e-01 : f16
  %0:3 = iree_linalg_ext.online_attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>],
    lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0, 0, 16], reduction = [0, 0, 0, 32, 0]}>,
    decomposition_config = {qk_attrs = {lowering_config = #iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 2, 3]], lane_basis = [[1, 1, 8, 8, 1], [0, 1, 2, 3]], thread = [0, 0, 4, 4]}>}, pv_attrs = {lowering_config = #iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 3, 4]], lane_basis = [[1, 1, 8, 8, 1], [0, 1, 3, 4]], thread = [0, 0, 4, 4]}>}}
  } ins(%q, %k, %v, %s : tensor<2x1x32xf16>, tensor<2x128x32xf16>, tensor<2x128x16xf16>, f16) outs(%o, %r, %r : tensor<2x1x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  ^bb0(%x: f32):
    iree_linalg_ext.yield %x : f32
  } -> tensor<2x1x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}
