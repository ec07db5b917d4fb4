// Argmax over the last dim of 32 x 4096 f32, the inits filled with -inf and
// index 0: one workgroup per row, as IREE's reduction heuristic configures
// an arg_compare (workgroup 1 on the parallel dim).
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/config_argcompare.mlir
//   (@argcompare_2d_reduce_last: VectorDistribute, partial_reduction = [0, ...,
//   workgroup = [1, 0]) and pipeline_argcompare_vector_distribute.mlir (the
//   cmpf ogt on vector<1x1x1x1x1x4xf32>, two selects, subgroup_reduce maxnumf,
//   cmpf oeq, ballot, cttz, trunci, shuffle idx).
// Config by hand from ReductionConfigUtils.cpp (docs/arg-compare-lowering.md
// §1.4): 4096 f32 -> 4 per load, 1024 threads (below the cap), chunk 4096,
// 64 lanes x 16 subgroups.
// Plan facts by hand: no packing (GPUPackPartialReductions walks linalg ops
// only), so 4 registers per thread; per element linalg.index + addi +
// index_cast (2 ops), the cmpf and two selects; the merge compares 4
// registers (3 ops each); one 64-lane ballot combine (DPP on gfx942); 16
// subgroups meet in two buffers: [1, 16 + 2] f32 and [1, 16 + 2] i32.
// TARGET: gfx942
// SUGGEST 0: #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 4096], subgroup_basis = [[1, 16], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>
// PLAN 0: argcmp=1 ballot=1 ballot_shuffles=1 workgroups=32 iterations=1 workgroup_size=1024
// PLAN 0: acc_registers=4 inner_elems=1 cmp_ops=1 index_ops=2 body_ops=5 local_reduce_ops=12
// PLAN 0: subgroup_reduces=1 cluster.0=64 dpp.0=1 cross_subgroup=1 buffer_bytes=72 index_buffer_bytes=72 index_bytes=4 hazard=0
// PLAN 0: distributed.0=vector<1x1x1x1x1x4xf32>
func.func @argmax_rows() {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i32
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x4096xf32>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32xi32>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [32, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32x4096xf32>> -> tensor<32x4096xf32>
  %4 = tensor.empty() : tensor<32xf32>
  %5 = tensor.empty() : tensor<32xi32>
  %6 = linalg.fill ins(%ninf : f32) outs(%4 : tensor<32xf32>) -> tensor<32xf32>
  %7 = linalg.fill ins(%zero : i32) outs(%5 : tensor<32xi32>) -> tensor<32xi32>
  %8:2 = iree_linalg_ext.arg_compare dimension(1)
    ins(%3 : tensor<32x4096xf32>)
    outs(%6, %7 : tensor<32xf32>, tensor<32xi32>) {
  ^bb0(%a: f32, %b: f32):
    %cmp = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %cmp : i1
  } -> tensor<32xf32>, tensor<32xi32>
  iree_tensor_ext.dispatch.tensor.store %8#0, %1, offsets = [0], sizes = [32], strides = [1] : tensor<32xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32xf32>>
  iree_tensor_ext.dispatch.tensor.store %8#1, %2, offsets = [0], sizes = [32], strides = [1] : tensor<32xi32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<32xi32>>
  return
}
