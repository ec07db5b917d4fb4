// A 1 x 4096 row times a 32000 x 4096 f16 matrix with the matrix promoted
// through workgroup memory: IREE's own pipeline test, config given.
// SOURCE: iree-org/iree compiler/src/iree/compiler/Codegen/LLVMGPU/test/ROCDL/
//   pipeline_vector_distribute_reduction_gfx942.mlir (@matvec_fp16_promote_rhs),
//   whose CHECK lines give `memref.alloc() : memref<4x516xf16,
//   #gpu.address_space<workgroup>>` and `scf.for ... %c0 to %c4096 step %c512`.
// Plan facts by hand: workgroup = [0, 4, 0] gives 32000 / 4 = 8000 workgroups;
// the `reduction` level tiles d2 by 512: 4096 / 512 = 8 iterations, the
// subgroup reduce inside the loop; subgroup_basis puts the 4 subgroups on the
// 4 rows, lane_basis 64 lanes x thread 8 on the 512-chunk: one 8-wide read of
// each operand per thread, one 64-lane DPP reduce.  promote_operands = [1]
// (GPUVectorAlloc.cpp): the 4 x 512 tile of %4, copied by 256 threads;
// deriveThreadTileSizes gives 128 / 16 = 8 elements (2048 / 256 = 8 too),
// getDerivedThreadLayout 64 threads along the 64 vectors of a row and 4 on
// the rows: one 8-wide copy read per thread.  GPUReduceBankConflicts pads by
// 64 / 16 = 4 elements: 4 x 516 x 2 = 4128 bytes.
// No partial_reduction: DistributeContract's local vector.contract takes the
// thread's 8 registers (`vector<1x1x1x1x1x8xf16> into vector<1x1x1x1x1x1xf16>`
// in the CHECK lines), which ContractToChainFMA (LLVMGPUVectorLowering.cpp)
// makes one chain of 8 f16 FMAs from 0: one accumulator, nothing left for the
// thread reduce before the gpu.subgroup_reduce.
// TARGET: gfx942
// PLAN 0: workgroups=8000 iterations=8 workgroup_size=256 subgroup_size=64 serial=1
// PLAN 0: loads.0=1 width.0=8 loads.1=1 width.1=8 promoted.0=0 promoted.1=1
// PLAN 0: copy_loads.1=1 copy_width.1=8 promote_bytes.1=4128 promote_alloc.1=memref<4x516xf16,#gpu.address_space<workgroup>>
// PLAN 0: subgroup_reduces=1 cluster.0=64 stride.0=1 dpp.0=1 cross_subgroup=0 acc_registers=1 inner_elems=1 results_per_thread=1 local_reduce_ops=0
#executable_target_rocm = #hal.executable.target<"rocm", "rocm-hsaco-fb">
#config = #iree_gpu.lowering_config< {workgroup = [0, 4, 0],
                                reduction = [0, 0, 512],
                                thread = [0, 0, 8],
                                subgroup_basis = [[1, 4, 1], [0, 1, 2]],
                                lane_basis = [[1, 1, 64], [0, 1, 2]],
                                promote_operands = [1]}
>
#translation = #iree_codegen.translation_info< pipeline = #iree_gpu.pipeline<VectorDistribute>
                                         workgroup_size = [256, 1, 1]
                                         subgroup_size = 64, {}>
#pipeline_layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer>
]>
func.func @matvec_fp16_promote_rhs() attributes {hal.executable.target = #executable_target_rocm, translation_info = #translation} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>>
  %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>>
  %2 = hal.interface.binding.subspan layout(#pipeline_layout) binding(2) alignment(64) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  %3 = iree_tensor_ext.dispatch.tensor.load %0, offsets = [0, 0], sizes = [1, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf16>> -> tensor<1x4096xf16>
  %4 = iree_tensor_ext.dispatch.tensor.load %1, offsets = [0, 0], sizes = [32000, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<32000x4096xf16>> -> tensor<32000x4096xf16>
  %5 = tensor.empty() : tensor<1x32000xf16>
  %6 = linalg.fill ins(%cst : f16) outs(%5 : tensor<1x32000xf16>) -> tensor<1x32000xf16>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4 : tensor<1x4096xf16>, tensor<32000x4096xf16>) outs(%6 : tensor<1x32000xf16>) attrs = { lowering_config = #config } {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %8 = arith.mulf %in, %in_0 : f16
    %9 = arith.addf %out, %8 : f16
    linalg.yield %9 : f16
  } -> tensor<1x32000xf16>
  iree_tensor_ext.dispatch.tensor.store %7, %2, offsets = [0, 0], sizes = [1, 32000], strides = [1, 1] : tensor<1x32000xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<1x32000xf16>>
  return
}
