#!/bin/sh
# valgrind-examples.sh: every command on the bundled examples under valgrind
# memcheck (no error, no definite or indirect leak), each report identical to
# the same command's without valgrind (the results do not depend on memory
# layout or timing).  Run from a build folder: tools/valgrind-examples.sh
# [LANESCOPE] (default ./lanescope, a libtool wrapper run through libtool).
# Slow (minutes): not part of make check; docs/fuzzing.md has its last run.
set -u
LS=${1:-./lanescope}
E=$(cd "$(dirname "$0")/.." && pwd)/examples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # name, then the lanescope arguments
    name=$1
    shift
    if [ -x ./libtool ]; then vg="./libtool --mode=execute valgrind"; else vg=valgrind; fi
    $vg -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$LS" "$@" >"$tmp/vg.out" 2>"$tmp/vg.err"
    rc=$?
    "$LS" "$@" >"$tmp/plain.out" 2>/dev/null
    # sweep's first line carries its wall time: the one line allowed to differ
    sed -i 's/simulated in [0-9.]* s/simulated in T s/' "$tmp/vg.out" "$tmp/plain.out"
    if [ $rc -eq 99 ] || grep -q '==[0-9]*==' "$tmp/vg.err" || ! cmp -s "$tmp/vg.out" "$tmp/plain.out"; then
        echo "FAIL: $name (rc $rc)"
        head -n 20 "$tmp/vg.err"
        fail=$((fail + 1))
    else
        echo "ok: $name"
    fi
}
for ex in seed004_reduce_8x64 seed000_example2 seed000_example3; do
    run "sim $ex" sim "$E/$ex.mlir"
done
run "explain xor_shuffle" explain "$E/seed001_xor_shuffle.mlir"
run "explain nested" explain "$E/seed002_nested_64x64.mlir"
run "draw swizzle" draw swizzle "$E/seed001_xor_shuffle.mlir" -o "$tmp/sw.png"
run "sim argmax" sim "$E/argmax_vocab_64x32000_f32.mlir" --target mi300x --workgroups 8
run "sim softmax" sim "$E/softmax_4096x32000_f32.mlir" --target mi300x --workgroups 4
run "suggest matvec" suggest "$E/matvec_32000x4096_f16.mlir" --target gfx942
run "sweep 8x64" sweep "$E/seed004_reduce_8x64.mlir" --target mi300x --quiet -j 1
[ $fail -eq 0 ] && echo "valgrind-examples: all clean" || echo "valgrind-examples: $fail failed"
[ $fail -eq 0 ]
