// Paged decode attention: 8 sequences, 8 KV heads, head dim 128, a KV cache
// of 1024 pages of 32 tokens ([pages, heads, tokens, head dim], as vLLM lays
// it out), each sequence 64 pages (2048 slots) of which the first 2000
// tokens are live.  The key and value are gathered from their caches
// through one page table, the causal mask is computed from the token
// position -- the form of IREE's paged-attention pipeline test
// (LLVMGPU/test/ROCDL/pipeline_vector_distribute_reduction_gfx942.mlir),
// with that test's configs: 4 subgroups x 2 lanes over the pages of a
// K2 step, 32 lanes over a page's tokens, so each thread holds one key,
// its 128 head dims whole.
//
//   lanescope sim examples/attention_paged_decode_8x8x2048x128_f16.mlir --target mi300x
//   lanescope explain examples/attention_paged_decode_8x8x2048x128_f16.mlir --target mi300x
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64>
#matmul = #iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1, 4, 1], [4, 3, 2, 1, 5, 6]], thread = [0, 0, 0, 8, 0, 0], lane_basis = [[1, 1, 1, 1, 1, 2, 32], [2, 1, 0, 4, 5, 6]]}>
#attention = #iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 0, 0, 8, 0], workgroup = [1, 1, 1, 0, 0, 0, 0]}>
#pipeline_layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>
]>
func.func @paged_decode_8x8x2048x128() attributes {translation_info = #translation} {
  %scale = arith.constant 8.837890e-02 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %ninf = arith.constant 0xFC00 : f16
  %c32 = arith.constant 32 : index
  %last = arith.constant 1999 : index
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %fmin = arith.constant 0xFF800000 : f32
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8x1x128xf16>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x8x32x128xf16>>
  %2 = hal.interface.binding.subspan layout(#pipeline_layout) binding(2) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x8x32x128xf16>>
  %3 = hal.interface.binding.subspan layout(#pipeline_layout) binding(3) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x64xi64>>
  %4 = hal.interface.binding.subspan layout(#pipeline_layout) binding(4) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8x1x128xf32>>
  %q = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0, 0, 0], sizes = [8, 8, 1, 128], strides = [1, 1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8x1x128xf16>> -> tensor<8x8x1x128xf16>
  %kcache = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0, 0, 0], sizes = [1024, 8, 32, 128], strides = [1, 1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x8x32x128xf16>> -> tensor<1024x8x32x128xf16>
  %vcache = iree_tensor_ext.dispatch.tensor.load %2, offsets = [0, 0, 0, 0], sizes = [1024, 8, 32, 128], strides = [1, 1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x8x32x128xf16>> -> tensor<1024x8x32x128xf16>
  %pages = iree_tensor_ext.dispatch.tensor.load %3, offsets = [0, 0], sizes = [8, 64], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x64xi64>> -> tensor<8x64xi64>
  %e0 = tensor.empty() : tensor<8x8x1x128xf32>
  %e1 = tensor.empty() : tensor<8x8x1xf32>
  %acc = linalg.fill ins(%f0 : f32) outs(%e0 : tensor<8x8x1x128xf32>) -> tensor<8x8x1x128xf32>
  %max = linalg.fill ins(%fmin : f32) outs(%e1 : tensor<8x8x1xf32>) -> tensor<8x8x1xf32>
  %sum = linalg.fill ins(%f0 : f32) outs(%e1 : tensor<8x8x1xf32>) -> tensor<8x8x1xf32>
  %ge = tensor.empty() : tensor<8x64x8x32x128xf16>
  %k = iree_linalg_ext.gather dimension_map = [0] ins(%kcache, %pages : tensor<1024x8x32x128xf16>, tensor<8x64xi64>) outs(%ge : tensor<8x64x8x32x128xf16>) -> tensor<8x64x8x32x128xf16>
  %v = iree_linalg_ext.gather dimension_map = [0] ins(%vcache, %pages : tensor<1024x8x32x128xf16>, tensor<8x64xi64>) outs(%ge : tensor<8x64x8x32x128xf16>) -> tensor<8x64x8x32x128xf16>
  %me = tensor.empty() : tensor<8x8x1x64x32xf16>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%me : tensor<8x8x1x64x32xf16>) {
    ^bb0(%out: f16):
      %slot = linalg.index 4 : index
      %page = linalg.index 3 : index
      %first = arith.muli %page, %c32 overflow<nsw> : index
      %pos = arith.addi %slot, %first : index
      %live = arith.cmpi sle, %pos, %last : index
      %m = arith.select %live, %zero, %ninf : f16
      linalg.yield %m : f16
  } -> tensor<8x8x1x64x32xf16>
  %o:3 = iree_linalg_ext.online_attention {
      decomposition_config = {pv_attrs = {lowering_config = #matmul}, qk_attrs = {lowering_config = #matmul}},
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d1, d6, d4)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d5, d1, d6, d3)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2)>],
      lowering_config = #attention}
      ins(%q, %k, %v, %scale, %mask : tensor<8x8x1x128xf16>, tensor<8x64x8x32x128xf16>, tensor<8x64x8x32x128xf16>, f16, tensor<8x8x1x64x32xf16>)
      outs(%acc, %max, %sum : tensor<8x8x1x128xf32>, tensor<8x8x1xf32>, tensor<8x8x1xf32>) {
    ^bb0(%score: f32):
      iree_linalg_ext.yield %score : f32
  } -> tensor<8x8x1x128xf32>, tensor<8x8x1xf32>, tensor<8x8x1xf32>
  iree_tensor_ext.dispatch.tensor.store %o#0, %4, offsets = [0, 0, 0, 0], sizes = [8, 8, 1, 128], strides = [1, 1, 1, 1] : tensor<8x8x1x128xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8x1x128xf32>>
  return
}
