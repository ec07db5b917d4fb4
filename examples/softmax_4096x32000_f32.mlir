// A softmax over 32000 logits for each of 4096 rows (f32), as a dispatch
// holds it before codegen.  IREE decomposes linalg.softmax first
// (DecomposeSoftmax, in the LLVMGPU configuration pipeline): a maxnumf
// reduction, a sum of exp(x - max) reading the max, and an elementwise
// divide.  `lanescope sim` times them as IREE's one kernel of three loops,
// with IREE's configs for the target (the file has none); the later loops
// read the max and the sum from registers; both reductions' values checked.
//   lanescope sim examples/softmax_4096x32000_f32.mlir --target mi300x
//   lanescope suggest examples/softmax_4096x32000_f32.mlir --target h100
func.func @softmax_4096x32000() {
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096x32000xf32>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4096x32000xf32>>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [4096, 32000], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096x32000xf32>> -> tensor<4096x32000xf32>
  %3 = tensor.empty() : tensor<4096x32000xf32>
  %4 = linalg.softmax dimension(1) ins(%2 : tensor<4096x32000xf32>) outs(%3 : tensor<4096x32000xf32>) -> tensor<4096x32000xf32>
  iree_tensor_ext.dispatch.tensor.store %4, %1, offsets = [0, 0], sizes = [4096, 32000], strides = [1, 1] : tensor<4096x32000xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4096x32000xf32>>
  return
}
