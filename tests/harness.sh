# harness.sh: the counters and checks every shell test shares; sourced
# (`. "$(dirname "$0")/harness.sh"`), not run.  check takes a status already
# evaluated; contains a fixed string (binary-safe: PNG chunks, frames); summary
# prints the counts and returns non-zero when anything failed.
pass=0
fail=0

check() { # name, status of the condition
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}

contains() { # name, file, fixed string
    grep -aqF -- "$3" "$2"
    r=$?
    [ $r -eq 0 ] || { echo "--- $2:"; head -c 2000 "$2"; echo; }
    check "$1: expects '$3'" $r
}

summary() { # name
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
