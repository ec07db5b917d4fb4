// A 4096x4096 f32 row sum as IREE hands it to codegen: dispatch IR with no
// lowering_config.  `lanescope suggest` prints the config IREE's reduction
// heuristic picks for it (and why); `sim`, `draw` and `explain` use that
// config; `sweep` ranks it against every other valid config.
// Run: lanescope suggest examples/rowsum_4096x4096_noconfig.mlir --target mi300x
func.func @rowsum_4096x4096() {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096x4096xf32>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4096xf32>>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [4096, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096x4096xf32>> -> tensor<4096x4096xf32>
  %3 = tensor.empty() : tensor<4096xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4096xf32>) -> tensor<4096xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<4096x4096xf32>) outs(%4 : tensor<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<4096xf32>
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [0], sizes = [4096], strides = [1] : tensor<4096xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4096xf32>>
  return
}
