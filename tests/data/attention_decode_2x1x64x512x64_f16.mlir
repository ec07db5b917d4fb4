// A small decode attention (2 heads, 512 keys, head dim 64, f16) with no
// config: IREE's setAttentionReductionConfig decides it.  Small enough for
// `lanescope sweep` to try every seed in a test.
func.func @attention_decode_2x1x64x512x64(%q: tensor<2x1x64xf16>, %k: tensor<2x512x64xf16>, %v: tensor<2x512x64xf16>, %o: tensor<2x1x64xf16>) -> tensor<2x1x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %r = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>,
                                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>,
                                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>,
                                                   affine_map<(d0, d1, d2, d3, d4) -> ()>,
                                                   affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]}
      ins(%q, %k, %v, %scale : tensor<2x1x64xf16>, tensor<2x512x64xf16>, tensor<2x512x64xf16>, f16)
      outs(%o : tensor<2x1x64xf16>) {
    ^bb0(%score: f32):
      iree_linalg_ext.yield %score : f32
  } -> tensor<2x1x64xf16>
  return %r : tensor<2x1x64xf16>
}
