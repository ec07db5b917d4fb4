#!/bin/sh
# completion.sh: the bash completion (completions/lanescope.bash) offers the
# commands, each command's options as its --help lists them, draw's kinds
# and the built-in models, with the lanescope under test first on PATH.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
LANESCOPE=$(cd "$(dirname "$LANESCOPE")" && pwd)/$(basename "$LANESCOPE")
SRC=$(cd "$(dirname "$0")/.." && pwd)
command -v bash >/dev/null 2>&1 || { echo "completion: no bash, skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$LANESCOPE" "$tmp/bin/lanescope"
cat >"$tmp/run.bash" <<'EOS'
source "$1/completions/lanescope.bash"
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _lanescope; echo "${COMPREPLY[*]}"; }
t lanescope s
t lanescope sim --tr
t lanescope sweep --c
t lanescope draw ti
t lanescope sim x.mlir --target mi
t lanescope explain --form
EOS
(cd "$tmp" && PATH="$tmp/bin:$PATH" bash "$tmp/run.bash" "$SRC" >"$tmp/out" 2>"$tmp/err")
printf '%s\n' "sim suggest sweep" "--trace" "--chart --combiner --config --csv" "timeline" "mi300x mi355x" "--format" >"$tmp/want"
if cmp -s "$tmp/out" "$tmp/want"; then
    echo "ok: completion"
    exit 0
fi
echo "FAIL: completion"
diff "$tmp/want" "$tmp/out"
cat "$tmp/err"
exit 1
