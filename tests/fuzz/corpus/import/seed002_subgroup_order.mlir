// Seed 002 (iree_vector_ext): subgroup_tile = [4, 2], subgroup_strides = [1, 4] orders the
// subgroups 0, 4, 1, 5, 2, 6, 3, 7; on hardware with 4 subgroups: 0, 0, 1, 1, 2, 2, 3, 3.
// Run: lanescope explain examples/seed002_subgroup_order.mlir --subgroups 4
func.func @subgroup_order(%arg0: vector<4x2xf16>) -> vector<4x2xf16> {
  %0 = iree_vector_ext.to_layout %arg0 to layout(#iree_vector_ext.nested_layout<subgroup_tile = [4, 2], batch_tile = [1, 1], outer_tile = [1, 1], thread_tile = [1, 1], element_tile = [1, 1], subgroup_strides = [1, 4], thread_strides = [0, 0]>) : vector<4x2xf16>
  return %0 : vector<4x2xf16>
}
