// Seed 001 (iree_codegen): xor_shuffle with per_phase = 2 keeps each shuffle for two rows.
// Run: lanescope explain examples/seed001_xor_shuffle_phase2.mlir
#swizzle = #iree_codegen.xor_shuffle<row_width = 16, access_width = 4, row_stride = 16, per_phase = 2>
func.func @xor_shuffle_phase2(%arg0: memref<128xf32, #gpu.address_space<workgroup>>) {
  %0 = iree_codegen.swizzle_hint %arg0[#swizzle] : memref<128xf32, #gpu.address_space<workgroup>>
  return
}
