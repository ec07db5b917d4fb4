// Softmax over the last dim of 12 x 256 x 40960 f32, no config: with more
// rows IREE's heuristic keeps one subgroup per workgroup, so there is no
// workgroup-memory stage.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/reduction_pipeline_cuda.mlir
//   (@softmax_singlesubgroup, sm_60): gpu.subgroup_reduce maxnumf, then a
//   vector.broadcast of the max straight into the second loop, no barrier.
// TARGET: sm_60
// PLAN 0: width.0=4 cross_subgroup=0 subgroup_reduces=1
// PLAN 1: width.0=4 cross_subgroup=0 loads.1=0 body_ops=2
func.func @softmax_12x256x40960() {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<12x256x40960xf32>>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<12x256x40960xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0, 0], sizes = [12, 256, 40960], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<12x256x40960xf32>> -> tensor<12x256x40960xf32>
  %e = tensor.empty() : tensor<12x256x40960xf32>
  %y = linalg.softmax dimension(2) ins(%x : tensor<12x256x40960xf32>) outs(%e : tensor<12x256x40960xf32>) -> tensor<12x256x40960xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0, 0, 0], sizes = [12, 256, 40960], strides = [1, 1, 1] : tensor<12x256x40960xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<12x256x40960xf32>>
  return
}
