// Seed 001 (iree_codegen): xor_shuffle with row_width = 16, access_width = 4, per_phase = 1.
// Block j of row i moves to ((i / per_phase) % 4) XOR j.
// Run: lanescope explain examples/seed001_xor_shuffle.mlir
func.func @xor_shuffle(%arg0: memref<64xf32, #gpu.address_space<workgroup>>) {
  %0 = iree_codegen.swizzle_hint %arg0[#iree_codegen.xor_shuffle<16, 4>] : memref<64xf32, #gpu.address_space<workgroup>>
  return
}
