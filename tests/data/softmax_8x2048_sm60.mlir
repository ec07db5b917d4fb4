func.func @softmax_8x2048() {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xf32>>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x2048xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [8, 2048], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x2048xf32>> -> tensor<8x2048xf32>
  %e = tensor.empty() : tensor<8x2048xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<8x2048xf32>) outs(%e : tensor<8x2048xf32>) -> tensor<8x2048xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0, 0], sizes = [8, 2048], strides = [1, 1] : tensor<8x2048xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x2048xf32>>
  return
}
