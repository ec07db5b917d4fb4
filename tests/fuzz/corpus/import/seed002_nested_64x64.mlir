// Seed 002 (iree_vector_ext): the full example. vector<64x64xf16> over 2 subgroups
// (thread_strides [1, 16]) gives each thread a vector<2x16>; with 4 subgroups on the
// hardware, subgroups 2 and 3 hold the same data as 0 and 1.
// Run: lanescope explain examples/seed002_nested_64x64.mlir --thread 16 --subgroups 4
#layout = #iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], outer_tile = [1, 1], thread_tile = [16, 4], element_tile = [1, 4], subgroup_strides = [1, 0], thread_strides = [1, 16]>
func.func @to_layout_64x64(%arg0: vector<64x64xf16>) -> vector<64x64xf16> {
  %0 = iree_vector_ext.to_layout %arg0 to layout(#layout) : vector<64x64xf16>
  return %0 : vector<64x64xf16>
}
