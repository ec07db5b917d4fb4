// Type aliases as IREE's test dispatches write them (tests/cli.sh,
// tests/test_import.c): !A and !B stand for the operand types in op types,
// binding types and the store.  It must simulate exactly as the written-out
// dispatch does.
!A = tensor<512x1024xf32>
!B = tensor<512xf32>
!in_t = !iree_tensor_ext.dispatch.tensor<readonly:!A>
func.func @rowsum_alias_512x1024() {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !in_t
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:!B>
  %2 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [512, 1024], strides = [1, 1] : !in_t -> !A
  %3 = tensor.empty() : !B
  %4 = linalg.fill ins(%cst : f32) outs(%3 : !B) -> !B
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : !A) outs(%4 : !B) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> !B
  iree_tensor_ext.dispatch.tensor.store %5, %1, offsets = [0], sizes = [512], strides = [1] : !B -> !iree_tensor_ext.dispatch.tensor<writeonly:!B>
  return
}
