#!/bin/sh
# amd-op-counts.sh: the instructions LLVM's AMDGPU backend spends on one
# op in a dependent chain, per target -- the source of the AMD counts in
# src/math_lowering.c that come from compiled code.
#
# 1. bf16 arithmetic.  No AMD GPU computes in bf16 (gfx950 converts f32 to
#    bf16 in one instruction, v_cvt_pk_bf16_f32; the others round by hand),
#    and IREE's LLVMGPU pipeline leaves bf16 arithmetic to LLVM, which
#    promotes each op to f32: the operands widened (a shift or a mask), the
#    f32 op, the result rounded to nearest even (five instructions before
#    gfx950).  The simulator times a bf16 op and a bf16 accumulator's
#    combine with these counts (ls_bf16_combine_alu).
# 2. f32 math on gfx942 as IREE's ROCm code reaches the backend: the
#    llvm.exp/exp2/log/log2/sqrt.f32 intrinsics and an IEEE fdiv, with
#    ROCm's default IEEE f32 denormals: ALU instructions, and how many of
#    them are transcendental (v_exp, v_log, v_sqrt, v_rsq, v_rcp).  The
#    __ocml_* routines (tanh, sin, cos, pow, rsqrt) need the device
#    library and are not compiled here.
#
# Each count is the difference between chains of 32 and 16 ops (2. adds
# one fadd an op to chain them, subtracted), so the function's entry and
# exit cancel.  Needs llc-22 (Debian's llvm-22).
#
#   tools/amd-op-counts.sh [llc]
set -eu
LLC=${1:-llc-22}
command -v "$LLC" >/dev/null || {
    echo "amd-op-counts: $LLC not found (apt-get install llvm-22)" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# chain TYPE OP N CPU: a function folding N elements of two <N x TYPE>
# vectors into an accumulator with OP (ACC, X, Y stand for its operands;
# "TMP = A | B": A, then B on TMP); prints its instructions and the
# transcendental ones among them
chain() {
    awk -v ty="$1" -v op="$2" -v n="$3" 'BEGIN {
        print "target triple = \"amdgcn-amd-amdhsa\""
        print "declare bfloat @llvm.fma.bf16(bfloat, bfloat, bfloat)"
        print "declare bfloat @llvm.maximum.bf16(bfloat, bfloat)"
        print "declare bfloat @llvm.maxnum.bf16(bfloat, bfloat)"
        split("exp exp2 log log2 sqrt", fs, " ")
        for (k = 1; k <= 5; k++)
            print "declare float @llvm." fs[k] ".f32(float)"
        printf "define %s @f(<%d x %s> %%v, <%d x %s> %%w, %s %%a0) {\n", ty, n, ty, n, ty, ty
        for (i = 0; i < n; i++) {
            printf "  %%x%d = extractelement <%d x %s> %%v, i32 %d\n", i, n, ty, i
            printf "  %%y%d = extractelement <%d x %s> %%w, i32 %d\n", i, n, ty, i
            m = split(op, part, " [|] ")
            for (k = 1; k <= m; k++) {
                line = part[k]
                gsub(/ACC/, "%a" i, line); gsub(/X/, "%x" i, line)
                gsub(/Y/, "%y" i, line); gsub(/TMP/, "%t" i, line)
                printf "  %s%s\n", k == m ? "%a" (i + 1) " = " : "", line
            }
        }
        printf "  ret %s %%a%d\n}\n", ty, n
    }' > "$tmp/c.ll"
    "$LLC" -O3 -mtriple=amdgcn-amd-amdhsa -mcpu="$4" -denormal-fp-math-f32=ieee "$tmp/c.ll" -o - |
        awk '/^f:/ { f = 1; next } /^\.Lfunc_end/ { f = 0 }
             f && /^[ \t]+[sv]_/ && !/s_waitcnt|s_setpc|s_nop|s_wait_|s_delay/ {
                 n++; if ($1 ~ /^v_(exp|log|sqrt|rsq|rcp)_f32/) t++ }
             END { print n + 0, t + 0 }'
}

# per OP: (count at 32 - count at 16) / 16, less `less` (the chaining fadd)
per_op() {
    a=$(chain "$1" "$2" 16 "$3")
    b=$(chain "$1" "$2" 32 "$3")
    echo "$a $b" | awk -v less="$4" '{ printf "%.2f + %.2f", ($3 - $1) / 16 - less - ($4 - $2) / 16, ($4 - $2) / 16 }'
}

echo "bf16 ops (ALU instructions + transcendental ones):"
printf '%-8s %14s %14s %14s %14s %14s\n' target addf mulf fma maxnumf maximumf
for cpu in gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1201; do
    printf '%-8s' "$cpu"
    for op in 'fadd bfloat ACC, X' 'fmul bfloat ACC, X' \
        'call bfloat @llvm.fma.bf16(bfloat X, bfloat Y, bfloat ACC)' \
        'call bfloat @llvm.maxnum.bf16(bfloat ACC, bfloat X)' \
        'call bfloat @llvm.maximum.bf16(bfloat ACC, bfloat X)'; do
        printf ' %14s' "$(per_op bfloat "$op" "$cpu" 0)"
    done
    echo
done
echo
echo "f32 math on gfx942 (ALU + transcendental; the chaining fadd subtracted):"
for f in exp exp2 log log2 sqrt; do
    printf '%-6s %s\n' "$f" "$(per_op float "TMP = fadd float ACC, X | call float @llvm.$f.f32(float TMP)" gfx942 1)"
done
printf '%-6s %s\n' divf "$(per_op float "TMP = fadd float ACC, X | fdiv float Y, TMP" gfx942 1)"
