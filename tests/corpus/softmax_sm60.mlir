// Softmax over the last dim of 12 x 128 x 40960 f32, no config.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/reduction_pipeline_cuda.mlir
//   (@softmax, sm_60): two loops, each reading vector<1x1x4xf32>; the first
//   reduces with maxnumf, then gpu.subgroup_reduce maxnumf, a workgroup
//   barrier (several subgroups) and a second subgroup reduce; the second
//   loop computes subf / math.exp and sums.  The max is not read again
//   (it is broadcast from registers).
// TARGET: sm_60
// PLAN 0: width.0=4 combiner=maxnumf cross_subgroup=1 n_inputs=1 init_nan=1
// PLAN 1: width.0=4 combiner=add cross_subgroup=1 n_inputs=2 loads.1=0 body_ops=2 intermediate.1=1
func.func @softmax_12x128x40960() {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<12x128x40960xf32>>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<12x128x40960xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0, 0], sizes = [12, 128, 40960], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<12x128x40960xf32>> -> tensor<12x128x40960xf32>
  %e = tensor.empty() : tensor<12x128x40960xf32>
  %y = linalg.softmax dimension(2) ins(%x : tensor<12x128x40960xf32>) outs(%e : tensor<12x128x40960xf32>) -> tensor<12x128x40960xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0, 0, 0], sizes = [12, 128, 40960], strides = [1, 1, 1] : tensor<12x128x40960xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<12x128x40960xf32>>
  return
}
