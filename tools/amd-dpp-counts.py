#!/usr/bin/env python3
"""amd-dpp-counts.py: the instructions LLVM's AMDGPU backend spends on each
step of a gpu.subgroup_reduce lowered to DPP -- the source of the table in
src/amd_dpp_counts.c that the simulator times AMD subgroup reduces with.

Upstream's createSubgroupDPPReduction (mlir/lib/Dialect/GPU/Transforms/
SubgroupReduceLowering.cpp, the revision IREE pins) emits, per step, an
amdgpu.dpp (old = src = the running value; full row and bank masks and
bound_ctrl, except row_bcast_15's row mask 0xa), a rocdl.permlanex16, a
rocdl.readlane or an amdgpu.swizzle_bitmode, and the combine
(vector::makeArithReduction).  AMDGPUToROCDL passes a value narrower than
32 bits to llvm.amdgcn.update.dpp as an i32 (inserted into a vector of
32-bit width, bitcast); the rest keep the value's type.  What LLVM makes of
that differs per op and per target: GCNDPPCombine folds the lane move into
a combine that has a DPP encoding (v_add_f32_dpp: one instruction), and
cannot when the combine is a VOP3-only op (v_mul_lo_u32), when the row mask
is partial (row_bcast_15), or for maxnum/minnum, whose IEEE-mode operands
must be quieted first (v_max_f32 x, x); then the step is a copy of the old
value, the move, the quieting and the combine.  A bf16 combine is promoted
to f32 (tools/amd-op-counts.sh).

Each step's count is the difference between compiling the sequence up to
and including it and up to the step before (llc -O3), so the kernel's
entry and exit cancel.

The second table: what 16 combines of a dependent chain cost -- a kernel
in which each lane loads a vector and folds its elements, compiled at
CHAIN_LONG and CHAIN_SHORT combines, the difference.  16 is one instruction
each; 8 where LLVM fuses two dependent combines into one three-operand
instruction (v_max3_f32, v_min3_i32, v_add3_u32, v_or3_b32, gfx10's
v_xor3_b32, gfx11's v_max3_f16), which the engine pairs in a thread's
chains (the accumulate loop's, the thread reduce's); more where a combine
takes several (an f64 maxnum quiets its loaded operand, an i64 max is a
compare and two selects, bf16 is promoted to f32).  Counted: VALU and SALU
instructions; not counted: s_nop, s_delay_alu, s_waitcnt (wait states,
which the engine's DPP latency covers) and memory instructions.  The same
table holds NVIDIA's chains (sm_60, sm_70, sm_80, sm_90): sm_80's and
sm_90's in SASS where ptxas splits a combine into several instructions
(the PTX compiled by ptxas, the instructions read from the cubin: all but
loads, stores, NOPs, branches and the exit), else -- and before sm_80,
which CUDA 13's ptxas no longer takes -- in PTX (arithmetic, compares,
selects, conversions, shifts and logic ops).  Where ptxas fuses two
integer combines into one three-input instruction (IADD3, LOP3, a
three-input IMNMX: 8 a 16) the row says so, as an AMD row does for
v_add3_u32; sm_90's f16 and bf16 min/max (HMNMX2, 8 a 16) keep 16: the
model pairs their lanes as packed math instead (--sass reports both).

    tools/amd-dpp-counts.py [--llc llc-22] [--ptxas PATH] > src/amd_dpp_counts.c
    tools/amd-dpp-counts.py --check src/amd_dpp_counts.c
    tools/amd-dpp-counts.py --pairs    (packed math: ls_plan_combine_pairs's facts)
    tools/amd-dpp-counts.py --folds    (a vector.reduction's tree: ls_plan_fold_shape's facts)
    tools/amd-dpp-counts.py --sass     (NVIDIA's chains and folds in SASS, beside PTX)
    tools/amd-dpp-counts.py --sass-folds  (ptxas's fused folds of 2..16 values vs the model)

Needs llc-22 (Debian's llvm-22) and, for the SASS counts, CUDA's ptxas
(default /usr/local/cuda/bin/ptxas).  Takes a few minutes.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubin  # noqa: E402  (tools/cubin.py)

PTXAS = '/usr/local/cuda/bin/ptxas'
# SASS opcodes (the low 12 bits of a 16-byte instruction, sm_70 and later)
# not counted as a combine's work: LDG, STG, NOP, BRA, EXIT
SASS_SKIP = {0x981, 0x986, 0x918, 0x947, 0x94d}
# the archs whose chains ptxas compiles (CUDA 13 dropped sm_60 and sm_70)
SASS_ARCHS = ('sm_80', 'sm_90')

# (arch, wave) pairs measured; other archs use the nearest (ls_amd_dpp_arch)
ARCHS = [('gfx90a', 64), ('gfx942', 64), ('gfx950', 64),
         ('gfx1030', 32), ('gfx1030', 64), ('gfx1100', 32), ('gfx1100', 64),
         ('gfx1201', 32), ('gfx1201', 64)]
# lanescope's element type -> LLVM type, bits
TYPES = [('F32', 'float', 32), ('F16', 'half', 16), ('BF16', 'bfloat', 16), ('F64', 'double', 64),
         ('I32', 'i32', 32), ('I16', 'i16', 16), ('I64', 'i64', 64)]
FLOAT_OPS = ['ADD', 'MUL', 'MAXNUMF', 'MINNUMF']
INT_OPS = ['ADD', 'MUL', 'MAXSI', 'MINSI', 'MAXUI', 'MINUI', 'AND', 'OR', 'XOR']
INTRINSIC = {'MAXNUMF': 'maxnum', 'MINNUMF': 'minnum', 'MAXSI': 'smax', 'MINSI': 'smin',
             'MAXUI': 'umax', 'MINUI': 'umin', 'MAXIMUMF': 'maximum', 'MINIMUMF': 'minimum'}
# the step kinds, in src/amd_dpp_counts.h's order
KINDS = ['QUAD_1032', 'QUAD_2301', 'HALF_MIRROR', 'MIRROR', 'BCAST15', 'BCAST31',
         'PERMLANEX16', 'READLANE', 'READLANE_PAIR', 'SWIZZLE']
QUADS = [('QUAD_1032', 0xb1), ('QUAD_2301', 0x4e), ('HALF_MIRROR', 0x141), ('MIRROR', 0x140)]


def sequences(arch, wave):
    """The step sequences of the lowering on arch; each a list of (kind, arg)."""
    q = [(k, c) for k, c in QUADS]
    if arch.startswith('gfx9'):
        return [q + [('BCAST15', 0x142), ('BCAST31', 0x143), ('READLANE', 63)],
                q + [('BCAST15', 0x142), ('SWIZZLE', 31 << 5)]]
    if wave == 32:
        return [q + [('PERMLANEX16', 0), ('READLANE', 31)]]
    return [q + [('PERMLANEX16', 0), ('READLANE_PAIR', 0)]]


def suffix(llty):
    return {'float': 'f32', 'half': 'f16', 'bfloat': 'bf16', 'double': 'f64'}.get(llty, llty)


class Kernel:
    def __init__(self, llty, bits, op):
        self.llty, self.bits, self.op, self.n = llty, bits, op, 0
        self.lines = []

    def name(self, p):
        self.n += 1
        return '%%%s%d' % (p, self.n)

    def emit(self, s):
        self.lines.append('  ' + s)

    def combine(self, a, b):
        t, r = self.llty, self.name('v')
        isf = t in ('float', 'half', 'bfloat', 'double')
        if self.op in ('ADD', 'MUL'):
            self.emit('%s = %s%s %s %s, %s' % (r, 'f' if isf else '', self.op.lower(), t, a, b))
        elif self.op in ('AND', 'OR', 'XOR'):
            self.emit('%s = %s %s %s, %s' % (r, self.op.lower(), t, a, b))
        else:
            self.emit('%s = call %s @llvm.%s.%s(%s %s, %s %s)' %
                      (r, t, INTRINSIC[self.op], suffix(t), t, a, t, b))
        return r

    def to_i32(self, x):
        """AMDGPUToROCDL's DPP operand: a narrow value inside a 32-bit vector."""
        if self.bits >= 32:
            return x, self.llty
        it = 'i%d' % self.bits
        if self.llty != it:
            c = self.name('c')
            self.emit('%s = bitcast %s %s to %s' % (c, self.llty, x, it))
            x = c
        n = 32 // self.bits
        w, c = self.name('w'), self.name('c')
        self.emit('%s = insertelement <%d x %s> undef, %s %s, i32 0' % (w, n, it, it, x))
        self.emit('%s = bitcast <%d x %s> %s to i32' % (c, n, it, w))
        return c, 'i32'

    def from_i32(self, x):
        if self.bits >= 32:
            return x
        it = 'i%d' % self.bits
        c = self.name('c')
        self.emit('%s = trunc i32 %s to %s' % (c, x, it))
        if self.llty == it:
            return c
        r = self.name('c')
        self.emit('%s = bitcast %s %s to %s' % (r, it, c, self.llty))
        return r

    def pieces32(self, x, f):
        """f applied to each 32-bit piece of x (a swizzle decomposes so)."""
        t = self.llty
        if self.bits == 64:
            v = self.name('c')
            self.emit('%s = bitcast %s %s to <2 x i32>' % (v, t, x))
            out = 'undef'
            for i in range(2):
                e, r = self.name('c'), self.name('c')
                self.emit('%s = extractelement <2 x i32> %s, i32 %d' % (e, v, i))
                s = f(e)
                self.emit('%s = insertelement <2 x i32> %s, i32 %s, i32 %d' % (r, out, s, i))
                out = r
            b = self.name('c')
            self.emit('%s = bitcast <2 x i32> %s to %s' % (b, out, t))
            return b
        w, _ = self.to_i32(x) if self.bits < 32 else (x, t)
        if self.bits == 32 and t != 'i32':
            c = self.name('c')
            self.emit('%s = bitcast %s %s to i32' % (c, t, x))
            w = c
        s = f(w)
        if self.bits < 32:
            return self.from_i32(s)
        if t != 'i32':
            c = self.name('c')
            self.emit('%s = bitcast i32 %s to %s' % (c, s, t))
            return c
        return s

    def step(self, v, kind, arg):
        t = self.llty
        if kind in ('READLANE', 'READLANE_PAIR'):
            d = self.name('d')
            self.emit('%s = call %s @llvm.amdgcn.readlane.%s(%s %s, i32 %d)' %
                      (d, t, suffix(t), t, v, 31 if kind == 'READLANE_PAIR' else arg))
            if kind == 'READLANE':
                return d
            e = self.name('d')
            self.emit('%s = call %s @llvm.amdgcn.readlane.%s(%s %s, i32 63)' % (e, t, suffix(t), t, v))
            return self.combine(d, e)
        if kind == 'SWIZZLE':
            def swz(x):
                d = self.name('d')
                self.emit('%s = call i32 @llvm.amdgcn.ds.swizzle(i32 %s, i32 %d)' % (d, x, arg))
                return d
            return self.pieces32(v, swz)
        if kind == 'PERMLANEX16':
            d = self.name('d')
            self.emit('%s = call %s @llvm.amdgcn.permlanex16.%s(%s %s, %s %s, i32 -1, i32 -1, '
                      'i1 true, i1 false)' % (d, t, suffix(t), t, v, t, v))
            return self.combine(v, d)
        row_mask, bound = (0xa, 'false') if kind == 'BCAST15' else (0xf, 'true')
        w, mt = self.to_i32(v)
        d = self.name('d')
        self.emit('%s = call %s @llvm.amdgcn.update.dpp.%s(%s %s, %s %s, i32 %d, i32 %d, i32 15, '
                  'i1 %s)' % (d, mt, suffix(mt), mt, w, mt, w, arg, row_mask, bound))
        return self.combine(v, self.from_i32(d))

    def text(self, steps):
        t = self.llty
        self.emit('%tid = call i32 @llvm.amdgcn.workitem.id.x()')
        self.emit('%%a = getelementptr %s, ptr addrspace(1) %%p, i32 %%tid' % t)
        self.emit('%%b = getelementptr %s, ptr addrspace(1) %%a, i32 1024' % t)
        self.emit('%%x = load %s, ptr addrspace(1) %%a' % t)
        self.emit('%%y = load %s, ptr addrspace(1) %%b' % t)
        # the thread's own combine first: the value reaching the subgroup
        # reduce is a combine's result, as after the thread-local reduce
        v = self.combine('%x', '%y')
        for kind, arg in steps:
            v = self.step(v, kind, arg)
        self.emit('store %s %s, ptr addrspace(1) %%a' % (t, v))
        return ('target triple = "amdgcn-amd-amdhsa"\n'
                'define amdgpu_kernel void @f(ptr addrspace(1) %p) {\n' +
                '\n'.join(self.lines) + '\n  ret void\n}\n')


SKIP = re.compile(r'^(s_nop|s_delay_alu|s_waitcnt|s_wait_|s_endpgm|s_load|s_setpc|global_)')


def count(llc, arch, wave, text):
    args = [llc, '-O3', '-mtriple=amdgcn-amd-amdhsa', '-mcpu=' + arch]
    if wave == 64 and not arch.startswith('gfx9'):
        args.append('-mattr=+wavefrontsize64')
    p = subprocess.run(args + ['-', '-o', '-'], input=text, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError('%s: %s' % (arch, p.stderr.strip().splitlines()[0]))
    body = p.stdout.split('; %bb.0:')[1].split('s_endpgm')[0]
    n = 0
    for line in body.splitlines():
        s = line.strip()
        if re.match(r'^[sv]_', s) and not SKIP.match(s):
            n += 1
    return n


def measure(llc, arch, wave, llty, bits, op):
    got = {}
    for seq in sequences(arch, wave):
        prev = count(llc, arch, wave, Kernel(llty, bits, op).text([]))
        for i in range(len(seq)):
            c = count(llc, arch, wave, Kernel(llty, bits, op).text(seq[:i + 1]))
            got.setdefault(seq[i][0], c - prev)
            prev = c
    return [got.get(k, -1) for k in KINDS]


CHAIN_ARCHS = ['gfx90a', 'gfx942', 'gfx950', 'gfx1030', 'gfx1100', 'gfx1201']
# the chain lengths whose difference is measured: past the first few ops
# (the scheduler's start) and short of register pressure (at 32 doubles
# gfx942 parks values in AGPRs)
CHAIN_SHORT, CHAIN_LONG = 8, 24


def fold_chain(k, llty, n, lines, value):
    """lines, then values %x0 .. %xn (value(i): the lines making %xi) folded
    with k's op one after the other, and the result stored: the kernel's
    text."""
    acc = '%x0'
    for i in range(n + 1):
        lines += value(i)
        if i > 0:
            k.lines = []
            acc = k.combine(acc, '%%x%d' % i)
            lines += k.lines
    lines += ['  %%r = getelementptr %s, ptr addrspace(1) %%o, i32 %%tid' % llty,
              '  store %s %s, ptr addrspace(1) %%r' % (llty, acc), '  ret void', '}']
    return '\n'.join(lines) + '\n'


def chain_text(llty, bits, op, n):
    """A kernel folding n + 1 values each lane loads into one with op, in a
    dependent chain, and storing it: what the accumulate loop and the
    thread reduce do with values from memory."""
    k = Kernel(llty, bits, op)
    lines = ['target triple = "amdgcn-amd-amdhsa"',
             'declare i32 @llvm.amdgcn.workitem.id.x()',
             'define amdgpu_kernel void @f(ptr addrspace(1) %p, ptr addrspace(1) %o) {',
             '  %tid = call i32 @llvm.amdgcn.workitem.id.x()',
             '  %%q = getelementptr <%d x %s>, ptr addrspace(1) %%p, i32 %%tid' % (n + 1, llty),
             '  %%v = load <%d x %s>, ptr addrspace(1) %%q' % (n + 1, llty)]
    return fold_chain(k, llty, n, lines, lambda i: [
        '  %%x%d = extractelement <%d x %s> %%v, i32 %d' % (i, n + 1, llty, i)])


def chain_cost(llc, arch, llty, bits, op):
    """Instructions CHAIN_LONG - CHAIN_SHORT ops of a dependent chain of op
    cost on arch (the kernel's entry, loads and store cancel)."""
    wave = 64 if arch.startswith('gfx9') else 32
    c = [count(llc, arch, wave, chain_text(llty, bits, op, n)) for n in (CHAIN_SHORT, CHAIN_LONG)]
    return c[1] - c[0]


# NVIDIA's chains, counted in PTX, and in SASS from sm_80 where ptxas
# splits a combine (nv_chain_cost; no disassembler needed: the cubin's
# opcodes are read directly): the archs
# whose combines differ -- before sm_80 no f16 min/max (promoted to f32) and
# no bf16 arithmetic at all (emulated in integer ops); sm_80 and later one
# instruction, but for f64's NaN-propagating maximum.  maximumf and
# minimumf are measured where IREE keeps them (sm_80 and later; below, it
# rewrites them to maxnumf and minnumf: ReplaceSlowMinMaxOps.cpp).
NV_CHAIN_ARCHS = ['sm_60', 'sm_70', 'sm_80', 'sm_90']
NV_FLOAT_OPS = FLOAT_OPS + ['MAXIMUMF', 'MINIMUMF']


def nv_chain_text(llty, bits, op, n):
    """The chain of chain_text for NVPTX, each value its own load (a vector
    load of an odd length splits into pieces with address adds of their
    own, which the difference would count)."""
    k = Kernel(llty, bits, op)
    lines = ['target triple = "nvptx64-nvidia-cuda"',
             'declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()',
             'define ptx_kernel void @f(ptr addrspace(1) %p, ptr addrspace(1) %o) {',
             '  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()',
             '  %%q = getelementptr [%d x %s], ptr addrspace(1) %%p, i32 %%tid' % (n + 1, llty)]
    return fold_chain(k, llty, n, lines, lambda i: [
        '  %%g%d = getelementptr %s, ptr addrspace(1) %%q, i32 %d' % (i, llty, i),
        '  %%x%d = load %s, ptr addrspace(1) %%g%d' % (i, llty, i)])


def sass_count(llc, ptxas, sm, text):
    """SASS instructions of an NVPTX kernel, loads, stores, NOPs, branches
    and the exit left out (-1 when llc or ptxas fails)."""
    p = subprocess.run([llc, '-O3', '-mtriple=nvptx64-nvidia-cuda', '-mcpu=' + sm, '-', '-o', '-'],
                       input=text, capture_output=True, text=True)
    if p.returncode:
        return -1
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'k.ptx'), 'w') as f:
            f.write(p.stdout)
        q = subprocess.run([ptxas, '-arch=' + sm, '-O3', os.path.join(tmp, 'k.ptx'), '-o',
                            os.path.join(tmp, 'k.cubin')], capture_output=True, text=True)
        if q.returncode:
            return -1
        texts = cubin.text_sections(os.path.join(tmp, 'k.cubin'))
    return sum(1 for t in texts.values() for op, _ in cubin.instructions(t) if op not in SASS_SKIP)


def nv_chain_ptx(llc, sm, llty, bits, op):
    c = [ptx_count(llc, sm, nv_chain_text(llty, bits, op, n)) for n in (CHAIN_SHORT, CHAIN_LONG)]
    if min(c) < 0:
        raise RuntimeError('%s: llc failed on a %s %s chain' % (sm, llty, op))
    return c[1] - c[0]


def nv_chain_sass(llc, ptxas, sm, llty, bits, op):
    c = [sass_count(llc, ptxas, sm, nv_chain_text(llty, bits, op, n))
         for n in (CHAIN_SHORT, CHAIN_LONG)]
    if min(c) < 0:
        raise RuntimeError('%s: llc or ptxas failed on a %s %s chain' % (sm, llty, op))
    return c[1] - c[0]


def nv_chain_cost(llc, ptxas, sm, llty, bits, op):
    """The row: SASS where ptxas takes the arch -- more than 16 where it
    splits the combine, 8 where it fuses two into one three-input
    instruction (IADD3, LOP3, IMNMX; sm_90's VHMNMX for f16 and bf16 min
    and max, which also pair lanes: ls_plan_combine_pairs) -- else PTX."""
    ptx = nv_chain_ptx(llc, sm, llty, bits, op)
    if sm not in SASS_ARCHS:
        return ptx
    return nv_chain_sass(llc, ptxas, sm, llty, bits, op)


def chain_table(llc, ptxas):
    out = ['/* The instructions 16 combines of a dependent chain cost, per arch (a',
           ' * kernel folding values each lane loaded: %d ops less %d): 16 an op,' %
           (CHAIN_LONG, CHAIN_SHORT),
           ' * 8 where LLVM fuses two into one three-operand instruction, more for',
           ' * 64-bit and bf16 combines and VOP3-only ones. */',
           'const ls_chain_row ls_chain_rows[] = {']
    n = 0
    for a in CHAIN_ARCHS:
        for ty, llty, bits in TYPES:
            for op in (FLOAT_OPS if llty in ('float', 'half', 'bfloat', 'double') else INT_OPS):
                out.append('    {"%s", LS_ET_%s, LS_COMB_%s, %d},' %
                           (a, ty, op, chain_cost(llc, a, llty, bits, op)))
                n += 1
        print('amd-dpp-counts: %s chains done' % a, file=sys.stderr)
    for a in NV_CHAIN_ARCHS:
        for ty, llty, bits in TYPES:
            for op in (NV_FLOAT_OPS if llty in ('float', 'half', 'bfloat', 'double') else INT_OPS):
                if a in ('sm_60', 'sm_70') and op in ('MAXIMUMF', 'MINIMUMF'):
                    continue  # rewritten to maxnumf / minnumf there
                out.append('    {"%s", LS_ET_%s, LS_COMB_%s, %d},' %
                           (a, ty, op, nv_chain_cost(llc, ptxas, a, llty, bits, op)))
                n += 1
        print('amd-dpp-counts: %s chains done' % a, file=sys.stderr)
    out.append('};\nconst int ls_chain_n_rows = %d;' % n)
    return out


PAIR_TYPES = [('f32', 'float'), ('f16', 'half'), ('bf16', 'bfloat'), ('i32', 'i32'), ('i16', 'i16')]
PAIR_OPS = ['add', 'sub', 'mul', 'fma', 'max']


def pair_text(llty, op, lanes, n, nvptx=False):
    """A chain of n ops on <lanes x llty> values a thread loads (lanes 1: the
    scalar op), the accumulate loop's step over its accumulators."""
    isf = llty in ('float', 'half', 'bfloat')
    sfx = suffix(llty)
    vt = '<%d x %s>' % (lanes, llty) if lanes > 1 else llty
    vs = 'v%d%s' % (lanes, sfx) if lanes > 1 else sfx
    tid = 'llvm.nvvm.read.ptx.sreg.tid.x' if nvptx else 'llvm.amdgcn.workitem.id.x'
    lines = ['target triple = "%s"' % ('nvptx64-nvidia-cuda' if nvptx else 'amdgcn-amd-amdhsa'),
             'declare i32 @%s()' % tid]
    if op == 'fma':
        lines.append('declare %s @llvm.fma.%s(%s, %s, %s)' % (vt, vs, vt, vt, vt))
    elif op == 'max':
        lines.append('declare %s @llvm.%s.%s(%s, %s)' % (vt, 'maxnum' if isf else 'smax', vs, vt,
                                                          vt))
    lines.append('define %svoid @f(ptr addrspace(1) %%p, ptr addrspace(1) %%o) {' %
                 ('' if nvptx else 'amdgpu_kernel '))
    lines.append('  %%tid = call i32 @%s()' % tid)
    lines.append('  %%q = getelementptr [%d x %s], ptr addrspace(1) %%p, i32 %%tid' % (n + 1, vt))
    acc = '%x0'
    for i in range(n + 1):
        lines.append('  %%g%d = getelementptr %s, ptr addrspace(1) %%q, i32 %d' % (i, vt, i))
        lines.append('  %%x%d = load %s, ptr addrspace(1) %%g%d' % (i, vt, i))
        if i == 0:
            continue
        if op in ('add', 'sub', 'mul'):
            lines.append('  %%a%d = %s%s %s %s, %%x%d' % (i, 'f' if isf else '', op, vt, acc, i))
        elif op == 'fma':
            lines.append('  %%a%d = call %s @llvm.fma.%s(%s %%x%d, %s %%x%d, %s %s)' %
                         (i, vt, vs, vt, i, vt, i, vt, acc))
        else:
            lines.append('  %%a%d = call %s @llvm.%s.%s(%s %s, %s %%x%d)' %
                         (i, vt, 'maxnum' if isf else 'smax', vs, vt, acc, vt, i))
        acc = '%%a%d' % i
    lines += ['  %%r = getelementptr %s, ptr addrspace(1) %%o, i32 %%tid' % vt,
              '  store %s %s, ptr addrspace(1) %%r' % (vt, acc), '  ret void', '}']
    return '\n'.join(lines) + '\n'


# pairs converted: 16 and 32 elements (power-of-two vectors: a <24 x half>
# is legalized piecewise, which costs moves of its own)
CONV_SHORT, CONV_LONG = 8, 16
CONVERSIONS = [('fptrunc', 'float', 'half'), ('fptrunc', 'float', 'bfloat'),
               ('fpext', 'half', 'float')]


def conv_text(op, src, dst, lanes, n, nvptx=False):
    """n conversions of the elements of a vector each lane loads, as
    scalars (lanes 1) or as <2 x T> ops (lanes 2), stored as one vector: the
    body's elementwise conversion over a thread's registers."""
    m = 2 * n
    tid = 'llvm.nvvm.read.ptx.sreg.tid.x' if nvptx else 'llvm.amdgcn.workitem.id.x'
    lines = ['target triple = "%s"' % ('nvptx64-nvidia-cuda' if nvptx else 'amdgcn-amd-amdhsa'),
             'declare i32 @%s()' % tid,
             'define %svoid @f(ptr addrspace(1) %%p, ptr addrspace(1) %%o) {' %
             ('' if nvptx else 'amdgpu_kernel '),
             '  %%tid = call i32 @%s()' % tid,
             '  %%q = getelementptr <%d x %s>, ptr addrspace(1) %%p, i32 %%tid' % (m, src),
             '  %%v = load <%d x %s>, ptr addrspace(1) %%q' % (m, src)]
    acc = 'poison'
    if lanes == 1:
        for i in range(m):
            lines += ['  %%x%d = extractelement <%d x %s> %%v, i32 %d' % (i, m, src, i),
                      '  %%c%d = %s %s %%x%d to %s' % (i, op, src, i, dst),
                      '  %%r%d = insertelement <%d x %s> %s, %s %%c%d, i32 %d' %
                      (i, m, dst, acc, dst, i, i)]
            acc = '%%r%d' % i
    else:
        for i in range(n):
            lines += ['  %%x%d = shufflevector <%d x %s> %%v, <%d x %s> poison, <2 x i32> '
                      '<i32 %d, i32 %d>' % (i, m, src, m, src, 2 * i, 2 * i + 1),
                      '  %%c%d = %s <2 x %s> %%x%d to <2 x %s>' % (i, op, src, i, dst)]
            for h in (0, 1):  # back into the stored vector, lane by lane
                lines += ['  %%e%d_%d = extractelement <2 x %s> %%c%d, i32 %d' % (i, h, dst, i, h),
                          '  %%r%d_%d = insertelement <%d x %s> %s, %s %%e%d_%d, i32 %d' %
                          (i, h, m, dst, acc, dst, i, h, 2 * i + h)]
                acc = '%%r%d_%d' % (i, h)
    lines += ['  %%o2 = getelementptr <%d x %s>, ptr addrspace(1) %%o, i32 %%tid' % (m, dst),
              '  store <%d x %s> %s, ptr addrspace(1) %%o2' % (m, dst, acc), '  ret void', '}']
    text = '\n'.join(lines) + '\n'
    return text


def ptx_count(llc, sm, text):
    p = subprocess.run([llc, '-O3', '-mtriple=nvptx64-nvidia-cuda', '-mcpu=' + sm, '-', '-o', '-'],
                       input=text, capture_output=True, text=True)
    if p.returncode:
        return -1
    return sum(1 for line in p.stdout.splitlines()
               if re.match(r'^(add|mul|fma|max|min|sub|setp|selp|cvt|and|or|xor|shl|shr|mad)\.',
                           line.strip()))


def pairs_report(llc):
    """Per target, type and op: what 16 chained ops cost as scalars and as
    two-lane vectors (ls_plan_combine_pairs follows it: equal costs pair)."""
    print('16 chained ops: scalar / <2 x T> (equal: the target pairs the lanes)')
    for arch, wave in [(a, 64 if a.startswith('gfx9') else w) for a in CHAIN_ARCHS
                       for w in ((32, 64) if not a.startswith('gfx9') else (64,))]:
        row = []
        for name, llty in PAIR_TYPES:
            for op in PAIR_OPS:
                if op == 'fma' and llty.startswith('i'):
                    continue
                c = [count(llc, arch, wave, pair_text(llty, op, lanes, CHAIN_LONG)) -
                     count(llc, arch, wave, pair_text(llty, op, lanes, CHAIN_SHORT))
                     for lanes in (1, 2)]
                row.append('%s %s %d/%d' % (name, op, c[0], c[1]))
        print('%s wave%d: %s' % (arch, wave, ', '.join(row)))
    for sm in ('sm_70', 'sm_80', 'sm_90'):
        row = []
        for name, llty in PAIR_TYPES:
            for op in PAIR_OPS:
                if op == 'fma' and llty.startswith('i'):
                    continue
                c = [ptx_count(llc, sm, pair_text(llty, op, lanes, CHAIN_LONG, True)) -
                     ptx_count(llc, sm, pair_text(llty, op, lanes, CHAIN_SHORT, True))
                     for lanes in (1, 2)]
                row.append('%s %s %d/%d' % (name, op, c[0], c[1]))
        print('%s (PTX arithmetic): %s' % (sm, ', '.join(row)))
    print('16 conversions of a loaded vector\'s elements: scalar / <2 x T> (8: one a pair)')
    for arch in CHAIN_ARCHS:
        wave = 64 if arch.startswith('gfx9') else 32
        row = []
        for op, src, dst in CONVERSIONS:
            c = [count(llc, arch, wave, conv_text(op, src, dst, lanes, CONV_LONG)) -
                 count(llc, arch, wave, conv_text(op, src, dst, lanes, CONV_SHORT))
                 for lanes in (1, 2)]
            row.append('%s %s->%s %d/%d' % (op, src, dst, c[0], c[1]))
        print('%s: %s' % (arch, ', '.join(row)))
    for sm in ('sm_70', 'sm_80', 'sm_90'):
        row = []
        for op, src, dst in CONVERSIONS:
            c = [ptx_count(llc, sm, conv_text(op, src, dst, lanes, CONV_LONG, True)) -
                 ptx_count(llc, sm, conv_text(op, src, dst, lanes, CONV_SHORT, True))
                 for lanes in (1, 2)]
            row.append('%s %s->%s %d/%d' % (op, src, dst, c[0], c[1]))
        print('%s (PTX): %s' % (sm, ', '.join(row)))


FOLD_TYPES = [('f32', 'float'), ('f16', 'half'), ('bf16', 'bfloat'), ('i32', 'i32'), ('i16', 'i16')]
FOLD_OPS = {'add': ('fadd', 'add'), 'mul': ('fmul', 'mul'), 'max': ('fmax', 'smax'),
            'maximum': ('fmaximum', None)}


def fold_text(llty, op, n, nvptx=False):
    """A kernel folding the <n x llty> vector each lane loads with the
    llvm.vector.reduce intrinsic MLIR lowers a vector.reduction to (an fadd
    or fmul: ordered, from a start value) and storing the result."""
    isf = llty in ('float', 'half', 'bfloat')
    name = FOLD_OPS[op][0 if isf else 1]
    vt = '<%d x %s>' % (n, llty)
    vs = 'v%d%s' % (n, suffix(llty))
    tid = 'llvm.nvvm.read.ptx.sreg.tid.x' if nvptx else 'llvm.amdgcn.workitem.id.x'
    ordered = name in ('fadd', 'fmul')
    lines = ['target triple = "%s"' % ('nvptx64-nvidia-cuda' if nvptx else 'amdgcn-amd-amdhsa'),
             'declare i32 @%s()' % tid,
             'declare %s @llvm.vector.reduce.%s.%s(%s%s)' %
             (llty, name, vs, llty + ', ' if ordered else '', vt),
             'define %svoid @f(ptr addrspace(1) %%p, ptr addrspace(1) %%o) {' %
             ('' if nvptx else 'amdgpu_kernel '),
             '  %%tid = call i32 @%s()' % tid,
             '  %%q = getelementptr %s, ptr addrspace(1) %%p, i32 %%tid' % vt,
             '  %%v = load %s, ptr addrspace(1) %%q' % vt,
             '  %%a = getelementptr %s, ptr addrspace(1) %%o, i32 %%tid' % llty]
    if ordered:
        lines += ['  %%s = load %s, ptr addrspace(1) %%a' % llty,
                  '  %%r = call %s @llvm.vector.reduce.%s.%s(%s %%s, %s %%v)' %
                  (llty, name, vs, llty, vt)]
    else:
        lines.append('  %%r = call %s @llvm.vector.reduce.%s.%s(%s %%v)' % (llty, name, vs, vt))
    lines += ['  store %s %%r, ptr addrspace(1) %%a' % llty, '  ret void', '}']
    return '\n'.join(lines) + '\n'


def folds_report(llc):
    """Per target, type and op: what folding 4 and 8 more values costs
    (8 -> 4 values less, 16 -> 8 values less).  A tree of packed ops: 2 and 4;
    a scalar fold (tree or chain): 4 and 8; a chain fusing pairs: 2 and 4.
    AMD's maxnum also quiets each loaded register (the accumulate loop's
    values come out of arithmetic, already quiet)."""
    print('folding a loaded <n x T>: instructions for n = 8 less n = 4, n = 16 less n = 8')
    for arch in CHAIN_ARCHS + ['sm_70', 'sm_80', 'sm_90']:
        nv = arch.startswith('sm_')
        row = []
        for name, llty in FOLD_TYPES:
            for op in FOLD_OPS:
                if FOLD_OPS[op][0 if llty in ('float', 'half', 'bfloat') else 1] is None:
                    continue
                if nv:
                    c = [ptx_count(llc, arch, fold_text(llty, op, n, True)) for n in (4, 8, 16)]
                else:
                    wave = 64 if arch.startswith('gfx9') else 32
                    c = [count(llc, arch, wave, fold_text(llty, op, n)) for n in (4, 8, 16)]
                row.append('%s %s %d/%d' % (name, op, c[1] - c[0], c[2] - c[1]))
        print('%s: %s' % (arch, ', '.join(row)), flush=True)


def sass_report(llc, ptxas):
    """NVIDIA's chains (16 combines) and folds (4 and 8 more values) in
    SASS beside PTX, per arch ptxas takes: where ptxas splits a combine,
    where it fuses two."""
    for sm in SASS_ARCHS:
        row = []
        for ty, llty, bits in TYPES:
            for op in (NV_FLOAT_OPS if llty in ('float', 'half', 'bfloat', 'double') else INT_OPS):
                row.append('%s %s %d/%d' % (ty.lower(), op.lower(),
                                            nv_chain_sass(llc, ptxas, sm, llty, bits, op),
                                            nv_chain_ptx(llc, sm, llty, bits, op)))
        print('%s chains, 16 combines, SASS/PTX: %s' % (sm, ', '.join(row)), flush=True)
        row = []
        for name, llty in FOLD_TYPES:
            for op in FOLD_OPS:
                if FOLD_OPS[op][0 if llty in ('float', 'half', 'bfloat') else 1] is None:
                    continue
                text = [fold_text(llty, op, n, True).replace('define void', 'define ptx_kernel void')
                        for n in (4, 8, 16)]
                c = [sass_count(llc, ptxas, sm, t) for t in text]
                row.append('%s %s %d/%d' % (name, op, c[1] - c[0], c[2] - c[1]))
        print('%s folds, 4 and 8 more values, SASS: %s' % (sm, ', '.join(row)), flush=True)


def fused_tree(n):
    """The instructions of ptxas's fused fold of n values (ls_fused_fold,
    src/plan_thread_reduce.c), and whether its root is an op nothing took
    in: LLVM's halving tree (value i with i + half, widened to a power of
    two with the identity), in which an op reading an op not yet written
    takes its two operands in (a three-input instruction), the deeper one
    where both could be."""
    w = 1
    while w < n:
        w *= 2
    # a value: None (the identity), (False, depth) written, (True, depth) open
    v = [(False, 0) if i < n else None for i in range(w)]
    count = 0
    while len(v) > 1:
        h = len(v) // 2
        nxt = []
        for i in range(h):
            x, y = v[i], v[i + h]
            if x is None or y is None:
                nxt.append(x if y is None else y)
            elif not x[0] and not y[0]:
                nxt.append((True, 1 + max(x[1], y[1])))
            else:
                take, other = (x, y) if x[0] and (not y[0] or x[1] >= y[1]) else (y, x)
                count += 1 + (1 if other[0] else 0)
                nxt.append((False, 1 + max(take[1] - 1, other[1])))
        v = nxt
    root_open = bool(v[0] and v[0][0])
    return count + (1 if root_open else 0), root_open


def sass_folds_report(llc, ptxas):
    """ptxas's folds of 2 to 16 values where it fuses a tree's ops
    (ls_plan_fold_fuses3): i32 add and logic (sm_80, sm_90), min and max
    (sm_90), and sm_90's f16/bf16 min and max over pairs (even counts), each
    SASS count beside fused_tree's (packed: of the registers, + the halves'
    op).  The kernel's own instructions are those of a fold of 2 less one."""
    cases = [('sm_80', 'i32', k) for k in ('add', 'and', 'or', 'xor')] + \
        [('sm_90', 'i32', k) for k in ('add', 'and', 'or', 'xor', 'smax', 'smin', 'umax', 'umin')] + \
        [('sm_90', t, k) for t in ('half', 'bfloat')
         for k in ('fmax', 'fmin', 'fmaximum', 'fminimum')]
    bad = 0
    for sm, llty, k in cases:
        packed = llty != 'i32'
        def sass(n):
            text = fold_text(llty, 'max' if packed else 'add', n, True)
            text = text.replace('reduce.' + ('fmax' if packed else 'add'), 'reduce.' + k)
            return sass_count(llc, ptxas, sm, text.replace('define void', 'define ptx_kernel void'))
        base = sass(2) - 1
        row = []
        for n in range(2, 17, 2 if packed else 1):
            got = sass(n) - base
            want = fused_tree(n // 2)[0] + 1 if packed and n > 2 else 1 if packed else fused_tree(n)[0]
            bad += got != want
            row.append('%d:%d%s' % (n, got, '' if got == want else '(model %d)' % want))
        print('%s %s %s: %s' % (sm, llty, k, ' '.join(row)), flush=True)
    print('sass-folds: %s' % ('the model matches ptxas' if not bad else
                              '%d counts differ from the model' % bad))
    print("a loop folding n values an iteration into one scalar accumulator, SASS an "
          "iteration (the model's: the fold's, the join taking an open root in, else the "
          "join's own, half of one where the chain fuses)")
    for sm, llty, k in [('sm_90', 'i32', 'add'), ('sm_90', 'i32', 'smax'), ('sm_80', 'i32', 'add'),
                        ('sm_90', 'half', 'fmax'), ('sm_90', 'half', 'fmaximum')]:
        packed = llty != 'i32'
        row = []
        for n in (2, 4, 8, 16):
            c = [sass_count(llc, ptxas, sm, join_loop_text(llty, k, n, it)) for it in (8, 16)]
            got = (c[1] - c[0]) / 8.0
            if packed:
                want = float(fused_tree(n // 2)[0] + 1 if n > 2 else 1)
            else:
                f, root_open = fused_tree(n)
                want = float(f) if root_open else f + 0.5
            row.append('%d:%g%s' % (n, got, '' if got == want else '(model %g)' % want))
        print('%s %s %s: %s' % (sm, llty, k, ' '.join(row)), flush=True)
    return 1 if bad else 0


def join_loop_text(llty, k, n, iters):
    """A chain of `iters` iterations, each folding a loaded <n x llty> with
    llvm.vector.reduce.k and joining it into one scalar accumulator."""
    vt = '<%d x %s>' % (n, llty)
    vs = 'v%d%s' % (n, suffix(llty))
    el = {'add': None, 'smax': 'smax', 'fmax': 'maxnum', 'fmaximum': 'maximum'}[k]
    lines = ['target triple = "nvptx64-nvidia-cuda"',
             'declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()',
             'declare %s @llvm.vector.reduce.%s.%s(%s)' % (llty, k, vs, vt)]
    if el:
        lines.append('declare %s @llvm.%s.%s(%s, %s)' % (llty, el, suffix(llty), llty, llty))
    lines += ['define ptx_kernel void @f(ptr addrspace(1) %p, ptr addrspace(1) %o) {',
              '  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()',
              '  %%q = getelementptr [%d x %s], ptr addrspace(1) %%p, i32 %%tid' % (iters + 1, vt),
              '  %%a = getelementptr %s, ptr addrspace(1) %%o, i32 %%tid' % llty,
              '  %%s0 = load %s, ptr addrspace(1) %%a' % llty]
    for i in range(1, iters + 1):
        lines += ['  %%g%d = getelementptr %s, ptr addrspace(1) %%q, i32 %d' % (i, vt, i),
                  '  %%v%d = load %s, ptr addrspace(1) %%g%d' % (i, vt, i),
                  '  %%r%d = call %s @llvm.vector.reduce.%s.%s(%s %%v%d)' % (i, llty, k, vs, vt, i)]
        if el:
            lines.append('  %%s%d = call %s @llvm.%s.%s(%s %%s%d, %s %%r%d)' %
                         (i, llty, el, suffix(llty), llty, i - 1, llty, i))
        else:
            lines.append('  %%s%d = add %s %%s%d, %%r%d' % (i, llty, i - 1, i))
    lines += ['  store %s %%s%d, ptr addrspace(1) %%a' % (llty, iters), '  ret void', '}']
    return '\n'.join(lines) + '\n'


def table(llc, ptxas):
    out = []
    out.append('/* amd_dpp_counts.c: the instructions LLVM\'s AMDGPU backend spends on each\n'
               ' * step of a gpu.subgroup_reduce lowered to DPP, per target, value type and\n'
               ' * combine.  Generated by tools/amd-dpp-counts.py (llc-22 -O3); do not edit:\n'
               ' * rerun it.  How each step is lowered and why the counts differ:\n'
               ' * docs/timing-model.md, "DPP steps as compiled". */')
    out.append('#include "amd_dpp_counts.h"\n')
    out.append('/* clang-format off */')
    out.append('const ls_amd_dpp_arch_row ls_amd_dpp_archs[] = {')
    for a, w in ARCHS:
        out.append('    {"%s", %d},' % (a, w))
    out.append('};\nconst int ls_amd_dpp_n_archs = %d;\n' % len(ARCHS))
    out.append('/* arch, value type, combine, then per kind (amd_dpp_counts.h):')
    out.append(' * ' + ' '.join(k.lower() for k in KINDS) + ' */')
    out.append('const ls_amd_dpp_row ls_amd_dpp_rows[] = {')
    n = 0
    for ai, (a, w) in enumerate(ARCHS):
        for ty, llty, bits in TYPES:
            for op in (FLOAT_OPS if llty in ('float', 'half', 'bfloat', 'double') else INT_OPS):
                c = measure(llc, a, w, llty, bits, op)
                out.append('    {%d, LS_ET_%s, LS_COMB_%s, {%s}},' %
                           (ai, ty, op, ', '.join(str(x) for x in c)))
                n += 1
        print('amd-dpp-counts: %s wave%d done' % (a, w), file=sys.stderr)
    out.append('};\nconst int ls_amd_dpp_n_rows = %d;\n' % n)
    out += chain_table(llc, ptxas)
    out.append('/* clang-format on */')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--llc', default='llc-22')
    ap.add_argument('--check', metavar='FILE', help='compare with FILE instead of printing')
    ap.add_argument('--pairs', action='store_true',
                    help='report which targets pair the lanes of a two-lane op (packed math)')
    ap.add_argument('--folds', action='store_true',
                    help="report how LLVM folds a vector.reduction's values (tree or chain)")
    ap.add_argument('--sass', action='store_true',
                    help="report NVIDIA's chains and folds in SASS beside PTX")
    ap.add_argument('--sass-folds', action='store_true',
                    help="report ptxas's fused folds of 2 to 16 values beside the model's")
    ap.add_argument('--ptxas', default=PTXAS)
    a = ap.parse_args()
    if a.sass_folds:
        try:
            return sass_folds_report(a.llc, a.ptxas)
        except (OSError, RuntimeError) as e:
            print('amd-dpp-counts: %s' % e, file=sys.stderr)
            return 1
    report = (lambda llc: sass_report(llc, a.ptxas)) if a.sass else \
        folds_report if a.folds else pairs_report if a.pairs else None
    if report:
        try:
            report(a.llc)
        except (OSError, RuntimeError) as e:
            print('amd-dpp-counts: %s' % e, file=sys.stderr)
            return 1
        return 0
    try:
        text = table(a.llc, a.ptxas)
    except (OSError, RuntimeError) as e:
        print('amd-dpp-counts: %s' % e, file=sys.stderr)
        return 1
    if a.check:
        with open(a.check) as f:
            if f.read() != text:
                print('amd-dpp-counts: %s differs from what %s compiles' % (a.check, a.llc),
                      file=sys.stderr)
                return 1
        print('amd-dpp-counts: %s matches' % a.check)
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
