#!/bin/sh
# view.sh: end-to-end checks of `lanescope view --headless`: scripted keys
# give one line per frame with the state after each key, frames are PNGs,
# forward N then back N writes byte-identical frames, `s` saves atomically
# and names the file, bad flags and inputs get one line naming the flag or
# file:line:col, a non-zero exit and no frame.  With xvfb-run and xdotool
# installed it also opens the real window on a virtual display and quits
# it with a key press.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
EX=${LS_EXAMPLES:-examples}
export LANESCOPE_EXAMPLES="$EX"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

field() { # frame number, key of the frame line -> value
    sed -n "s/^frame $(printf %03d "$1") .* $2=\([^ ]*\).*/\1/p" "$tmp/out.txt"
}
fails() { # name, expected exit code, folder that must stay empty, stderr message; then the command
    name=$1 want=$2 dir=$3 msg=$4
    shift 4
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    [ $rc -eq "$want" ]; check "$name exits $want (got $rc)" $?
    [ "$(wc -l <"$tmp/stderr")" -eq 1 ]; check "$name: one line" $?
    contains "$name message" "$tmp/stderr" "$msg"
    [ -z "$(ls -A "$dir" 2>/dev/null)" ]; check "$name writes nothing" $?
}
pngsig=$(printf '\211PNG')

# The bundled example 2 (no INPUT): state after every key.
$LANESCOPE view --headless --out "$tmp/f" --size 800x500 \
    --keys "right right shift+right ctrl+right ] } { 2 home end" >"$tmp/out.txt"
check "headless run exits 0" $?
[ "$(wc -l <"$tmp/out.txt")" -eq 11 ]; check "one line per frame (start + 10 keys)" $?
[ "$(head -c 4 "$tmp/f/frame-000.png")" = "$pngsig" ]; check "frame-000 is a PNG" $?
[ -f "$tmp/f/frame-010.png" ]; check "frame-010 written" $?
[ "$(field 0 position)" = "-1" ]; check "starts before the first record" $?
[ "$(field 1 position)" = "0" ] && [ "$(field 2 position)" = "1" ]; check "right steps one event" $?
[ "$(field 1 stage)" = "load+accumulate" ]; check "the first event loads" $?
[ "$(field 4 stage)" != "load+accumulate" ]; check "ctrl+right leaves the loop" $?
[ "$(field 5 subgroup)" = "1" ]; check "] selects subgroup 1" $?
[ "$(field 6 workgroup)" = "1" ] && [ "$(field 6 position)" = "$(field 5 position)" ]
check "} moves to workgroup 1 at the same position" $?
[ "$(field 7 workgroup)" = "0" ]; check "{ comes back" $?
[ "$(field 8 panel)" = "2" ]; check "2 shows the lanes" $?
[ "$(field 9 position)" = "-1" ]; check "home resets" $?
len=$(field 10 length)
[ "$(field 10 position)" = "$((len - 1))" ]; check "end runs to the last record" $?
[ "$(field 10 stage)" = "store" ]; check "the last record is the store" $?

# Forward 12 then back 12: byte-identical frames, and different in between.
keys="2 ctrl+right ctrl+right"
i=0
while [ $i -lt 12 ]; do keys="$keys right"; i=$((i + 1)); done
i=0
while [ $i -lt 12 ]; do keys="$keys left"; i=$((i + 1)); done
$LANESCOPE view "$EX/seed000_example2.mlir" --headless --out "$tmp/fb" --size 700x450 \
    --keys "$keys" >/dev/null
check "forward/back run exits 0" $?
cmp -s "$tmp/fb/frame-003.png" "$tmp/fb/frame-027.png"; check "forward 12, back 12: same frame" $?
! cmp -s "$tmp/fb/frame-003.png" "$tmp/fb/frame-010.png"; check "frames differ while moving" $?

# s saves through the atomic writer and names the file.
$LANESCOPE view --headless --out "$tmp/s" --size 640x400 --keys "right s q right" >"$tmp/out.txt"
check "save run exits 0" $?
contains "save is printed" "$tmp/out.txt" "saved $tmp/s/lanescope-view-wg0-pos1-1.png"
[ "$(head -c 4 "$tmp/s/lanescope-view-wg0-pos1-1.png")" = "$pngsig" ]; check "saved file is a PNG" $?
[ ! -f "$tmp/s/frame-004.png" ] && [ -f "$tmp/s/frame-003.png" ]; check "q stops the script" $?
[ -z "$(ls "$tmp/s" | grep -v '\.png$')" ]; check "no temporary files left" $?

# An attention's kernel (IREE's paged pipeline config, 8 K2 steps): the
# steps and panels run, the lanes panel is the values' (test_view checks them).
$LANESCOPE view "$EX/attention_paged_decode_8x8x2048x128_f16.mlir" --target mi300x --headless \
    --out "$tmp/att" --size 900x600 --keys "right 2 ctrl+right end 3 1" >"$tmp/out.txt" 2>"$tmp/err"
check "attention view exits 0" $?
[ "$(wc -l <"$tmp/out.txt")" -eq 7 ]; check "attention view: one line per frame" $?
[ "$(field 3 stage)" = "subgroup-reduce" ]; check "attention view: ctrl+right leaves the K2 loop for the merge" $?
[ "$(field 4 stage)" = "store" ]; check "attention view: end reaches the stores" $?
[ "$(head -c 4 "$tmp/att/frame-006.png")" = "$pngsig" ]; check "attention view: frames are PNGs" $?
fails "attention view --workgroup 64" 2 "$tmp/att64" "--workgroup: workgroup 64 is outside 0..63" \
    $LANESCOPE view "$EX/attention_paged_decode_8x8x2048x128_f16.mlir" --target mi300x --headless \
    --out "$tmp/att64" --workgroup 64 --keys right

# Hover over the tile reports in the caption-free state line; resize.
$LANESCOPE view --headless --out "$tmp/r" --keys "resize 900x600 hover 400,300 wheel 1 0" \
    >"$tmp/out.txt"
check "resize/hover/wheel run exits 0" $?
[ "$(field 3 zoom)" = "1.25" ] && [ "$(field 4 zoom)" = "1" ]; check "wheel zooms, 0 fits" $?

# A contraction (two operands) and an argmax (value, index pairs) view.  The
# matvec is tests/data/matvec_64x256_lanes4x16.mlir (shared with
# draw_operand.sh; no header, so its line 1 is the #config broken below).
cp "$LS_EXAMPLES/../tests/data/matvec_64x256_lanes4x16.mlir" "$tmp/mv.mlir"
$LANESCOPE view "$tmp/mv.mlir" --headless --out "$tmp/mv" --size 640x400 \
    --keys "ctrl+right 2 ctrl+right 3 end 5" >"$tmp/out.txt"
check "matvec view exits 0" $?
[ "$(wc -l <"$tmp/out.txt")" -eq 7 ]; check "matvec: 7 frames" $?
$LANESCOPE view "$EX/argmax_vocab_64x32000_f32.mlir" --headless --out "$tmp/am" --size 640x400 \
    --keys "ctrl+right ctrl+right 2" >"$tmp/out.txt"
check "argmax view exits 0" $?

# A multi-op dispatch (softmax: max, then the sum of exponentials): o / O
# switch reductions inside the view, keeping the panel and the workgroup;
# the saved view names the op and carries the input in its tEXt chunks.
$LANESCOPE view "$LS_EXAMPLES/../tests/data/softmax_8x2048_sm60.mlir" --target sm_60 \
    --headless --out "$tmp/op" --size 640x400 --keys "3 } o ctrl+right O O s" >"$tmp/out.txt"
check "softmax view exits 0" $?
[ "$(field 2 op)" = "0" ] && [ "$(field 3 op)" = "1" ]; check "o shows the next reduction" $?
[ "$(field 3 panel)" = "3" ] && [ "$(field 3 workgroup)" = "1" ]; check "o keeps panel and workgroup" $?
[ "$(field 3 position)" = "-1" ] && [ "$(field 4 position)" = "0" ]; check "the new reduction starts at its start" $?
[ "$(field 3 length)" != "$(field 2 length)" ]; check "the new reduction has its own records" $?
[ "$(field 5 op)" = "0" ] && [ "$(field 6 op)" = "1" ]; check "O goes back, and wraps" $?
contains "the saved view names the op" "$tmp/out.txt" "saved $tmp/op/lanescope-view-op1-wg1-pos0-3.png"
grep -a -q "softmax_8x2048_sm60.mlir" "$tmp/op/lanescope-view-op1-wg1-pos0-3.png"
check "the saved view's tEXt names the input" $?
$LANESCOPE view --headless --out "$tmp/op1" --size 400x300 --keys "o O" >"$tmp/out.txt"
[ "$(field 1 op)" = "0" ] && [ "$(field 2 length)" = "$(field 0 length)" ]; check "o on a one-op dispatch changes nothing" $?

# Errors: one line, the flag or the position, non-zero exit, no frame.
mkdir -p "$tmp/e"
fails "unknown key" 2 "$tmp/e" "lanescope view: --keys: 'up' (word 2) is not a key" \
    $LANESCOPE view --headless --out "$tmp/e" --keys "right up"
fails "bad hover" 2 "$tmp/e" "--keys: 'hover 3' (word 1) is not a key" \
    $LANESCOPE view --headless --out "$tmp/e" --keys "hover 3"
fails "bad --size" 2 "$tmp/e" "--size: expected WxH with each side in 64..16384, found '10x10'" \
    $LANESCOPE view --headless --out "$tmp/e" --size 10x10
fails "--workgroup past the end" 2 "$tmp/e" \
    "--workgroup: workgroup 72 is outside 0..71" \
    $LANESCOPE view --headless --out "$tmp/e" --workgroup 72
fails "--headless without --out" 2 "$tmp/e" "--headless needs --out DIR" \
    $LANESCOPE view --headless --keys right
fails "missing input" 1 "$tmp/e" "nope.mlir" \
    $LANESCOPE view "$tmp/nope.mlir" --headless --out "$tmp/e"
sed 's/partial_reduction = \[0, 64\]/partial_reduction = [0, 64/' "$tmp/mv.mlir" >"$tmp/bad.mlir"
fails "syntax error names file:line:col" 1 "$tmp/e" "bad.mlir:1:113: in the definition of #config" \
    $LANESCOPE view "$tmp/bad.mlir" --headless --out "$tmp/e"
fails "--index past the reductions" 2 "$tmp/e" "--index 3 is outside 0..0" \
    $LANESCOPE view "$EX/seed000_example2.mlir" --index 3 --headless --out "$tmp/e"
$LANESCOPE view --help >"$tmp/help.txt"
check "--help exits 0" $?
contains "--help lists the keys" "$tmp/help.txt" "Ctrl+Right"
contains "--help lists --headless" "$tmp/help.txt" "--headless"

# The real window on a virtual display, when the tools are there; a build
# without SDL2 (configure --without-gui) refuses it once the input has loaded.
if [ "${LS_HAVE_GUI:-yes}" = no ]; then
    DISPLAY=:0 $LANESCOPE view "$EX/seed000_example2.mlir" >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 1 ]; check "without the GUI, view (no --headless) exits 1" $?
    contains "without the GUI, view says why" "$tmp/err" "this lanescope was built without SDL2 (--headless --keys renders frames without one)"
    [ ! -s "$tmp/out" ]; check "without the GUI, view prints nothing" $?
elif command -v xvfb-run >/dev/null 2>&1 && command -v xdotool >/dev/null 2>&1; then
    ASAN_OPTIONS=detect_leaks=0 timeout 60 xvfb-run -a -s "-screen 0 1024x768x24" sh -c "
        $LANESCOPE view --size 800x500 & pid=\$!
        w=\$(xdotool search --sync --name 'lanescope view' | head -1)
        xdotool windowfocus --sync \$w
        sleep 0.5
        xdotool key Right key ctrl+Right key 2 key q
        wait \$pid" >"$tmp/win.txt" 2>&1
    r=$?
    [ $r -eq 0 ] || cat "$tmp/win.txt"
    check "window under Xvfb quits on q" $r
else
    echo "SKIP: window test (needs xvfb-run and xdotool)"
fi

summary view.sh
