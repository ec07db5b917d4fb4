#!/usr/bin/env python3
"""sass-loops.py: what the CUDA generator's kernel for a reduction or an
attention becomes in SASS, loop by loop, without a GPU or a disassembler.

For each input: `lanescope measure FILE --ptx` (NVRTC), then CUDA's ptxas
for the arch; in the cubin's .text (tools/cubin.py) every backward branch
closes a loop, and the instructions between its target and the branch are
counted by opcode.  Use it to hold the measured kernel next to what the
simulator times: a loop's loads, float ops, compares and branches.

A BRA's target, as read from ptxas's sm_90 output (no documentation: read
off kernels whose targets are known): a signed offset in 4-byte units from
the next instruction, its low 8 bits at bits 16-23 and the rest from bit 34.
The opcode names are those of instructions identified the same way; the
rest print as their 12-bit opcode.

    tools/sass-loops.py [--lanescope PATH] [--arch sm_90] FILE...
"""
import argparse
import collections
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubin  # noqa: E402  (tools/cubin.py)

NAMES = {0x221: 'FADD', 0x421: 'FADD', 0x220: 'FMUL', 0x420: 'FMUL', 0x223: 'FFMA',
         0x423: 'FFMA', 0x209: 'FMNMX', 0x409: 'FMNMX', 0x20b: 'FSETP', 0x208: 'FSEL',
         0x230: 'HADD2', 0x231: 'HFMA2', 0x232: 'HMUL2', 0x240: 'HMNMX2', 0x247: 'VHMNMX',
         0x210: 'IADD3', 0x810: 'IADD3', 0x224: 'IMAD', 0x824: 'IMAD', 0x825: 'IMAD.WIDE',
         0x212: 'LOP3', 0x812: 'LOP3', 0x216: 'PRMT', 0x816: 'PRMT', 0x202: 'MOV', 0x802: 'MOV',
         0x981: 'LDG', 0x986: 'STG', 0x984: 'LDS', 0x388: 'STS', 0x589: 'SHFL', 0xf89: 'SHFL',
         0xb1d: 'BAR', 0x947: 'BRA', 0x945: 'BSSY', 0x941: 'BSYNC', 0x918: 'NOP'}
SKIP = {0x918}


def branch_target(text, i):
    """The instruction index a BRA at index i goes to."""
    lo, hi = struct.unpack_from('<QQ', text, i * 16)
    w = lo | (hi << 64)
    v = ((w >> 16) & 0xff) | (((w >> 34) & ((1 << 48) - 1)) << 8)
    if v >> 55:
        v -= 1 << 56
    return i + 1 + v // 4


def loops(path):
    """(kernel, first, last, opcode counts) of each loop of a cubin."""
    out = []
    for name, text in cubin.text_sections(path).items():
        ins = list(cubin.instructions(text))
        for i, (op, _) in enumerate(ins):
            if op != 0x947:
                continue
            t = branch_target(text, i)
            if 0 <= t < i:
                counts = collections.Counter(NAMES.get(o, '0x%03x' % o)
                                             for o, _ in ins[t:i] if o not in SKIP)
                out.append((name, t, i, counts))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('files', nargs='+')
    ap.add_argument('--lanescope', default='lanescope')
    ap.add_argument('--arch', default='sm_90')
    ap.add_argument('--ptxas', default='/usr/local/cuda/bin/ptxas')
    a = ap.parse_args()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cub = os.path.join(tmp, 'k.ptx'), os.path.join(tmp, 'k.cubin')
        for f in a.files:
            p = subprocess.run([a.lanescope, 'measure', f, '--ptx', '--arch', a.arch, '-o', ptx],
                               capture_output=True, text=True)
            q = p if p.returncode else subprocess.run(
                [a.ptxas, '-arch=' + a.arch, '-O3', ptx, '-o', cub], capture_output=True, text=True)
            if q.returncode:
                print('sass-loops: %s: %s' % (f, (q.stderr or q.stdout).strip().splitlines()[-1]),
                      file=sys.stderr)
                status = 1
                continue
            print('%s (%s):' % (f, a.arch))
            for name, first, last, counts in loops(cub):
                if last - first > 1:
                    print('  %s: loop %d..%d, %d instructions: %s' % (
                        name, first, last, sum(counts.values()),
                        ', '.join('%s %d' % kv for kv in counts.most_common())))
    return status


if __name__ == '__main__':
    sys.exit(main())
