#!/bin/sh
# cli_paths.sh: where outputs go.  An output never overwrites an input or
# another output of the same run (by inode, so another name for the file is
# caught); devices, FIFOs, "-" and /dev/stdout are written directly and stay
# what they are; a symlink's target is replaced, the link kept; several
# outputs of one result appear together or not at all; a signal leaves no
# temporaries and the exit status says which signal.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
LANESCOPE=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE")
EX=${LS_EXAMPLES:-examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/harness.sh"

cp "$EX/seed000_example2.mlir" "$tmp/in.mlir"
cp "$tmp/in.mlir" "$tmp/in.orig"

# -o naming the input, or a hard link to it: refused, the input untouched.
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/in.mlir" >"$tmp/out" 2>"$tmp/err"
check "-o the input exits 1" $([ $? -eq 1 ]; echo $?)
contains "-o the input: message" "$tmp/err" "in.mlir: is an input of this run (read as $tmp/in.mlir); writing it would destroy it"
cmp -s "$tmp/in.mlir" "$tmp/in.orig"; check "-o the input: input byte-identical" $?
ln "$tmp/in.mlir" "$tmp/hard.mlir"
$LANESCOPE sim "$tmp/in.mlir" --target mi300x -o "$tmp/hard.mlir" >"$tmp/out" 2>"$tmp/err"
check "-o a hard link of the input exits 1" $([ $? -eq 1 ]; echo $?)
contains "-o a hard link: message" "$tmp/err" "hard.mlir: is an input of this run"
cmp -s "$tmp/in.mlir" "$tmp/in.orig"; check "-o a hard link: input byte-identical" $?
ls "$tmp" | grep -q tmp; check "-o the input: no temporaries" $([ $? -ne 0 ]; echo $?)

# Two outputs of one run on one file: refused before either is written.
echo old >"$tmp/both.json"
$LANESCOPE sim "$tmp/in.mlir" --target mi300x --no-check -o "$tmp/both.json" --trace "$tmp/./both.json" >"$tmp/out" 2>"$tmp/err"
check "-o and --trace on one file exit 1" $([ $? -eq 1 ]; echo $?)
contains "-o and --trace: message" "$tmp/err" "both.json: already an output of this run"
[ "$(cat "$tmp/both.json")" = old ]; check "-o and --trace: the old file kept" $?
$LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --max-configs 4 -j 1 --csv "$tmp/s.svg" --chart "$tmp/s.svg" >"$tmp/out" 2>"$tmp/err"
check "--csv and --chart on one file exit 1" $([ $? -eq 1 ]; echo $?)
contains "--csv and --chart: message" "$tmp/err" "s.svg: already an output of this run"
[ ! -e "$tmp/s.svg" ]; check "--csv and --chart: nothing written" $?

# A sweep's CSV and chart are written as a set: both new.
echo old >"$tmp/set.csv"
$LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --max-configs 4 -j 1 --csv "$tmp/set.csv" --chart "$tmp/set.svg" >"$tmp/out" 2>"$tmp/err"
check "sweep set exits 0" $?
contains "sweep set: the new CSV" "$tmp/set.csv" "rank,"
contains "sweep set: the chart" "$tmp/set.svg" "<svg"

# Non-regular targets are written directly and stay what they are.
$LANESCOPE explain "$tmp/in.mlir" -o /dev/null >"$tmp/out" 2>"$tmp/err"
check "-o /dev/null exits 0" $?
[ -c /dev/null ]; check "-o /dev/null: still a character device" $?
$LANESCOPE explain "$tmp/in.mlir" -o - >"$tmp/dash.txt" 2>"$tmp/err"
check "-o - exits 0" $?
contains "-o -: the text on standard output" "$tmp/dash.txt" "@example2_max_1152x384"
$LANESCOPE explain "$tmp/in.mlir" -o /dev/stdout >"$tmp/stdout.txt" 2>"$tmp/err"
check "-o /dev/stdout exits 0" $?
contains "-o /dev/stdout: the text in the redirected file" "$tmp/stdout.txt" "@example2_max_1152x384"
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fromfifo.txt" &
reader=$!
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
check "-o a FIFO exits 0" $?
wait $reader
[ -p "$tmp/fifo" ]; check "-o a FIFO: still a FIFO" $?
contains "-o a FIFO: the reader got the text" "$tmp/fromfifo.txt" "@example2_max_1152x384"
mkdir "$tmp/dir"
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/dir" >"$tmp/out" 2>"$tmp/err"
check "-o a folder exits 1" $([ $? -eq 1 ]; echo $?)
contains "-o a folder: message" "$tmp/err" "dir: is a folder; name a file"

# A symlink: its target gets the new content, the link stays a link.
echo old >"$tmp/real.txt"
ln -s real.txt "$tmp/link.txt"
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/link.txt" >"$tmp/out" 2>"$tmp/err"
check "-o a symlink exits 0" $?
[ -L "$tmp/link.txt" ]; check "-o a symlink: still a link" $?
contains "-o a symlink: the target replaced" "$tmp/real.txt" "@example2_max_1152x384"
ln -s newfile.txt "$tmp/dangling.txt"
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/dangling.txt" >"$tmp/out" 2>"$tmp/err"
check "-o a dangling symlink exits 0" $?
[ -L "$tmp/dangling.txt" ]; check "-o a dangling symlink: still a link" $?
contains "-o a dangling symlink: its target created" "$tmp/newfile.txt" "@example2_max_1152x384"

# A signal while the outputs are staged: no temporaries, no half set, 143.
echo old >"$tmp/sig.csv"
LANESCOPE_TEST_HOLD_OUTPUTS=1 $LANESCOPE sweep --shape 64x256 --iter pr --target mi300x --max-configs 4 -j 1 \
    --csv "$tmp/sig.csv" --chart "$tmp/sig.svg" >"$tmp/out" 2>"$tmp/err" &
pid=$!
n=0
# both staged (the run then holds before renaming them); waiting for one
# alone races the staging of the other on a loaded machine
staged() { ls "$tmp" | grep -q 'sig.svg.tmp' && ls "$tmp" | grep -q 'sig.csv.tmp'; }
while [ $n -lt 600 ] && ! staged; do sleep 0.1; n=$((n + 1)); done
staged; check "signal: the temporaries were there" $?
kill -TERM $pid
wait $pid
check "signal: exit status 143" $([ $? -eq 143 ]; echo $?)
ls "$tmp" | grep -q '\.tmp'; check "signal: no temporaries left" $([ $? -ne 0 ]; echo $?)
[ "$(cat "$tmp/sig.csv")" = old ] && [ ! -e "$tmp/sig.svg" ]; check "signal: the old set untouched" $?

summary cli_paths

# ---- Names no output can have, and outputs met again as inputs (issue 15's
# adversarial findings; appended, so the counts are summed again below).

# A name past PATH_MAX is refused whole, never cut to another file's name.
mkdir "$tmp/lp"
echo victim >"$tmp/lp/victim.txt"
p="$tmp/lp/"
while [ ${#p} -lt 4084 ]; do p="$p./"; done
while [ ${#p} -lt 4085 ]; do p="$p/"; done
$LANESCOPE explain "$tmp/in.mlir" -o "${p}victim.txtEXTRA" >"$tmp/out" 2>"$tmp/err"
check "-o past PATH_MAX exits 1" $([ $? -eq 1 ]; echo $?)
contains "-o past PATH_MAX: message" "$tmp/err" "past the limit of 4095 bytes for a path (PATH_MAX)"
[ "$(cat "$tmp/lp/victim.txt")" = victim ]; check "-o past PATH_MAX: the cut name untouched" $?
# The longest legal file name is written (its temporary's name is cut to
# fit NAME_MAX, not the name); one byte more is refused with the limit.
long=$(printf '%0251d' 0).txt
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/lp/$long" >"$tmp/out" 2>"$tmp/err"
check "-o a 255-byte name exits 0" $?
contains "-o a 255-byte name: written" "$tmp/lp/$long" "@example2_max_1152x384"
$LANESCOPE explain "$tmp/in.mlir" -o "$tmp/lp/0$long" >"$tmp/out" 2>"$tmp/err"
check "-o a 256-byte name exits 1" $([ $? -eq 1 ]; echo $?)
contains "-o a 256-byte name: message" "$tmp/err" "for a name in its folder (NAME_MAX)"
ls -a "$tmp/lp" | grep -q '\.tmp'; check "long names: no temporaries" $([ $? -ne 0 ]; echo $?)
# An empty name names no file: a usage error naming the flag.
(cd "$tmp" && exec $LANESCOPE explain in.mlir -o "") >"$tmp/out" 2>"$tmp/err"
check "-o '' exits 2" $([ $? -eq 2 ]; echo $?)
contains "-o '': message" "$tmp/err" "lanescope explain: -o: the name is empty"
ls -a "$tmp" | grep -q '\.tmp'; check "-o '': no temporaries" $([ $? -ne 0 ]; echo $?)

# --trace naming the --input array: the trace is staged before the array is
# read; opening the array then refuses it, and the array is untouched.
h="{'descr': '<f4', 'fortran_order': False, 'shape': (1152, 384), }"
n=$((${#h} + 1))
{
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((n % 256)))\\$(printf %03o $((n / 256)))"
    printf '%s\n' "$h"
    head -c 1769472 /dev/zero
} >"$tmp/a.npy"
cp "$tmp/a.npy" "$tmp/a.orig"
$LANESCOPE sim "$tmp/in.mlir" --target mi300x --quiet --input "$tmp/a.npy" --trace "$tmp/a.npy" >"$tmp/out" 2>"$tmp/err"
check "--trace naming the --input exits 1" $([ $? -eq 1 ]; echo $?)
contains "--trace naming the --input: message" "$tmp/err" "a.npy: is an input of this run"
cmp -s "$tmp/a.npy" "$tmp/a.orig"; check "--trace naming the --input: the array untouched" $?
ls "$tmp" | grep -q '\.tmp'; check "--trace naming the --input: no temporaries" $([ $? -ne 0 ]; echo $?)

# compare's outputs are one set: two on one file, or one on an input,
# refused before any is written; otherwise all written together.
mkdir "$tmp/cmp"
cp "$(dirname "$0")"/adversarial/suite.txt "$(dirname "$0")"/adversarial/measured.csv \
    "$(dirname "$0")"/adversarial/small.mlir "$(dirname "$0")"/adversarial/small_max.mlir "$tmp/cmp/"
cd "$tmp/cmp" || exit 1
$LANESCOPE compare suite.txt --measured measured.csv --quiet --csv c.csv -o ./c.csv >"$tmp/out" 2>"$tmp/err"
check "compare --csv and -o on one file exit 1" $([ $? -eq 1 ]; echo $?)
contains "compare --csv and -o: message" "$tmp/err" "lanescope compare: ./c.csv: already an output of this run"
[ ! -e c.csv ]; check "compare --csv and -o: nothing written" $?
cp measured.csv m.orig
$LANESCOPE compare suite.txt --measured measured.csv --quiet --chart c.svg --csv measured.csv -o r.txt >"$tmp/out" 2>"$tmp/err"
check "compare --csv on its input exits 1" $([ $? -eq 1 ]; echo $?)
contains "compare --csv on its input: message" "$tmp/err" "measured.csv: is an input of this run"
[ ! -e c.svg ] && [ ! -e r.txt ] && cmp -s measured.csv m.orig
check "compare --csv on its input: nothing written, the input untouched" $?
$LANESCOPE compare suite.txt --measured measured.csv --quiet --chart c.svg --csv c.csv -o r.txt >"$tmp/out" 2>"$tmp/err"
check "compare set exits 0" $?
contains "compare set: the report" r.txt "compare: 2 cases"
contains "compare set: the CSV" c.csv "name,measured_us,simulated_us"
contains "compare set: the chart" c.svg "<svg"
ls -a | grep -q '\.tmp'; check "compare: no temporaries" $([ $? -ne 0 ]; echo $?)
cd - >/dev/null || exit 1

summary cli_paths
