// att32_slots4_serial: decode attention, 32 heads, 8192 keys, head dim 128, f16.
// Config: 4 key slots a thread, reduced over K2 every step: a tree of the 4 scores' max, chains of their sums and PV.
#pipeline_layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>
]>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 32>
func.func @att32_slots4_serial() attributes {translation_info = #translation} {
  %scale = arith.constant 8.837890e-02 : f16
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x1x128xf16>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x8192x128xf16>>
  %2 = hal.interface.binding.subspan layout(#pipeline_layout) binding(2) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x8192x128xf16>>
  %3 = hal.interface.binding.subspan layout(#pipeline_layout) binding(3) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32x1x128xf16>>
  %q = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0, 0], sizes = [32, 1, 128], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x1x128xf16>> -> tensor<32x1x128xf16>
  %k = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0, 0], sizes = [32, 8192, 128], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x8192x128xf16>> -> tensor<32x8192x128xf16>
  %v = iree_tensor_ext.dispatch.tensor.load %2, offsets = [0, 0, 0], sizes = [32, 8192, 128], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x8192x128xf16>> -> tensor<32x8192x128xf16>
  %out = tensor.empty() : tensor<32x1x128xf16>
  %o = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>],
      lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0, 0, 32], reduction = [0, 0, 0, 512, 0]}>,
      decomposition_config = {qk_attrs = {lowering_config = #iree_gpu.lowering_config<{thread = [0, 0, 8, 4], lane_basis = [[1, 1, 1, 2, 16], [1, 0, 3, 4]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 2, 4]]}>}, pv_attrs = {lowering_config = #iree_gpu.lowering_config<{thread = [0, 0, 4, 8], lane_basis = [[1, 1, 1, 2, 16], [1, 0, 4, 3]], subgroup_basis = [[1, 1, 1, 1, 8], [0, 1, 4, 3]]}>}}}
      ins(%q, %k, %v, %scale : tensor<32x1x128xf16>, tensor<32x8192x128xf16>, tensor<32x8192x128xf16>, f16)
      outs(%out : tensor<32x1x128xf16>) {
    ^bb0(%score: f32):
      iree_linalg_ext.yield %score : f32
  } -> tensor<32x1x128xf16>
  iree_tensor_ext.dispatch.tensor.store %o, %3, offsets = [0, 0, 0], sizes = [32, 1, 128], strides = [1, 1, 1] : tensor<32x1x128xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32x1x128xf16>>
  return
}
