#!/bin/sh
# man_help.sh: the man page (man/lanescope.1) documents, in each command's
# subsection of OPTIONS (.SS "lanescope CMD"), exactly the options that
# `lanescope CMD --help` lists, and it renders without warnings.
#
# An option of --help is a token --name on a line of the usage synopsis (from
# "usage:" to the first blank line) or on an option line (one whose first
# non-blank character is '-'), or a short option (-o) that starts an option
# line; an option of the man page is a token on a .TP tag line of the
# command's subsection, with \- read as '-'.  Prose ("a hardware model for
# --target" in calibrate's) is not an option list and is not read.
set -u
LANESCOPE=${LANESCOPE:-./lanescope}
MAN=$(dirname "$0")/../man/lanescope.1
COMMANDS="explain sim draw suggest sweep measure calibrate compare view"
[ -r "$MAN" ] || { echo "FAIL: no man page at $MAN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Every --help at once (each start loads the graphics libraries).
for c in $COMMANDS; do
    ("$LANESCOPE" "$c" --help >"$tmp/help.$c" 2>"$tmp/err.$c"; echo $? >"$tmp/rc.$c") &
done
wait
helps=
for c in $COMMANDS; do
    read -r rc <"$tmp/rc.$c"
    if [ "$rc" != 0 ]; then
        echo "FAIL: $c: '$LANESCOPE $c --help' exited with status $rc"
        cat "$tmp/err.$c"
        fail=1
    else
        helps="$helps $tmp/help.$c"
    fi
done

# One awk compares them all: the man page first, then each help.* file.
# shellcheck disable=SC2086 # $helps is a list of paths without blanks
awk -v cmds="$COMMANDS" -v man="$MAN" '
    function add(set, cmd, opt) {
        sub(/-+$/, "", opt)
        set[cmd, opt] = 1
        opts[cmd, opt] = 1
    }
    function longs(set, cmd, line) {
        while (match(line, /--[a-z][a-z-]*/)) {
            add(set, cmd, substr(line, RSTART, RLENGTH))
            line = substr(line, RSTART + RLENGTH)
        }
    }
    function sorted(list, n,    i, j, t, out) { # list[1..n], ascending
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
                t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
            }
        out = ""
        for (i = 1; i <= n; i++)
            out = out (i > 1 ? " " : "") list[i]
        return out
    }
    BEGIN {
        ncmd = split(cmds, cmdv, " ")
        for (i = 1; i <= ncmd; i++)
            iscmd[cmdv[i]] = 1
    }
    FILENAME == man {
        if ($0 ~ /^\.SH/) { cur = ""; tag = 0; next }
        if ($0 ~ /^\.SS/) {
            cur = ""
            tag = 0
            if ($0 ~ /^\.SS "lanescope [a-z]+"$/) {
                c = $0
                sub(/^\.SS "lanescope /, "", c)
                sub(/"$/, "", c)
                if (c in iscmd) { cur = c; found[c] = 1 }
            }
            next
        }
        if (cur == "") next
        if ($0 ~ /^\.TP/) { tag = 1; next }
        if (!tag) next
        tag = 0
        line = $0
        gsub(/\\-/, "-", line)
        gsub(/\\[%&]/, "", line)
        gsub(/\\f\[[^]]*\]/, "", line)
        gsub(/\\f\(../, "", line)
        gsub(/\\f./, "", line)
        sub(/^\.[A-Za-z]+[ \t]*/, "", line)
        rest = " " line " "
        while (match(rest, /[^-A-Za-z0-9_]-[A-Za-z][^-A-Za-z0-9_]/)) {
            add(M, cur, substr(rest, RSTART + 1, 2))
            rest = substr(rest, RSTART + 2)
        }
        longs(M, cur, line)
        next
    }
    FNR == 1 {
        hc = FILENAME
        sub(/.*\/help\./, "", hc)
        inusage = 0
        helped[hc] = 1
    }
    /^usage:/ { inusage = 1 }
    /^[ \t]*$/ { inusage = 0; next }
    {
        opt = ($0 ~ /^[ \t]*-/)
        if (!inusage && !opt)
            next
        if (opt && match($0, /^[ \t]*-[A-Za-z]([ \t,]|$)/)) {
            s = substr($0, RSTART, RLENGTH)
            gsub(/[ \t,]/, "", s)
            add(H, hc, s)
        }
        longs(H, hc, $0)
    }
    END {
        bad = 0
        for (i = 1; i <= ncmd; i++) {
            c = cmdv[i]
            if (!(c in helped))
                continue
            if (!(c in found)) {
                printf "FAIL: %s: the man page has no .SS \"lanescope %s\" subsection\n", c, c
                bad = 1
                continue
            }
            nh = nm = 0
            for (k in opts) {
                split(k, kv, SUBSEP)
                if (kv[1] != c)
                    continue
                if ((k in H) && !(k in M))
                    onlyh[++nh] = kv[2]
                if ((k in M) && !(k in H))
                    onlym[++nm] = kv[2]
            }
            if (nh)
                printf "FAIL: %s: in --help, not in the man page: %s\n", c, sorted(onlyh, nh)
            if (nm)
                printf "FAIL: %s: in the man page, not in --help: %s\n", c, sorted(onlym, nm)
            if (nh || nm)
                bad = 1
            else
                printf "ok: %s\n", c
        }
        exit bad
    }' "$MAN" $helps || fail=1

# The page renders without a warning (tables wider than the line included).
render=
if command -v man >/dev/null 2>&1 &&
    MANWIDTH=80 MANPAGER=cat PAGER=cat man --warnings -l "$MAN" >/dev/null 2>"$tmp/warn"; then
    render="man --warnings -l"
elif command -v groff >/dev/null 2>&1 &&
    groff -t -ww -man -Tutf8 "$MAN" >/dev/null 2>"$tmp/warn"; then
    render="groff -t -ww -man -Tutf8"
fi
if [ -z "$render" ]; then
    echo "man page render: no man or groff that runs, skipped"
elif [ -s "$tmp/warn" ]; then
    echo "FAIL: $render $MAN warns:"
    cat "$tmp/warn"
    fail=1
else
    echo "ok: $render renders the page without warnings"
fi
exit $fail
