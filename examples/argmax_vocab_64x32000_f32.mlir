// Greedy sampling in LLM decode: the argmax over a 32000-entry vocabulary for
// 64 sequences (iree_linalg_ext.arg_compare with a strict ogt: the first
// occurrence wins in the op's semantics).  No config: `suggest` gives
// IREE's, one workgroup of one subgroup per row, 125 iterations of 256.
// `sim` reports where IREE's lowering breaks ties differently from the
// op's first-index semantics.
func.func @argmax_vocab_64x32000() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %izero = arith.constant 0 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x32000xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xi32>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [64, 32000], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x32000xf32>> -> tensor<64x32000xf32>
  %4 = tensor.empty() : tensor<64xf32>
  %5 = tensor.empty() : tensor<64xi32>
  %6 = linalg.fill ins(%ninf : f32) outs(%4 : tensor<64xf32>) -> tensor<64xf32>
  %7 = linalg.fill ins(%izero : i32) outs(%5 : tensor<64xi32>) -> tensor<64xi32>
  %8:2 = iree_linalg_ext.arg_compare dimension(1)
    ins(%3 : tensor<64x32000xf32>)
    outs(%6, %7 : tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%a: f32, %b: f32):
    %cmp = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %cmp : i1
  } -> tensor<64xf32>, tensor<64xi32>
  iree_tensor_ext.dispatch.tensor.store %8#0, %1, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  iree_tensor_ext.dispatch.tensor.store %8#1, %2, offsets = [0], sizes = [64], strides = [1] : tensor<64xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xi32>>
  return
}
