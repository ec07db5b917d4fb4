#!/bin/sh
# cli_stdin.sh: the command line's shared ways of naming inputs and stating a
# problem (issue 16): "-" reads standard input in every command that reads
# an IR file, a suite, a CSV or an array, once a run; "-o -" writes standard
# output (draw with --format); explain, sim and draw take the same
# --config/--shape/--iter/--type/--combiner, and refuse a describing flag
# that has nothing to describe; counts of one read in the singular.  Results
# are compared with the same run on a named file.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
EX=${LS_EXAMPLES:-examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"
E2=$EX/seed000_example2.mlir
CFG='#iree_gpu.lowering_config<{workgroup = [16, 0], partial_reduction = [0, 32], thread = [0, 1], lane_basis = [[16, 4], [1, 0]], subgroup_basis = [[1, 2], [0, 1]]}>'

# ---- "-" is standard input: the same numbers as from the file
for c in explain sim suggest; do
    $LANESCOPE $c "$E2" >"$tmp/$c.file" 2>"$tmp/err"
    check "$c on the file exits 0" $?
    $LANESCOPE $c - <"$E2" >"$tmp/$c.stdin" 2>"$tmp/err"
    check "$c - exits 0" $?
    # the only difference is where the op is said to be
    sed "s#$E2#<stdin>#g" "$tmp/$c.file" >"$tmp/$c.expect"
    cmp -s "$tmp/$c.expect" "$tmp/$c.stdin"
    check "$c - prints what $c FILE does (name aside)" $?
done
contains "explain - names <stdin>" "$tmp/explain.stdin" "at <stdin>:21:14"
$LANESCOPE sim --json - <"$E2" >"$tmp/sim.json"
tr -d " \n" <"$tmp/sim.json" >"$tmp/sim.flat"
contains "sim --json - names the input -" "$tmp/sim.flat" '"input":"-"'
$LANESCOPE sweep - --target mi300x --max-configs 5 --quiet --csv "$tmp/s1.csv" <"$E2" >/dev/null 2>"$tmp/err"
check "sweep - exits 0" $?
$LANESCOPE sweep "$E2" --target mi300x --max-configs 5 --quiet --csv "$tmp/s2.csv" >/dev/null 2>"$tmp/err"
cmp -s "$tmp/s1.csv" "$tmp/s2.csv"; check "sweep - ranks what sweep FILE does" $?
$LANESCOPE draw layout - -o "$tmp/l1.png" <"$E2"; check "draw layout - exits 0" $?
$LANESCOPE draw layout "$E2" -o "$tmp/l2.png"
# the PNG's Source text names the input, so compare the pixels' chunk only
tail -c 2000 "$tmp/l1.png" >"$tmp/t1"; tail -c 2000 "$tmp/l2.png" >"$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2"; check "draw layout - draws what draw FILE does" $?
$LANESCOPE draw compare - -o "$tmp/c.svg" <"$(dirname "$0")/data/compare_synthetic.csv"
check "draw compare reads its CSV from -" $?
contains "draw compare - drew points" "$tmp/c.svg" "<svg"

# errors in standard input name <stdin> with line and column
printf 'func.func @f(%%a: tensor<4xf32>) {\n  %%r = linalg.generic {\n' >"$tmp/cut.mlir"
$LANESCOPE explain - <"$tmp/cut.mlir" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ]; check "explain - on a cut file exits 1" $?
contains "error names <stdin>:line:col" "$tmp/err" "lanescope explain: <stdin>:3:1:"
[ ! -s "$tmp/out" ]; check "error prints nothing on stdout" $?

# standard input once a run: the IR and the array cannot both be it
$LANESCOPE sim - --input - <"$E2" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "sim - --input - exits 2" $?
contains "stdin twice named" "$tmp/err" "standard input is named as two inputs of this run; give a file for one"
# an output may not replace the file standard input reads
cp "$E2" "$tmp/in.mlir"
$LANESCOPE explain - -o "$tmp/in.mlir" <"$tmp/in.mlir" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ]; check "explain - -o (the file on stdin) refused" $?
cmp -s "$E2" "$tmp/in.mlir"; check "the file on stdin is untouched" $?

# ---- -o - : standard output
$LANESCOPE draw layout "$E2" -o - --format png >"$tmp/o.png"
check "draw -o - --format png exits 0" $?
cmp -s "$tmp/o.png" "$tmp/l2.png"; check "draw -o - writes the same PNG" $?
$LANESCOPE draw layout "$E2" -o - --format svg | head -c 100 >"$tmp/o.svg"
contains "draw -o - --format svg" "$tmp/o.svg" "<?xml"
$LANESCOPE draw layout "$E2" -o - >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ]; check "draw -o - without --format exits 2" $?
contains "draw -o - asks for --format" "$tmp/err" "has no extension to pick the format: give --format png, svg or pdf"
[ ! -s "$tmp/out" ]; check "draw -o - without --format writes nothing" $?
$LANESCOPE draw layout "$E2" -o "$tmp/x.svg" --format pdf 2>"$tmp/err"
[ $? -eq 2 ]; check "--format against the extension exits 2" $?
contains "--format disagreement named" "$tmp/err" "pdf disagrees with the extension of $tmp/x.svg"
[ ! -e "$tmp/x.svg" ]; check "disagreement writes nothing" $?
$LANESCOPE draw layout "$E2" -o "$tmp/x.out" --format pdf; check "--format picks PDF for another extension" $?
contains "the PDF is a PDF" "$tmp/x.out" "%PDF-"
$LANESCOPE draw layout "$E2" -o "$tmp/x.png" --format gif 2>"$tmp/err"
[ $? -eq 2 ]; check "--format gif exits 2" $?
$LANESCOPE sim "$E2" -o - >"$tmp/sim.o"; check "sim -o - exits 0" $?
cmp -s "$tmp/sim.o" "$tmp/sim.file"; check "sim -o - prints the report" $?

# ---- --shape / --config in sim and draw, as in explain
$LANESCOPE sim --shape 1152x384 --iter pr --type f32 --combiner maxnumf --config "$CFG" --target mi300x >"$tmp/flags.sim" 2>"$tmp/err"
check "sim --shape --config exits 0" $?
# example 2 states the same max reduction with the same config: same cycles
$LANESCOPE sim "$E2" --target mi300x >"$tmp/file.sim"
c1=$(sed -n 's/^  \([0-9]*\) cycles.*/\1/p' "$tmp/flags.sim")
c2=$(sed -n 's/^  \([0-9]*\) cycles.*/\1/p' "$tmp/file.sim")
[ -n "$c1" ] && [ "$c1" = "$c2" ]; check "sim --shape times example 2's problem alike ($c1 = $c2 cycles)" $?
contains "sim --shape check passed" "$tmp/flags.sim" "functional check passed: 1152 outputs"
$LANESCOPE sim --shape 1152x384 --iter pr --config "$CFG" --json >"$tmp/f.json"
tr -d ' \n' <"$tmp/f.json" >"$tmp/f.flat"
contains "sim --json says where the config came from" "$tmp/f.flat" '"config_source":"--config"'
contains "sim --json input is --shape" "$tmp/f.flat" '"input":"--shape"'
$LANESCOPE sim --shape 1152x384 --iter pr >"$tmp/d.sim"
contains "sim --shape without --config: IREE's default" "$tmp/d.sim" "no lowering_config given (--config): IREE's default"
$LANESCOPE sim "$E2" --config "$CFG" --json | tr -d ' \n' >"$tmp/c.flat"
contains "sim FILE --config replaces the input's" "$tmp/c.flat" '"config_source":"--config"'
$LANESCOPE draw layout --shape 1152x384 --iter pr --config "$CFG" -o "$tmp/sl.png"
check "draw layout --shape exits 0" $?
$LANESCOPE draw traffic --shape 1152x384 --iter pr --config "$CFG" -o "$tmp/st.svg"
check "draw traffic --shape exits 0" $?
contains "draw --shape title names the flags problem" "$tmp/st.svg" "<svg"

# view too: the same problem by flags, and an INPUT from standard input
$LANESCOPE view --shape 1152x384 --iter pr --combiner maxnumf --config "$CFG" --target mi300x \
    --headless --out "$tmp/vf" --keys "end" >"$tmp/vf.txt" 2>"$tmp/err"
check "view --shape --config exits 0" $?
$LANESCOPE view - --target mi300x --headless --out "$tmp/vi" --keys "end" <"$E2" >"$tmp/vi.txt" 2>"$tmp/err"
check "view - exits 0" $?
cmp -s "$tmp/vf.txt" "$tmp/vi.txt"; check "view --shape steps what view of example 2 steps" $?
contains "view: the last frame" "$tmp/vf.txt" "frame 001 key=end"
# measure and sweep too: the CUDA C generated for a problem stated by flags is
# the file's (but for the init's comment: a fill value, or the identity)
MX="$EX/../tests/data/cuda_maxsi_i16_6x100.mlir"
MXCFG='#iree_gpu.lowering_config<{lane_basis = [[2, 16], [0, 1]], partial_reduction = [0, 64], subgroup_basis = [[1, 2], [0, 1]], thread = [0, 2], workgroup = [2, 0]}>'
$LANESCOPE measure "$MX" --emit-cuda | tail -n +2 | grep -v 'acc combine' >"$tmp/mf.cu"
$LANESCOPE measure --shape 6x100 --iter pr --type i16 --combiner maxsi --config "$MXCFG" \
    --target h100 --emit-cuda >"$tmp/ms.cu" 2>"$tmp/err"
check "measure --shape --config exits 0" $?
tail -n +2 "$tmp/ms.cu" | grep -v 'acc combine' | cmp -s - "$tmp/mf.cu"
check "measure --shape generates the file's kernel" $?
[ "$(wc -l <"$tmp/mf.cu")" -gt 50 ]; check "measure: a whole kernel compared" $?
$LANESCOPE sweep --shape 512x4096 --iter pr --target h100 --max-configs 12 --quiet \
    --config '#iree_gpu.lowering_config<{workgroup = [1, 0], thread = [0, 4], partial_reduction = [0, 512], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>' \
    --csv "$tmp/swc.csv" >"$tmp/swc.txt" 2>"$tmp/err"
check "sweep --shape --config exits 0" $?
[ "$(grep -c '<- --config' "$tmp/swc.txt")" -eq 1 ]; check "sweep marks the --config row" $?
contains "sweep ranks --config's config" "$tmp/swc.txt" "the config of --config ranks"
[ "$(cut -d, -f3 "$tmp/swc.csv" | grep -c '^1$')" -eq 1 ]; check "sweep CSV flags one --config row" $?
grep '^[0-9]*,[01],1,' "$tmp/swc.csv" | grep -q 'partial_reduction = \[0, 512\].*subgroup_basis = \[\[1, 4\]'
check "the flagged row is --config's" $?
for c in "sim $E2 --iter pr" "explain $E2 --type f16" "draw layout $E2 -o $tmp/n.png --combiner mul" \
    "view $E2 --iter pr --headless --out $tmp/vn" "measure $E2 --iter pr --emit-cuda" \
    "sweep $E2 --combiner mul --target mi300x"; do
    # shellcheck disable=SC2086
    $LANESCOPE $c >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ]; check "'$c' exits 2" $?
    contains "'$c' says why" "$tmp/err" "describes a --shape problem; INPUT's reductions say their own"
done
$LANESCOPE sim --iter pr >/dev/null 2>"$tmp/err"
[ $? -eq 2 ]; check "sim --iter alone exits 2" $?
for c in measure sweep; do
    $LANESCOPE $c --iter pr >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ]; check "$c --iter alone exits 2" $?
    contains "$c --iter alone says why" "$tmp/err" "--iter describes a --shape problem; give --shape too"
    $LANESCOPE $c "$E2" --shape 4x4 --iter pr >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ]; check "$c INPUT --shape exits 2" $?
done
$LANESCOPE sim "$E2" --shape 4x4 --iter pr >/dev/null 2>"$tmp/err"
[ $? -eq 2 ]; check "sim INPUT --shape exits 2" $?
contains "INPUT and --shape" "$tmp/err" "give INPUT or --shape, not both"
$LANESCOPE sim --shape 64x64 --iter pr --dim 0=4 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ]; check "sim --shape --dim exits 2" $?
contains "--dim with --shape" "$tmp/err" "--shape states every size"
$LANESCOPE draw swizzle --shape 4x4 --iter pr -o "$tmp/n.png" 2>"$tmp/err"
[ $? -eq 2 ]; check "draw swizzle --shape exits 2" $?
$LANESCOPE sim --shape 64x64 --iter pr --config x --config y >/dev/null 2>"$tmp/err"
[ $? -eq 2 ]; check "--config twice exits 2" $?
contains "--config twice" "$tmp/err" "--config given twice"

# ---- one of a kind reads in the singular
$LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --max-configs 1 --quiet >"$tmp/one.txt" 2>&1
contains "sweep: 1 config" "$tmp/one.txt" ": 1 config simulated in"
$LANESCOPE sim --shape 1x8192 --iter pr --target mi300x >"$tmp/one.txt" 2>&1
contains "sim: 1 workgroup" "$tmp/one.txt" ": 1 workgroup on mi300x (gfx942)"
contains "sim: 1 output matches" "$tmp/one.txt" "functional check passed: 1 output of 1 workgroup matches"
$LANESCOPE draw layout --shape 64x64 --iter pr --index 1 -o "$tmp/n.png" 2>"$tmp/err"
contains "draw: has 1 reduction" "$tmp/err" "--shape has 1 reduction; --index 1 is outside 0..0"

summary cli_stdin
