// Seed 000 (lowering configs), Example 2:
//   iteration space [d0 = parallel(1152), d1 = reduction(384)]
//   lane_basis [[16, 4], [1, 0]]: 16 lanes on d1 (the reduction), 4 lanes on d0.
//   Two subgroups along d1, 128 threads per workgroup, 16 rows per workgroup.
//   (The seed says "1152 / 32 = 36 loop iterations"; the loop runs over the
//    reduction dim, so it is 384 / 32 = 12 iterations.)
// Thread 42 works at [d0 = 2, d1 = 10]:  lanescope explain examples/seed000_example2.mlir --thread 42
#config = #iree_gpu.lowering_config<{lane_basis = [[16, 4], [1, 0]], partial_reduction = [0, 32], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 1], workgroup = [16, 0], reduction = [0, 0]}>
#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [128, 1, 1] subgroup_size = 64>
#executable_target_rocm_hsaco_fb = #hal.executable.target<"rocm", "rocm-hsaco-fb", {abi = "hip", iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<MFMA_F32_16x16x4_F32>, <MFMA_F32_16x16x16_F16>, <MFMA_F32_32x32x8_F16>], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536, max_workgroup_counts = [2147483647, 2147483647, 2147483647], max_load_instruction_bits = 128, simds_per_wgp = 4, vgpr_space_bits = 16384>, chip = <wgp_count = 304, sku = "mi300x">>, ukernels = "none"}>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
hal.executable private @example2 {
  hal.executable.variant public @rocm_hsaco_fb target(#executable_target_rocm_hsaco_fb) {
    hal.executable.export public @example2_max_1152x384 ordinal(0) layout(#pipeline_layout)
    builtin.module {
      func.func @example2_max_1152x384() attributes {translation_info = #translation} {
        %cst = arith.constant 0xFF800000 : f32
        %3 = tensor.empty() : tensor<1152xf32>
        %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1152xf32>) -> tensor<1152xf32>
        %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<1152x384xf32>) outs(%4 : tensor<1152xf32>) attrs =  {lowering_config = #config} {
        ^bb0(%in: f32, %out: f32):
          %6 = arith.maxnumf %in, %out : f32
          linalg.yield %6 : f32
        } -> tensor<1152xf32>
        return
      }
    }
  }
}
