#!/bin/sh
# cli.sh: end-to-end checks of the lanescope command line: computed values in
# each format, one-line errors with positions and exit codes, atomic output,
# and the fuzzer's regression inputs.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
LANESCOPE=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE") # sweep runs elsewhere
TRACE_CHECK=${LS_TRACE_CHECK:-$(dirname "$LANESCOPE")/tests/trace_check}
EX=${LS_EXAMPLES:-examples}
REGRESS=${LS_FUZZ_REGRESS:-tests/fuzz/regress}
DATA=$(cd "$(dirname "$0")" && pwd)/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"


# Example 2, thread 42: the seed's worked example, computed.
$LANESCOPE explain "$EX/seed000_example2.mlir" --thread 42 >"$tmp/ex2.txt" 2>"$tmp/err"
check "explain ex2 exits 0" $?
contains "ex2 thread 42 coords" "$tmp/ex2.txt" "mapping [1, 0] -> d0 = 2, d1 = 10"
contains "ex2 thread 42 loads" "$tmp/ex2.txt" "[2, 10] [6, 10] [10, 10] [14, 10]"
contains "ex2 iterations" "$tmp/ex2.txt" "partial-reduction loop: 12 iterations"
contains "ex2 workgroup" "$tmp/ex2.txt" "workgroup: 128 threads = 2 subgroups x 64 lanes; 72 workgroups"
contains "ex2 layout" "$tmp/ex2.txt" "thread_tile = [4, 16], element_tile = [1, 1], subgroup_strides = [0, 1], thread_strides = [1, 4]"
contains "ex2 reduction level read" "$tmp/ex2.txt" "workgroup = [16, 0], thread = [0, 1], partial_reduction = [0, 32], reduction = [0, 0], lane_basis"

# No INPUT: the bundled example.
$LANESCOPE explain >"$tmp/default.txt" 2>&1
check "explain without input exits 0" $?
contains "default example" "$tmp/default.txt" "@example2_max_1152x384"

# JSON and Markdown carry the same numbers.
$LANESCOPE explain "$EX/seed000_example1.mlir" --format json --thread 5 >"$tmp/ex1.json"
check "json exits 0" $?
tr -d ' \n' <"$tmp/ex1.json" >"$tmp/ex1.flat"
contains "json iterations" "$tmp/ex1.flat" '"iterations":32'
contains "json workgroups" "$tmp/ex1.flat" '"total_workgroups":6656'
contains "json per load" "$tmp/ex1.flat" '"elements_per_load":8'
contains "json thread 5 first element" "$tmp/ex1.flat" '"register":0,"coords":[0,0,40],"valid":true'
$LANESCOPE explain "$EX/seed000_example3.mlir" --format md >"$tmp/ex3.md"
contains "md table row" "$tmp/ex3.md" "| d2 | reduction | 128 | - | - | 128 | 1 | elided | 64 | 1 | 2 |"

# Layouts and swizzles.
$LANESCOPE explain "$EX/seed002_subgroup_order.mlir" --subgroups 4 >"$tmp/order.txt"
contains "subgroup order" "$tmp/order.txt" "0, 4, 1, 5, 2, 6, 3, 7"
contains "subgroup order mod 4" "$tmp/order.txt" "0, 0, 1, 1, 2, 2, 3, 3"
$LANESCOPE explain "$EX/seed002_nested_64x64.mlir" --thread 16 >"$tmp/nl.txt"
contains "64x64 per-thread" "$tmp/nl.txt" "vector<2x16>"
contains "64x64 thread 16" "$tmp/nl.txt" "virtual thread ids [0, 1]"
$LANESCOPE explain "$EX/seed001_rotate_rows.mlir" >"$tmp/rot.txt"
contains "rotate row 1" "$tmp/rot.txt" "7777 4444 5555 6666 /// 3 0 1 2"

# Flags instead of a file.
$LANESCOPE explain --shape 1152x384 --iter pr --config '#iree_gpu.lowering_config<{workgroup = [16, 0], partial_reduction = [0, 32], thread = [0, 1], lane_basis = [[16, 4], [1, 0]], subgroup_basis = [[1, 2], [0, 1]]}>' --subgroup-size 64 --workgroup-size 128 --target mi300x >"$tmp/flags.txt" 2>&1
check "flags exit 0" $?
contains "flags iterations" "$tmp/flags.txt" "12 iterations"

# Errors: one line, a position, a non-zero exit, nothing written.
printf '#c = #iree_gpu.lowering_config<{thread = [0, 1}>\n' >"$tmp/bad.mlir"
printf '%%r = linalg.reduce ins(%%a : tensor<4x8xf32>) outs(%%b : tensor<4xf32>) dimensions = [1] {lowering_config = #c} (%%i: f32, %%o: f32) {\n %%1 = arith.addf %%i, %%o : f32\n linalg.yield %%1 : f32\n}\n' >>"$tmp/bad.mlir"
$LANESCOPE explain "$tmp/bad.mlir" -o "$tmp/out.txt" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc -eq 1 ]; check "bad input exits 1" $?
[ "$(wc -l <"$tmp/stderr")" -eq 1 ]; check "bad input: one line" $?
contains "bad input position" "$tmp/stderr" "bad.mlir:1:47: in the definition of #c (used at line 2): expected ',' or ']', found '}'"
[ ! -e "$tmp/out.txt" ] && [ -z "$(ls "$tmp" | grep tmp)" ]; check "nothing half-written" $?

$LANESCOPE explain "$EX/seed000_example2.mlir" --target gfx1100 --subgroup-size 16 >/dev/null 2>"$tmp/stderr"
[ $? -eq 1 ]; check "unoffered subgroup size exits 1" $?
contains "subgroup size message" "$tmp/stderr" "lane_basis counts [16, 4] multiply to 64, which is not the subgroup size 16"

$LANESCOPE explain "$EX/seed000_example2.mlir" --thread 128 >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ]; check "--thread outside exits 2 (a bad flag)" $?
contains "--thread message" "$tmp/stderr" "--thread: 128 is outside the workgroup"
$LANESCOPE explain --format xml >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ]; check "bad flag exits 2" $?
contains "bad flag message" "$tmp/stderr" "--format: expected text, md or json, found 'xml'"
$LANESCOPE explain "$tmp/missing.mlir" >/dev/null 2>"$tmp/stderr"
[ $? -eq 1 ]; check "missing file exits 1" $?
contains "missing file message" "$tmp/stderr" "missing.mlir: cannot open: No such file or directory"
$LANESCOPE frobnicate >/dev/null 2>&1
[ $? -eq 2 ]; check "unknown command exits 2" $?

# -o writes the file atomically.
$LANESCOPE explain "$EX/seed001_xor_shuffle.mlir" -o "$tmp/xor.txt"
check "-o exits 0" $?
contains "-o content" "$tmp/xor.txt" "FFFF EEEE DDDD CCCC /// 3 2 1 0"

# sim: the lowered plan, run lane by lane against the reference.
$LANESCOPE sim "$EX/seed000_example2.mlir" --dump-plan >"$tmp/sim.txt" 2>&1
check "sim ex2 exits 0" $?
contains "sim ex2 check" "$tmp/sim.txt" "functional check passed: 1152 outputs of 72 workgroups match the reference (maxnumf f32, seed 1)"
contains "sim ex2 buffer" "$tmp/sim.txt" "memref<16x4xf32, #gpu.address_space<workgroup>> (256 bytes; innermost padded by 2)"
$LANESCOPE sim "$EX/seed004_reduce_8x64.mlir" --target gfx942 --dump-plan >"$tmp/sim4.txt" 2>&1
contains "sim dpp" "$tmp/sim4.txt" "amdgpu.dpp %v row_bcast_31"
contains "sim 8x64 check" "$tmp/sim4.txt" "functional check passed: 8 outputs of 8 workgroups"
# f32 sums of the generated inputs (multiples of 1/64) are exact in any order
contains "sim 8x64 exact" "$tmp/sim4.txt" "(add f32, seed 1; bit for bit: every partial sum exact)"
$LANESCOPE sim "$EX/seed000_example2.mlir" --target a100 >/dev/null 2>"$tmp/stderr"
[ $? -eq 1 ]; check "sim a100 with subgroup 64 exits 1" $?
contains "sim target message" "$tmp/stderr" "the config runs subgroups of 64 lanes but model a100 has 32"
$LANESCOPE sim "$EX/seed000_example2.mlir" --target nope >/dev/null 2>"$tmp/stderr"
[ $? -eq 2 ]; check "sim unknown target exits 2" $?
contains "sim unknown target message" "$tmp/stderr" "lanescope sim: --target: 'nope' is not a model (h100, h200, a100, mi300x, mi355x, rx7900xtx, a .hw file), an IREE target name"
# Type aliases (!A = tensor<...>, as IREE's test dispatches write them)
# simulate exactly as the dispatch with its types written out.
AL=$DATA/alias_rowsum_512x1024.mlir
sed -e '/^!/d' -e 's/!in_t/!iree_tensor_ext.dispatch.tensor<readonly:!A>/g' \
    -e 's/!A/tensor<512x1024xf32>/g' -e 's/!B/tensor<512xf32>/g' "$AL" >"$tmp/expanded.mlir"
$LANESCOPE sim "$AL" --target mi300x --json >"$tmp/alias.json" 2>"$tmp/err"
check "sim with type aliases exits 0" $?
$LANESCOPE sim "$tmp/expanded.mlir" --target mi300x --json >"$tmp/expanded.json" 2>&1
sed 's|"[^"]*\.mlir"|FILE|; s|\.mlir:[0-9]*:[0-9]*|.mlir|' "$tmp/alias.json" >"$tmp/alias.cmp"
sed 's|"[^"]*\.mlir"|FILE|; s|\.mlir:[0-9]*:[0-9]*|.mlir|' "$tmp/expanded.json" >"$tmp/expanded.cmp"
cmp -s "$tmp/alias.cmp" "$tmp/expanded.cmp"
check "type aliases simulate as the written-out dispatch" $?
tr -d ' \n' <"$tmp/alias.json" >"$tmp/alias.flat"
contains "type aliases: functional check" "$tmp/alias.flat" '"functional":{"checked":true,"seed":1,"outputs":512,"mismatches":0,"compared_bits":32,"exact_outputs":512,"max_error_bound_ratio":0.0,"math_ops":{"mode":"rocm","as_target_code":[],"correctly_rounded":[]},"fused_multiply_add":"none","minmax_as_maxnum":false}'
printf '!A = tensor<4x8xf32>\n!A = tensor<4x9xf32>\n' >"$tmp/redef.mlir"
$LANESCOPE sim "$tmp/redef.mlir" >/dev/null 2>"$tmp/err"
check "type alias redefinition exits 1" $([ $? -eq 1 ]; echo $?)
contains "type alias redefinition" "$tmp/err" "redef.mlir:2:1: type alias !A is already defined at line 1, column 1"
sed 's/ins(%2 : !A)/ins(%2 : !C)/' "$AL" >"$tmp/undef.mlir"
$LANESCOPE sim "$tmp/undef.mlir" >/dev/null 2>"$tmp/err"
check "undefined type alias exits 1" $([ $? -eq 1 ]; echo $?)
contains "undefined type alias" "$tmp/err" "undef.mlir:16:"
contains "undefined type alias message" "$tmp/err" "undefined type alias !C"
# A generic with two results (a row's min and max): one reduction each, both
# checked, each saying IREE computes them in one kernel; --json names them.
MM=$(dirname "$0")/corpus/minmax_multi_result_gfx942.mlir
$LANESCOPE sim "$MM" --target gfx942 --workgroups 2 >"$tmp/mm.txt" 2>&1
check "multi-result generic sim exits 0" $?
contains "multi-result: result 1 named" "$tmp/mm.txt" "@minmax_rows:linalg.generic#1.result1: 8 workgroups"
contains "multi-result: min checked" "$tmp/mm.txt" "functional check passed: 512 outputs of 2 workgroups match the reference (minimumf f32, seed 1)"
contains "multi-result: max checked" "$tmp/mm.txt" "functional check passed: 512 outputs of 2 workgroups match the reference (maximumf f32, seed 1)"
contains "multi-result: one kernel, timed by result 0" "$tmp/mm.txt" "note: result 0 of the 2 the op yields: IREE computes them in one kernel, and this run times it: the loads once, then every result's body ops, combines and stores"
contains "multi-result: result 1 in that kernel" "$tmp/mm.txt" "note: result 1 of the 2 the op yields: computed in the one kernel that @minmax_rows:linalg.generic#1.result0's run timed"
$LANESCOPE sim "$MM" --target gfx942 --workgroups 1 --json >"$tmp/mm.json" 2>&1
tr -d ' \n' <"$tmp/mm.json" >"$tmp/mm.flat"
contains "multi-result json: result fields" "$tmp/mm.flat" '"reduction":"@minmax_rows:linalg.generic#1.result1"'
contains "multi-result json: result 1 of 2" "$tmp/mm.flat" '"result":1,"results":2,"one_kernel":true,"timed_with":"@minmax_rows:linalg.generic#1.result0"'
# The one kernel by hand: 8 workgroups of one subgroup, each thread 256
# iterations of its 4 x 4 tile, read as 4 row loads of 16 bytes, and per
# row and result (a min and a max) a chain of 4 elements -- LLVM fuses
# each two f32 min or max into one v_min3/v_max3_f32, so min3(e0, e1, e2)
# and min(., e3) -- joined into the accumulator two iterations at a time:
# 8 x 256 x (4 + 8 x 2 + 8 / 2) = 49152; 4 rows a thread x 2 results = 8
# stores a subgroup.
contains "multi-result json: both combines in one loop" "$tmp/mm.flat" '"stage":"load+accumulate","critical_cycles":'
grep -o '"stage":"load+accumulate","critical_cycles":[0-9]*,"subgroup_cycles":[0-9]*,"instructions":49152,' "$tmp/mm.flat" >/dev/null
check "multi-result: 49152 load+accumulate instructions (loads once, two fused chains)" $?
grep -o '"stage":"store","critical_cycles":[0-9]*,"subgroup_cycles":[0-9]*,"instructions":64,' "$tmp/mm.flat" >/dev/null
check "multi-result: 64 stores (two results)" $?
# Six chained rsqrt an f16 element on h100: libdevice's rsqrt.approx is one
# MUFU each (docs/timing-model.md, "Math ops"), 4096 x 8192 x 6 / 32 lanes =
# 6291456 of them, one every 8 cycles per scheduler: the unit, not DRAM or
# issue, bounds the run.
cat >"$tmp/sfu.mlir" <<'EOF_SFU'
func.func @rsqrt6() {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4096x8192xf16>) outs(%b : tensor<4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %x = arith.extf %in : f16 to f32
    %1 = math.rsqrt %x : f32
    %2 = math.rsqrt %1 : f32
    %3 = math.rsqrt %2 : f32
    %4 = math.rsqrt %3 : f32
    %5 = math.rsqrt %4 : f32
    %6 = math.rsqrt %5 : f32
    %7 = arith.addf %6, %out : f32
    linalg.yield %7 : f32
  } -> tensor<4096xf32>
  return
}
EOF_SFU
$LANESCOPE sim "$tmp/sfu.mlir" --target h100 --workgroups 1 >"$tmp/sfu.txt" 2>&1
check "sfu-bound sim exits 0" $?
contains "sfu: instructions on the unit" "$tmp/sfu.txt" "(6291456 on the special-function unit)"
contains "sfu: the verdict" "$tmp/sfu.txt" "bound by the special-function unit: 6291456 transcendental instructions"
# A softmax is one kernel of three loops (IREE's reduction_pipeline_cuda.mlir
# @softmax: the max loop, the sum loop, a loop that reads x again, divides and
# writes): the max's run times it, the sum's report says so, nothing is left
# untimed; x (524 MB) is read three times and the result written once.
$LANESCOPE sim "$EX/softmax_4096x32000_f32.mlir" --target h100 --workgroups 1 >"$tmp/smx.txt" 2>&1
check "softmax sim exits 0" $?
contains "softmax: one kernel" "$tmp/smx.txt" "one kernel for the dispatch, as IREE builds it: 3 loops one after another"
contains "softmax: the division's loop" "$tmp/smx.txt" "loop 3: the linalg.generic at 16:8, 250 trips; stores its result, 512 bytes a subgroup a trip"
contains "softmax: the sum is a loop of it" "$tmp/smx.txt" "one kernel: this reduction is a loop of the dispatch's kernel that @softmax_4096x32000:linalg.softmax#1.max's run timed"
contains "softmax: three reads and a write" "$tmp/smx.txt" "DRAM 2097.152 MB moved"
! grep -q "not timed" "$tmp/smx.txt"; check "softmax: nothing untimed" $?
# The sum's exp is computed as IREE compiles it for the target: MLIR's
# polynomial on NVIDIA (bit for bit), the correctly rounded value on ROCm.
contains "softmax: h100's exp is MLIR's" "$tmp/smx.txt" "math ops: math.exp bit for bit as IREE's code for this target (MLIR's f32 polynomial approximations, MathTransform.cpp)"
$LANESCOPE sim "$EX/softmax_4096x32000_f32.mlir" --target mi300x --workgroups 1 >"$tmp/smx_amd.txt" 2>&1
# explain says what each target's code computes the exp with
$LANESCOPE explain "$EX/softmax_4096x32000_f32.mlir" --target h100 >"$tmp/smx_ex.txt" 2>&1
contains "explain: h100's exp" "$tmp/smx_ex.txt" "%3 = math.exp on sm_90: MLIR's polynomial (MathTransform's predicateApprox); 23 ALU + 0 special-function instructions; sim's values are that code's, bit for bit"
$LANESCOPE explain "$EX/softmax_4096x32000_f32.mlir" --target mi300x --format json >"$tmp/smx_ex.json" 2>&1
tr -d ' \n' <"$tmp/smx_ex.json" >"$tmp/smx_ex.flat"
contains "explain json: mi300x's exp" "$tmp/smx_ex.flat" '"op":"math.exp","type":"f32","operands":[2],"lowering":{"how":"llvm.exp.f32:v_exp_f32withrangescaling","alu":12,"special_function":1,"sim_bit_for_bit":false}'
check "softmax sim on mi300x exits 0" $?
contains "softmax: mi300x's exp is rounded" "$tmp/smx_amd.txt" "math ops: math.exp correctly rounded (IREE's ROCm code calls the device library or AMDGPU intrinsics, within an ulp or two of it: not reproduced)"
$LANESCOPE sim "$EX/softmax_4096x32000_f32.mlir" --target h100 --workgroups 1 --json >"$tmp/smx.json" 2>&1
tr -d ' \n' <"$tmp/smx.json" >"$tmp/smx.flat"
contains "softmax json: the kernel's loops" "$tmp/smx.flat" '"kernel_loops":[{"op":"@softmax_4096x32000:linalg.softmax#1.max","elementwise":false,"epilogue":false,"trips":125,"unroll":2,"stores":false},{"op":"@softmax_4096x32000:linalg.softmax#1.sum","elementwise":false,"epilogue":false,"trips":250,"unroll":1,"stores":false},{"op":"thelinalg.genericat16:8","elementwise":true,"epilogue":false,"trips":250,"unroll":1,"stores":true,"own_layout":false,"writing_subgroups":1}]'
contains "softmax json: the sum timed with the max" "$tmp/smx.flat" '"one_kernel":true,"timed_with":"@softmax_4096x32000:linalg.softmax#1.max"'
contains "softmax json: the sum's exp is MLIR's on h100" "$tmp/smx.flat" '"math_ops":{"mode":"mlir-polynomial","as_target_code":["math.exp"],"correctly_rounded":[]}'
! grep -q "untimed_ops" "$tmp/smx.flat"; check "softmax json: nothing untimed" $?
# Group-norm statistics with IREE's configs for them all: the normalisation's
# thread tile is [0, 0, 0, 8] where the reductions' is [0, 0, 1, 8], the same
# tiling (one element of d2 a trip), so one kernel; x (21 MB of f16) comes from
# DRAM once, the f32 result (42 MB) goes out once.
$LANESCOPE sim "$(dirname "$0")/corpus/groupnorm_gfx942.mlir" --target mi300x --no-check >"$tmp/gn.txt" 2>&1
check "group norm sim exits 0" $?
contains "group norm: three loops" "$tmp/gn.txt" "loop 3: the linalg.generic at 52:8, 20 trips; stores its result"
contains "group norm: x read once" "$tmp/gn.txt" "DRAM 62.915 MB moved"
# A division tiled apart from its reduction (8 a thread against 4) is a
# loop of its own layout in the one kernel; reading sums of two rows a
# workgroup in that layout, it is timed apart: sim says why and names it
# untimed.
cat >"$tmp/apart.mlir" <<'EOF'
#r = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#e = #iree_gpu.lowering_config<{serial = [0, 1024], thread = [0, 8], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#ti = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>
func.func @norm() attributes {translation_info = #ti} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %in = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>
  %out = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>> -> tensor<64x4096xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) attrs = {lowering_config = #r} {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<64x4096xf32>, tensor<64xf32>) outs(%e2 : tensor<64x4096xf32>) attrs = {lowering_config = #e} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x4096xf32>
  iree_tensor_ext.dispatch.tensor.store %y, %out, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : tensor<64x4096xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>
  return
}
EOF
$LANESCOPE sim "$tmp/apart.mlir" --target h100 >"$tmp/own.txt" 2>&1
check "own layout: exits 0" $?
contains "own layout: the division's loop" "$tmp/own.txt" "loop 2: the linalg.generic at 18:8, 4 trips; laid out by its own config; stores its result, 1024 bytes a subgroup a trip"
contains "own layout: x read once" "$tmp/own.txt" "DRAM 2.097 MB moved"
sed 's|{workgroup = \[1, 0\], partial_reduction = \[0, 512\]|{workgroup = [2, 0], partial_reduction = [0, 512]|' "$tmp/apart.mlir" >"$tmp/apart2.mlir"
$LANESCOPE sim "$tmp/apart2.mlir" --target h100 >"$tmp/apart.txt" 2>&1
check "timed apart: exits 0" $?
contains "timed apart: why" "$tmp/apart.txt" "here timed apart: the linalg.generic at 18:8 reads %sum in a layout of its own, and the workgroup's results are not one value every thread holds"
contains "timed apart: the division untimed" "$tmp/apart.txt" "not timed: the dispatch's linalg.generic at 18:8"
# ... and with its tiling the reduction's, one kernel of two loops, x read
# from DRAM once
sed 's|serial = \[0, 1024\], thread = \[0, 8\]|serial = [0, 512], thread = [0, 4]|' "$tmp/apart.mlir" >"$tmp/together.mlir"
$LANESCOPE sim "$tmp/together.mlir" --target h100 >"$tmp/together.txt" 2>&1
contains "together: two loops" "$tmp/together.txt" "loop 2: the linalg.generic at 18:8, 8 trips; stores its result, 512 bytes a subgroup a trip"
contains "together: x read once" "$tmp/together.txt" "DRAM 2.097 MB moved"
# an op on the sums and a per-row scale after the reduce: an epilogue, no loop
$LANESCOPE sim "$DATA/rowsum_scaled_epilogue.mlir" --target h100 --workgroups 2 >"$tmp/epi.txt" 2>&1
check "epilogue sim exits 0" $?
contains "epilogue: after the reduce" "$tmp/epi.txt" "then: the linalg.generic at 19:8 on the results, stored (no loop of its own)"
$LANESCOPE sim "$DATA/rowsum_scaled_epilogue.mlir" --target h100 --no-check --json >"$tmp/epi.json" 2>&1
tr -d ' \n' <"$tmp/epi.json" >"$tmp/epi.flat"
contains "epilogue json: no trips" "$tmp/epi.flat" '"elementwise":true,"epilogue":true,"trips":0'
# --dump-plan: after the reduction's plan, the kernel's loops, the division's in full
$LANESCOPE sim "$tmp/together.mlir" --target h100 --no-check --dump-plan >"$tmp/together_plan.txt" 2>&1
contains "dump-plan: the kernel" "$tmp/together_plan.txt" "one kernel for the dispatch: 2 loops, one after another"
contains "dump-plan: the division's loop" "$tmp/together_plan.txt" "    scf.for %k = 0 to 8 {"
contains "dump-plan: the sum from registers" "$tmp/together_plan.txt" "input 1 %sum: the result of loop 1, held in registers (no load)"
contains "dump-plan: the division's store" "$tmp/together_plan.txt" "1 x vector.transfer_write vector<4xf32> per thread: 512 bytes a writing subgroup"
# explain: after the dispatch's last reduction, its kernel (the division's
# config and body), or why sim times it apart
$LANESCOPE explain "$tmp/together.mlir" >"$tmp/together_ex.txt" 2>&1
contains "explain: the kernel" "$tmp/together_ex.txt" "dispatch @norm: one kernel of 2 loops, one after another, as IREE builds it"
contains "explain: the division's config, serial kept" "$tmp/together_ex.txt" "lowering_config: #iree_gpu.lowering_config<{thread = [0, 4], serial = [0, 512], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>"
contains "explain: the division's body" "$tmp/together_ex.txt" "%2 = arith.divf %0, %1 : f32"
# a norm over NHWC images of 3 channels: IREE's heuristic lays the
# normalisation out on its own, one lane of one subgroup (tests/test_fused.c
# times it)
$LANESCOPE explain "$DATA/nhwc_norm_4x8192x3_f16.mlir" --target h100 >"$tmp/nhwc_ex.txt" 2>&1
check "nhwc norm: explain exits 0" $?
contains "nhwc norm: its loop" "$tmp/nhwc_ex.txt" "loop 3: the linalg.generic at 41:8, 24576 trips; its result stored tile by tile"
contains "nhwc norm: its own layout" "$tmp/nhwc_ex.txt" "laid out by its own lowering_config, not loop 1's: #iree_vector_ext.nested_layout<subgroup_tile = [1, 1, 1], batch_tile = [1, 1, 1], outer_tile = [1, 1, 1], thread_tile = [1, 1, 1], element_tile = [1, 1, 1]"
contains "nhwc norm: one writer" "$tmp/nhwc_ex.txt" "its layout spans 1 of the 32 subgroups: the others compute the same elements and skip the store"
# its loop interleaves loads and stores: the stage spans overlap, and sim says so
$LANESCOPE sim "$DATA/nhwc_norm_4x8192x3_f16.mlir" --target h100 --no-check >"$tmp/nhwc_sim.txt" 2>&1
check "nhwc norm: sim exits 0" $?
contains "nhwc norm: overlapping spans" "$tmp/nhwc_sim.txt" "note: crit-cycles is each stage's first-to-last span on the subgroup that finished last; here the spans overlap (a loop interleaves the stages), so they add up to 3088226, more than the kernel's 1546330 cycles"
contains "softmax: the max loop's loads span the division's stores" "$tmp/smx.txt" "here the spans overlap (a loop interleaves the stages), so they add up to 2107485, more than the kernel's 1391299 cycles"
# folds as LLVM compiles them (tests/test_folds.c): an f16 max on h100
# is a tree of max.NaN.f16x2, in --dump-plan and its JSON; a sum a chain
$LANESCOPE sim "$DATA/rowmax_f16_8x2048_nv.mlir" --target h100 --dump-plan >"$tmp/fold.txt" 2>&1
check "f16 row max: sim exits 0" $?
contains "f16 row max: the loop's fold" "$tmp/fold.txt" "        (one vector.reduction of 8 values: llvm.vector.reduce.fmaximum, unordered; LLVM folds the vector's halves while the half-width op is legal -- 2 max.NaN.f16x2 over the 4 registers holding two lanes (after ptxas's fusing), then 1 on the last one's halves: 3 instructions, 3 deep; llc-22; in ptxas's SASS 1 of them VHMNMX, each taking an op of the tree in, and the join takes the halves' op in: tools/amd-dpp-counts.py --sass-folds)"
contains "f16 row max: the thread reduce's fold" "$tmp/fold.txt" "    (one vector.reduction of 4 values: llvm.vector.reduce.fmaximum, unordered; LLVM folds the vector's halves while the half-width op is legal -- 1 max.NaN.f16x2 over the 2 registers holding two lanes (after ptxas's fusing), then 1 on the last one's halves: 2 instructions, 2 deep; llc-22)"
# an i32 sum on h100: ptxas fuses two chained adds into one IADD3
$LANESCOPE sim --shape 512x4096 --iter pr --type i32 --combiner add --target h100 --dump-plan --no-check >"$tmp/iadd3.txt" 2>&1
contains "i32 sum on h100: IADD3" "$tmp/iadd3.txt" "(ptxas fuses two dependent add into one IADD3: the loop's chain into each accumulator takes half an instruction a combine, and a fold's tree ops take one in where they can"
$LANESCOPE sim "$DATA/rowmax_f16_8x2048_nv.mlir" --target h100 --dump-plan=json >"$tmp/fold.json" 2>&1
tr -d ' \n' <"$tmp/fold.json" | grep -q '"loop_fold":{"values":8,"form":"packed_tree","instructions":3,"packed_instructions":2,"depth":3,"ptxas_fused":1,"root_to_join":true}'
check "f16 row max: JSON loop_fold" $?
tr -d ' \n' <"$tmp/fold.json" | grep -q '"fold":{"values":4,"form":"packed_tree","instructions":2,"packed_instructions":1,"depth":2,"ptxas_fused":0,"root_to_join":false}'
check "f16 row max: JSON thread reduce fold" $?
$LANESCOPE sim "$EX/h100_rowsum_f16_2048x8192.mlir" --target h100 --dump-plan=json --no-check >"$tmp/sumfold.json" 2>&1
tr -d ' \n' <"$tmp/sumfold.json" | grep -q '"loop_fold":null'
check "f16 row sum: no loop tree (an ordered fadd)" $?
# maximumf on AMD: IREE's code computes maxnumf (ReplaceSlowMinMaxOps), and
# sim says so in the text, the JSON and the plan (tests/test_compiled_minmax.c)
$LANESCOPE sim "$DATA/../corpus/minmax_multi_result_gfx942.mlir" --target mi300x >"$tmp/mm.txt" 2>&1
check "min and max on gfx942: sim exits 0" $?
contains "min and max on gfx942: the rewrite" "$tmp/mm.txt" "  maximumf and minimumf as IREE compiles them for gfx942: maxnumf and minnumf (ReplaceSlowMinMaxOps.cpp), which drop a NaN operand where maximumf propagates it; the lanes and the reference both compute that"
$LANESCOPE sim "$DATA/../corpus/minmax_multi_result_gfx942.mlir" --target mi300x --json --dump-plan=json >"$tmp/mm.json" 2>&1
tr -d ' \n' <"$tmp/mm.json" | grep -q '"fused_multiply_add":"none","minmax_as_maxnum":true}'
check "min and max on gfx942: JSON minmax_as_maxnum" $?
$LANESCOPE sim "$DATA/../corpus/minmax_multi_result_gfx942.mlir" --target h100 >"$tmp/mm_nv.txt" 2>&1
! grep -q "maxnumf and minnumf" "$tmp/mm_nv.txt"
check "min and max on h100: nothing replaced" $?
$LANESCOPE sim "$EX/seed000_example1.mlir" --no-check >"$tmp/ex1_sim.txt" 2>&1
! grep -q "note: crit-cycles" "$tmp/ex1_sim.txt"; check "one reduction: stage spans one after another, no note" $?
$LANESCOPE explain "$tmp/apart2.mlir" >"$tmp/apart_ex.txt" 2>&1
contains "explain: timed apart" "$tmp/apart_ex.txt" "dispatch @norm: one kernel in IREE; \`lanescope sim\` times its reductions apart:"
$LANESCOPE explain "$tmp/together.mlir" --format json >"$tmp/together_ex.json" 2>&1
tr -d ' \n' <"$tmp/together_ex.json" >"$tmp/together_ex.flat"
contains "explain json: the kernel" "$tmp/together_ex.flat" '"kind":"dispatch_kernel","name":"@norm"'
# sweep of a softmax: each config given to the max, the sum and the
# division, the one kernel timed; IREE's point takes sim's time
sed 's/4096x32000/64x4096/g' "$EX/softmax_4096x32000_f32.mlir" >"$tmp/sm64.mlir"
$LANESCOPE sweep "$tmp/sm64.mlir" --target h100 --max-configs 12 --quiet >"$tmp/sm64_sweep.txt" 2>&1
check "sweep of a softmax exits 0" $?
contains "sweep: the one kernel" "$tmp/sm64_sweep.txt" "each config given to every op of the dispatch: its one kernel of 3 loops timed, as sim times it"
$LANESCOPE sim "$tmp/sm64.mlir" --target h100 --no-check --json >"$tmp/sm64.json" 2>&1
sim_us=$(sed -n 's/.*"time_us": *\([0-9.eE+-]*\).*/\1/p' "$tmp/sm64.json" | sed -n 1p)
iree_us=$(sed -n 's/.*IREE.s choice ranks [0-9]* of [0-9]*: \([0-9.]*\) us.*/\1/p' "$tmp/sm64_sweep.txt")
awk -v a="$sim_us" -v b="$iree_us" 'BEGIN { d = a - b; exit !(b > 0 && d < 0.001 && d > -0.001) }'
check "sweep: IREE's point is sim's one kernel ($iree_us us, sim $sim_us us)" $?
# draw traffic of a multi-op dispatch: the one kernel, as sim times it
$LANESCOPE draw traffic "$tmp/together.mlir" --target h100 -o "$tmp/together.png" --quiet
check "draw traffic of one kernel exits 0" $?
contains "draw traffic: the one kernel, titled" "$tmp/together.png" "per-stage traffic of @norm: one kernel of 2 loops on h100"
# i128: carried as its low 64 bits, which the check compares and says so;
# an order over i128 is refused with the reason.
I128=$(dirname "$0")/corpus/reduction_i128_gfx942.mlir
$LANESCOPE sim "$I128" --workgroups 2 >"$tmp/i128.txt" 2>&1
check "i128 sim exits 0" $?
contains "i128: low half checked" "$tmp/i128.txt" "functional check passed: 2 outputs of 2 workgroups match the reference (add i128, seed 1; the low 64 bits of each i128, which decide add exactly)"
$LANESCOPE sim "$I128" --workgroups 1 --json >"$tmp/i128.json" 2>&1
tr -d ' \n' <"$tmp/i128.json" >"$tmp/i128.flat"
contains "i128 json: compared bits" "$tmp/i128.flat" '"mismatches":0,"compared_bits":64,"exact_outputs":0,'
sed 's/arith.addi %in, %out : i128/arith.maxsi %in, %out : i128/' "$I128" >"$tmp/i128max.mlir"
$LANESCOPE sim "$tmp/i128max.mlir" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ]; check "i128 max refused, exit 1" $?
contains "i128 max: the reason" "$tmp/err" "i128max.mlir:37:8: maxsi over i128: lanescope carries the low 64 bits of an i128, which decide add, mul, and, or and xor exactly but not an order"
# Full reductions to a scalar (tensor<f32>, init map `-> ()`): no parallel
# dims, one workgroup, one output; IREE's heuristic gives the AMD file's config.
FS=$DATA/full_sum_1x8192_amd.mlir
$LANESCOPE sim "$FS" --target mi300x >"$tmp/full.txt" 2>&1
check "full reduction sim (AMD) exits 0" $?
contains "full reduction (AMD) workgroups" "$tmp/full.txt" "@sum_1x8192:linalg.generic#1: 1 workgroup on mi300x"
contains "full reduction (AMD) check" "$tmp/full.txt" "functional check passed: 1 output of 1 workgroup matches the reference (add f32, seed 1; bit for bit: every partial sum exact)"
$LANESCOPE sim "$DATA/full_max_1x8192_nv.mlir" --target h100 --json >"$tmp/fullnv.json" 2>&1
check "full reduction sim (NVIDIA) exits 0" $?
tr -d ' \n' <"$tmp/fullnv.json" >"$tmp/fullnv.flat"
contains "full reduction (NVIDIA) check" "$tmp/fullnv.flat" '"functional":{"checked":true,"seed":1,"outputs":1,"mismatches":0,"compared_bits":32,"exact_outputs":0,"max_error_bound_ratio":0.0,"math_ops":{"mode":"mlir-polynomial","as_target_code":[],"correctly_rounded":[]},"fused_multiply_add":"none","minmax_as_maxnum":false}'
$LANESCOPE suggest "$FS" --target mi300x >"$tmp/fullsug.txt" 2>&1
check "full reduction suggest exits 0" $?
contains "full reduction suggest" "$tmp/fullsug.txt" "lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [1, 4096], subgroup_basis = [[1, 16], [0, 1]], thread = [1, 4], workgroup = [0, 0]}>"
# Rank 1 (linalg.reduce of a vector to a scalar): simulated, and its layout
# drawn as one row.
printf '%%r = linalg.reduce ins(%%a : tensor<1000xi16>) outs(%%b : tensor<i16>) dimensions = [0] {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[32], [0]], partial_reduction = [256], subgroup_basis = [[4], [0]], thread = [2], workgroup = [0]}>} (%%i: i16, %%o: i16) {\n %%1 = arith.maxsi %%i, %%o : i16\n linalg.yield %%1 : i16\n}\n' >"$tmp/scalar1.mlir"
$LANESCOPE sim "$tmp/scalar1.mlir" --target h100 >"$tmp/scalar1.txt" 2>&1
contains "rank-1 full reduction check" "$tmp/scalar1.txt" "functional check passed: 1 output of 1 workgroup matches the reference (maxsi i16, seed 1)"
$LANESCOPE draw layout "$tmp/scalar1.mlir" --target h100 -o "$tmp/scalar1.svg" 2>"$tmp/err"
check "rank-1 layout drawn as one row" $?
$LANESCOPE explain "$FS" >"$tmp/fullex.txt" 2>&1
check "full reduction explain exits 0" $?
contains "full reduction explain map" "$tmp/fullex.txt" "init map (d0, d1) -> ()"
contains "full reduction explain workgroups" "$tmp/fullex.txt" "1 workgroup in total"
# Dynamic sizes: a '?' dim needs --dim N=SIZE (one line naming the dim and
# the flag); bound, it simulates as the static dispatch does.
DY=$DATA/dyn_rowsum_Nx1024.mlir
$LANESCOPE sim "$DY" --target mi300x >/dev/null 2>"$tmp/err"
check "dynamic dim without --dim exits 1" $([ $? -eq 1 ]; echo $?)
[ "$(wc -l <"$tmp/err")" -eq 1 ]; check "dynamic dim: one line" $?
contains "dynamic dim message" "$tmp/err" "dyn_rowsum_Nx1024.mlir:13:8: loop dimension d0 is dynamic ('?') in every operand; give its size with --dim 0=N"
$LANESCOPE sim "$DY" --target mi300x --dim 0=512 --json >"$tmp/dyn.json" 2>"$tmp/err"
check "sim --dim exits 0" $?
sed 's|"[^"]*\.mlir"|FILE|; s|@rowsum_[a-zA-Z0-9_]*|OP|' "$tmp/dyn.json" >"$tmp/dyn.cmp"
sed 's|"[^"]*\.mlir"|FILE|; s|@rowsum_[a-zA-Z0-9_]*|OP|' "$tmp/alias.json" >"$tmp/static.cmp"
cmp -s "$tmp/dyn.cmp" "$tmp/static.cmp"
check "sim --dim 0=512 gives the static 512x1024 results" $?
$LANESCOPE explain "$DY" --target mi300x --dim 0=512 >"$tmp/dynex.txt" 2>&1
contains "explain --dim" "$tmp/dynex.txt" "iteration space: 512x1024 [d0 = parallel(512), d1 = reduction(1024)]"
$LANESCOPE draw layout "$DY" --target mi300x --dim 0=512 -o "$tmp/dyn.svg" 2>"$tmp/err"
check "draw --dim exits 0" $?
$LANESCOPE measure "$DY" --target h100 --dim 0=64 --emit-cuda >"$tmp/dyn.cu" 2>"$tmp/err"
check "measure --dim exits 0" $?
contains "measure --dim" "$tmp/dyn.cu" "iteration space 64x1024r"
$LANESCOPE sweep "$DY" --target mi300x --dim 0=512 --max-configs 20 -j 2 --csv "$tmp/dsw.csv" --chart "$tmp/dsw.svg" >"$tmp/dsw.txt" 2>&1
check "sweep --dim exits 0" $?
$LANESCOPE suggest "$DY" --target mi300x >"$tmp/dynsug.txt" 2>&1
check "suggest still takes '?' sizes" $?
$LANESCOPE sim "$DY" --dim 0 >/dev/null 2>"$tmp/err"
check "--dim without SIZE exits 2" $([ $? -eq 2 ]; echo $?)
contains "--dim syntax" "$tmp/err" "lanescope sim: --dim: expected N=SIZE (loop dim N of the op, e.g. 0=4096), found '0'"
$LANESCOPE sim "$DY" --dim 0=4 --dim 0=5 >/dev/null 2>"$tmp/err"
contains "--dim twice" "$tmp/err" "lanescope sim: --dim: loop dim 0 given twice (4 and 5)"
# The serial `reduction` level is lowered (the subgroup reduce inside the
# loop); a config field lanescope does not lower is rejected at its
# position, never dropped.
sed 's/partial_reduction = \[0, 64\]/reduction = [0, 16]/' \
    "$EX/seed004_reduce_8x64.mlir" >"$tmp/serial.mlir"
$LANESCOPE sim "$tmp/serial.mlir" --dump-plan >"$tmp/out" 2>"$tmp/err"
check "reduction level simulates" $?
contains "reduction level: reduce inside the loop" "$tmp/out" "(reduction tiling level: the loop below runs every stage"
contains "reduction level: 4 iterations" "$tmp/out" "scf.for %k = 0 to 4 {"
contains "reduction level: checked" "$tmp/out" "functional check passed: 8 outputs of 8 workgroups"
$LANESCOPE explain "$tmp/serial.mlir" >"$tmp/out" 2>"$tmp/err"
contains "explain: the reduction-level loop" "$tmp/out" "reduction-level loop: 4 iterations (every iteration reduces its tile"
contains "explain: the loop column" "$tmp/out" "reduce "
sed 's/reduction = \[0, 16\]/serial = [0, 16]/' "$tmp/serial.mlir" >"$tmp/serial2.mlir"
$LANESCOPE sim "$tmp/serial2.mlir" --no-check >/dev/null 2>"$tmp/err"
check "serial level on a reduction exits 1" $([ $? -eq 1 ]; echo $?)
contains "serial level on a reduction" "$tmp/err" "serial2.mlir:5:79: lowering_config key 'serial' asks for the serial tiling level"
# promote_operands: the 1 x 16 tile through a buffer padded by 64 bits (2
# f32); 16 elements over 64 threads is indivisible, so deriveThreadTileSizes
# keeps the 128-bit vector: 4 threads x 4 elements, the rest duplicates.
sed 's/reduction = \[0, 16\]/reduction = [0, 16], promote_operands = [0]/' "$tmp/serial.mlir" >"$tmp/promote.mlir"
$LANESCOPE sim "$tmp/promote.mlir" --dump-plan >"$tmp/out" 2>"$tmp/err"
check "promote_operands simulates" $?
contains "promote_operands: the buffer" "$tmp/out" "%prom0 = memref.alloc() : memref<1x18xf32, #gpu.address_space<workgroup>> (72 bytes; innermost padded by 2)"
contains "promote_operands: the copy" "$tmp/out" "derived thread layout: threads [1, 4], elements [1, 4]"
contains "promote_operands: read back" "$tmp/out" "per thread from %prom0"
contains "promote_operands: AMD's accesses" "$tmp/out" "(the backend: each copy vector's store 1 x ds_write_b128, each compute read of %prom0 1 x ds_read_b32; ROCm aligns workgroup memory to 16 bytes"
contains "promote_operands: checked" "$tmp/out" "functional check passed: 8 outputs of 8 workgroups"
# on NVIDIA the buffer is aligned to one element: NVPTX splits each vector,
# ptxas merges the elements as far as the offsets' alignment goes (the
# matrix rows, 520 bytes apart, leave 8)
$LANESCOPE sim "$EX/suite/mv_promote01_r4_s4.mlir" --target h100 --no-check --dump-plan >"$tmp/out" 2>"$tmp/err"
check "promoted matvec on h100 exits 0" $?
contains "promote_operands: NVIDIA's matrix accesses" "$tmp/out" "(the backend: each copy vector's store 2 x st.shared.b64, each compute read of %prom0 2 x ld.shared.b64; IREE's PTX accesses each element"
contains "promote_operands: NVIDIA's vector accesses" "$tmp/out" "(the backend: each copy vector's store 1 x st.shared.b32, each compute read of %prom1 2 x ld.shared.b64;"
sed 's/reduction = \[0, 16\]/reduction = [0, 16], promotion_types = [1]/' "$tmp/serial.mlir" >"$tmp/promote2.mlir"
$LANESCOPE explain "$tmp/promote2.mlir" >/dev/null 2>"$tmp/err"
contains "promotion_types rejected" "$tmp/err" "lowering_config key 'promotion_types' asks for promotion kinds other than IREE's default"
sed 's/reduction = \[0, 16\]/reduction = [0, 16], truncation = true/' "$tmp/serial.mlir" >"$tmp/trunc.mlir"
$LANESCOPE sim "$tmp/trunc.mlir" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ]; check "truncation key: exit 1" $?
contains "truncation rejected: IREE reads it nowhere" "$tmp/err" "lowering_config key 'truncation' asks for a field no IREE pass reads"
$LANESCOPE explain "$EX/seed000_example2.mlir" >"$tmp/ex2i.txt"
contains "zero reduction level accepted" "$tmp/ex2i.txt" "reduction = [0, 0]"

# One target vocabulary: models, IREE target names (modelled from their
# fields with a family's timing, and a note saying so), .mlir target files.
RS=$EX/rowsum_4096x4096_noconfig.mlir
$LANESCOPE sim "$RS" --target sm_86 --no-check >"$tmp/t86.txt" 2>&1
check "sim --target sm_86 exits 0" $?
contains "sm_86 modelled" "$tmp/t86.txt" "note: model for sm_86 built from IREE's target fields (subgroup size, workgroup memory, SIMDs; no chip in the target: 108 WGPs assumed (a100's)) with a100's timing parameters"
contains "sm_86 bare target" "$tmp/t86.txt" "IREE's default for sm_86, workgroup_size 32"
$LANESCOPE sim "$RS" --target rtx3090 --no-check >"$tmp/t3090.txt" 2>&1
contains "rtx3090 chip" "$tmp/t3090.txt" "82 WGPs from the target's chip"
$LANESCOPE sim "$RS" --target gfx1201 --no-check >"$tmp/t1201.txt" 2>&1
contains "gfx1201 family" "$tmp/t1201.txt" "with rx7900xtx's timing parameters"
$LANESCOPE sim "$EX/seed000_example2.mlir" --target mi355x >"$tmp/t355.txt" 2>&1
contains "mi355x model" "$tmp/t355.txt" "workgroups on mi355x (gfx950)"
contains "mi355x checked" "$tmp/t355.txt" "functional check passed"
$LANESCOPE sim "$RS" --target gfx950 --no-check >"$tmp/t950.txt" 2>&1
contains "gfx950 family" "$tmp/t950.txt" "with mi355x's timing parameters"
$LANESCOPE sim "$RS" --target sm_80 --no-check >"$tmp/t80.txt" 2>&1
contains "sm_80 is the bare target in sim" "$tmp/t80.txt" "IREE's default for sm_80, workgroup_size"
$LANESCOPE suggest "$RS" --target sm_80 >"$tmp/s80.txt" 2>&1
contains "sm_80 is the bare target in suggest" "$tmp/s80.txt" "on sm_80:"
$LANESCOPE sim "$RS" --target a100 --no-check >"$tmp/ta100.txt" 2>&1
contains "a100 is the chip" "$tmp/ta100.txt" "IREE's default for sm_80/a100"
grep -q "note:" "$tmp/ta100.txt"
[ $? -ne 0 ]; check "a model file has no estimate note" $?
$LANESCOPE sim "$RS" --target "$EX/targets/mi300x.mlir" --no-check >"$tmp/tfile.txt" 2>&1
contains "target from an .mlir file" "$tmp/tfile.txt" "IREE's default for gfx942/mi300x"

$LANESCOPE sim "$EX/seed000_example2.mlir" --json --no-check >"$tmp/sim.json"
tr -d ' \n' <"$tmp/sim.json" >"$tmp/sim.flat"
contains "sim json barriers" "$tmp/sim.flat" '"stage":"cross-subgroup"'
contains "sim json model" "$tmp/sim.flat" '"model":"mi300x","arch":"gfx942"'
$LANESCOPE sim "$EX/seed000_example2.mlir" --csv --no-check >"$tmp/sim.csv"
[ "$(wc -l <"$tmp/sim.csv")" -eq 7 ]; check "sim csv has a header and 6 stages" $?
$LANESCOPE sim "$EX/seed000_example2.mlir" --no-check >"$tmp/run1.txt"
$LANESCOPE sim "$EX/seed000_example2.mlir" --no-check --seed 99 >"$tmp/run2.txt"
cmp -s "$tmp/run1.txt" "$tmp/run2.txt"; check "sim timing is deterministic and seed-independent" $?

# --input: values from a .npy file (4x8 float32, 0..31) instead of the generator.
printf '%%r = linalg.reduce ins(%%a : tensor<4x8xf32>) outs(%%b : tensor<4xf32>) dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 8], thread = [0, 1], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} (%%i: f32, %%o: f32) {\n %%1 = arith.addf %%i, %%o : f32\n linalg.yield %%1 : f32\n}\n' >"$tmp/small.mlir"
$LANESCOPE sim "$tmp/small.mlir" --input "$tmp/small.mlir" >/dev/null 2>"$tmp/stderr"
[ $? -eq 1 ]; check "sim --input non-npy exits 1" $?
contains "sim --input message" "$tmp/stderr" "not a usable .npy file: no \\x93NUMPY magic"

# Chrome trace, checked as Perfetto reads it (tests/trace_check.c: every
# pid and tid named, slices strictly nested per track, times monotonic).
# Example 2: 72 workgroups x 2 subgroups, each subgroup a "workgroup N"
# slice around its 5 stage slices = 864 slices; 144 subgroup tracks, each
# with an "overlapping stages" track (a stage issues while the previous
# one's last result is in flight) = 288; 72 WGPs + the counters process;
# DRAM bandwidth, L2 hit rate and resident workgroups.
$LANESCOPE sim "$EX/seed000_example2.mlir" --no-check --trace "$tmp/trace.json" >/dev/null
check "sim --trace exits 0" $?
"$TRACE_CHECK" "$tmp/trace.json" --slices 864 --threads 288 --processes 73 --counters 3 \
    --name-prefix 0 "mi300x WGP 0" --name-prefix 99999 "mi300x counters" >"$tmp/tc.txt" 2>&1
check "trace follows the Trace Event Format as Perfetto reads it ($(cat "$tmp/tc.txt"))" $?
[ "$(grep -o '"ph":"X"' "$tmp/trace.json" | wc -l)" -eq 864 ]; check "trace has 864 slices" $?
contains "trace names subgroup tracks" "$tmp/trace.json" '"tid":1,"args":{"name":"slot 0, subgroup 1"}'
contains "trace nests stages in workgroups" "$tmp/trace.json" '{"name":"workgroup 71",'
# a broken trace is caught: a slice crossing its parent's end
awk '/"ph":"X"/ { if (++n == 2) sub(/"dur":[0-9.]*/, "\"dur\":999999") } 1' "$tmp/trace.json" >"$tmp/broken.json"
"$TRACE_CHECK" "$tmp/broken.json" >/dev/null 2>"$tmp/tc.txt"
[ $? -eq 1 ] && grep -q "overlap without nesting\|goes back" "$tmp/tc.txt"; check "trace check catches a partial overlap" $?
# a softmax's one kernel, traced by the max's run: each loop's stages nest
# in the workgroup (304 WGPs + a counter process; per workgroup 3 loads and
# accumulates, 2 subgroup reduces, 2 combines, the division's stores and the
# workgroup slice = 9 x 4096)
$LANESCOPE sim "$EX/softmax_4096x32000_f32.mlir" --target mi300x --no-check --trace "$tmp/sm.json" >/dev/null
check "sim --trace softmax exits 0" $?
"$TRACE_CHECK" "$tmp/sm.json" --slices 36864 --processes 305 --counters 3 \
    --name-prefix 0 "mi300x WGP 0 (reduction 1)" >"$tmp/tc.txt" 2>&1
check "softmax trace follows the format ($(cat "$tmp/tc.txt"))" $?
[ "$(grep -o '"cat":"@softmax_4096x32000:linalg.softmax#1.max"' "$tmp/sm.json" | wc -l)" -eq 36864 ]
check "trace holds the kernel's slices" $?
[ "$(grep -o '{"traceEvents":\[' "$tmp/sm.json" | wc -l)" -eq 1 ] && [ "$(tail -n 1 "$tmp/sm.json")" = '],"displayTimeUnit":"ns"}' ]
check "trace is one document" $?
ls "$tmp"/sm.json.tmp* >/dev/null 2>&1; [ $? -ne 0 ]; check "trace: no temporary left" $?

# draw: every kind to each format; headers and PNG signature checked.
pngsig=$(printf '\211PNG')
for kind in layout nested traffic timeline banks; do
    $LANESCOPE draw $kind "$EX/seed000_example2.mlir" -o "$tmp/$kind.png" --scale 1 2>"$tmp/stderr"
    check "draw $kind exits 0" $?
    [ "$(head -c 4 "$tmp/$kind.png")" = "$pngsig" ]; check "draw $kind writes a PNG" $?
done
$LANESCOPE draw swizzle "$EX/seed001_xor_shuffle.mlir" -o "$tmp/swz.svg"
check "draw swizzle svg exits 0" $?
contains "draw swizzle svg root" "$tmp/swz.svg" "<svg"
$LANESCOPE draw banks "$EX/seed001_xor_shuffle.mlir" -o "$tmp/banks.pdf"
check "draw banks (swizzle) pdf exits 0" $?
[ "$(head -c 5 "$tmp/banks.pdf")" = "%PDF-" ]; check "draw banks writes a PDF" $?
$LANESCOPE draw compare "$LS_EXAMPLES/../tests/data/compare_synthetic.csv" -o "$tmp/cmp.png"
check "draw compare exits 0" $?
$LANESCOPE draw layout "$EX/seed000_example2.mlir" --thread 42 --iteration 2 -o "$tmp/t42.png"
check "draw layout --thread --iteration exits 0" $?
# draw errors: one line naming the flag or file, exit code, nothing written.
$LANESCOPE draw layout "$EX/seed000_example2.mlir" -o "$tmp/x.gif" 2>"$tmp/stderr"
[ $? -eq 2 ]; check "draw bad extension exits 2" $?
contains "draw bad extension message" "$tmp/stderr" "the extension picks the format"
$LANESCOPE draw layout "$EX/seed000_example2.mlir" --iteration 12 -o "$tmp/y.png" 2>"$tmp/stderr"
[ $? -eq 2 ]; check "draw --iteration out of range exits 2" $?
contains "draw --iteration message" "$tmp/stderr" "--iteration: iteration 12 is outside 0..11"
[ ! -e "$tmp/y.png" ]; check "draw error leaves no file" $?
$LANESCOPE draw banks "$EX/seed000_example1.mlir" -o "$tmp/z.png" 2>"$tmp/stderr"
[ $? -eq 1 ]; check "draw banks without cross-subgroup exits 1" $?
contains "draw banks message" "$tmp/stderr" "seed000_example1.mlir:"
$LANESCOPE draw pie "$EX/seed000_example2.mlir" -o "$tmp/p.png" 2>"$tmp/stderr"
[ $? -eq 2 ]; check "draw unknown kind exits 2" $?
[ "$(wc -l <"$tmp/stderr")" -eq 1 ]; check "draw unknown kind: one line" $?
$LANESCOPE draw layout "$EX/seed000_example2.mlir" --dims 0,0 -o "$tmp/d.png" 2>"$tmp/stderr"
[ $? -eq 2 ]; check "draw --dims 0,0 exits 2" $?
contains "draw --dims message" "$tmp/stderr" "--dims: dims 0,0"
printf 'name,measured_us,simulated_us\nk2,x,3\n' >"$tmp/bad.csv"
$LANESCOPE draw compare "$tmp/bad.csv" -o "$tmp/c.png" 2>"$tmp/stderr"
[ $? -eq 1 ]; check "draw compare bad csv exits 1" $?
contains "draw compare bad csv position" "$tmp/stderr" "bad.csv:2:4:"
ls "$tmp" | grep -q tmp; [ $? -ne 0 ]; check "draw leaves no temporary files" $?

# suggest: IREE's default config, printed ready to paste, with its derivation.
$LANESCOPE suggest --shape 4x4096 --iter pr --type f32 --target gfx942 >"$tmp/sg.txt" 2>"$tmp/err"
check "suggest flags exits 0" $?
contains "suggest 4x4096 config" "$tmp/sg.txt" "lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 4096], subgroup_basis = [[1, 16], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>"
contains "suggest 4x4096 translation" "$tmp/sg.txt" "workgroup_size = [1024, 1, 1] subgroup_size = 64"
contains "suggest shows its work" "$tmp/sg.txt" "thread loads 4: 128-bit loads / 32 bits"
# a --shape dispatch has no file lines: none named
contains "suggest --shape: no file position" "$tmp/sg.txt" "@4x4096 pr f32 (--shape) on gfx942:"
contains "suggest --shape: the root op without a line" "$tmp/sg.txt" "root op: linalg.generic (the last linalg op with a reduction loop)"
! grep -q "line 0\|:0:0" "$tmp/sg.txt"; check "suggest --shape: no line 0" $?
$LANESCOPE suggest "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --format json >"$tmp/mv.json"
check "suggest matvec json exits 0" $?
contains "matvec split-k" "$tmp/mv.json" 'thread = [0, 8], workgroup = [8, 0]}>'
$LANESCOPE suggest "$EX/matvec_32000x4096_f16.mlir" --target a100 >"$tmp/mv.txt"
contains "matvec on a100: no split-k" "$tmp/mv.txt" "workgroup = [1, 0]}>"
# Decode attention: setAttentionReductionConfig's config (K1 128 -> 2 lanes
# on K1, 32 on K2; 8 subgroups; N tile 2 x 2 x 8), json alike; sim refuses.
AT="$EX/attention_decode_32x1x128x8192x128_f16.mlir"
$LANESCOPE suggest "$AT" --target mi300x >"$tmp/at.txt" 2>&1
check "attention suggest exits 0" $?
contains "attention config" "$tmp/at.txt" "lowering_config = #iree_gpu.lowering_config<{partial_reduction = [0, 0, 0, 256, 0], workgroup = [1, 1, 0, 0, 32]}>"
contains "attention qk lanes" "$tmp/at.txt" "qk_attrs = {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1, 2, 32], [1, 0, 3, 4]]"
contains "attention denormals" "$tmp/at.txt" 'denormal_fp_math<"preserve-sign">'
$LANESCOPE suggest "$AT" --target mi300x --format json >"$tmp/at.json"
check "attention suggest json exits 0" $?
tr -d ' \n' <"$tmp/at.json" >"$tmp/at.flat"
contains "attention json tiles" "$tmp/at.flat" '"partial_reduction":[0,0,0,256,0]'
# sim times it (the engine runs the kernel IREE's default config lowers
# to: sim/engine_attention.c) and runs its values as IREE lowers them
# (sim/attention_values.c): 8 workgroups of 32 outputs each (the N tile),
# checked.  K and V are 2 x 32 x 8192 x 128 f16 = 134 MB, read once from
# DRAM (K's 4 N-workgroups share it through the caches): DRAM-bound.
$LANESCOPE sim "$AT" --target mi300x --workgroups 8 >"$tmp/out" 2>"$tmp/err"
check "attention sim exits 0" $?
contains "attention sim values" "$tmp/out" "functional check passed: 256 outputs (output) of 8 workgroups match"
contains "attention sim timed" "$tmp/out" "DRAM 134.226 MB moved"
contains "attention sim verdict" "$tmp/out" "bound by DRAM bandwidth"
contains "attention sim loop" "$tmp/out" "attention: a K2 loop of 32 partial_reduction steps"
$LANESCOPE sim "$AT" --target mi300x --workgroups 2 --json >"$tmp/out" 2>"$tmp/err"
check "attention sim json exits 0" $?
tr -d ' \n' <"$tmp/out" >"$tmp/at.flat"
contains "attention sim json" "$tmp/at.flat" '"outputs_checked":64,"mismatches":0'
contains "attention sim json timing" "$tmp/at.flat" '"dram_bytes":134225920'
$LANESCOPE sim "$AT" --target mi300x --csv --no-check >"$tmp/out" 2>"$tmp/err"
check "attention sim --csv exits 0" $?
contains "attention sim csv" "$tmp/out" "@attention_decode_32x1x128x8192x128:attention,mi300x,load+accumulate,"
# --dump-plan: the kernel in IREE's words before the timing; IREE's default
# config (explain's layouts below): one K2 loop over d3, 2 lanes on K1 at
# stride 32 (a shuffle), then the merge of max, sum and 16 acc columns, each
# over 32 lanes (DPP on gfx942) and 8 subgroups (a workgroup round) = 36
$LANESCOPE sim "$AT" --target mi300x --workgroups 2 --dump-plan >"$tmp/out" 2>"$tmp/err"
check "attention sim --dump-plan exits 0" $?
contains "attention dump loop" "$tmp/out" "    scf.for %d3 = 0 to 8192 step 256 {"
contains "attention dump K1 reduce" "$tmp/out" "gpu.subgroup_reduce add cluster(size = 2, stride = 32) : f32 -> XOR butterfly"
contains "attention dump merge buffer" "$tmp/out" "%buf = memref.alloc() : memref<8x1x1x32xf32, #gpu.address_space<workgroup>> (1024 bytes)"
contains "attention dump merge count" "$tmp/out" "(per thread after the loop: 36 gpu.subgroup_reduce, 6 gpu.barrier)"
contains "attention dump epilogue" "$tmp/out" "vector.transfer_write: 2 x vector<8xf16> per thread"
contains "attention dump then timing" "$tmp/out" "functional check passed: 64 outputs"
contains "attention dump: the backend's widenings and FMAs" "$tmp/out" "(the backend: the key's f16 widening none: v_fma_mix_f32 reads the f16 value itself; the value's f16 widening an instruction an element, P's widening back an instruction a key slot; each multiply and the add of its product one FMA"
$LANESCOPE sim "$AT" --target mi300x --workgroups 1 --dump-plan=json 2>"$tmp/err" | tr -d ' \n' >"$tmp/plan.flat"
contains "attention plan json: the backend" "$tmp/plan.flat" '"backend":{"key_widening":0,"value_widening":1,"p_widening":1,"fused_multiply_add":true,"columns_paired":true}'
$LANESCOPE sim "$AT" --target h100 --workgroups 1 --dump-plan=json 2>"$tmp/err" | tr -d ' \n' >"$tmp/plan.flat"
contains "attention plan json: NVIDIA's backend" "$tmp/plan.flat" '"backend":{"key_widening":1,"value_widening":1,"p_widening":1,"fused_multiply_add":false,"columns_paired":false}'
# A thread's max over its 4 key slots is one vector.reduction a row, folded
# as LLVM folds it: on gfx942 (maxnumf there) a chain of v_max3_f32
ASL="$DATA/attention_slots4_gfx942.mlir"
$LANESCOPE sim "$ASL" --target mi300x --dump-plan >"$tmp/out" 2>"$tmp/err"
check "attention slots dump exits 0" $?
contains "attention local max fold" "$tmp/out" "max: arith.maximumf over the thread's 4 keys: 3 ops, a row's one vector.reduction: a chain of v_max3_f32, two combines an instruction: 2 instructions;"
$LANESCOPE sim "$ASL" --target mi300x --dump-plan=json --no-check 2>"$tmp/err" | tr -d ' \n' >"$tmp/plan.flat"
contains "attention local max fold json" "$tmp/plan.flat" '"local_ops":3,"local_fold":{"values":4,"form":"chain","instructions":2,"packed_instructions":0,"depth":2,"ptxas_fused":0,"root_to_join":false}'
$LANESCOPE sim "$AT" --target mi300x --config "#iree_gpu.lowering_config<{workgroup = [1, 0]}>" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "attention sim --config: exit 2, one line" $?
contains "attention sim --config reason" "$tmp/err" "--config: $AT holds an attention op, whose configs are"
# draw traffic simulates the same kernel: its 128 workgroups
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE draw traffic "$AT" --target mi300x -o "$tmp/at.svg" 2>"$tmp/err"
check "attention draw traffic exits 0" $?
contains "attention draw traffic runs the kernel" "$tmp/err" "lanescope draw: engine: 128/128 workgroups (100%)"
# explain lays attention out: IREE's default config on mi300x (gfx942), the
# two matmuls' layouts and per-thread vectors (docs/attention-lowering.md
# §6.4 worked by hand: K1 = 128 is 16 key vectors of 8, 2 tiles of 8 -> 2
# lanes on K1 (stride 32) and 32 on K2, 8 subgroups on K2: 256 keys a tile;
# K1 per thread 128 / 2 / 8 = 8 batches of 8; N tile 32 / 2 lanes / 8 = 2)
$LANESCOPE explain "$AT" --target mi300x >"$tmp/atx.txt" 2>"$tmp/err"
check "attention explain exits 0" $?
contains "attention explain loop" "$tmp/atx.txt" "K2 loop: 32 iterations over tiles of 256 keys (partial_reduction)"
contains "attention explain grid" "$tmp/atx.txt" "workgroup: 512 threads = 8 subgroups of 64; 128 workgroups"
contains "attention explain QK layout" "$tmp/atx.txt" "layout: #iree_vector_ext.nested_layout<subgroup_tile = [1, 1, 1, 8], batch_tile = [1, 1, 8, 1], outer_tile = [1, 1, 1, 1], thread_tile = [1, 1, 2, 32], element_tile = [1, 1, 8, 1], subgroup_strides = [0, 0, 0, 1], thread_strides = [0, 0, 32, 1]>"
contains "attention explain K vector" "$tmp/atx.txt" "per thread, K: vector<1x1x8x1x1x1x1x1x8xf16>"
contains "attention explain V vector" "$tmp/atx.txt" "per thread, V: vector<1x1x2x1x1x1x1x1x8xf16>"
contains "attention explain QK reduce" "$tmp/atx.txt" "per K2 iteration: 1 gpu.subgroup_reduce add per thread"
# thread 37 = subgroup 0, lane 37: K2 lane 37 mod 32 = 5, K1 lane 1 (stride
# 32) -> columns 16 b + 8 + e; PV N lane 1 -> 16 b + 8 + e, b < 2
$LANESCOPE explain "$AT" --target mi300x --thread 37 >"$tmp/att.txt" 2>"$tmp/err"
contains "attention thread QK" "$tmp/att.txt" "QK: d0 (B) 0; d1 (M) 0; d2 (K1) 8..15, 24..31, 40..47, 56..63, 72..79, 88..95, 104..111, 120..127; d3 (K2) 5"
contains "attention thread PV" "$tmp/att.txt" "PV: d0 (B) 0; d1 (M) 0; d3 (K2) 5; d4 (N) 8..15, 24..31"
$LANESCOPE explain "$AT" --target mi300x --thread 512 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "attention --thread past the workgroup exits 2" $?
contains "attention --thread range" "$tmp/err" "--thread: 512 is outside the workgroup of @attention_decode_32x1x128x8192x128:attention (threads 0..511)"
$LANESCOPE explain "$AT" --target mi300x --format json >"$tmp/atx.json" 2>"$tmp/err"
check "attention explain json exits 0" $?
tr -d ' \n' <"$tmp/atx.json" >"$tmp/atx.flat"
contains "attention explain json vectors" "$tmp/atx.flat" '"vectors":{"Q":"vector<1x1x8x1x1x1x1x1x8xf16>","K":"vector<1x1x8x1x1x1x1x1x8xf16>"}'
contains "attention explain json source" "$tmp/atx.flat" '"config_source":"iree-default"'
# Paged decode attention (docs/attention-lowering.md §10.3): K and V
# gathered from their caches through one page table, the causal mask
# computed.  Each of the 64 workgroups (sequence x head) reads its head's
# slice of 64 pages: 8 x 64 x 8 x (32 x 128 x 2 B) = 33554432 bytes of K,
# each page once from DRAM; the page table (8 x 64 i64 = 4096 B) from DRAM
# once, 512 B per workgroup through the caches (8 subgroup loads of 2
# pages' indices a step).
PG="$EX/attention_paged_decode_8x8x2048x128_f16.mlir"
$LANESCOPE sim "$PG" --target mi300x --workgroups 4 >"$tmp/out" 2>"$tmp/err"
check "paged sim exits 0" $?
contains "paged sim values" "$tmp/out" "functional check passed: 512 outputs (acc) of 4 workgroups match"
contains "paged sim K rows" "$tmp/out" "0 key %k                       33554432   2097152"
[ "$(awk '$2 == "key" && $3 == "%k" {print $NF}' "$tmp/out")" = 33554432 ]
check "paged sim K pages each read from DRAM once" $?
[ "$(awk '$2 == "K+V" && $4 == "%pages" {print $NF}' "$tmp/out")" = 4096 ]
check "paged sim page table read from DRAM once" $?
contains "paged sim page table" "$tmp/out" "2 K+V indices %pages              32768      2048"
# --dump-plan on IREE's case #3 config (the example carries it): the loop
# carries the vectors IREE's pipeline test CHECKs, nothing reduces across
# lanes in it, and the merge leaves its CHECK-COUNT-387 subgroup_reduces
$LANESCOPE sim "$PG" --target mi300x --workgroups 1 --dump-plan >"$tmp/pgplan.txt" 2>"$tmp/err"
check "paged sim --dump-plan exits 0" $?
contains "paged dump loop" "$tmp/pgplan.txt" "    scf.for %d5 = 0 to 64 step 8 {"
contains "paged dump carried acc" "$tmp/pgplan.txt" "%acc = 0 : vector<1x1x1x1x1x16x1x1x1x1x1x1x1x1x1x1x1x8xf32>"
contains "paged dump carried max" "$tmp/pgplan.txt" "%max = lowest finite : vector<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>"
contains "paged dump loop reduces" "$tmp/pgplan.txt" "(per thread this step: 0 gpu.subgroup_reduce, 0 gpu.barrier)"
contains "paged dump merge 387" "$tmp/pgplan.txt" "(per thread after the loop: 387 gpu.subgroup_reduce, 4 gpu.barrier)"
contains "paged dump acc buffer" "$tmp/pgplan.txt" "memref<4x1x1x1x1x128xf32, #gpu.address_space<workgroup>> (2048 bytes)"
contains "paged dump gather" "$tmp/pgplan.txt" "input 0 key %k: 16 x vector.transfer_read vector<8xf16> per thread at the rows input 2's indices name"
contains "paged dump dead sum" "$tmp/pgplan.txt" "sum: no merge (the op's sum is not stored"
$LANESCOPE sim "$PG" --target mi300x --workgroups 1 --dump-plan=json --quiet >"$tmp/pgplan.txt" 2>"$tmp/err"
check "paged sim --dump-plan=json exits 0" $?
tr -d ' \n' <"$tmp/pgplan.txt" >"$tmp/pg.flat"
contains "paged dump json loop" "$tmp/pg.flat" '"loops":[{"dim":5,"lower_bound":0,"upper_bound":64,"step":8}]'
contains "paged dump json merge" "$tmp/pg.flat" '"exp2":1,"subgroup_reduces":387,"barriers":4'
contains "paged sim says gathered" "$tmp/out" "paged: the key and value are gathered by row"
contains "paged sim mask" "$tmp/out" "mask: computed by the dispatch's linalg.generic, 5 instructions per score"
$LANESCOPE sim "$PG" --target mi300x --no-check --seed 1 | grep cycles >"$tmp/s1"
$LANESCOPE sim "$PG" --target mi300x --no-check --seed 7 | grep cycles >"$tmp/s7"
cmp -s "$tmp/s1" "$tmp/s7" && [ -s "$tmp/s1" ]; check "paged timing does not depend on the seed" $?
$LANESCOPE explain "$PG" --target mi300x >"$tmp/out" 2>"$tmp/err"
check "paged explain exits 0" $?
contains "paged explain key" "$tmp/out" "key: gathered (iree_linalg_ext.gather at line 48): rows of %kcache (1024 rows of 65536 bytes) named by %pages (i64)"
contains "paged explain mask" "$tmp/out" "mask: computed (linalg.generic at line 51, 4 ops per element from linalg.index and constants)"
$LANESCOPE explain "$PG" --target mi300x --format json | tr -d ' \n' >"$tmp/out"
contains "paged explain json" "$tmp/out" '"mask":"computed","mask_ops_per_element":4'
# its pictures (values checked in test_paged_attention.c): the K2 step's
# keys, and both matmuls' nested layouts; a dim a matmul lacks is refused
$LANESCOPE draw layout "$PG" --target mi300x --thread 37 -o "$tmp/pl.png" 2>"$tmp/err"
check "paged draw layout exits 0" $?
$LANESCOPE draw nested "$PG" --target mi300x -o "$tmp/pn.svg" 2>"$tmp/err"
check "paged draw nested exits 0" $?
$LANESCOPE draw nested "$PG" --target mi300x --dims 3,5 -o "$tmp/pn2.svg" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/pn2.svg" ]
check "paged draw nested --dims 3,5: exit 2, one line, no file" $?
contains "paged draw nested names the matmul" "$tmp/err" "--dims: the QK matmul has no loop d3 (its loops are the op's less N)"
# the dense example's 256 keys x 128 K1 at the default scale is past the
# PNG limit: the message says which scale fits (and no file is written)
$LANESCOPE draw nested "$AT" --target mi300x -o "$tmp/big.png" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -e "$tmp/big.png" ]; check "draw nested past the PNG limit: exit 1, no file" $?
contains "draw past the PNG limit names a scale that fits" "$tmp/err" "the limit is 32767 per side and 134217728 in all; --scale 1.39 fits, or draw to .svg or .pdf (no pixel limit)"
$LANESCOPE explain "$AT" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "attention explain without a target: exit 2, one line" $?
contains "attention explain names --target" "$tmp/err" "has no config: give --target for IREE's default"
$LANESCOPE suggest --shape 8x48 --iter pr --target gfx1100 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "suggest rejection: exit 1, one line" $?
contains "suggest rejection reason" "$tmp/err" "no subgroup size choice of gfx1100 ([32, 64]) divides the reduction size 48"
$LANESCOPE suggest --shape 8x64 --iter pr >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "suggest without a target exits 2" $?
contains "suggest names --target" "$tmp/err" "--target: no target"
$LANESCOPE suggest --shape 8x64 --iter pr --type f64 --target sm_80 >"$tmp/out" 2>"$tmp/err"
contains "suggest f64 on sm_80" "$tmp/err" "cannot shuffle more than 32 bits"
# a flag given twice is refused, never the last one silently taken
for flag in "--shape 8x64" "--iter pr" "--type f16" "--combiner add"; do
    $LANESCOPE suggest --shape 8x64 --iter pr --type f32 --combiner add $flag --target sm_80 \
        >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 2 ]; check "suggest $flag twice exits 2" $?
    contains "suggest $flag twice named" "$tmp/err" "${flag%% *} given twice"
done
$LANESCOPE sweep --shape 8x64 --iter pr --target h100 --csv "$tmp/a.csv" --csv "$tmp/b.csv" \
    >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/a.csv" ] && [ ! -e "$tmp/b.csv" ]; check "sweep --csv twice: exit 2, no file" $?
contains "sweep --csv twice named" "$tmp/err" "--csv given twice"
$LANESCOPE draw layout --shape 8x64 --iter pr --target h100 --target mi300x -o "$tmp/t.png" \
    >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/t.png" ]; check "draw --target twice: exit 2, no file" $?
contains "draw --target twice named" "$tmp/err" "--target given twice"
$LANESCOPE sim "$EX/seed000_example2.mlir" --seed 1 --seed 2 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ]; check "sim --seed twice: exit 2, no report" $?
contains "sim --seed twice named" "$tmp/err" "lanescope sim: --seed given twice ('1', then '2'): give it once"
$LANESCOPE sweep --shape 8x64 --iter pr --target h100 -j 1 -j 2 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "sweep -j twice exits 2" $?
contains "sweep -j twice named" "$tmp/err" "-j given twice ('1', then '2')"

# A config-less input: sim uses IREE's default, and pasting the printed
# attributes into the IR gives the same simulation, cycle for cycle.
$LANESCOPE sim "$EX/rowsum_4096x4096_noconfig.mlir" --target mi300x --no-check --json >"$tmp/d.json" 2>"$tmp/err"
check "sim without a config exits 0" $?
contains "sim reports the default" "$tmp/d.json" '"config_source":"iree-default"'
$LANESCOPE suggest "$EX/rowsum_4096x4096_noconfig.mlir" --target mi300x >"$tmp/rs.txt"
cfg=$(sed -n 's/^    lowering_config = //p' "$tmp/rs.txt")
ti=$(sed -n 's/^  translation_info = //p' "$tmp/rs.txt")
sed -e "s|func.func @rowsum_4096x4096() {|func.func @rowsum_4096x4096() attributes {translation_info = $ti} {|" \
    -e "s|outs(%4 : tensor<4096xf32>) {|outs(%4 : tensor<4096xf32>) attrs = {lowering_config = $cfg} {|" \
    "$EX/rowsum_4096x4096_noconfig.mlir" >"$tmp/pasted.mlir"
$LANESCOPE sim "$tmp/pasted.mlir" --target mi300x --no-check --json >"$tmp/p.json" 2>"$tmp/err"
check "pasted config simulates" $?
contains "pasted config is read as the input's" "$tmp/p.json" '"config_source":"input"'
c1=$(grep -o '"cycles":[0-9]*' "$tmp/d.json"); c2=$(grep -o '"cycles":[0-9]*' "$tmp/p.json")
[ -n "$c1" ] && [ "$c1" = "$c2" ]; check "pasted config: same cycles ($c1 / $c2)" $?
# A matvec simulates: both inputs read, the functional check against the
# reference (IREE's default config for the target, since the file has none).
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --workgroups 64 >"$tmp/out" 2>"$tmp/err"
check "sim of a matvec exits 0" $?
contains "sim matvec: IREE's split-k config" "$tmp/out" "workgroup = [8, 0], thread = [0, 8]"
contains "sim matvec: checked" "$tmp/out" "functional check passed: 512 outputs of 64 workgroups"
contains "sim matvec: products fused as IREE fuses them" "$tmp/out" "each thread's 8 packed elements an FMA chain, last first, then added (ContractToChainFMA)"
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --workgroups 2 --json >"$tmp/mv.json" 2>"$tmp/err"
contains "sim matvec json: fused_multiply_add" "$tmp/mv.json" '"fused_multiply_add":"packed-chain"'
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --dump-plan >"$tmp/out" 2>"$tmp/err"
contains "sim matvec plan: the vector's loads" "$tmp/out" "input 1 %4: 1 x vector.transfer_read vector<8xf16> per thread"
contains "sim matvec plan: the body" "$tmp/out" "%2 = arith.mulf %0, %1 : f16"
contains "sim matvec plan: the packed FMA chain" "$tmp/out" "%local = vector.contract over each accumulator's packed inner 8 elements: a math.fma chain from 0, last element first (ContractToChainFMA)"
contains "sim matvec plan: one add into each accumulator" "$tmp/out" "%acc = add(%acc, %local) elementwise (8 accumulators)"
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --dump-plan=json --workgroups 2 >"$tmp/plan.json" 2>"$tmp/err"
check "sim --dump-plan=json exits 0" $?
contains "plan json: the matrix's distributed vector" "$tmp/plan.json" '"distributed_type":"vector<8x1x1x1x1x1x1x1x8xf16>"'
tr -d ' \n' <"$tmp/plan.json" >"$tmp/plan.flat"
contains "plan json: the FMA chain" "$tmp/plan.flat" '"packed_inner_elements":8,"fused_multiply_add":"packed-chain"'
contains "plan json: the vector's distributed vector" "$tmp/plan.json" '"distributed_type":"vector<1x1x1x1x1x8xf16>"'
contains "plan json: the loop's level" "$tmp/plan.json" '"tiling_level":"partial_reduction"'
contains "plan json: the loop's bound" "$tmp/plan.json" '"upper_bound":8'
contains "plan json: an f16 sum's combine is one instruction, two accumulators paired" "$tmp/plan.flat" '"combines_fuse_in_pairs":false,"accumulators_paired":true,"combine_instructions":1'
# Packed math in the body: the int4 dequantising matvec's subf and scale
# mulf pair on gfx942 (any two neighbours), on h100 inside each 4-element
# innermost vector (no SLP vectorizer)
I4="$DATA/../corpus/i4_dequant_matvec_gfx942.mlir"
$LANESCOPE sim "$I4" --dump-plan >"$tmp/out" 2>"$tmp/err"
check "i4 matvec --dump-plan exits 0" $?
contains "i4 matvec plan: the body's paired ops" "$tmp/out" "(packed math: 2 of these instructions (arith.subf, arith.mulf) compute two neighbouring elements at once"
$LANESCOPE sim "$I4" --target h100 --dump-plan >"$tmp/out" 2>"$tmp/err"
contains "i4 matvec plan on h100: pairs within a vector" "$tmp/out" "compute two neighbouring elements of the same innermost 4-element vector (IREE's CUDA target runs no SLP vectorizer)"
$LANESCOPE sim "$I4" --dump-plan=json >"$tmp/plan.json" 2>"$tmp/err"
tr -d ' \n' <"$tmp/plan.json" >"$tmp/plan.flat"
contains "plan json: the body's paired instructions" "$tmp/plan.flat" '"body_instructions_paired":2'
# The body as each register issues it: the f32 matvec's vector widened once
# for a thread's 8 rows (56 of 128 saved), the norm's mean hoisted out of
# the variance loop (tests/test_body_issue.c counts them)
sed -e 's/tensor<32000xf16>/tensor<32000xf32>/g' -e 's/%cst = arith.constant 0.000000e+00 : f16/%cst = arith.constant 0.000000e+00 : f32/' \
    -e 's/%8 = arith.mulf %in, %in_0 : f16/%e0 = arith.extf %in : f16 to f32\n    %e1 = arith.extf %in_0 : f16 to f32\n    %8 = arith.mulf %e0, %e1 : f32/' \
    -e 's/%9 = arith.addf %8, %out : f16/%9 = arith.addf %8, %out : f32/' -e 's/%out: f16)/%out: f32)/' -e 's/linalg.yield %9 : f16/linalg.yield %9 : f32/' \
    "$EX/matvec_32000x4096_f16.mlir" >"$tmp/mv_f32acc.mlir"
$LANESCOPE sim "$tmp/mv_f32acc.mlir" --target gfx942 --dump-plan --workgroups 2 >"$tmp/out" 2>"$tmp/err"
check "f32-acc matvec --dump-plan exits 0" $?
contains "f32-acc matvec plan: the vector widened once" "$tmp/out" "(of the 192 body instructions its 64 registers would issue an iteration, a thread issues 72: 56 saved where registers read the same operand elements and share one value"
$LANESCOPE sim "$tmp/mv_f32acc.mlir" --target gfx942 --dump-plan=json --workgroups 2 >"$tmp/plan.json" 2>"$tmp/err"
tr -d ' \n' <"$tmp/plan.json" >"$tmp/plan.flat"
contains "plan json: the body an iteration" "$tmp/plan.flat" '"body_instructions_per_iteration":{"alu":72,"special_function":0,"shared":56,"hoisted":0,"folded":64,"before_loop":0}'
$LANESCOPE sim "$DATA/nhwc_norm_4x8192x3_f16.mlir" --target h100 --dump-plan >"$tmp/out" 2>"$tmp/err"
contains "nhwc norm plan: the mean hoisted" "$tmp/out" "hoisted out of it (LICM:"
# A per-row input (map d0) reads no dim the loop steps: read once before
# the loop, said in the text and the JSON (tests/test_body_issue.c times it)
cat >"$tmp/inv.mlir" <<'EOF'
func.func @k() attributes {translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64>} {
%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %m : tensor<64x4096xf32>, tensor<64xf32>) outs(%c : tensor<64xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, 8], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {
^bb0(%x: f32, %mm: f32, %o: f32):
  %d = arith.subf %x, %mm : f32
  %q = arith.mulf %d, %d : f32
  %s = arith.addf %q, %o : f32
  linalg.yield %s : f32
} -> tensor<64xf32>
}
EOF
$LANESCOPE sim "$tmp/inv.mlir" --target mi300x --dump-plan >"$tmp/out" 2>"$tmp/err"
check "per-row input sim exits 0" $?
contains "per-row input: hoisted" "$tmp/out" "input 1 %m: 1 x vector.transfer_read vector<1xf32> per thread, hoisted: read once before the loop (it reads no dim the loop steps)"
contains "per-row input: the subtract pairs in f32" "$tmp/out" "(packed math: 1 of these instructions (arith.subf) computes two neighbouring elements at once -- v_pk_add_f32 (a subf too)"
$LANESCOPE sim "$tmp/inv.mlir" --target mi300x --dump-plan=json 2>"$tmp/err" | tr -d ' \n' >"$tmp/plan.flat"
contains "plan json: the per-row input hoisted" "$tmp/plan.flat" '"transfer_reads":1,"hoisted":true'
# An i64 max on gfx942: v_cmp_gt_i64 and two v_cndmask_b32 a combine
# (tools/amd-dpp-counts.py), said in the text and the JSON.
sed 's/0.000000e+00 : f16/0 : i64/; s/f16>/i64>/g; s/: f16/: i64/g; s/arith.addf/arith.maxsi/; s/arith.mulf %in, %in_0/arith.muli %in, %in_0/' "$EX/matvec_32000x4096_f16.mlir" >"$tmp/mv_i64.mlir"
$LANESCOPE sim "$tmp/mv_i64.mlir" --target gfx942 --dump-plan --workgroups 2 >"$tmp/out" 2>"$tmp/err"
check "i64 matvec --dump-plan exits 0" $?
contains "dump: the i64 max's instructions" "$tmp/out" "i64 combines: LLVM's AMDGPU backend compiles each maxsi to 3 dependent instructions"
$LANESCOPE sim "$tmp/mv_i64.mlir" --target gfx942 --dump-plan=json --workgroups 2 | tr -d ' \n' >"$tmp/plan.flat"
contains "plan json: the i64 max's instructions" "$tmp/plan.flat" '"combine_instructions":3'
$LANESCOPE sim "$(dirname "$0")/corpus/argmin_i64_index_gfx942.mlir" --dump-plan=json --workgroups 1 | tr -d ' \n' >"$tmp/plan.flat"
contains "plan json: an i64 index's select is two" "$tmp/plan.flat" '"select_instructions":[1,2]'
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --dump-plan=yaml >/dev/null 2>"$tmp/err"
check "--dump-plan=yaml exits 2" $([ $? -eq 2 ]; echo $?)
contains "--dump-plan=yaml message" "$tmp/err" "--dump-plan=yaml: expected text or json"
# An init that is not a constant fill is said to be replaced by the identity.
sed 's/outs(%6 : tensor<32000xf16>)/outs(%5 : tensor<32000xf16>)/' "$EX/matvec_32000x4096_f16.mlir" >"$tmp/noinit.mlir"
$LANESCOPE sim "$tmp/noinit.mlir" --target gfx942 --workgroups 2 >"$tmp/out" 2>"$tmp/err"
contains "sim: unknown init noted" "$tmp/out" "note: the init is not a linalg.fill of a constant"
$LANESCOPE explain "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --thread 3 >"$tmp/out" 2>"$tmp/err"
contains "explain matvec: the matrix's loads" "$tmp/out" "input 0 %3 (f16): 8 loads of 8 elements, at operand coordinates"
contains "explain matvec: the vector's load" "$tmp/out" "input 1 %4 (f16): 1 load of 8 elements, at operand coordinates"
contains "explain matvec: vector coordinates" "$tmp/out" "[24] [25] [26] [27] [28] [29] [30] [31]"
$LANESCOPE sim "$EX/matvec_32000x4096_f16.mlir" --target gfx942 --input "$tmp/none.npy" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "sim matvec --input: a usage error" $?
contains "sim matvec --input message" "$tmp/err" "reads 2 inputs; --input supplies one array"

# A model so wide that every workgroup of a tall reduction is resident at
# once: the engine's state is bounded before anything is allocated.
sed -e 's/^wgp_count = .*/wgp_count = 100000 # source: test/' -e 's/^max_workgroups_per_wgp = .*/max_workgroups_per_wgp = 4096 # source: test/' \
    -e 's/^max_subgroups_per_wgp = .*/max_subgroups_per_wgp = 4096 # source: test/' \
    -e 's/^max_threads_per_wgp = .*/max_threads_per_wgp = 1048576 # source: test/' -e '/^regs_per_wgp/d' "${LANESCOPE_TARGETS:-targets}/h100.hw" >"$tmp/wide.hw"
printf 'func.func @tall(%%a: tensor<4194304x64xf32>, %%b: tensor<4194304xf32>) -> tensor<4194304xf32> {\n  %%r = linalg.reduce ins(%%a : tensor<4194304x64xf32>) outs(%%b : tensor<4194304xf32>) dimensions = [1]\n    (%%in: f32, %%o: f32) {\n      %%1 = arith.addf %%in, %%o : f32\n      linalg.yield %%1 : f32\n    }\n  return %%r : tensor<4194304xf32>\n}\n' >"$tmp/tall.mlir"
$LANESCOPE sim "$tmp/tall.mlir" --target "$tmp/wide.hw" --no-check >"$tmp/out" 2>"$tmp/err"
check "engine state limit exits 1" $([ $? -eq 1 ]; echo $?)
contains "engine state limit message" "$tmp/err" "tall.mlir:2:8: 4194304 workgroups would be resident at once (100000 WGPs hold up to 4096 each), "
contains "engine state limit named" "$tmp/err" " GiB of simulator state; the limit is 1.00 GiB: simulate fewer workgroups (--workgroups)"

# Readers: a NUL byte is an error at its line and column, /dev/zero ends
# at once instead of being read to a size limit.
printf 'func.func @f() {\n  %%x = \000\n}\n' >"$tmp/nul.mlir"
$LANESCOPE explain "$tmp/nul.mlir" >"$tmp/out" 2>"$tmp/err"
check "NUL in .mlir exits 1" $([ $? -eq 1 ]; echo $?)
contains "NUL in .mlir: position" "$tmp/err" "nul.mlir:2:8: a NUL byte: not a text file"
printf 'name = x\000\n' >"$tmp/nul.hw"
$LANESCOPE sim "$EX/seed000_example2.mlir" --target "$tmp/nul.hw" >"$tmp/out" 2>"$tmp/err"
contains "NUL in .hw: position" "$tmp/err" "nul.hw:1:9: a NUL byte: not a text file"
for cmd in "sim /dev/zero" "compare /dev/zero" "draw compare /dev/zero -o $tmp/z.png"; do
    $LANESCOPE $cmd >"$tmp/out" 2>"$tmp/err"
    check "$cmd exits 1" $([ $? -eq 1 ]; echo $?)
    contains "$cmd: NUL message" "$tmp/err" "/dev/zero:1:1: a NUL byte: not a text file"
done

# A folder where a file is expected: said so, by every reader.
mkdir -p "$tmp/folder.hw"
for cmd in "sim $tmp/folder.hw" "compare $tmp/folder.hw" "draw compare $tmp/folder.hw -o $tmp/f.png" \
    "sim $EX/seed000_example2.mlir --target $tmp/folder.hw" "sim $EX/seed000_example2.mlir --input $tmp/folder.hw"; do
    $LANESCOPE $cmd >"$tmp/out" 2>"$tmp/err"
    check "$cmd exits 1" $([ $? -eq 1 ]; echo $?)
    contains "$cmd: folder message" "$tmp/err" "folder.hw: is a folder; expected a file"
done

# The exit-code table (man page, EXIT STATUS), command by command: a bad
# flag is 2, a missing input file 1.
for c in explain sim "draw layout" suggest sweep measure calibrate compare view; do
    $LANESCOPE $c --nope >"$tmp/out" 2>"$tmp/err"
    check "$c --nope exits 2" $([ $? -eq 2 ]; echo $?)
    [ "$c" = calibrate ] && continue # it takes no input
    out=; [ "$c" = sweep ] || [ "$c" = view ] || out="-o $tmp/never.png"
    $LANESCOPE $c "$tmp/nonexistent.mlir" $out >"$tmp/out" 2>"$tmp/err"
    check "$c on a missing file exits 1" $([ $? -eq 1 ]; echo $?)
    contains "$c on a missing file: message" "$tmp/err" "nonexistent.mlir: cannot open: No such file or directory"
done

# A model file of its own name and no iree_target line stands for IREE's
# target of its arch: a renamed copy of mi300x gets the same default config.
sed -e 's/^name = mi300x/name = mylab/' -e '/^iree_target/d' "${LANESCOPE_TARGETS:-targets}/mi300x.hw" >"$tmp/mylab.hw"
$LANESCOPE sim "$EX/rowsum_4096x4096_noconfig.mlir" --target "$tmp/mylab.hw" --no-check --json >"$tmp/m.json" 2>"$tmp/err"
check "renamed model without config exits 0" $?
contains "renamed model gets IREE's default" "$tmp/m.json" '"config_source":"iree-default"'
c3=$(grep -o '"cycles":[0-9]*' "$tmp/m.json")
check "renamed model, same cycles" $([ "$c1" = "$c3" ]; echo $?)

# arg_compare: IREE's config, the check of values and indices, the tie finding,
# the plan in IREE's ops; bad operands are one-line errors at the op.
$LANESCOPE sim "$EX/argmax_vocab_64x32000_f32.mlir" --target mi300x --workgroups 8 >"$tmp/am.txt" 2>"$tmp/err"
check "sim argmax exits 0" $?
contains "argmax config" "$tmp/am.txt" "#iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 4], partial_reduction = [0, 256], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>"
contains "argmax check" "$tmp/am.txt" "functional check passed: 8 (value, index) outputs of 8 workgroups match the op's semantics (f32 arg_compare, seed 1)"
contains "argmax ties" "$tmp/am.txt" "finding: 8 of them get another position of the best value"
$LANESCOPE sim "$EX/argmax_vocab_64x32000_f32.mlir" --target mi300x --workgroups 1 --dump-plan >"$tmp/amp.txt" 2>"$tmp/err"
contains "argmax plan loop" "$tmp/amp.txt" "scf.for %iv = 0 to 32000 step 256 {"
contains "argmax plan ballot" "$tmp/amp.txt" "%win = arith.cmpf oeq, %x, %red; %m = gpu.ballot %win : i64"
contains "argmax plan shuffle idx" "$tmp/amp.txt" "%i = gpu.shuffle idx %i, %w, 64 : i32; %v = %red"
# a sweep says why its candidates did not simulate, grouped by reason
$LANESCOPE sweep "$EX/argmax_vocab_64x32000_f32.mlir" --target h100 --max-configs 4 --quiet >"$tmp/amsw.txt" 2>&1
check "argmax sweep exits 0" $?
contains "argmax sweep: the refused configs" "$tmp/amsw.txt" "2 configs did not simulate (--csv FILE lists each one's):"
contains "argmax sweep: why, counted" "$tmp/amsw.txt" "    2: several rows share a subgroup: IREE's arg_compare ballot gives them the index of the row at lane 0"
$LANESCOPE sim "$EX/argmax_vocab_64x32000_f32.mlir" --target mi300x --workgroups 2 --json >"$tmp/am.json" 2>"$tmp/err"
tr -d ' \n' <"$tmp/am.json" >"$tmp/am.flat"
contains "argmax json ties" "$tmp/am.flat" '"index_ties":2'
sed 's/ins(%3 : tensor<64x32000xf32>)/ins(%3, %3 : tensor<64x32000xf32>, tensor<64x32000xf32>)/' \
    "$EX/argmax_vocab_64x32000_f32.mlir" >"$tmp/am_badidx.mlir"
$LANESCOPE sim "$tmp/am_badidx.mlir" --target mi300x >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "arg_compare f32 indices: one-line error" $?
contains "arg_compare index type message" "$tmp/err" "am_badidx.mlir:20:5: the index input holds f32 but the index init i32; they must match"
sed 's/dimension(1)/dimension(2)/' "$EX/argmax_vocab_64x32000_f32.mlir" >"$tmp/am_baddim.mlir"
$LANESCOPE sim "$tmp/am_baddim.mlir" --target mi300x >/dev/null 2>"$tmp/err"
[ $? -ne 0 ]; check "arg_compare bad dimension fails" $?
contains "arg_compare dimension message" "$tmp/err" "dimension(2) is not a dimension of the rank-2 input"

# sweep: CSV with every point ranked, one IREE row, a chart; bad flags write nothing.
(cd "$tmp" && $LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --max-configs 20 -j 2 \
    --csv s.csv --chart s.png >sweep.txt 2>"$tmp/err")
check "sweep exits 0" $?
[ "$(wc -l <"$tmp/s.csv")" -eq 21 ]; check "sweep CSV has 20 points" $?
[ "$(cut -d, -f2 "$tmp/s.csv" | grep -c '^1$')" -eq 1 ]; check "sweep CSV flags IREE once" $?
contains "sweep ranks IREE" "$tmp/sweep.txt" "IREE's choice ranks"
head -c 8 "$tmp/s.png" | od -An -c | grep -q "P   N   G"; check "sweep chart is a PNG" $?
$LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --csv "$tmp/sweep-none.csv" --chart "$tmp/x.gif" >/dev/null 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && [ ! -e "$tmp/sweep-none.csv" ]; check "sweep: bad chart name, exit 2, no CSV (rc $rc)" $?
$LANESCOPE sweep --shape 64x256 --iter pr --target mi300x -j 0 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ]; check "sweep -j 0 exits 2" $?
contains "sweep -j message" "$tmp/err" "-j: 0 is outside 1..256"
# an attention: IREE's rules with other seeds, IREE's point flagged once
# and timed as sim times the kernel; what only a reduction's sweep takes is
# refused
AS=$DATA/attention_decode_2x1x64x512x64_f16.mlir
# the online softmax's exp2 as the target's compiled code computes it
$LANESCOPE sim "$AS" --target h100 >"$tmp/as_nv.txt" 2>&1
check "attention sim on h100 exits 0" $?
contains "attention: h100's exp2 is MLIR's" "$tmp/as_nv.txt" "math ops: math.exp2 bit for bit as IREE's code for this target (exp(x * ln 2), MLIR's f32 polynomial approximation, MathTransform.cpp)"
$LANESCOPE sim "$AS" --target mi300x >"$tmp/as_amd.txt" 2>&1
contains "attention: mi300x's exp2 is rounded" "$tmp/as_amd.txt" "math ops: math.exp2 correctly rounded (IREE's ROCm code lowers it to v_exp"
$LANESCOPE sweep "$AS" --target mi300x -j 2 --quiet --csv "$tmp/as.csv" --chart "$tmp/as.svg" \
    >"$tmp/as.txt" 2>"$tmp/err"
check "attention sweep exits 0" $?
contains "attention sweep says what it tries" "$tmp/as.txt" "IREE's setAttentionReductionConfig with other seeds"
contains "attention sweep ranks IREE" "$tmp/as.txt" "IREE's choice ranks"
[ "$(cut -d, -f2 "$tmp/as.csv" | grep -c '^1$')" -eq 1 ]; check "attention sweep CSV flags IREE once" $?
[ "$(awk -F, '$2 == 1 {print $4 "/" $5 "/" $6}' "$tmp/as.csv")" = 8/2/8 ]
check "attention sweep: IREE's seeds are 8/2/8" $?
as_us=$(awk -F, '$2 == 1 { print $16 }' "$tmp/as.csv")
$LANESCOPE sim "$AS" --target mi300x --no-check --json >"$tmp/as.json"
sim_us=$(tr -d ' \n' <"$tmp/as.json" | sed 's/.*"time_us":\([0-9.e+-]*\).*/\1/')
awk -v a="$as_us" -v b="$sim_us" 'BEGIN { exit !(a > 0 && (a - b) < 0.001 && (b - a) < 0.001) }'
check "attention sweep: IREE's time is sim's ($as_us vs $sim_us us)" $?
$LANESCOPE sweep "$AS" --target mi300x --max-configs 5 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "attention sweep --max-configs: exit 2, one line" $?
contains "attention sweep --max-configs reason" "$tmp/err" "--max-configs: an attention's sweep tries IREE's attention rules with other seeds"
# the input's own config is ranked and marked, and its time is sim's
$LANESCOPE sweep "$EX/seed000_example2.mlir" --target mi300x --max-configs 30 --quiet \
    --csv "$tmp/own.csv" >"$tmp/own.txt" 2>"$tmp/err"
check "sweep of an input with a config exits 0" $?
[ "$(cut -d, -f3 "$tmp/own.csv" | grep -c '^1$')" -eq 1 ]; check "sweep CSV flags the input's config once" $?
contains "sweep ranks the input's config" "$tmp/own.txt" "the input's config ranks"
own_us=$(awk -F, '$3 == 1 { print $14 }' "$tmp/own.csv")
$LANESCOPE sim "$EX/seed000_example2.mlir" --target mi300x --no-check --json >"$tmp/own.json"
sim_us=$(tr -d ' \n' <"$tmp/own.json" | sed 's/.*"time_us":\([0-9.e+-]*\).*/\1/')
awk -v a="$own_us" -v b="$sim_us" 'BEGIN { exit !(a > 0 && (a - b) < 0.001 && (b - a) < 0.001) }'
check "sweep's time for the input's config is sim's ($own_us vs $sim_us us)" $?
# a --shape problem has no config of its own: nothing flagged
[ "$(cut -d, -f3 "$tmp/s.csv" | grep -c '^1$')" -eq 0 ]; check "sweep --shape flags no input config" $?

# The bottleneck line names the limit, with numbers checked by hand:
#  few_t4_s1 widened to 132 rows (h100): one workgroup of one subgroup per
#  SM, a 16-byte load per lane per iteration, the loop unrolled by 4 (LLVM's
#  count for NVPTX at O2, docs/timing-model.md) -> 4 x 32 x 16 = 2048 B in
#  flight per SM; Little's law needs 3115e9 / 1981e6 B/cycle x 724 cycles /
#  132 SMs = 8625 B, over 724 / 1981 us = 365 ns; 2048 / 8625 = 24%.
sed -e 's/32x65536/132x65536/g' -e 's/tensor<32xf32>/tensor<132xf32>/g' -e 's/sizes = \[32\]/sizes = [132]/g' \
    -e 's/sizes = \[32, 65536\]/sizes = [132, 65536]/g' "$EX/suite/few_t4_s1.mlir" >"$tmp/mlp.mlir"
$LANESCOPE sim "$tmp/mlp.mlir" --target h100 --no-check >"$tmp/bn.txt" 2>&1
contains "bottleneck: MLP" "$tmp/bn.txt" "bound by memory-level parallelism: 1 subgroup per WGP keeps 2.0 KB in flight, 8.6 KB needed to cover 365 ns at 3115 GB/s (Little's law), so at most 24% of the DRAM roof"
contains "sim: the loop's unrolling" "$tmp/bn.txt" "loop: the backend unrolls it by 4"
# LLVM's count for AMDGPU, by hand (docs/timing-model.md): Example 1 on
# mi300x loads 4 vector<8xf32> an iteration, 32 iterations.  Size: 4 (loop)
# + 4 x (1 address + 1 load) + 4 vectors x 1 combine x 8 32-bit pieces = 44;
# BEInsns 5, so 39 an iteration: 32 x 39 + 5 passes both thresholds (300,
# 150); (150 - 5) / 39 = 3, lowered to 2, which divides 32.
$LANESCOPE sim "$EX/seed000_example1.mlir" --no-check --json >"$tmp/ex1.json" 2>&1
contains "sim: AMDGPU unroll count" "$tmp/ex1.json" '"unroll":2'
$LANESCOPE sim "$EX/suite/rowsum4k_default.mlir" --target h100 --no-check >"$tmp/bn.txt" 2>&1
contains "bottleneck: DRAM" "$tmp/bn.txt" "bound by DRAM bandwidth"
# (few_default, 32 workgroups of 1024 threads, is launch-bound since the launch is measured: 6 us)
$LANESCOPE sim "$EX/suite/few_t4_s1.mlir" --target h100 --no-check >"$tmp/bn.txt" 2>&1
contains "bottleneck: workgroups" "$tmp/bn.txt" "bound by parallelism: 32 workgroups on 132 WGPs leave 100 WGPs idle"
$LANESCOPE sim "$EX/suite/tiny8_default.mlir" --target h100 --no-check >"$tmp/bn.txt" 2>&1
contains "bottleneck: launch" "$tmp/bn.txt" "bound by launch overhead: the model's 6.0 us launch is longer than the kernel's"
contains "sim: time includes the launch" "$tmp/bn.txt" "+ 6.0 us launch ="
# one dispatch, one launch: two reductions tiled apart, timed apart, the
# later adds no launch
cat >"$tmp/two.mlir" <<'EOF'
#a = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#b = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 1024], thread = [0, 8], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>
#ti = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [128, 1, 1] subgroup_size = 32>
func.func @two() attributes {translation_info = #ti} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %in = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>
  %o1 = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  %o2 = hal.interface.binding.subspan layout(#l) binding(2) offset(%c0) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  %x = iree_tensor_ext.dispatch.tensor.load %in, offsets = [0, 0], sizes = [64, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>> -> tensor<64x4096xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) attrs = {lowering_config = #a} {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) attrs = {lowering_config = #b} {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %o : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  iree_tensor_ext.dispatch.tensor.store %s1, %o1, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  iree_tensor_ext.dispatch.tensor.store %s2, %o2, offsets = [0], sizes = [64], strides = [1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>
  return
}
EOF
$LANESCOPE sim "$tmp/two.mlir" --target h100 --no-check >"$tmp/sm.txt" 2>&1
[ "$(grep -c '+ 6.0 us launch =' "$tmp/sm.txt")" -eq 1 ]; check "one dispatch: one launch" $?
contains "one dispatch: later reductions" "$tmp/sm.txt" "+ 0.0 us launch (the dispatch's launch counts with its first reduction)"
contains "one dispatch: why apart" "$tmp/sm.txt" "here timed apart: @two:linalg.generic#2 and @two:linalg.generic#1 are tiled differently"
$LANESCOPE sim "$tmp/mlp.mlir" --target h100 --no-check --json >"$tmp/bn.json" 2>&1
contains "bottleneck JSON kind" "$tmp/bn.json" '"kind":"mlp"'
contains "bottleneck JSON in flight" "$tmp/bn.json" '"in_flight_bytes_per_wgp":2048.0'

# Progress off a terminal (issue 15, class 6): a line per percent with
# LANESCOPE_PROGRESS_SECONDS=0, for the engine and the check; --quiet and a
# short run at the default 10 s print none.
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE sim "$EX/seed000_example3.mlir" >"$tmp/out" 2>"$tmp/err"
check "sim progress: runs" $?
contains "sim progress: engine lines" "$tmp/err" "engine: 512/512 workgroups (100%)"
contains "sim progress: check lines" "$tmp/err" "functional check: 512/512 workgroups (100%)"
[ "$(grep -c 'workgroups (' "$tmp/err")" -ge 100 ]; check "sim progress: a line per percent" $?
grep -q "$(printf '\r')" "$tmp/err"; [ $? -ne 0 ]; check "sim progress: no carriage returns off a terminal" $?
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE sim "$EX/seed000_example3.mlir" --quiet >"$tmp/out2" 2>"$tmp/err"
[ ! -s "$tmp/err" ]; check "sim --quiet: nothing on stderr" $?
cmp -s "$tmp/out" "$tmp/out2"; check "sim --quiet: same report" $?
$LANESCOPE sim "$EX/seed000_example3.mlir" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ]; check "sim: a short run off a terminal prints no progress" $?
# draw roofline: a point per kernel (a softmax: its one kernel), or --index's
# (the points and verdicts are test_viz's roofline_points_under_roofs)
$LANESCOPE draw roofline "$EX/softmax_4096x32000_f32.mlir" --target h100 -o "$tmp/roof.png" --quiet 2>"$tmp/err"
check "draw roofline exits 0" $?
contains "draw roofline: titled" "$tmp/roof.png" "roofline of $EX/softmax_4096x32000_f32.mlir on h100"
$LANESCOPE draw roofline "$EX/softmax_4096x32000_f32.mlir" --index 2 --target h100 -o "$tmp/roof1.png" --quiet 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/roof1.png" ]; check "draw roofline --index past the reductions: a usage error" $?
contains "draw roofline --index message" "$tmp/err" "has 2 reductions; --index 2 is outside 0..1"
$LANESCOPE draw roofline "$EX/seed000_example2.mlir" --wgps 3 -o "$tmp/roof2.png" 2>"$tmp/err"
[ $? -eq 2 ]; check "draw roofline --wgps: a usage error" $?
contains "draw roofline --wgps refused" "$tmp/err" "draw roofline does not use --wgps; leave it out"

# sweep --roofline: every config on a roofline, written with the CSV as a set
$LANESCOPE sweep --shape 256x1024 --iter pr --type f32 --target h100 --max-configs 20 -j 1 --quiet \
    --csv "$tmp/sr.csv" --roofline "$tmp/sr.png" >"$tmp/out" 2>"$tmp/err"
check "sweep --roofline exits 0" $?
contains "sweep --roofline: written" "$tmp/out" "wrote $tmp/sr.csv and $tmp/sr.png"
contains "sweep --roofline: titled" "$tmp/sr.png" "Config roofline: 256x1024 pr f32 on h100"
$LANESCOPE sweep --shape 256x1024 --iter pr --target h100 --roofline "$tmp/sr.txt" 2>"$tmp/err"
[ $? -eq 2 ]; check "sweep --roofline .txt: a usage error" $?
contains "sweep --roofline extension" "$tmp/err" "--roofline: '$tmp/sr.txt' needs a .png, .svg or .pdf extension"
# an attention's sweep on a roofline too (ops: its two matmuls'
# multiply-adds), written with the CSV as a set
$LANESCOPE sweep "$DATA/attention_decode_2x1x64x512x64_f16.mlir" --target mi300x --quiet \
    --csv "$tmp/ar.csv" --roofline "$tmp/ar.png" >"$tmp/out" 2>"$tmp/err"
check "attention sweep --roofline exits 0" $?
contains "attention sweep --roofline: written" "$tmp/out" "wrote $tmp/ar.csv and $tmp/ar.png"
contains "attention sweep --roofline: titled" "$tmp/ar.png" "Config roofline: @attention_decode_2x1x64x512x64:attention on mi300x"

# draw traffic and timeline simulate too: the same progress, and --quiet
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE draw traffic "$EX/seed000_example3.mlir" -o "$tmp/pt.svg" 2>"$tmp/err"
contains "draw traffic progress" "$tmp/err" "lanescope draw: engine: 512/512 workgroups (100%)"
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE draw timeline "$EX/seed000_example3.mlir" -o "$tmp/pt.svg" --quiet 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ]; check "draw timeline --quiet: nothing on stderr" $?
LANESCOPE_PROGRESS_SECONDS=0 $LANESCOPE sweep "$EX/seed004_reduce_8x64.mlir" --target mi300x --csv "$tmp/sw.csv" --chart "$tmp/sw.png" >/dev/null 2>"$tmp/err"
contains "sweep progress" "$tmp/err" "configs (100%)"
$LANESCOPE sweep "$EX/seed004_reduce_8x64.mlir" --target mi300x --csv "$tmp/sw.csv" --chart "$tmp/sw.png" --quiet >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ]; check "sweep --quiet: nothing on stderr" $?
contains "sweep: the work in the report" "$tmp/out" "subgroup-instructions"

# The work budget (issue 15, class 6): estimated before anything runs,
# refused past it with the estimate, --force past the budget but never past
# the limit.  Rows of 4096 f32, one 64-lane subgroup of 4-wide loads per row:
# 108 subgroup-instructions (the DPP reduce as LLVM compiles it: 10) and 4096
# checked elements per row.
big() { # rows, file
    {
        echo '#config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread = [0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>'
        echo '#translation = #iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64, 1, 1] subgroup_size = 64>'
        echo 'func.func @big() attributes {translation_info = #translation} {'
        echo "  %r = linalg.reduce ins(%a : tensor<${1}x4096xf32>) outs(%b : tensor<${1}xf32>) dimensions = [1] {lowering_config = #config}"
        echo '    (%in: f32, %o: f32) {'
        echo '      %s = arith.addf %in, %o : f32'
        echo '      linalg.yield %s : f32'
        echo '    }'
        echo '  return'
        echo '}'
    } >"$2"
}
big 134217728 "$tmp/big.mlir"   # 108 x 2^27 = 14495514624 > 2^32
timeout 60 $LANESCOPE sim "$tmp/big.mlir" --target mi300x --no-check -o "$tmp/big.txt" 2>"$tmp/err"
[ $? -eq 1 ]; check "budget: sim refused (exit 1)" $?
contains "budget: the estimate and --force" "$tmp/err" "big.mlir:4:8: the simulation would issue 14495514624 subgroup-instructions, past the budget of 4294967296 (minutes of wall time): give --force"
[ ! -e "$tmp/big.txt" ]; check "budget: nothing written" $?
big 268435456 "$tmp/big.mlir"   # 108 x 2^28 = 28991029248 > 2^34
timeout 60 $LANESCOPE sim "$tmp/big.mlir" --target mi300x --no-check --force 2>"$tmp/err"
[ $? -eq 1 ]; check "budget: --force stops at the limit" $?
contains "budget: the limit" "$tmp/err" "the simulation would issue 28991029248 subgroup-instructions, past the limit of 17179869184"
big 1048576 "$tmp/big.mlir"     # 4096 x 2^20 = 2^32 checked elements > 2^31
timeout 60 $LANESCOPE sim "$tmp/big.mlir" --target mi300x 2>"$tmp/err"
[ $? -eq 1 ]; check "budget: the check's, before the engine runs" $?
contains "budget: check estimate" "$tmp/err" "the functional check would generate 4294967296 elements, past the budget of 2147483648"
[ "$(wc -l <"$tmp/err")" -eq 1 ]; check "budget: refused before any progress" $?

timeout 60 $LANESCOPE sweep --shape 16777216x4096 --iter pr --type f32 --target mi300x --max-configs 100 --csv "$tmp/b.csv" --chart "$tmp/b.png" 2>"$tmp/err"
[ $? -eq 1 ]; check "budget: sweep refused (exit 1)" $?
contains "budget: sweep estimate" "$tmp/err" "the sweep would simulate 194662629376 subgroup-instructions over 100 configs, past the budget of 17179869184"
[ ! -e "$tmp/b.csv" ] && [ ! -e "$tmp/b.png" ]; check "budget: sweep wrote nothing" $?

# sweep writes files only where --csv/--chart say (issue 16): none in the
# current folder by default
mkdir -p "$tmp/cwd"
ls_abs=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE")
(cd "$tmp/cwd" && "$ls_abs" sweep "$EX/seed004_reduce_8x64.mlir" --target mi300x --quiet >"$tmp/out" 2>"$tmp/err")
check "sweep without --csv/--chart exits 0" $?
[ -z "$(ls -A "$tmp/cwd")" ]; check "sweep without --csv/--chart writes no file" $?
grep -q "wrote" "$tmp/out"; [ $? -ne 0 ]; check "sweep without outputs says none written" $?

# Fuzzer regressions: no crash or hang (exit 0 or 1 within 20 s), at most one line on stderr.
if [ -d "$REGRESS" ]; then
    for f in "$REGRESS"/*.mlir; do
        [ -f "$f" ] || continue
        timeout 20 $LANESCOPE explain "$f" >/dev/null 2>"$tmp/stderr"
        rc=$?
        [ $rc -le 1 ] && [ "$(wc -l <"$tmp/stderr")" -le 1 ]
        check "regression $(basename "$f") (rc $rc)" $?
    done
fi

# AMD's v_dot2_f32_f16 (performFMACombine): possible where an f32 chain pairs
# the products of two f16 inputs read 2 wide; lanescope says so, and not for
# 4-wide reads (LLVM keeps v_fma_mix_f32 there) or on NVIDIA
$LANESCOPE sim "$DATA/matvec_f16_pairs_gfx942.mlir" --target mi300x >"$tmp/dot2.txt" 2>&1
check "f16 pairs simulate" $?
contains "f16 pairs: the v_dot2 note" "$tmp/dot2.txt" "LLVM may fuse each pair into one v_dot2_f32_f16 (performFMACombine: one rounding for two products, f32 denormals flushed)"
sed 's/thread = \[0, 2\]/thread = [0, 4]/' "$DATA/matvec_f16_pairs_gfx942.mlir" >"$tmp/quads.mlir"
$LANESCOPE sim "$tmp/quads.mlir" --target mi300x >"$tmp/dot4.txt" 2>&1
check "f16 quads simulate" $?
contains "f16 quads: the packed chain" "$tmp/dot4.txt" "each thread's 4 packed elements an FMA chain"
! grep -q v_dot2 "$tmp/dot4.txt"; check "f16 quads: no v_dot2 note" $?
sed 's/subgroup_size = 64/subgroup_size = 32/; s/\[\[1, 64\], \[0, 1\]\]/[[1, 32], [0, 1]]/; s/workgroup_size = \[64, 1, 1\]/workgroup_size = [32, 1, 1]/; s/partial_reduction = \[0, 256\]/partial_reduction = [0, 128]/' \
    "$DATA/matvec_f16_pairs_gfx942.mlir" >"$tmp/pairs_nv.mlir"
$LANESCOPE sim "$tmp/pairs_nv.mlir" --target h100 >"$tmp/dot2nv.txt" 2>&1
check "f16 pairs on NVIDIA simulate" $?
! grep -q v_dot2 "$tmp/dot2nv.txt"; check "f16 pairs on NVIDIA: no v_dot2 note" $?

summary cli
