#!/bin/sh
# draw_operand.sh: end-to-end checks of `lanescope draw layout|nested
# --operand K`: the picture names the operand (PNG tEXt Title), bad requests
# get one line naming the flag and the limit, a non-zero exit and no file.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
EX=${LS_EXAMPLES:-examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

fails() { # name, expected exit code, output file, stderr message; then the command
    name=$1 want=$2 out=$3 msg=$4
    shift 4
    "$@" 2>"$tmp/stderr"
    rc=$?
    [ $rc -eq "$want" ]; check "$name exits $want (got $rc)" $?
    [ "$(wc -l <"$tmp/stderr")" -eq 1 ]; check "$name: one line" $?
    contains "$name message" "$tmp/stderr" "$msg"
    [ ! -e "$out" ]; check "$name writes nothing" $?
}

# A matvec whose rows are split over 4 lanes: every element of the vector
# is read by the 4 threads of its d1 lane (broadcast).
cp "$LS_EXAMPLES/../tests/data/matvec_64x256_lanes4x16.mlir" "$tmp/mv.mlir"
pngsig=$(printf '\211PNG')

$LANESCOPE draw layout "$tmp/mv.mlir" --operand 1 --thread 20 -o "$tmp/vec.png" --scale 1
check "draw layout --operand 1 exits 0" $?
[ "$(head -c 4 "$tmp/vec.png")" = "$pngsig" ]; check "draw layout --operand 1 writes a PNG" $?
contains "vector title" "$tmp/vec.png" "input 1 %vec : tensor<256xf16> (d1) of @matvec_64x256"
$LANESCOPE draw layout "$tmp/mv.mlir" --operand 0 --dims 1,0 --iteration 3 -o "$tmp/mat.svg"
check "draw layout --operand 0 --dims 1,0 (svg) exits 0" $?
contains "svg root" "$tmp/mat.svg" "<svg"
$LANESCOPE draw nested "$tmp/mv.mlir" --operand 1 -o "$tmp/nested.png" --scale 1
check "draw nested --operand 1 exits 0" $?
contains "nested title" "$tmp/nested.png" "nested layout of input 1 %vec : tensor<256xf16> (d1)"
# Without --operand: the iteration space, as before.
$LANESCOPE draw layout "$tmp/mv.mlir" -o "$tmp/space.png" --scale 1
contains "iteration space by default" "$tmp/space.png" "layout of @matvec_64x256"
# IREE's own config for the example matvec (no lowering_config in the file).
$LANESCOPE draw layout "$EX/matvec_32000x4096_f16.mlir" --target mi300x --operand 1 \
    -o "$tmp/mvdef.pdf"
check "draw the example matvec's vector (pdf) exits 0" $?
[ "$(head -c 5 "$tmp/mvdef.pdf")" = "%PDF-" ]; check "pdf written" $?

# traffic draws each input's share of the loads (its panel: test_viz_operand);
# sim prints them: the 64 x 256 f16 matrix's 32768 bytes, all from DRAM;
# the 512-byte vector, read by every workgroup, from DRAM once.
$LANESCOPE draw traffic "$tmp/mv.mlir" -o "$tmp/tr.svg"
check "draw traffic of a matvec exits 0" $?
$LANESCOPE sim "$tmp/mv.mlir" --no-check >"$tmp/sim.txt"
contains "sim loads by operand" "$tmp/sim.txt" "loads by operand (load+accumulate's global figures, split):"
awk '$1 == "0" && $2 == "%mat" && $3 == 32768 && $7 == 32768 { ok = 1 } END { exit !ok }' \
    "$tmp/sim.txt"; check "sim: the matrix's bytes, all from DRAM" $?
awk '$1 == "1" && $2 == "%vec" && $7 == 512 { ok = 1 } END { exit !ok }' "$tmp/sim.txt"
check "sim: the vector's 512 bytes from DRAM once" $?

# Errors.
fails "--operand past the inputs" 2 "$tmp/e1.png" \
    "lanescope draw: --operand 5: the reduction has 2 inputs (0..1)" \
    $LANESCOPE draw layout "$tmp/mv.mlir" --operand 5 -o "$tmp/e1.png"
fails "nested --operand past the inputs" 2 "$tmp/e2.png" \
    "--operand 2: the reduction has 2 inputs (0..1)" \
    $LANESCOPE draw nested "$tmp/mv.mlir" --operand 2 -o "$tmp/e2.png"
fails "--operand of an intermediate input" 2 "$tmp/e3.png" \
    "--operand 1: input 1 %__sm1_max is the result of reduction 0, held in registers (not loaded)" \
    $LANESCOPE draw layout "$EX/softmax_4096x32000_f32.mlir" --index 1 --operand 1 \
    -o "$tmp/e3.png"
fails "--operand with traffic" 2 "$tmp/e4.png" \
    "--operand: only layout and nested draw an operand (traffic does not: it draws every input's share" \
    $LANESCOPE draw traffic "$tmp/mv.mlir" --operand 1 -o "$tmp/e4.png"
fails "--dims on a rank-1 operand" 2 "$tmp/e5.png" \
    "--dims: input 1 has rank 1: no two dims to draw" \
    $LANESCOPE draw layout "$tmp/mv.mlir" --operand 1 --dims 0,1 -o "$tmp/e5.png"
fails "--operand not a number" 2 "$tmp/e6.png" \
    "--operand: expected an input number (0 for the first), found '-1'" \
    $LANESCOPE draw layout "$tmp/mv.mlir" --operand -1 -o "$tmp/e6.png"
fails "--thread past the workgroup" 2 "$tmp/e7.png" \
    "--thread: thread 128 is outside 0..127 (workgroup size)" \
    $LANESCOPE draw layout "$tmp/mv.mlir" --operand 1 --thread 128 -o "$tmp/e7.png"

summary draw_operand
