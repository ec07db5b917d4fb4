// Group-norm statistics: a mean and a variance over 10 x 16384 f16 values
// for each of 2 x 32 groups, widened to f32 by a producer, the variance
// reading the mean; then the normalisation.  No config.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx942.mlir
//   (@test_multiple_reduction): its CHECK gives both reductions the config
//   below, the variance (the root) with workgroup = [1, 1, 0, 0].
// Plan facts by hand: 16 subgroups x 64 lanes x 8 elements cover the
// 8192-chunk of d3 (packed 1024 x 8), d2 goes one at a time: 10 x 2 = 20
// iterations; the extf producer is inlined (f16 read 8 wide); the mean,
// divided by 163840 on the way in, is held in registers; 16 subgroups meet in
// workgroup memory: [1, 1, 16] f32 + 64 bits of padding = 72 bytes.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], partial_reduction = [0, 0, 1, 8192], subgroup_basis = [[1, 1, 1, 16], [0, 1, 2, 3]], thread = [0, 0, 1, 8]}>
// SUGGEST 1: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 64], [0, 1, 2, 3]], partial_reduction = [0, 0, 1, 8192], subgroup_basis = [[1, 1, 1, 16], [0, 1, 2, 3]], thread = [0, 0, 1, 8], workgroup = [1, 1, 0, 0]}>
// PLAN 0: workgroups=64 iterations=20 workgroup_size=1024 loads.0=1 width.0=8 body_ops=0 extended=1
// PLAN 0: subgroup_reduces=1 cluster.0=64 cross_subgroup=1 buffer_bytes=72
// PLAN 1: workgroups=64 iterations=20 n_inputs=2 loads.0=1 width.0=8 loads.1=0 intermediate.1=1
// PLAN 1: body_ops=4 cross_subgroup=1 buffer_bytes=72
func.func @group_norm_stats() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %count = arith.constant 1.638400e+05 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x32x10x16384xf16>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x32x10x16384xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0, 0, 0], sizes = [2, 32, 10, 16384], strides = [1, 1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x32x10x16384xf16>> -> tensor<2x32x10x16384xf16>
  %ef = tensor.empty() : tensor<2x32x10x16384xf32>
  %es = tensor.empty() : tensor<2x32xf32>
  %xf = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x32x10x16384xf16>) outs(%ef : tensor<2x32x10x16384xf32>) {
  ^bb0(%h: f16, %o: f32):
    %w = arith.extf %h : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x32x10x16384xf32>
  %z = linalg.fill ins(%zero : f32) outs(%es : tensor<2x32xf32>) -> tensor<2x32xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xf : tensor<2x32x10x16384xf32>) outs(%z : tensor<2x32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x32xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x32xf32>) outs(%es : tensor<2x32xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %count : f32
    linalg.yield %m : f32
  } -> tensor<2x32xf32>
  %var = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b)>, affine_map<(a, b, c, d) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xf, %mean : tensor<2x32x10x16384xf32>, tensor<2x32xf32>) outs(%z : tensor<2x32xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %d = arith.subf %v, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b)>, affine_map<(a, b, c, d) -> (a, b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mean, %var : tensor<2x32x10x16384xf16>, tensor<2x32xf32>, tensor<2x32xf32>) outs(%ef : tensor<2x32x10x16384xf32>) {
  ^bb0(%h: f16, %m: f32, %s: f32, %o: f32):
    %vv = arith.divf %s, %count : f32
    %ve = arith.addf %vv, %eps : f32
    %r = math.rsqrt %ve : f32
    %w = arith.extf %h : f16 to f32
    %c = arith.subf %w, %m : f32
    %n = arith.mulf %c, %r : f32
    linalg.yield %n : f32
  } -> tensor<2x32x10x16384xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %b1, offsets = [0, 0, 0, 0], sizes = [2, 32, 10, 16384], strides = [1, 1, 1, 1] : tensor<2x32x10x16384xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x32x10x16384xf32>>
  return
}
