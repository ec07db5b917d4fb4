// A row sum with a dynamic row count (tensor<?x1024xf32>), as dispatches for
// dynamic shapes come: `lanescope sim FILE --dim 0=512` simulates it exactly
// as tests/data/alias_rowsum_512x1024.mlir (tests/cli.sh).
func.func @rowsum_dyn_Nx1024() {
  %n = hal.interface.constant.load layout(#pipeline_layout) ordinal(0) : index
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x1024xf32>>{%n}
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>{%n}
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [%n, 1024], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x1024xf32>>{%n} -> tensor<?x1024xf32>
  %3 = tensor.empty(%n) : tensor<?xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<?xf32>) -> tensor<?xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<?x1024xf32>) outs(%4 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<?xf32>
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [0], sizes = [%n], strides = [1] : tensor<?xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>{%n}
  return
}
