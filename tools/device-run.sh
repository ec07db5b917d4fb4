#!/bin/sh
# device-run.sh: the driver of a GPU-machine bundle (tools/device-bundle.sh
# copies it to the bundle as run.sh).  On a machine with an NVIDIA GPU and
# nothing installable, from inside the bundle folder:
#
#     OUT=/some/folder ./run.sh
#
# runs, in one go, each step logged to $OUT/run.log (default OUT: ./out):
#   1. nvidia-smi -q (what the GPU and driver say about themselves);
#   2. lanescope calibrate -> $OUT/<gpu>-calibrated.hw, $OUT/calibrate_raw.csv;
#   3. lanescope compare of the bundled suite on the calibrated model (the
#      built-in one if calibration failed), which
#      measures every case in LS_REPEAT interleaved rounds (default 3: a
#      case's time is the median of its rounds', robust to a disturbed
#      stretch of a shared GPU) -> $OUT/measured.csv, compare.csv,
#      compare.png;
#   4. the same compare on the built-in model (h100, or h200 for an H200 when
#      the bundle has one), reusing step 3's measurements when there are any
#      -> $OUT/compare_<model>.csv, compare_<model>.png;
#   5. lanescope measure of the vocabulary softmax as the dispatch's one
#      kernel (its report in the log).
# A failing step is logged and the next one runs; the end is a summary.  The
# written files are 8 at most (the device tool brings back 8).  Exit status:
# 0 all steps went through, 3 no NVIDIA driver/GPU (calibrate said so),
# 1 otherwise.  Each step has a time limit (calibrate 120 s, the measuring
# compare 450 s (78 cases in 3 rounds took 264 s on an H100; the suite has
# 88 now, its six attentions not measured yet), the other 60 s; calibrate
# takes seconds, so the run stays under the device tool's 10 minutes);
# LS_STEP_TIMEOUT (seconds) replaces them all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-./out}
mkdir -p "$OUT" || { echo "run.sh: cannot make $OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)
LS="$here/bin/ls"
SUITE="$here/share/lanescope/examples/suite/suite.txt"
log="$OUT/run.log"
: >"$log"
tmp=$(mktemp "${TMPDIR:-/tmp}/ls-run.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
summary=""
failed=0
no_gpu=0

say() { echo "$*" | tee -a "$log"; }

# step NAME COMMAND...: run it with its output in the log, record the result.
step() {
    name=$1
    lim=${LS_STEP_TIMEOUT:-$2}
    shift 2
    say ""
    say "== $name: $*"
    start=$(date +%s)
    mark=$(wc -l <"$log")
    # straight into the log, so a step cut short by the device tool keeps
    # what it said
    if command -v timeout >/dev/null 2>&1; then
        timeout "$lim" "$@" >>"$log" 2>&1
    else
        "$@" >>"$log" 2>&1
    fi
    rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc -eq 0 ]; then
        result="ok"
    else
        result="FAILED (exit $rc)"
        [ $rc -eq 124 ] && result="FAILED (over ${lim} s)"
        failed=1
        tail -n +$((mark + 1)) "$log" | tail -n 3 | sed 's/^/   | /' # the reason, on the console too
    fi
    say "== $name: $result, $secs s"
    summary="$summary
  $name: $result, $secs s"
    return $rc
}

skip() { # NAME REASON
    say ""
    say "== $1: skipped: $2"
    summary="$summary
  $1: skipped: $2"
    failed=1
}

say "lanescope device run, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
[ -f "$here/share/lanescope/BUILD-INFO" ] && sed 's/^/  /' "$here/share/lanescope/BUILD-INFO" | tee -a "$log"

# NVRTC: configure's toolkit folder first (compiled in); else tell lanescope
# where this machine keeps it, if the dynamic linker does not know.
if [ -z "${LANESCOPE_NVRTC:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so\.13'; then
    for d in /usr/local/cuda/lib64 /usr/local/cuda-13*/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
        if [ -e "$d/libnvrtc.so.13" ]; then
            LANESCOPE_NVRTC="$d/libnvrtc.so.13"
            export LANESCOPE_NVRTC
            say "NVRTC: $LANESCOPE_NVRTC"
            break
        fi
    done
fi

# cuda_fp16.h for NVRTC: the toolkit's include folder beside its libraries.
if [ -z "${LANESCOPE_CUDA_INCLUDE:-}" ] && [ ! -f /usr/local/cuda/include/cuda_fp16.h ]; then
    for d in /usr/local/cuda-13*/include /usr/local/cuda*/targets/x86_64-linux/include \
             "$(dirname "${LANESCOPE_NVRTC:-/x/y}")/../include"; do
        if [ -f "$d/cuda_fp16.h" ]; then
            LANESCOPE_CUDA_INCLUDE=$d
            export LANESCOPE_CUDA_INCLUDE
            say "CUDA headers: $d"
            break
        fi
    done
fi

step "bundle" 30 "$LS" --version

gpu_name=""
if command -v nvidia-smi >/dev/null 2>&1; then
    step "nvidia-smi" 60 nvidia-smi -q
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv >>"$log" 2>&1
else
    skip "nvidia-smi" "not installed here"
fi
# "NVIDIA H100 80GB HBM3" -> h100 (as lanescope calibrate names the model)
chip=$(echo "$gpu_name" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9\n' ' ' | tr ' ' '\n' |
    grep -E '^[a-z][0-9]{2,}$' | head -n 1)
[ -n "$chip" ] || chip=gpu
model="$OUT/$chip-calibrated.hw"

builtin=h100
case $chip in
h200) [ -f "$here/share/lanescope/targets/h200.hw" ] && builtin=h200 ;;
esac
# the keys calibrate does not measure come from the built-in model of the chip
step "calibrate" 120 "$LS" calibrate -o "$model" --raw "$OUT/calibrate_raw.csv" --base "$builtin"
rc=$?
[ $rc -eq 3 ] && no_gpu=1
# The measurements are what the GPU is lent for: take them on the calibrated
# model, or on the built-in one when calibration failed.
first=$model
[ -f "$model" ] || first=$builtin
if [ ! -f "$SUITE" ]; then
    skip "compare ($first)" "no suite at $SUITE"
elif [ $no_gpu -eq 1 ]; then
    skip "compare ($first)" "no GPU"
else
    step "compare ($(basename "$first"))" 450 "$LS" compare "$SUITE" --target "$first" \
        --repeat "${LS_REPEAT:-3}" \
        --save-measured "$OUT/measured.csv" --csv "$OUT/compare.csv" --chart "$OUT/compare.png"
fi

second=$builtin
[ "$first" = "$builtin" ] && second=""
if [ -z "$second" ]; then
    :
elif [ -s "$OUT/measured.csv" ]; then
    step "compare ($second)" 60 "$LS" compare "$SUITE" --target "$second" \
        --measured "$OUT/measured.csv" --allow-missing --csv "$OUT/compare_$second.csv" \
        --chart "$OUT/compare_$second.png"
else
    skip "compare ($second)" "no measurements to compare with"
fi

# A dispatch's loops as one kernel: the vocabulary softmax (max, sum,
# divide in one launch), every phase checked, against sim's one-kernel time;
# its report goes to the log.
SOFTMAX="$here/share/lanescope/examples/softmax_4096x32000_f32.mlir"
if [ $no_gpu -eq 1 ]; then
    skip "one-kernel softmax" "no GPU"
elif [ -f "$SOFTMAX" ]; then
    tgt=$model
    [ -f "$tgt" ] || tgt=$builtin
    step "one-kernel softmax" 180 "$LS" measure "$SOFTMAX" --target "$tgt" --runs 10
else
    skip "one-kernel softmax" "no example at $SOFTMAX"
fi

say ""
say "summary (${gpu_name:-no GPU named by nvidia-smi}; files in $OUT):$summary"
for f in "$OUT"/*; do
    [ -f "$f" ] && [ "$f" != "$log" ] && say "  wrote $(basename "$f") ($(wc -c <"$f") bytes)"
done
if [ $no_gpu -eq 1 ]; then
    say "no NVIDIA driver/GPU here: nothing was measured (exit 3)"
    exit 3
fi
[ $failed -eq 0 ] || exit 1
exit 0
