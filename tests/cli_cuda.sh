#!/bin/sh
# cli_cuda.sh: `lanescope measure` without a GPU: the generated CUDA C and its
# header, NVRTC's PTX (16-byte loads, shfl.sync.bfly, two bar.sync, no
# redux.sync), the CPU emulation checked against the reference, and the
# one-line refusals: no GPU (exit 3, no file written), AMD targets, 64-lane
# subgroups, bad flags.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
EX=${LS_EXAMPLES:-examples}
DATA=$(dirname "$0")/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

count_is() { # name, file, fixed string, count
    n=$(grep -cF -- "$3" "$2")
    [ "$n" -eq "$4" ]
    r=$?
    [ $r -eq 0 ] || echo "--- $2 has $n lines with '$3', expected $4"
    check "$1" $r
}

F16=$EX/h100_rowsum_f16_2048x8192.mlir
SMALL=$DATA/cuda_maxsi_i16_6x100.mlir

# --emit-cuda: readable source with the launch facts in its header.
$LANESCOPE measure "$F16" --emit-cuda >"$tmp/f16.cu" 2>"$tmp/err"
check "emit-cuda exits 0" $?
contains "header config" "$tmp/f16.cu" "lowering_config: #iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 8], partial_reduction = [0, 2048]"
contains "header launch" "$tmp/f16.cu" "grid 2048 x 1 x 1, block 256 x 1 x 1 (8 subgroups of 32), 40 bytes of shared memory"
contains "header loads" "$tmp/f16.cu" "16-byte vector loads"
contains "stage names" "$tmp/f16.cu" "[cross-subgroup] memref<1x10xf32, workgroup>: 8 slots + 2 padding per row"
contains "extf" "$tmp/f16.cu" "return (__half2float(v)); /* arith.extf */"
contains "the local reduce" "$tmp/f16.cu" " *   accumulate: per iteration, each accumulator's 8 packed elements are reduced from the identity and the result is added to it"
count_is "the local reduce, added once" "$tmp/f16.cu" "acc[0] = ls_combine(acc[0], loc[0]);" 1
count_is "two barriers" "$tmp/f16.cu" "__syncthreads();" 2
$LANESCOPE measure "$F16" --emit-cuda -o "$tmp/out.cu"
cmp -s "$tmp/f16.cu" "$tmp/out.cu"
check "-o writes the same source" $?

# --ptx: NVRTC, when this build has the CUDA path.
$LANESCOPE measure "$F16" --ptx >"$tmp/f16.ptx" 2>"$tmp/err"
r=$?
if [ $r -eq 3 ] && grep -q "built without the CUDA path" "$tmp/err"; then
    echo "cli_cuda: this build has no CUDA path: PTX checks skipped"
else
    check "ptx exits 0" $r
    contains "ptx target" "$tmp/f16.ptx" ".target sm_90"
    contains "16-byte loads" "$tmp/f16.ptx" "ld.global.nc.v4.u32"
    count_is "butterflies: 5 lane + 3 cross-subgroup shuffles" "$tmp/f16.ptx" "shfl.sync.bfly.b32" 8
    count_is "no redux.sync" "$tmp/f16.ptx" "redux.sync" 0
    count_is "two bar.sync" "$tmp/f16.ptx" "bar.sync" 2
    $LANESCOPE measure "$F16" --ptx --arch sm_80 >"$tmp/f16_80.ptx"
    contains "--arch" "$tmp/f16_80.ptx" ".target sm_80"
fi

# Every kernel of the comparison suite compiles with NVRTC without a word.
if [ $r -ne 3 ]; then
    n=0
    for f in "$EX"/suite/*.mlir; do
        $LANESCOPE measure "$f" --target h100 --ptx >"$tmp/s.ptx" 2>"$tmp/s.err"
        rc=$?
        [ $rc -eq 0 ] && [ ! -s "$tmp/s.err" ] && grep -q "shfl.sync.bfly\|ld.global" "$tmp/s.ptx"
        ok=$?
        [ $ok -eq 0 ] || { echo "--- $(basename "$f"): exit $rc, stderr:"; head -c 2000 "$tmp/s.err"; }
        check "suite kernel $(basename "$f") compiles cleanly" $ok
        n=$((n + 1))
    done
    [ "$n" -ge 40 ]
    check "the suite has at least 40 kernels ($n)" $?
fi

# Suite cases small enough to emulate: their kernels give the reference's
# values on the CPU (column walks, bank-conflicting buffers, 16 subgroups,
# ragged tails, a matvec with extf on both operands).
for c in bank_l32x1_s2 col_lanes_par_s4 few_t4_s16 one_t4_s1 tiny8_t2_s16 ragged4099_l4x8_t2_r4 mv32_t2_s1; do
    $LANESCOPE measure "$EX/suite/$c.mlir" --target h100 --emulate >"$tmp/e.txt" 2>"$tmp/err"
    check "suite $c emulates" $?
    # "N outputs match", or "1 output matches" for a one-output case
    grep -Eq "emulated on the CPU: ([02-9]|[1-9][0-9]+) outputs match the reference|emulated on the CPU: 1 output matches the reference" "$tmp/e.txt"
    check "suite $c values" $?
done

# No target anywhere: the CUDA path means h100 (not the subgroup-size guess).
$LANESCOPE measure "$EX/suite/tiny8_default.mlir" --emit-cuda >"$tmp/t8.cu" 2>"$tmp/err"
check "no target: h100" $?
contains "no target: IREE's default for h100" "$tmp/t8.cu" "(IREE's default)"

# --emulate: the generated kernel on the CPU, checked (ragged i16 maxsi with a
# cross-subgroup stage, a seed of its own).
$LANESCOPE measure "$SMALL" --emulate --seed 9 >"$tmp/emu.txt" 2>"$tmp/err"
check "emulate exits 0" $?
contains "emulated values" "$tmp/emu.txt" "emulated on the CPU: 6 outputs match the reference (maxsi i16, seed 9)"
contains "emulated values are the simulator's" "$tmp/emu.txt" "  and are the simulator's, bit for bit (it combines in IREE's order)"

# A matvec whose sums round (exp of the matrix): the kernel lowers the
# packed elements as IREE does -- a math.fma chain from zero, last element
# first, then one add into the accumulator -- so its outputs are the
# simulator's bit for bit, which a reference within its rounding bound
# could not tell.
$LANESCOPE measure "$DATA/matvec_exp_fma_16x1000_nv.mlir" --emulate --seed 3 >"$tmp/fma.txt" 2>"$tmp/err"
check "FMA matvec emulates" $?
contains "FMA matvec values" "$tmp/fma.txt" "emulated on the CPU: 16 outputs match the reference (add f32, seed 3); float error within the rounding bound"
contains "FMA matvec is the simulator's" "$tmp/fma.txt" "  and are the simulator's, bit for bit (it combines in IREE's order)"
$LANESCOPE measure "$DATA/matvec_exp_fma_16x1000_nv.mlir" --emit-cuda >"$tmp/fma.cu" 2>"$tmp/err"
contains "FMA matvec: the fused body" "$tmp/fma.cu" "const float v3 = __fmaf_rn(v1, v2, (c)); /* arith.mulf + c: math.fma : f32 */"
contains "FMA matvec: the chain's comment" "$tmp/fma.cu" "/* math.fma chain, last element first (ContractToChainFMA) */"
contains "FMA matvec: the header says so" "$tmp/fma.cu" " *   accumulate: per iteration, each accumulator's 4 packed elements go through a math.fma chain from the identity, last first (ContractToChainFMA), and the chain's result is added to it (DistributeContract)"
grep -n "ls_body_fma(fa0\[\|acc\[0\] = ls_combine(acc\[0\], loc\[0\])" "$tmp/fma.cu" | sed 's/:.*fa0\[\([0-9]\)\].*/ \1/; s/:.*acc.*/ add/' | awk '{print $2}' | tr '\n' ' ' >"$tmp/fma.order"
contains "FMA matvec: elements 3, 2, 1, 0, then the add" "$tmp/fma.order" "3 2 1 0 add"
count_is "FMA matvec: no separate multiply" "$tmp/fma.cu" "__fmul_rn(v1, v2)" 0

# No partial_reduction (a serial reduction level, or the whole row):
# DistributeContract's local contraction chains all of an output's registers
# (ContractToChainFMA), which is the output's value: no thread reduce.
for c in serial_16x1000 whole_6x200; do
    $LANESCOPE measure "$DATA/matvec_exp_$c""_nv.mlir" --emulate --seed 6 >"$tmp/cc.txt" 2>"$tmp/err"
    check "contract chain ($c) emulates" $?
    contains "contract chain ($c) is the simulator's" "$tmp/cc.txt" "  and are the simulator's, bit for bit (it combines in IREE's order)"
    $LANESCOPE measure "$DATA/matvec_exp_$c""_nv.mlir" --emit-cuda >"$tmp/cc.cu" 2>"$tmp/err"
    contains "contract chain ($c): no thread reduce" "$tmp/cc.cu" "/* [thread reduce] none: the local contraction left one value per output */"
    contains "contract chain ($c): the chain's comment" "$tmp/cc.cu" "/* math.fma chain, last element first (ContractToChainFMA) */"
done
contains "contract chain: the header" "$tmp/cc.cu" " *   accumulate: per iteration, each output's 8 registers go through one math.fma chain from the identity, last first, which is the output's value (DistributeContract's local contraction, ContractToChainFMA): no thread reduce after it"
# the whole row: 4 outputs a thread, each its own accumulator, chained last first
grep -o "acc\[[0-9]\] = fok\[[0-9]*\]" "$tmp/cc.cu" | sed 's/acc\[\([0-9]\)\] = fok\[\([0-9]*\)\]/\1:\2/' | tr '\n' ' ' >"$tmp/cc.order"
contains "contract chain: registers 31..0 into accumulators 3..0" "$tmp/cc.order" "3:31 3:30 3:29 3:28 3:27 3:26 3:25 3:24 2:23 "
contains "contract chain: accumulator 0 last" "$tmp/cc.order" "0:1 0:0 "
count_is "contract chain: one copy per output" "$tmp/cc.cu" "    res[3] = acc[3];" 1
# a sum there: DistributeMultiReduction's local reduce, in order, is the value
$LANESCOPE measure "$EX/suite/rowsum4k_serial_t4_s2.mlir" --target h100 --emit-cuda >"$tmp/lr.cu" 2>"$tmp/err"
contains "local reduce: the header" "$tmp/lr.cu" " *   accumulate: per iteration, each output's 4 registers are reduced from the identity in order, which is the output's value (DistributeMultiReduction's local reduce): no thread reduce after it"
contains "local reduce: no thread reduce" "$tmp/lr.cu" "/* [thread reduce] none: the local reduce left one value per output */"
$LANESCOPE sim "$EX/suite/rowsum4k_serial_t4_s2.mlir" --target h100 --dump-plan --no-check >"$tmp/lr.plan" 2>"$tmp/err"
contains "local reduce: the plan" "$tmp/lr.plan" "      %acc = vector.multi_reduction <add> of the loaded values from the identity into vector<1x1x1xf32>: DistributeMultiReduction's local reduce over each output's 4 registers, in order (1 accumulator)"
$LANESCOPE sim "$DATA/matvec_exp_whole_6x200_nv.mlir" --dump-plan --no-check >"$tmp/cc.plan" 2>"$tmp/err"
contains "contract chain: the plan" "$tmp/cc.plan" "      %acc = vector.contract(the body's mulf operands) from the identity into vector<4x1x1xf32>: DistributeContract's local contraction over each output's 8 reduced registers, which ContractToChainFMA makes one math.fma chain, last register first (4 accumulators)"
contains "contract chain: no thread reduce in the plan" "$tmp/cc.plan" "  [thread reduce] none: the local contraction left 4 values per thread"

# The reduced value an addf of a mulf: one math.fma on every target
# (SetMulAddFMF + UpliftFma), in the plan, the kernel and its values.
$LANESCOPE sim "$DATA/exp_muladd_16x1000_nv.mlir" --dump-plan --no-check >"$tmp/ma.plan" 2>"$tmp/err"
contains "muladd: the plan's fma" "$tmp/ma.plan" "        %3 = math.fma %1, %2, %1 : f32"
contains "muladd: the plan says why" "$tmp/ma.plan" "(the reduced arith.addf of an arith.mulf: one math.fma, rounded once, on every target -- LLVMGPUVectorLowering's SetMulAddFMF, then UpliftFma)"
$LANESCOPE sim "$DATA/exp_muladd_16x1000_nv.mlir" --target rx7900xtx --dump-plan --no-check >"$tmp/ma_amd.plan" 2>"$tmp/err"
contains "muladd: AMD too" "$tmp/ma_amd.plan" "        %3 = math.fma %1, %2, %1 : f32"
$LANESCOPE measure "$DATA/exp_muladd_16x1000_nv.mlir" --emit-cuda >"$tmp/ma.cu" 2>"$tmp/err"
contains "muladd: the kernel's fma" "$tmp/ma.cu" "const float v3 = __fmaf_rn(v1, v2, v1); /* math.fma : f32 */"
$LANESCOPE measure "$DATA/exp_muladd_16x1000_nv.mlir" --emulate --seed 5 >"$tmp/ma.txt" 2>"$tmp/err"
check "muladd emulates" $?
contains "muladd is the simulator's" "$tmp/ma.txt" "  and are the simulator's, bit for bit (it combines in IREE's order)"

# A full reduction to a scalar (no parallel dims, one workgroup, one output).
$LANESCOPE measure "$DATA/full_max_1x8192_nv.mlir" --emulate --seed 4 >"$tmp/full.txt" 2>"$tmp/err"
check "full reduction emulates" $?
contains "full reduction values" "$tmp/full.txt" "emulated on the CPU: 1 output matches the reference (maximumf f32, seed 4)"
$LANESCOPE measure "$DATA/full_max_1x8192_nv.mlir" --emit-cuda >"$tmp/full.cu" 2>"$tmp/err"
contains "full reduction launch" "$tmp/full.cu" "grid 1 x 1 x 1, block 256 x 1 x 1 (8 subgroups of 32)"

# An f16 row max: its folds are llvm.vector.reduce.fmaximum, which LLVM
# folds in halves (tests/test_folds.c); the generated kernel keeps IREE's
# order -- the loop's 8 packed elements, then the thread reduce's 4 batch
# registers -- and gives the simulator's values.
$LANESCOPE measure "$DATA/rowmax_f16_8x2048_nv.mlir" --emit-cuda >"$tmp/rm.cu" 2>"$tmp/err"
check "f16 row max generates" $?
contains "loop's fold in halves" "$tmp/rm.cu" "        lv[0] = ls_combine(lv[0], lv[4]);"
contains "loop's fold, the last halves" "$tmp/rm.cu" "        lv[0] = ls_combine(lv[0], lv[1]);"
contains "thread reduce in halves" "$tmp/rm.cu" "    acc[0] = ls_combine(acc[0], acc[2]);"
$LANESCOPE measure "$DATA/rowmax_f16_8x2048_nv.mlir" --emulate --seed 7 >"$tmp/rm.txt" 2>"$tmp/err"
check "f16 row max emulates" $?
contains "f16 row max values" "$tmp/rm.txt" "emulated on the CPU: 8 outputs match the reference (maximumf f16, seed 7)"
contains "f16 row max is the simulator's" "$tmp/rm.txt" "  and are the simulator's, bit for bit (it combines in IREE's order)"

# An attention's max over a thread's 4 key slots: one vector.reduction a
# row, which LLVM folds on NVIDIA as a balanced tree (tests/test_folds.c);
# the generated kernel folds the halves too and gives the simulator's values.
$LANESCOPE measure "$DATA/attention_slots4_nv.mlir" --target h100 --emit-cuda >"$tmp/as.cu" 2>"$tmp/err"
check "attention slots generates" $?
contains "attention local max in halves" "$tmp/as.cu" "lm[0] = ls_amax(lm[0], lm[2]);"
contains "attention local max, the last halves" "$tmp/as.cu" "lm[0] = ls_amax(lm[0], lm[1]);"
$LANESCOPE measure "$DATA/attention_slots4_nv.mlir" --target h100 --emulate >"$tmp/as.txt" 2>"$tmp/err"
check "attention slots emulates" $?
contains "attention slots values" "$tmp/as.txt" "emulated on the CPU: 36 outputs of 2 workgroups equal the simulator's lowered values bit for bit"

# A softmax: its three loops as the one kernel `sim` times (the max, the sum
# reading it, the divide storing every element), each phase's outputs checked.
sed 's/4096x32000/8x512/g; s/sizes = \[4096, 32000\]/sizes = [8, 512]/g' \
    "$EX/softmax_4096x32000_f32.mlir" >"$tmp/sm8.mlir"
$LANESCOPE measure "$tmp/sm8.mlir" --target h100 --emulate --seed 2 >"$tmp/sm8.txt" 2>"$tmp/err"
check "softmax emulates as one kernel" $?
contains "softmax: one kernel" "$tmp/sm8.txt" "emulated on the CPU as the dispatch's one kernel (3 phases):"
contains "softmax: the sum" "$tmp/sm8.txt" "phase 1, @softmax_8x512:linalg.softmax#1.sum: 8 outputs match the reference (add f32, seed 2)"
count_is "softmax: both reductions are the simulator's" "$tmp/sm8.txt" "    and are the simulator's, bit for bit (it combines in IREE's order)" 2
contains "softmax: the divide" "$tmp/sm8.txt" "4096 elements match its body bit for bit (seed 2)"
$LANESCOPE measure "$tmp/sm8.mlir" --target h100 --emit-cuda >"$tmp/sm8.cu" 2>"$tmp/err"
check "softmax emits" $?
count_is "softmax: one launch" "$tmp/sm8.cu" "__global__" 1
count_is "softmax: a barrier before each reader" "$tmp/sm8.cu" "__syncthreads(); /* phase" 2

# An epilogue (the row sums scaled per row): its phase stores body(sum, scale).
$LANESCOPE measure "$DATA/rowsum_scaled_epilogue.mlir" --target h100 --emulate >"$tmp/epi.txt" 2>"$tmp/err"
check "epilogue emulates as one kernel" $?
contains "epilogue phase" "$tmp/epi.txt" "phase 1, the linalg.generic at 19:8: 64 elements match its body bit for bit (seed 1)"

# Loops sim times apart (the max and the sum tiled differently, configs
# written so): each reduction its own kernel, and a note that says why.
cat >"$tmp/apart.mlir" <<'MLIR'
func.func @two() {
  %zero = arith.constant 0.000000e+00 : f32
  %x = tensor.empty() : tensor<8x512xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x512xf32>) outs(%f : tensor<8xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 128], thread = [0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x512xf32>) outs(%f : tensor<8xf32>) attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread = [0, 8], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return
}
MLIR
$LANESCOPE measure "$tmp/apart.mlir" --target h100 --emulate >"$tmp/apart.txt" 2>"$tmp/err"
check "loops timed apart emulate" $?
count_is "loops timed apart: a kernel each" "$tmp/apart.txt" "emulated on the CPU: 8 outputs match" 2
contains "loops timed apart: the note" "$tmp/err" "each reduction of the dispatch is generated as its own kernel"

# A decode attention (IREE's default config for h100): its kernel generated,
# compiled without a word, emulated equal to the simulator bit for bit; on
# an AMD target refused as a bad flag; and without a GPU, exit 3.
ATT=$DATA/attention_decode_2x1x64x512x64_f16.mlir
$LANESCOPE measure "$ATT" --emit-cuda >"$tmp/att.cu" 2>"$tmp/err"
check "attention emit-cuda exits 0" $?
contains "attention header" "$tmp/att.cu" "attention: out = acc * (1 / sum), IREE's conversion to online_attention; K2 partial_reduction"
contains "attention launch" "$tmp/att.cu" "2 iterations; grid 8 x 1 x 1, block 256 x 1 x 1 (8 subgroups of 32), 512 bytes of shared memory"
count_is "attention: one score's chain of 64 FMAs" "$tmp/att.cu" "ls_fma(qs[" 64
count_is "attention: 16 output columns a thread" "$tmp/att.cu" "out0[ob0 + " 16
$LANESCOPE measure "$ATT" --emulate --seed 4 >"$tmp/att.txt" 2>"$tmp/err"
check "attention emulate exits 0" $?
contains "attention emulated" "$tmp/att.txt" "@attention_decode_2x1x64x512x64:attention: emulated on the CPU: 128 outputs of 8 workgroups equal the simulator's lowered values bit for bit (seed 4"
if [ $r -ne 3 ]; then
    $LANESCOPE measure "$ATT" --ptx >"$tmp/att.ptx" 2>"$tmp/err"
    check "attention ptx exits 0" $?
    [ ! -s "$tmp/err" ]
    check "attention: NVRTC silent" $?
    count_is "attention: the merge's three rounds" "$tmp/att.ptx" "bar.sync" 6
    count_is "attention: no redux.sync" "$tmp/att.ptx" "redux.sync" 0
fi
# IREE's NVVM paged attention (static sizes): gathered key and value, a
# computed causal mask; emulated equal to the simulator.
$LANESCOPE measure "$DATA/paged_attention_nv.mlir" --emulate >"$tmp/paged.txt" 2>"$tmp/err"
check "paged attention emulate exits 0" $?
contains "paged attention emulated" "$tmp/paged.txt" "@paged_attention_4x8x1x32x128_f16:online_attention: emulated on the CPU: 512 outputs of 4 workgroups equal the simulator's lowered values bit for bit"
# ... and IREE's dispatch as it is (its page count '?', its table sizes from
# --dim): the tables' elements come from the op's sizes, not the '?'
$LANESCOPE measure "$DATA/paged_attention_dyn_nv.mlir" --emulate --dim 5=24 >"$tmp/pdyn.txt" 2>"$tmp/err"
check "dynamic pages emulate exits 0" $?
contains "dynamic pages emulated" "$tmp/pdyn.txt" "512 outputs of 4 workgroups equal the simulator's lowered values bit for bit"
$LANESCOPE measure "$DATA/paged_attention_dyn_nv.mlir" --emulate >"$tmp/o" 2>"$tmp/err"
check "dynamic pages without --dim exit 1" $([ $? -eq 1 ]; echo $?)
contains "dynamic pages: the flag to give" "$tmp/err" "loop d5 is dynamic ('?'); give its size with --dim 5=N"
$LANESCOPE measure "$ATT" --target mi300x --emulate >"$tmp/o" 2>"$tmp/err"
check "attention on AMD exits 2" $([ $? -eq 2 ]; echo $?)
contains "attention on AMD" "$tmp/err" "mi300x (gfx942) is not an NVIDIA target"
LANESCOPE_LIBCUDA=/nonexistent/libcuda.so.1 $LANESCOPE measure "$ATT" -o "$tmp/am.txt" 2>"$tmp/err"
check "attention without a GPU exits 3" $([ $? -eq 3 ]; echo $?)
[ ! -e "$tmp/am.txt" ]
check "attention: no file written without a GPU" $?

# No GPU here: exit 3, one line, nothing written.
LANESCOPE_LIBCUDA=/nonexistent/libcuda.so.1 $LANESCOPE measure "$SMALL" -o "$tmp/m.txt" 2>"$tmp/err"
check "no GPU exits 3" $([ $? -eq 3 ]; echo $?)
contains "no GPU message" "$tmp/err" "lanescope measure: no NVIDIA driver/GPU found"
count_is "one line" "$tmp/err" "lanescope" 1
[ ! -e "$tmp/m.txt" ]
check "no file written without a GPU" $?

# Against the toolkit's stub libcuda every driver symbol resolves (a wrong
# name would say "lacks ..."), and cuInit then fails as it does without a GPU.
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -f "$STUB" ]; then
    LANESCOPE_LIBCUDA=$STUB $LANESCOPE measure "$SMALL" 2>"$tmp/err"
    check "stub libcuda exits 3" $([ $? -eq 3 ]; echo $?)
    contains "stub: every symbol found" "$tmp/err" "no NVIDIA driver/GPU found (cuInit failed)"
fi

# Refusals with the reason.
$LANESCOPE measure "$SMALL" --target mi300x --emit-cuda >"$tmp/o" 2>"$tmp/err"
check "AMD --target exits 2 (a bad flag)" $([ $? -eq 2 ]; echo $?)
contains "AMD target" "$tmp/err" "mi300x (gfx942) is not an NVIDIA target"
$LANESCOPE measure "$EX/seed000_example2.mlir" --target h100 --emit-cuda >"$tmp/o" 2>"$tmp/err"
check "64-lane config exits 1" $([ $? -eq 1 ]; echo $?)
contains "64-lane config" "$tmp/err" "seed000_example2.mlir:21:14: the config's subgroup size is 64; NVIDIA warps have 32 lanes"
$LANESCOPE measure "$SMALL" --emit-cuda --ptx 2>"$tmp/err"
check "two modes exit 2" $([ $? -eq 2 ]; echo $?)
$LANESCOPE measure "$SMALL" --ptx --arch gfx942 2>"$tmp/err"
check "bad arch exits 2" $([ $? -eq 2 ]; echo $?)
contains "bad arch" "$tmp/err" "--arch: 'gfx942' is not an NVIDIA architecture like sm_90"
$LANESCOPE measure "$SMALL" --runs 0 2>"$tmp/err"
check "runs 0 exits 2" $([ $? -eq 2 ]; echo $?)
$LANESCOPE measure --help >"$tmp/help"
contains "help" "$tmp/help" "usage: lanescope measure INPUT"

# The H200 model: the H100 chip with faster memory, so a bandwidth-bound row
# sum is faster on it and a tiny latency-bound one is not.
$LANESCOPE sim "$EX/suite/rowsum4k_default.mlir" --target h200 --no-check --json >"$tmp/h200.json"
check "h200 model loads" $?
$LANESCOPE sim "$EX/suite/rowsum4k_default.mlir" --target h100 --no-check --json >"$tmp/h100.json"
t200=$(tr -d ' \n' <"$tmp/h200.json" | sed 's/.*"time_us":\([0-9.e+-]*\).*/\1/')
t100=$(tr -d ' \n' <"$tmp/h100.json" | sed 's/.*"time_us":\([0-9.e+-]*\).*/\1/')
awk -v a="$t200" -v b="$t100" 'BEGIN { exit !(a > 0 && a < 0.8 * b) }'
check "64 MiB row sum: h200 ($t200 us) well under h100 ($t100 us)" $?

summary cli_cuda.sh
