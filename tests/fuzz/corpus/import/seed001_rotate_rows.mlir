// Seed 001 (iree_codegen): rotate_rows with row_width = 16, access_width = 4.
// Block j of row i moves to (i + j) % 4.
// Run: lanescope explain examples/seed001_rotate_rows.mlir
func.func @rotate_rows(%arg0: memref<64xf32, #gpu.address_space<workgroup>>) {
  %0 = iree_codegen.swizzle_hint %arg0[#iree_codegen.rotate_rows<16, 4>] : memref<64xf32, #gpu.address_space<workgroup>>
  return
}
