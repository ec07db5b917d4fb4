#!/bin/sh
# device-bundle.sh: make a self-contained folder that runs lanescope's CUDA
# path on a GPU machine where nothing can be installed (x86-64, an NVIDIA
# driver and the CUDA 13 toolkit, no package registry).
#
#     tools/device-bundle.sh [-o DIR] [--prebuilt PATH-TO-lanescope]
#
# Without --prebuilt, lanescope is built here without sanitizers (-O2, the
# library linked in statically) in a temporary out-of-tree build; the source
# tree is never written (a tree without ./configure is copied and
# autoreconf'd in the temporary folder).  DIR (default bundle/, git-ignored)
# then holds:
#   bin/lanescope                the binary
#   bin/ls                       wrapper: sets LD_LIBRARY_PATH and
#                                LANESCOPE_TARGETS, runs bin/lanescope
#   lib/                         the shared libraries it needs that are not
#                                the machine's own (glibc, libgcc/libstdc++,
#                                libcuda and libnvrtc come from the machine)
#   share/lanescope/targets      the hardware models (targets/*.hw)
#   share/lanescope/examples     examples/, the compare suite included
#   share/lanescope/fonts        the DejaVu faces and a fonts.conf naming only
#                                them (the GPU machine may have neither)
#   share/lanescope/BUILD-INFO   what was built, from which commit, when
#   run.sh                       the driver (tools/device-run.sh): calibrate,
#                                then compare, everything into $OUT
# On the GPU machine: cd DIR && OUT=/some/folder ./run.sh
# An existing DIR is replaced only when it is an earlier bundle or empty.
set -eu

me=device-bundle.sh
die() {
    echo "$me: $*" >&2
    exit 1
}
usage() {
    sed -n '2,27s/^# \{0,1\}//p' "$0"
}

out=bundle
prebuilt=
while [ $# -gt 0 ]; do
    case $1 in
    -o | --output)
        [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }
        out=$2
        shift 2
        ;;
    --prebuilt)
        [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }
        prebuilt=$2
        shift 2
        ;;
    --prebuilt=*) prebuilt=${1#*=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$me: unknown argument '$1' (see $me --help)" >&2; exit 2 ;;
    esac
done

src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$src/src/cli/main.c" ] || [ ! -d "$src/targets" ]; then
    die "cannot find the source tree (looked in $src)"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ls-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# ---- the binary
if [ -z "$prebuilt" ]; then
    tree=$src
    if [ ! -x "$src/configure" ]; then
        echo "$me: no ./configure: copying the tree and running autoreconf in $work"
        mkdir "$work/src"
        (cd "$src" && tar cf - --exclude=./bundle --exclude=./.git --exclude='./build*' .) |
            (cd "$work/src" && tar xf -)
        (cd "$work/src" && autoreconf -fi >"$work/autoreconf.log" 2>&1) ||
            { cat "$work/autoreconf.log" >&2; die "autoreconf failed"; }
        tree=$work/src
    fi
    mkdir "$work/build"
    echo "$me: configuring and building in $work/build (a minute or two)"
    (cd "$work/build" && "$tree/configure" --disable-shared --enable-static CFLAGS=-O2 \
        >"$work/configure.log" 2>&1) || { tail -30 "$work/configure.log" >&2; die "configure failed"; }
    grep -q '^#define HAVE_CUDA 1' "$work/build/config.h" ||
        die "configure found no CUDA headers (cuda.h, nvrtc.h): the bundle could not measure; see --with-cuda"
    (cd "$work/build" && make -j"$(nproc 2>/dev/null || echo 2)" lanescope >"$work/make.log" 2>&1) ||
        { tail -30 "$work/make.log" >&2; die "make failed"; }
    bin=$work/build/lanescope
    how="built here: configure --disable-shared --enable-static CFLAGS=-O2"
else
    [ -f "$prebuilt" ] || die "--prebuilt: no file '$prebuilt'"
    bin=$prebuilt
    # a libtool wrapper script: the real binary is in .libs/
    if ! head -c 4 "$bin" | grep -q 'ELF' && [ -x "$(dirname "$bin")/.libs/lanescope" ]; then
        bin=$(dirname "$bin")/.libs/lanescope
    fi
    how="prebuilt: $prebuilt"
fi
head -c 4 "$bin" | grep -q 'ELF' || die "$bin is not an ELF binary"
bindir=$(cd "$(dirname "$bin")" && pwd)

# ---- the layout, staged in $work and moved into place at the end
stage=$work/bundle
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/lanescope/targets"
cp "$bin" "$stage/bin/lanescope"
chmod 755 "$stage/bin/lanescope"

# Shared libraries: what ldd resolves (an uninstalled libtool build keeps
# liblanescope next to the binary, hence the search path), less the
# machine's own.  libgcc_s and libstdc++ stay the machine's: libnvrtc,
# loaded from the machine, may need newer ones than ours.
LD_LIBRARY_PATH="$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$bin" >"$work/ldd.txt" 2>&1 ||
    { cat "$work/ldd.txt" >&2; die "ldd $bin failed"; }
if grep -q 'not found' "$work/ldd.txt"; then
    grep 'not found' "$work/ldd.txt" >&2
    die "$bin needs libraries this machine does not have"
fi
awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' "$work/ldd.txt" | while read -r name path; do
    case $name in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | libresolv.so.* | \
        libutil.so.* | ld-linux*.so.* | libcuda.so* | libnvrtc* | libgcc_s.so.* | libstdc++.so.*)
        continue ;;
    esac
    cp -L "$path" "$stage/lib/$name"
done

cp "$src"/targets/*.hw "$stage/share/lanescope/targets/"

# Fonts: the GPU machine may have no fontconfig configuration or fonts
# (compare's chart came back as boxes from an H100 machine with neither), so
# the bundle carries the DejaVu faces the pictures use and a fonts.conf that
# names only them; bin/ls points FONTCONFIG_FILE at it.
mkdir -p "$stage/share/lanescope/fonts"
nfonts=0
for face in "DejaVu Sans" "DejaVu Sans:bold" "DejaVu Sans Mono"; do
    f=$(fc-match -f '%{file}' "$face" 2>/dev/null) || continue
    [ -f "$f" ] || continue
    cp -L "$f" "$stage/share/lanescope/fonts/" && nfonts=$((nfonts + 1))
done
[ $nfonts -gt 0 ] || die "no DejaVu fonts found here (fc-match): pictures made on the GPU machine would have no glyphs"
cat >"$stage/share/lanescope/fonts/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- the bundle's own fonts only: relative paths are against this file -->
<fontconfig>
  <dir prefix="relative">.</dir>
  <cachedir>/tmp/lanescope-fontconfig-cache</cachedir>
</fontconfig>
EOF
cp -R "$src/examples" "$stage/share/lanescope/examples"
chmod -R u+w "$stage/share" # a distcheck tree is read-only; the copy need not be

cat >"$stage/bin/ls" <<'EOF'
#!/bin/sh
# bin/ls: run the bundle's lanescope with its libraries and hardware models.
here=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LANESCOPE_TARGETS="$here/share/lanescope/targets"
FONTCONFIG_FILE="$here/share/lanescope/fonts/fonts.conf"
export LD_LIBRARY_PATH LANESCOPE_TARGETS FONTCONFIG_FILE
exec "$here/bin/lanescope" "$@"
EOF
chmod 755 "$stage/bin/ls"
cp "$src/tools/device-run.sh" "$stage/run.sh"
chmod 755 "$stage/run.sh"

# What this is; the glibc it needs (the machine's must be as new).
version=$("$stage/bin/ls" --version 2>&1) || die "the bundled binary does not run here: $version"
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
dirty=$(git -C "$src" status --porcelain 2>/dev/null | head -n 1)
glibc=$(objdump -T "$stage/bin/lanescope" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -t. -k2,2n -u |
    tail -n 1)
{
    echo "$version, $how"
    echo "source: commit $commit${dirty:+ with local changes}, bundled $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n)"
    echo "needs: ${glibc:-glibc of this machine or newer}, an NVIDIA driver (libcuda), NVRTC 13 (libnvrtc)"
    echo "lib/: $(cd "$stage/lib" && ls | tr '\n' ' ')"
} >"$stage/share/lanescope/BUILD-INFO"

# ---- into place
if [ -e "$out" ]; then
    if [ -f "$out/run.sh" ] && [ -f "$out/bin/lanescope" ]; then
        rm -rf "$out"
    elif [ -d "$out" ] && [ -z "$(ls -A "$out")" ]; then
        rmdir "$out"
    else
        die "$out exists and is not an earlier bundle; not replacing it"
    fi
fi
mkdir -p "$(dirname "$out")"
cp -R "$stage" "$out"
echo "$me: $out: $version, $(ls "$out/lib" | wc -l) libraries, $(du -sh "$out" | cut -f1)"
echo "$me: on the GPU machine: cd $out && OUT=/some/folder ./run.sh"
