#!/usr/bin/env python3
"""ptxas-shared-merges.py: how ptxas merges the scalar workgroup-memory
accesses IREE's PTX holds for a promoted operand's buffer.

IREE aligns a promoted buffer to one element on NVIDIA, so LLVM's NVPTX
splits every vector store and load into elements (src/plan_promote.c).
This compiles small kernels that copy a thread's 8 halves or 4 floats into
a padded workgroup buffer element by element and read them back the same
way, for several row pitches (so several alignments of the threads'
offsets), with `nvcc -cubin`, and reads the shared loads and stores out of
the cubin: opcode 0x984 (LDS) and 0x388 (STS) in the low 12 bits of each
16-byte instruction, the access size in bits 73-75 (4: 32, 5: 64, 6: 128
bits).  A reference kernel in each cubin moves one uint4 each way; its
accesses must decode as one 128-bit LDS and STS, which checks the decoding.
No GPU is needed: nvcc and ptxas only.

    python3 tools/ptxas-shared-merges.py [--nvcc PATH] [--arch sm_90 ...]

What it printed with CUDA 13.0 for sm_80 and sm_90 (the rule
ls_plan_promote_accesses implements: up to four elements an instruction,
as far as the offsets' alignment allows):

    f16 x 8, offsets 4-byte aligned:  4 x LDS.32, 4 x STS.32
    f16 x 8, offsets 8-byte aligned:  2 x LDS.64, 2 x STS.64
    f16 x 8, offsets 16-byte aligned: 2 x LDS.64, 2 x STS.64
    f32 x 4, offsets 8-byte aligned:  2 x LDS.64, 2 x STS.64
    f32 x 4, offsets 16-byte aligned: 1 x LDS.128, 1 x STS.128
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubin  # noqa: E402  (tools/cubin.py)

KERNEL = r"""
extern "C" __global__ void elems(const T *in, float *out) {
    __shared__ T buf[4 * PITCH];
    int t = threadIdx.x, r = t / 32, l = t % 32;
    const uint4 v = *(const uint4 *)(in + blockIdx.x * 4 * 32 * N + t * N);
    const T *e = (const T *)&v;
#pragma unroll
    for (int i = 0; i < N; i++)
        buf[r * PITCH + l * N + i] = e[i];
    __syncthreads();
    float s = 0;
#pragma unroll
    for (int i = 0; i < N; i++)
        s += (float)buf[r * PITCH + l * N + i];
    out[blockIdx.x * 128 + t] = s;
}
extern "C" __global__ void reference(const uint4 *in, uint4 *out) {
    __shared__ uint4 buf[128];
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = buf[127 - threadIdx.x];
}
"""

# element type, elements a thread, pitch in elements (row bytes' alignment)
CASES = [("unsigned short", "f16", 8, 258), ("unsigned short", "f16", 8, 260),
         ("unsigned short", "f16", 8, 264), ("float", "f32", 4, 130),
         ("float", "f32", 4, 132)]

SIZES = {4: 32, 5: 64, 6: 128}


def shared_accesses(text):
    """Counter of (LDS|STS, bits) over the instructions of one kernel."""
    c = collections.Counter()
    for op, hi in cubin.instructions(text):
        if op in (0x984, 0x388):
            c[("LDS" if op == 0x984 else "STS", SIZES.get((hi >> 9) & 7, 0))] += 1
    return c


def describe(c):
    return ", ".join("%d x %s.%d" % (n, k[0], k[1]) for k, n in sorted(c.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--arch", action="append", default=None)
    args = ap.parse_args()
    archs = args.arch or ["sm_80", "sm_90"]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for arch in archs:
            for ctype, name, n, pitch in CASES:
                src = os.path.join(tmp, "k.cu")
                cubin_path = os.path.join(tmp, "k.cubin")
                with open(src, "w") as f:
                    f.write("#define T %s\n#define PITCH %d\n#define N %d\n%s" %
                            (ctype, pitch, n, KERNEL))
                r = subprocess.run([args.nvcc, "-arch=" + arch, "-cubin", "-O3", src, "-o", cubin_path],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("nvcc failed for %s: %s" % (arch, r.stderr.strip()))
                t = cubin.text_sections(cubin_path)
                ref = shared_accesses(t["reference"])
                if ref != collections.Counter({("LDS", 128): 1, ("STS", 128): 1}):
                    print("%s: the reference kernel decodes as %s, not one LDS.128 and one "
                          "STS.128: the opcode reading does not hold for this ptxas" %
                          (arch, describe(ref)))
                    ok = False
                row = pitch * (2 if name == "f16" else 4)
                align = 16
                while row % align:
                    align //= 2
                print("%s %s x %d, offsets %2d-byte aligned: %s" %
                      (arch, name, n, align, describe(shared_accesses(t["elems"]))))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
