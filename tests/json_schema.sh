#!/bin/sh
# json_schema.sh: every command's JSON report is checked against its schema
# in docs/schema/ (tests/json_check.c validates the JSON Schema subset the
# schemas use), on inputs that reach each kind of entry: plain and fused
# reductions, argmax, a softmax's two reductions, a matvec with its plan,
# dynamic dims, layouts and swizzles, --shape problems and a compare suite.
# measure's needs a GPU and is not produced here.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
LANESCOPE=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE")
JSON_CHECK=${LS_JSON_CHECK:-$(dirname "$LANESCOPE")/tests/json_check}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCHEMA=$SRC/docs/schema
EX=${LS_EXAMPLES:-$SRC/examples}
DATA=$SRC/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
valid() { # name, schema, file
    if "$JSON_CHECK" "$SCHEMA/$2.schema.json" "$3" 2>"$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $1: $(cat "$tmp/err")"
        fail=$((fail + 1))
    fi
}
run() { # name, schema, then the lanescope arguments (stdout is the report)
    name=$1
    schema=$2
    shift 2
    if "$LANESCOPE" "$@" >"$tmp/doc.json" 2>"$tmp/run.err"; then
        valid "$name" "$schema" "$tmp/doc.json"
    else
        echo "FAIL: $name: lanescope exited $?: $(head -n 3 "$tmp/run.err")"
        fail=$((fail + 1))
    fi
}
for f in seed004_reduce_8x64 seed000_example1 seed000_example2 seed000_example3; do
    run "sim $f" sim sim "$EX/$f.mlir" --json --quiet
    run "explain $f" explain explain "$EX/$f.mlir" --format json
    run "suggest $f" suggest suggest "$EX/$f.mlir" --target mi300x --format json
done
run "sim --no-check" sim sim "$EX/seed004_reduce_8x64.mlir" --json --no-check --quiet
run "sim --dump-plan=json" sim sim "$EX/seed004_reduce_8x64.mlir" --dump-plan=json --quiet
run "sim argmax" sim sim "$EX/argmax_vocab_64x32000_f32.mlir" --target mi300x --workgroups 2 --json --quiet --dump-plan=json
run "sim softmax" sim sim "$EX/softmax_4096x32000_f32.mlir" --target mi300x --workgroups 2 --json --quiet
run "sim matvec" sim sim "$EX/matvec_32000x4096_f16.mlir" --target h100 --workgroups 2 --json --quiet --dump-plan=json
run "sim dynamic" sim sim "$DATA/dyn_rowsum_Nx1024.mlir" --dim 0=64 --json --quiet
run "sim full reduction" sim sim "$DATA/full_sum_1x8192_amd.mlir" --json --quiet
run "sim contract chain" sim sim "$DATA/matvec_exp_whole_6x200_nv.mlir" --json --quiet --dump-plan=json
grep -o '"fused_multiply_add": *"contract-chain"' "$tmp/doc.json" | wc -l | tr -d ' ' >"$tmp/n"
if [ "$(cat "$tmp/n")" = 2 ]; then pass=$((pass + 1)); else
    echo "FAIL: sim contract chain: fused_multiply_add contract-chain in the plan and the check, got $(cat "$tmp/n")"
    fail=$((fail + 1))
fi
run "sim epilogue" sim sim "$DATA/rowsum_scaled_epilogue.mlir" --target h100 --json --quiet
run "explain epilogue" explain explain "$DATA/rowsum_scaled_epilogue.mlir" --target h100 --format json
run "sim attention" sim sim "$EX/attention_decode_32x1x128x8192x128_f16.mlir" --target mi300x --workgroups 2 --json --quiet
run "sim attention plan" sim sim "$EX/attention_decode_32x1x128x8192x128_f16.mlir" --target h100 --workgroups 2 --dump-plan=json --quiet
run "sim promoted matvec" sim sim "$EX/suite/mv_promote1_r4_s4.mlir" --target h100 --json --quiet --dump-plan=json
run "sim attention slots" sim sim "$DATA/attention_slots4_gfx942.mlir" --target mi300x --json --quiet --dump-plan=json
run "sim paged attention" sim sim "$EX/attention_paged_decode_8x8x2048x128_f16.mlir" --target mi300x --workgroups 2 --json --quiet --dump-plan=json
for f in argmax_vocab_64x32000_f32 softmax_4096x32000_f32 matvec_32000x4096_f16 rowsum_4096x4096_noconfig \
    seed001_xor_shuffle seed001_rotate_rows seed002_nested_64x64 seed002_subgroup_order; do
    run "explain $f" explain explain "$EX/$f.mlir" --format json
done
run "explain --thread" explain explain "$EX/seed000_example2.mlir" --thread 5 --format json
run "explain --shape" explain explain --shape 64x256 --iter pr --format json
run "explain (bundled)" explain explain --format json
run "explain attention" explain explain "$EX/attention_decode_32x1x128x8192x128_f16.mlir" --target mi300x --format json
run "explain paged attention" explain explain "$EX/attention_paged_decode_8x8x2048x128_f16.mlir" --target mi300x --format json
for f in argmax_vocab_64x32000_f32 softmax_4096x32000_f32 matvec_32000x4096_f16 rowsum_4096x4096_noconfig \
    attention_decode_32x1x128x8192x128_f16; do
    run "suggest $f" suggest suggest "$EX/$f.mlir" --target mi300x --format json
    run "suggest $f on h100" suggest suggest "$EX/$f.mlir" --target h100 --format json
done
(cd "$DATA/compare" && "$LANESCOPE" compare suite.txt --target h100_pinned.hw \
    --measured measured_synthetic.csv --json --quiet) >"$tmp/compare.json" 2>"$tmp/run.err"
valid "compare" compare "$tmp/compare.json"
# the checker is not a rubber stamp: a key the schema does not list, a
# wrong type and a wrong schema name are each refused
"$LANESCOPE" sim "$EX/seed004_reduce_8x64.mlir" --json --quiet >"$tmp/s.json"
for bad in 's/"input":/"inputs":/' 's/"cycles":\([0-9]*\)/"cycles":"\1"/' 's|"lanescope/sim"|"lanescope/simx"|'; do
    sed "$bad" "$tmp/s.json" >"$tmp/bad.json"
    if "$JSON_CHECK" "$SCHEMA/sim.schema.json" "$tmp/bad.json" 2>/dev/null; then
        echo "FAIL: json_check accepted a document edited with $bad"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
# every schema is itself JSON in the subset (checked by validating a
# document that only the top-level type rule could reject)
for s in "$SCHEMA"/*.schema.json; do
    echo '{}' >"$tmp/empty.json"
    "$JSON_CHECK" "$s" "$tmp/empty.json" 2>"$tmp/err"
    if grep -q "outside the subset\|schema must be" "$tmp/err"; then
        echo "FAIL: $(basename "$s"): $(cat "$tmp/err")"
        fail=$((fail + 1))
    fi
done
echo "json_schema: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
