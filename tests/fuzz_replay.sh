#!/bin/sh
# fuzz_replay.sh: every fuzz target's committed corpus, and every input a
# fuzzer ever found to crash (tests/fuzz/regress), run through the target
# without libFuzzer (tests/fuzz/replay.c) under the build's sanitizers:
# each must run clean, and each corpus must hold inputs.
set -u
FUZZ=$(dirname "${LS_FUZZ_REGRESS:-tests/fuzz/regress}")
BIN=${LS_FUZZ_BIN:-tests/fuzz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

for name in import hw npy csv suggest layout engine; do
    set -- "$FUZZ/corpus/$name"
    [ -d "$FUZZ/regress/$name" ] && set -- "$@" "$FUZZ/regress/$name"
    [ "$name" = import ] && set -- "$@" "$FUZZ"/regress/*.mlir
    "$BIN/replay_$name" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || { echo "--- replay_$name:"; tail -n 30 "$tmp/err"; }
    check "replay_$name runs its corpus clean (rc $rc)" $rc
    n=$(sed -n 's/^replay: \([0-9]*\) inputs$/\1/p' "$tmp/out")
    [ "${n:-0}" -ge 5 ]; check "replay_$name: corpus holds inputs (${n:-0})" $?
    [ ! -s "$tmp/err" ]; check "replay_$name: nothing on stderr" $?
done
summary fuzz_replay
