// Row sum, 512 x 10240 f32, no config: IREE's heuristic chooses it.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/reduction_pipeline_cuda.mlir
//   (@warp_reduction_dispatch, sm_60): its CHECK lines give the lowered loop
//   `scf.for 0 to 2560 step 256` over the packed dim (10 iterations), reads of
//   vector<1x4xf32>, `gpu.subgroup_reduce add ... cluster(size = 32)` and the
//   workgroup buffer memref<1x10xf32> (8 subgroups + 64 bits of padding);
//   the thread's vector.multi_reduction reads vector<1x1x1x1x1x1x1x1x4xf32>.
// TARGET: sm_60
// PLAN 0: iterations=10 loads.0=1 width.0=4 subgroup_reduces=1 cluster.0=32 stride.0=1
// PLAN 0: cross_subgroup=1 buffer_bytes=40 workgroup_size=256 subgroup_size=32 workgroups=512
// PLAN 0: distributed.0=vector<1x1x1x1x1x1x1x1x4xf32>
func.func @row_sum_512x10240() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<512x10240xf32>>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [512, 10240], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<512x10240xf32>> -> tensor<512x10240xf32>
  %e = tensor.empty() : tensor<512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x10240xf32>) outs(%init : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  iree_tensor_ext.dispatch.tensor.store %sum, %out, offsets = [0], sizes = [512], strides = [1] : tensor<512xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<512xf32>>
  return
}
