#!/bin/sh
# test_bundle.sh: `lanescope calibrate` on a machine without a GPU (exit 3,
# one line, nothing written; flags and usage errors), and the GPU-machine
# bundle: tools/device-bundle.sh --prebuilt with the binary just built, its
# layout, its libraries resolved from the bundle alone, the bin/ls wrapper,
# and run.sh going through every step to its summary (exit 3 without a
# GPU).  Writes only under a temporary folder (make distcheck runs it on a
# read-only tree); needs no network; a few seconds.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
LANESCOPE=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE")
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ls-test-bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

one_line() { # name, file
    [ "$(wc -l <"$2")" -eq 1 ]
    r=$?
    [ $r -eq 0 ] || { echo "--- $2:"; cat "$2"; }
    check "$1: one line" $r
}
no_gpu_message() { # name, file: either reason a machine can have
    grep -qE 'lanescope calibrate: (no NVIDIA driver/GPU found \(|this lanescope was built without the CUDA path)' "$2"
    r=$?
    [ $r -eq 0 ] || { echo "--- $2:"; cat "$2"; }
    check "$1: says there is no GPU" $r
}

# ---- calibrate without a GPU
mkdir "$tmp/cal"
$LANESCOPE calibrate -o "$tmp/cal/x.hw" --raw "$tmp/cal/x.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
gpu=0
if [ $rc -eq 0 ]; then
    gpu=1 # a machine with a GPU: the model was measured
    echo "note: a GPU answered; checking the calibrated model instead of the no-GPU path"
    contains "calibrated model" "$tmp/cal/x.hw" "# source: measured on "
    contains "raw CSV" "$tmp/cal/x.csv" "benchmark,parameter,value,unit,gpu,sm_count,driver,date,command"
else
    [ $rc -eq 3 ]
    check "calibrate without a GPU exits 3 (got $rc)" $?
    one_line "calibrate without a GPU" "$tmp/err"
    no_gpu_message "calibrate without a GPU" "$tmp/err"
    [ -z "$(ls -A "$tmp/cal")" ]
    check "calibrate without a GPU writes nothing" $?
fi

$LANESCOPE calibrate --help >"$tmp/out" 2>"$tmp/err"
check "calibrate --help exits 0" $?
contains "calibrate --help" "$tmp/out" "usage: lanescope calibrate -o FILE.hw [--base MODEL] [--raw FILE.csv]"
contains "calibrate --help: exit 3" "$tmp/out" "3 no NVIDIA driver or GPU"

usage_error() { # name, expected message, arguments...
    name=$1
    msg=$2
    shift 2
    $LANESCOPE calibrate "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ]
    check "$name exits 2 (got $rc)" $?
    one_line "$name" "$tmp/err"
    contains "$name" "$tmp/err" "$msg"
}
usage_error "unknown flag" "lanescope calibrate: unknown option '--bogus'" -o "$tmp/cal/x.hw" --bogus
usage_error "no -o" "-o FILE.hw is required"
usage_error "-o without a value" "-o needs a value" -o
usage_error "an INPUT" "unexpected argument 'extra'" -o "$tmp/cal/x.hw" extra
usage_error "bad --device" "--device: expected an integer, found 'one'" -o "$tmp/cal/x.hw" --device one
usage_error "same -o and --raw" "--raw and -o name the same file" -o "$tmp/cal/x.hw" --raw "$tmp/cal/x.hw"

$LANESCOPE calibrate -o "$tmp/cal/x.hw" --base nosuch >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ]
check "unknown --base exits 1" $?
contains "unknown --base" "$tmp/err" "no hardware model 'nosuch'"
$LANESCOPE calibrate -o "$tmp/nonexistent/x.hw" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ]
check "unwritable -o exits 1" $?
contains "unwritable -o" "$tmp/err" "x.hw: cannot write in its folder"

# ---- the bundle, from the binary just built (the real one behind a
# libtool wrapper)
real=$LANESCOPE
[ -x "$(dirname "$LANESCOPE")/.libs/lanescope" ] && real=$(dirname "$LANESCOPE")/.libs/lanescope
b=$tmp/bundle
sh "$top/tools/device-bundle.sh" -o "$b" --prebuilt "$real" >"$tmp/bundle.log" 2>&1
r=$?
[ $r -eq 0 ] || cat "$tmp/bundle.log"
check "device-bundle.sh --prebuilt exits 0" $r
for f in bin/lanescope bin/ls run.sh; do
    [ -f "$b/$f" ] && [ -x "$b/$f" ]
    check "bundle has executable $f" $?
done
for f in share/lanescope/targets/h100.hw share/lanescope/targets/a100.hw \
    share/lanescope/examples/seed000_example2.mlir share/lanescope/BUILD-INFO; do
    [ -f "$b/$f" ]
    check "bundle has $f" $?
done
if [ -f "$top/examples/suite/suite.txt" ]; then
    [ -f "$b/share/lanescope/examples/suite/suite.txt" ]
    check "bundle has the compare suite" $?
fi
[ -d "$b/lib" ]
check "bundle has lib/" $?
for f in "$b"/lib/*; do
    case $(basename "$f") in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | ld-linux* | libcuda.so* | libnvrtc*)
        check "bundle leaves $(basename "$f") to the machine" 1 ;;
    esac
done
# every library resolves with the bundle's lib/ alone
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$b/lib" ldd "$b/bin/lanescope" >"$tmp/ldd" 2>&1
! grep -q "not found" "$tmp/ldd"
r=$?
[ $r -eq 0 ] || cat "$tmp/ldd"
check "bundle's libraries resolve" $r

# the wrapper, in an empty environment: its libraries and its models
env -i PATH=/usr/bin:/bin "$b/bin/ls" --version >"$tmp/out" 2>&1
check "bin/ls --version exits 0" $?
contains "bin/ls --version" "$tmp/out" "lanescope "
cp "$b/share/lanescope/targets/h100.hw" "$b/share/lanescope/targets/onlyinbundle.hw"
env -i PATH=/usr/bin:/bin "$b/bin/ls" sim "$b/share/lanescope/examples/rowsum_4096x4096_noconfig.mlir" \
    --target onlyinbundle --no-check >"$tmp/out" 2>&1
r=$?
[ $r -eq 0 ] || cat "$tmp/out"
check "bin/ls finds the bundle's hardware models" $r

# fonts: the bundle's own, through its fonts.conf (a GPU machine without
# fontconfig's configuration drew every glyph as a box)
for f in share/lanescope/fonts/DejaVuSans.ttf share/lanescope/fonts/fonts.conf; do
    [ -f "$b/$f" ]
    check "bundle has $f" $?
done
# (fontconfig's debug printing leaks a string: no leak check for this run)
env -i PATH=/usr/bin:/bin HOME="$tmp" FC_DEBUG=1024 ASAN_OPTIONS=detect_leaks=0 "$b/bin/ls" draw compare \
    "$top/targets/measured/h100-2026-11-26/compare.csv" -o "$tmp/fonts.png" >"$tmp/out" 2>&1
r=$?
[ $r -eq 0 ] || tail -3 "$tmp/out"
check "bin/ls draws with the bundle's fonts (exit 0)" $r
contains "bin/ls reads the bundle's fonts.conf" "$tmp/out" "$b/share/lanescope/fonts/fonts.conf"

# run.sh: every step, then the summary
if [ $gpu -eq 0 ]; then
    (cd "$b" && OUT="$tmp/out-run" ./run.sh) >"$tmp/run.out" 2>&1
    rc=$?
    [ $rc -eq 3 ]
    check "run.sh without a GPU exits 3 (got $rc)" $?
    no_gpu_message "run.sh's calibrate step" "$tmp/out-run/run.log"
    contains "run.sh summary" "$tmp/run.out" "summary ("
    contains "run.sh calibrate step" "$tmp/run.out" "calibrate: FAILED (exit 3)"
    contains "run.sh compare step" "$tmp/run.out" "compare (h100): skipped: no GPU"
    contains "run.sh built-in compare step" "$tmp/run.out" "compare (h100): "
    contains "run.sh one-kernel softmax step" "$tmp/run.out" "one-kernel softmax: skipped: no GPU"
    model=no
    for f in "$tmp"/out-run/*-calibrated.hw; do [ -e "$f" ] && model=$f; done
    [ "$model" = no ]
    check "run.sh without a GPU writes no model" $?
fi

# an earlier bundle is replaced; anything else is left alone
sh "$top/tools/device-bundle.sh" -o "$b" --prebuilt "$real" >"$tmp/bundle.log" 2>&1
check "device-bundle.sh replaces an earlier bundle" $?
mkdir "$tmp/keep" && echo precious >"$tmp/keep/file"
sh "$top/tools/device-bundle.sh" -o "$tmp/keep" --prebuilt "$real" >"$tmp/out" 2>&1
[ $? -eq 1 ] && [ -f "$tmp/keep/file" ]
check "device-bundle.sh leaves a folder that is not a bundle" $?
contains "not a bundle" "$tmp/out" "exists and is not an earlier bundle"
sh "$top/tools/device-bundle.sh" --bogus >"$tmp/out" 2>&1
[ $? -eq 2 ]
check "device-bundle.sh: unknown argument exits 2" $?

summary test_bundle.sh
