// A layer norm over each image of a 4 x 8192 x 3 (NHWC, 3 channels) f16
// batch, scaled per channel.  The reductions walk a transposed view
// (channels before pixels, so the pixels are innermost); the
// normalisation walks the NHWC order, with loops the reductions do not
// have in that order.  IREE's heuristic configures each op on its own
// (ReductionConfigUtils.cpp): the normalisation's channel dim of 3 takes
// one element per thread, one lane and one subgroup, so every thread of
// the workgroup computes the same element and one writes it.  No config:
// lanescope applies the heuristic's.
func.func @nhwc_norm() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %n = arith.constant 2.457600e+04 : f16
  %eps = arith.constant 9.765625e-04 : f16
  %xb = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8192x3xf16>>
  %gb = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<3xf16>>
  %ob = hal.interface.binding.subspan layout(#l) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x8192x3xf16>>
  %x = iree_tensor_ext.dispatch.tensor.load %xb, offsets = [0, 0, 0], sizes = [4, 8192, 3], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8192x3xf16>> -> tensor<4x8192x3xf16>
  %g = iree_tensor_ext.dispatch.tensor.load %gb, offsets = [0], sizes = [3], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<3xf16>> -> tensor<3xf16>
  %e0 = tensor.empty() : tensor<4xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e0 : tensor<4xf16>) -> tensor<4xf16>
  %et = tensor.empty() : tensor<4x3x8192xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(n, c, p) -> (n, p, c)>, affine_map<(n, c, p) -> (n, c, p)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x8192x3xf16>) outs(%et : tensor<4x3x8192xf16>) {
  ^bb0(%a: f16, %o: f16):
    linalg.yield %a : f16
  } -> tensor<4x3x8192xf16>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, p) -> (n, c, p)>, affine_map<(n, c, p) -> (n)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%t : tensor<4x3x8192xf16>) outs(%f : tensor<4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.addf %a, %o : f16
    linalg.yield %s : f16
  } -> tensor<4xf16>
  %sq = linalg.generic {indexing_maps = [affine_map<(n, c, p) -> (n, c, p)>, affine_map<(n, c, p) -> (n)>, affine_map<(n, c, p) -> (n)>], iterator_types = ["parallel", "reduction", "reduction"]} ins(%t, %sum : tensor<4x3x8192xf16>, tensor<4xf16>) outs(%f : tensor<4xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %m = arith.divf %s, %n : f16
    %d = arith.subf %a, %m : f16
    %d2 = arith.mulf %d, %d : f16
    %r = arith.addf %d2, %o : f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  %eo = tensor.empty() : tensor<4x8192x3xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(n, p, c) -> (n, c, p)>, affine_map<(n, p, c) -> (n)>, affine_map<(n, p, c) -> (n)>, affine_map<(n, p, c) -> (c)>, affine_map<(n, p, c) -> (n, p, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t, %sum, %sq, %g : tensor<4x3x8192xf16>, tensor<4xf16>, tensor<4xf16>, tensor<3xf16>) outs(%eo : tensor<4x8192x3xf16>) {
  ^bb0(%a: f16, %s: f16, %v: f16, %gc: f16, %o: f16):
    %m = arith.divf %s, %n : f16
    %var = arith.divf %v, %n : f16
    %ve = arith.addf %var, %eps : f16
    %r = math.rsqrt %ve : f16
    %d = arith.subf %a, %m : f16
    %nd = arith.mulf %d, %r : f16
    %out = arith.mulf %nd, %gc : f16
    linalg.yield %out : f16
  } -> tensor<4x8192x3xf16>
  iree_tensor_ext.dispatch.tensor.store %y, %ob, offsets = [0, 0, 0], sizes = [4, 8192, 3], strides = [1, 1, 1] : tensor<4x8192x3xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x8192x3xf16>>
  return
}
