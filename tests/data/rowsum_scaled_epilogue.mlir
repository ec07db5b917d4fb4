// Row sums of 64 x 4096 f32 scaled by a per-row factor after the reduce: an
// elementwise op on the sums and a [64] tensor, stored in their place (an
// epilogue of the dispatch's one kernel: no loop of its own).  No config.
func.func @rowsum_scaled() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %in = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>
  %sb = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>>
  %out = hal.interface.binding.subspan layout(#l) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>> -> tensor<64x4096xf32>
  %scale = iree_tensor_ext.dispatch.tensor.load %sb, offsets = [0], sizes = [64], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>> -> tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s, %scale : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  return
}
