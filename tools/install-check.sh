#!/bin/sh
# install-check.sh: use an installed lanescope the way a user would, from
# another folder and with no environment pointing at the source tree: the
# binary, its bundled examples and hardware models, the man page, the
# completions, and liblanescope through pkg-config.  Then the same after
# moving the whole installed tree to another prefix (the binary finds its
# library through RUNPATH $ORIGIN/../lib and its data beside itself).
# Run by `make installcheck` (and so by `make distcheck`):
#     tools/install-check.sh DESTDIR PREFIX BINDIR LIBDIR DATADIR CC
set -u
destdir=$1 prefix=$2 bindir=$3 libdir=$4 datadir=$5 cc=$6
root=$destdir$prefix
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LANESCOPE_TARGETS LANESCOPE_EXAMPLES
fail=0
check() { # name, status
    if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
use() { # label, bin folder, share folder, lib folder, the name its mi355x model gives
    label=$1 bin=$2 share=$3 lib=$4 model=$5
    cd "$tmp" || exit 1
    "$bin/lanescope" --version >out 2>&1
    check "$label: --version" $?
    "$bin/lanescope" explain >out 2>&1 && grep -q "Example 2\|reduction" out
    check "$label: explain finds its bundled example" $?
    "$bin/lanescope" sim "$share/lanescope/examples/seed004_reduce_8x64.mlir" --target mi355x >out 2>&1 &&
        grep -q "on $model (gfx950)" out
    check "$label: sim finds the mi355x model of this tree ($model)" $?
    [ -f "$share/man/man1/lanescope.1" ] && [ -f "$share/bash-completion/completions/lanescope.bash" ] &&
        [ -f "$share/zsh/site-functions/_lanescope" ]
    check "$label: man page and completions installed" $?
    cat >use.c <<'EOC'
#include <stdio.h>
#include <string.h>
#include "lanescope/import.h"
#include "lanescope/layout.h"
int main(int argc, char **argv)
{
    static ls_module m;
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_module_load(argv[1], &m, &d) != LS_OK || m.n_problems != 1)
        return 1;
    static ls_derived dv;
    if (ls_derive(&m.problems[0], &dv, &d) != LS_OK)
        return 1;
    printf("%lld\n", (long long)dv.workgroup_size);
    return 0;
}
EOC
    flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR= pkg-config --define-variable=prefix="$(dirname "$bin")" --cflags --libs lanescope 2>&1)
    check "$label: pkg-config knows lanescope ($flags)" $?
    # shellcheck disable=SC2086
    $cc -std=c11 -o use use.c $flags -Wl,-rpath,"$lib" >cc.out 2>&1 &&
        [ "$(./use "$share/lanescope/examples/seed004_reduce_8x64.mlir")" = 64 ]
    check "$label: a program built against liblanescope runs" $?
}
use installed "$root$(printf '%s' "$bindir" | sed "s|^$prefix||")" "$root$(printf '%s' "$datadir" | sed "s|^$prefix||")" \
    "$root$(printf '%s' "$libdir" | sed "s|^$prefix||")" mi355x
# the same tree under another name: nothing baked in may be needed
cp -a "$root" "$tmp/moved"
# renamed in the moved tree only: the run must read this copy, not the
# configured prefix's nor the source tree's
model_file="$tmp/moved$(printf '%s' "$datadir" | sed "s|^$prefix||")/lanescope/targets/mi355x.hw"
sed -i 's/^name = mi355x/name = mi355x-moved/' "$model_file"
use moved "$tmp/moved$(printf '%s' "$bindir" | sed "s|^$prefix||")" "$tmp/moved$(printf '%s' "$datadir" | sed "s|^$prefix||")" \
    "$tmp/moved$(printf '%s' "$libdir" | sed "s|^$prefix||")" mi355x-moved
echo "install-check: $fail failed"
[ "$fail" -eq 0 ]
