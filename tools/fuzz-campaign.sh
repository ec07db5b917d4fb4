#!/bin/sh
# fuzz-campaign.sh: one libFuzzer campaign measured in CPU time, not wall
# time, so that a campaign sharing the machine with builds (run at nice 19)
# still counts what it really ran.  The fuzzer is interrupted (SIGINT, which
# makes libFuzzer print its final statistics) once its CPU time reaches
# CPU_SECONDS; what it kept is then merged into the committed corpus, and one
# table row for docs/fuzzing.md is printed.
#
# libFuzzer's -timeout is wall-clock time, and a fuzzer at nice 19 on a
# loaded machine can wait many seconds for a core: 120 s keeps a starved
# input from being reported as a hang (a real hang still is).
#
# Run from a build folder after `make fuzz`:
#     tools/fuzz-campaign.sh NAME CPU_SECONDS [WORKDIR]
set -u
if [ $# -lt 2 ]; then
    echo "usage: fuzz-campaign.sh NAME CPU_SECONDS [WORKDIR]" >&2
    exit 2
fi
name=$1
budget=$2
src=$(cd "$(dirname "$0")/.." && pwd)
bin=./tests/fuzz/fuzz_$name
corpus=$src/tests/fuzz/corpus/$name
work=${3:-fuzz-work}/$name
case $budget in *[!0-9]*|'') echo "fuzz-campaign.sh: CPU_SECONDS must be a whole number, not '$budget'" >&2; exit 2;; esac
[ -x "$bin" ] || { echo "fuzz-campaign.sh: $bin is missing; run make fuzz first" >&2; exit 2; }
[ -d "$corpus" ] || { echo "fuzz-campaign.sh: no corpus folder $corpus" >&2; exit 2; }
mkdir -p "$work/new" "$work/artifacts"
log=$work/run.log
# CLK_TCK: /proc/PID/stat counts CPU time in clock ticks.
hz=$(getconf CLK_TCK)
cpu_seconds() { # utime + stime of a process, in whole seconds
    awk -v hz="$hz" '{ sub(/^.*\) /, ""); print int(($12 + $13) / hz) }' "/proc/$1/stat" 2>/dev/null
}
nice -n 19 "$bin" -rss_limit_mb=2048 -timeout=120 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/new" "$corpus" >"$log" 2>&1 &
pid=$!
used=0
while kill -0 "$pid" 2>/dev/null; do
    used=$(cpu_seconds "$pid")
    [ -n "$used" ] || break
    if [ "$used" -ge "$budget" ]; then
        kill -INT "$pid"
        break
    fi
    sleep 5
done
wait "$pid"
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s\n' "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
findings=$(find "$work/artifacts" -type f | wc -l)
before=$(find "$corpus" -type f | wc -l)
"$bin" -merge=1 -rss_limit_mb=2048 -timeout=120 "$corpus" "$work/new" >"$work/merge.log" 2>&1
after=$(find "$corpus" -type f | wc -l)
echo "| $name | $(date -u +%Y-%m-%d) | ${used} s | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | $findings (exit $rc) | $before -> $after |"
