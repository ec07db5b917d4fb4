// An OCP MX (MXFP4) skinny matmul on MI355 (gfx950): 4 rows of activations
// times 1024 rows of weights, both f4E2M1FN in blocks of 32 along K with one
// f8E8M0FNU (power-of-two) scale a block, each element scaled and widened by
// arith.scaling_extf in the body; the packed operands arrive as i8 bytes
// reinterpreted by iree_tensor_ext.bitcast (two elements a byte, the lower
// index in the low nibble).  No config.
// SOURCE: @skinny_scaled_matmul of iree-org/iree
//   compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx950.mlir
//   (whose CHECK lines name VectorDistribute, 64 threads, subgroup 64).
//   The rest by hand from setReductionConfig
//   (Dialect/GPU/TargetUtils/ReductionConfigUtils.cpp): the last reduction
//   dim (32) is not a multiple of the preferred subgroup size, so the whole
//   reduction counts, 512 x 32 = 16384, which 64 divides; bit width 4 from
//   the largest operand (the f4 weights): 128 / 4 = 32 elements a load;
//   4096 parallel elements exceed the WGPs x SIMDs, so one wave (64
//   threads); partial_reduction on the last dim, gcd(64 x 32, 32) = 32, one
//   lane along it (the other 63 duplicate its work, as IREE's distribution
//   leaves them).
// Plan facts by hand: 4 x 1024 = 4096 workgroups, 512 iterations (the
// blocks); activations and weights one 32-wide (16-byte) load each, the
// scales one 1-wide load each, inputs numbered as the body first reads
// them (activations, their scale, weights, theirs); body ops: two
// scaling_extf and a mulf.
// TARGET: gfx950
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 1], [0, 1, 2, 3]], partial_reduction = [0, 0, 1, 32], subgroup_basis = [[1, 1, 1, 1], [0, 1, 2, 3]], thread = [0, 0, 1, 32], workgroup = [1, 1, 0, 0]}>
// PLAN 0: workgroups=4096 iterations=512 workgroup_size=64 subgroup_size=64 n_inputs=4
// PLAN 0: loads.0=1 width.0=32 loads.1=1 width.1=1 loads.2=1 width.2=32 loads.3=1 width.3=1 body_ops=3
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @mxfp4_matvec() {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %b0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x512x16xi8>>
  %b1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x512x16xi8>>
  %b2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x512xf8E8M0FNU>>
  %b3 = hal.interface.binding.subspan layout(#layout) binding(3) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x512xf8E8M0FNU>>
  %b4 = hal.interface.binding.subspan layout(#layout) binding(4) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x1024xf32>>
  %a_bytes = iree_tensor_ext.dispatch.tensor.load %b0, offsets = [0, 0, 0], sizes = [4, 512, 16], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x512x16xi8>> -> tensor<4x512x16xi8>
  %a = iree_tensor_ext.bitcast %a_bytes : tensor<4x512x16xi8> -> tensor<4x512x32xf4E2M1FN>
  %w_bytes = iree_tensor_ext.dispatch.tensor.load %b1, offsets = [0, 0, 0], sizes = [1024, 512, 16], strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x512x16xi8>> -> tensor<1024x512x16xi8>
  %w = iree_tensor_ext.bitcast %w_bytes : tensor<1024x512x16xi8> -> tensor<1024x512x32xf4E2M1FN>
  %sa = iree_tensor_ext.dispatch.tensor.load %b2, offsets = [0, 0], sizes = [4, 512], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x512xf8E8M0FNU>> -> tensor<4x512xf8E8M0FNU>
  %sw = iree_tensor_ext.dispatch.tensor.load %b3, offsets = [0, 0], sizes = [1024, 512], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1024x512xf8E8M0FNU>> -> tensor<1024x512xf8E8M0FNU>
  %e = tensor.empty() : tensor<4x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, ko, kb) -> (m, ko, kb)>, affine_map<(m, n, ko, kb) -> (n, ko, kb)>, affine_map<(m, n, ko, kb) -> (m, ko)>, affine_map<(m, n, ko, kb) -> (n, ko)>, affine_map<(m, n, ko, kb) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %w, %sa, %sw : tensor<4x512x32xf4E2M1FN>, tensor<1024x512x32xf4E2M1FN>, tensor<4x512xf8E8M0FNU>, tensor<1024x512xf8E8M0FNU>) outs(%init : tensor<4x1024xf32>) {
  ^bb0(%x: f4E2M1FN, %v: f4E2M1FN, %xs: f8E8M0FNU, %vs: f8E8M0FNU, %acc: f32):
    %xf = arith.scaling_extf %x, %xs : f4E2M1FN, f8E8M0FNU to f32
    %vf = arith.scaling_extf %v, %vs : f4E2M1FN, f8E8M0FNU to f32
    %p = arith.mulf %xf, %vf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x1024xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %b4, offsets = [0, 0], sizes = [4, 1024], strides = [1, 1] : tensor<4x1024xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x1024xf32>>
  return
}
