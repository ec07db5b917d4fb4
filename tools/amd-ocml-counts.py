#!/usr/bin/env python3
"""amd-ocml-counts.py: the instructions LLVM's AMDGPU backend spends on the
ROCm device library's f32 routines IREE calls for math ops on ROCm
(__ocml_tanh_f32, __ocml_sin_f32, __ocml_cos_f32, __ocml_pow_f32,
__ocml_rsqrt_f32) -- the source of those rows of src/math_lowering.c's AMD
column -- and, as a check of the method, the routines whose counts come
from LLVM's own lowering (exp, exp2, log, log2).

IREE links ocml.bc and ockl.bc into every ROCm executable that calls them
(compiler/plugins/target/ROCM/ROCMTargetUtils.cpp), with the oclc control
constants it sets there (finite_only, daz and unsafe_math off, correctly
rounded sqrt on, the target's wave size and ISA version), internalizes,
optimizes and compiles.  Its bitcode comes from the device libraries of
the llvm-project revision its CMakeLists.txt names (shark-infra's
amdgpu-device-libs v20231101: llvm-project 6086c272).  The nearest source
stored here is ROCm-Device-Libs' amd-stg-open mirror of 2023-10-17
(3df7a9ac89c8), which this tool builds: every ocml/src/*.cl with clang-22
and the flags of that tree's cmake/OCL.cmake, then llvm-link-22.

Per routine, a kernel in which each lane loads a vector and applies the
routine in a dependent chain (each call's result plus the next element
feeds the next call), compiled with opt-22 -O3 and llc-22 -O3 for gfx942
at 2 and 3 calls; the difference, less the chaining v_add_f32, is one
call: VALU and SALU instructions (not s_nop, s_waitcnt or memory ones)
and the transcendental ones among them (v_exp, v_log, v_rcp, v_rsq,
v_sqrt, v_sin, v_cos).  Every path of a routine's branches is counted (a
subgroup whose lanes disagree runs both): tanh's polynomial below 0.625
and its exp path, pow's special cases.  sin and cos are counted on their
small-argument path too (trigred's Cody-Waite reduction below 2^17, a
copy of trigredF.cl with the branch fixed): the large-argument reduction
(Payne-Hanek) runs only where some lane's argument reaches 2^17.

    tools/amd-ocml-counts.py DEVICE_LIBS_DIR [--jobs N]

DEVICE_LIBS_DIR: a ROCm-Device-Libs tree (git archive 3df7a9ac89c8 of
https://github.com/ROCm/ROCm-Device-Libs).  Needs clang-22 and llvm-22
(Debian's).  Takes about a minute on two cores.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

CL_FLAGS = ['-x', 'cl', '-Xclang', '-cl-std=CL2.0', '-target', 'amdgcn-amd-amdhsa',
            '-fvisibility=protected', '-fomit-frame-pointer', '-Xclang',
            '-finclude-default-header', '-Xclang', '-fexperimental-strict-floating-point',
            '-Xclang', '-fdenormal-fp-math=dynamic', '-nogpulib', '-cl-no-stdinc', '-Xclang',
            '-mcode-object-version=none', '-emit-llvm', '-c']
# ROCMTargetUtils.cpp setHIPGlobals: IREE's values of the oclc controls
OCLC = [('__oclc_finite_only_opt', 'i8', 0), ('__oclc_daz_opt', 'i8', 0),
        ('__oclc_correctly_rounded_sqrt32', 'i8', 1), ('__oclc_unsafe_math_opt', 'i8', 0),
        ('__oclc_wavefrontsize64', 'i8', 1), ('__oclc_ISA_version', 'i32', 9402),
        ('__oclc_ABI_version', 'i32', 500)]
ROUTINES = [('tanh', 1), ('sin', 1), ('cos', 1), ('pow', 2), ('rsqrt', 1),
            ('exp', 1), ('exp2', 1), ('log', 1), ('log2', 1)]
TRANS = re.compile(r'^v_(exp|log|rcp|rsq|sqrt|sin|cos)_f32')
SKIP = re.compile(r'^(s_nop|s_delay_alu|s_waitcnt|s_wait_|s_endpgm|s_load|s_setpc|global_|'
                  r'buffer_|flat_)')


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if p.returncode:
        err = p.stderr.decode() if isinstance(p.stderr, bytes) else p.stderr
        raise RuntimeError('%s: %s' % (args[0], (err.strip().splitlines() or ['failed'])[0]))
    return p.stdout


def build_libraries(src, full, small, jobs):
    """ocml/src/*.cl compiled and linked into full, and into small with
    trigred fixed to its small-argument path."""
    inc = []
    for d in ('ocml/inc', 'ocml/src', 'irif/inc', 'oclc/inc'):
        inc += ['-I', os.path.join(src, d)]
    files = sorted(glob.glob(os.path.join(src, 'ocml/src/*.cl')))
    if not files:
        raise RuntimeError('%s has no ocml/src/*.cl' % src)
    bcdir = os.path.join(os.path.dirname(full), 'bc')
    os.mkdir(bcdir)

    def one(f, text=None, name=None):
        o = os.path.join(bcdir, (name or os.path.basename(f)) + '.bc')
        run(['clang-22'] + CL_FLAGS + inc + ['-I', os.path.dirname(f), '-', '-o', o],
            input=(text if text is not None else open(f).read()).encode())
        return o

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        bcs = list(ex.map(one, files))
    run(['llvm-link-22'] + bcs + ['-o', full])
    trig = os.path.join(src, 'ocml/src/trigredF.cl')
    text = open(trig).read()
    if 'if (x < SMALL_BOUND)' not in text:
        raise RuntimeError('trigredF.cl: no small-argument branch to fix')
    fixed = one(trig, text.replace('if (x < SMALL_BOUND)', 'if (true)'), 'trigredF_small')
    run(['llvm-link-22'] + [fixed if b.endswith('/trigredF.cl.bc') else b for b in bcs] +
        ['-o', small])


def kernel(fn, nargs, n):
    lines = ['target triple = "amdgcn-amd-amdhsa"']
    for name, ty, v in OCLC:
        lines.append('@%s = hidden local_unnamed_addr addrspace(4) constant %s %d' % (name, ty, v))
    lines.append('declare float @__ocml_%s_f32(%s)' % (fn, ', '.join(['float'] * nargs)))
    lines.append('declare i32 @llvm.amdgcn.workitem.id.x()')
    lines.append('define amdgpu_kernel void @f(ptr addrspace(1) %p, ptr addrspace(1) %o) {')
    lines.append('  %tid = call i32 @llvm.amdgcn.workitem.id.x()')
    lines.append('  %%q = getelementptr <%d x float>, ptr addrspace(1) %%p, i32 %%tid' % (n + 1))
    lines.append('  %%v = load <%d x float>, ptr addrspace(1) %%q' % (n + 1))
    lines.append('  %%a0 = extractelement <%d x float> %%v, i32 0' % (n + 1))
    for i in range(1, n + 1):
        lines.append('  %%x%d = extractelement <%d x float> %%v, i32 %d' % (i, n + 1, i))
        args = 'float %%a%d' % (i - 1) + (', float %%x%d' % i if nargs == 2 else '')
        lines.append('  %%c%d = call float @__ocml_%s_f32(%s)' % (i, fn, args))
        lines.append('  %%a%d = fadd float %%c%d, %%x%d' % (i, i, i))
    lines.append('  %r = getelementptr float, ptr addrspace(1) %o, i32 %tid')
    lines.append('  store float %%a%d, ptr addrspace(1) %%r' % n)
    lines.append('  ret void\n}\n')
    return '\n'.join(lines)


def count(lib, fn, nargs, n, tmp):
    ll = os.path.join(tmp, 'k.ll')
    with open(ll, 'w') as f:
        f.write(kernel(fn, nargs, n))
    linked, opt = os.path.join(tmp, 'k.bc'), os.path.join(tmp, 'ko.bc')
    run(['llvm-link-22', ll, lib, '-only-needed', '-o', linked])
    run(['opt-22', '-O3', linked, '-o', opt])
    asm = run(['llc-22', '-O3', '-mtriple=amdgcn-amd-amdhsa', '-mcpu=gfx942', opt, '-o', '-'],
              text=True)
    body = asm.split('\nf:')[1].split('.Lfunc_end')[0]
    alu = trans = 0
    for line in body.splitlines():
        s = line.strip()
        if re.match(r'^[sv]_', s) and not SKIP.match(s):
            alu += 1
            trans += bool(TRANS.match(s))
            if s.startswith(('s_swappc', 's_call')):
                raise RuntimeError('%s: a call left in the kernel' % fn)
    return alu, trans


def per_call(lib, fn, nargs, tmp):
    a2, t2 = count(lib, fn, nargs, 2, tmp)
    a3, t3 = count(lib, fn, nargs, 3, tmp)
    return a3 - a2 - 1 - (t3 - t2), t3 - t2  # less the chaining v_add_f32


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('src', help='a ROCm-Device-Libs tree')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            full, small = os.path.join(tmp, 'ocml.bc'), os.path.join(tmp, 'ocml_small.bc')
            build_libraries(a.src, full, small, a.jobs)
            print('gfx942, one call: ALU (other VALU and SALU) + transcendental')
            for fn, nargs in ROUTINES:
                alu, tr = per_call(full, fn, nargs, tmp)
                line = '%-6s %4d + %d' % (fn, alu, tr)
                if fn in ('sin', 'cos'):
                    alu, tr = per_call(small, fn, nargs, tmp)
                    line += '   (below 2^17: %d + %d)' % (alu, tr)
                print(line)
    except (OSError, RuntimeError) as e:
        print('amd-ocml-counts: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
