#!/usr/bin/env python3
"""iree-heldout.py: run lanescope over IREE's own reduction test dispatches.

IREE's LLVMGPU tests for its reduction pipeline (matvec, softmax,
multi-reduction, argmax, serial and partial reduction levels, for gfx942,
gfx950, gfx1100, sm_60, sm_80) are the held-out set of issue 12: lanescope's
tests are written independently of them, and this script measures how many
of them `lanescope sim` runs.  It is a development tool, not a test: it
needs an IREE checkout or mirror (the tool library's `fetch` of
iree-org/iree gives a bare git directory), which CI does not have.

    python3 tools/iree-heldout.py --iree /path/to/iree.git --lanescope ./lanescope

Each test file is split at `// -----`; every case runs once per
`--iree-gpu-test-target` of its RUN lines (gfx942 when none) as
`lanescope sim CASE --target T --workgroups 4 --no-check`.  The summary
counts the cases that simulate and groups the others by their error, with
numbers and paths folded, so one line stands for one reason.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

FILES = [
    "LLVMGPU/test/config_matvec.mlir",
    "LLVMGPU/test/config_root_op_attribute.mlir",
    "LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx942.mlir",
    "LLVMGPU/test/ROCDL/config_vector_distribute_reduction_gfx950.mlir",
    "LLVMGPU/test/ROCDL/config_argcompare.mlir",
    "LLVMGPU/test/ROCDL/config_reduction_transposed_output.mlir",
    "LLVMGPU/test/ROCDL/config_tile_and_fuse_outer_reduction.mlir",
    "LLVMGPU/test/NVVM/config_vector_distribute_sm80.mlir",
    "LLVMGPU/test/ROCDL/pipeline_vector_distribute_reduction_gfx942.mlir",
    "LLVMGPU/test/ROCDL/pipeline_argcompare_vector_distribute.mlir",
    "LLVMGPU/test/ROCDL/pipeline_argcompare_tile_and_fuse.mlir",
    "LLVMGPU/test/reduction_pipeline_cuda.mlir",
    "LLVMGPU/test/reduction_pipeline_rocm.mlir",
    "LLVMGPU/test/reduction_pipeline_softmax_rocm.mlir",
    "Common/GPU/test/gpu_tile_reduction.mlir",
    "Common/GPU/test/gpu_apply_padding_partial_reduction.mlir",
    "Common/GPU/test/gpu_pack_partial_reductions.mlir",
]
PREFIX = "compiler/src/iree/compiler/Codegen/"


def read_source(iree, path):
    """A file of the checkout, or of HEAD in a bare git directory."""
    full = os.path.join(iree, PREFIX + path)
    if os.path.exists(full):
        with open(full) as f:
            return f.read()
    out = subprocess.run(["git", "--git-dir", iree, "show", "HEAD:" + PREFIX + path],
                         capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def targets(text):
    """The --iree-gpu-test-target of each RUN line (continued lines joined)."""
    runs, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^//\s*RUN:(.*)$", line)
        if not m:
            if cur is not None:
                runs.append(cur)
                cur = None
            continue
        cur = (cur + " " if cur else "") + m.group(1).strip()
        if cur.endswith("\\"):
            cur = cur[:-1]
        else:
            runs.append(cur)
            cur = None
    found = [m.group(1) for r in runs for m in [re.search(r"--iree-gpu-test-target=(\S+)", r)] if m]
    return sorted(set(found)) or ["gfx942"]


def reason(err):
    first = err.strip().splitlines()[0] if err.strip() else "(no message)"
    first = re.sub(r"^lanescope sim: \S+?:(\d+:\d+: )?", "", first)
    return re.sub(r"\d+", "N", first)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iree", required=True, help="IREE checkout or bare git directory")
    ap.add_argument("--lanescope", default="./lanescope")
    ap.add_argument("--verbose", action="store_true", help="one line per case")
    a = ap.parse_args()
    ok, fails, total = 0, {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in FILES:
            text = read_source(a.iree, path)
            if text is None:
                print(f"iree-heldout: {PREFIX + path}: not in {a.iree}", file=sys.stderr)
                continue
            tgts = targets(text)
            for n, case in enumerate(re.split(r"(?m)^// -----\s*$", text)):
                if "func.func" not in case and "util.func" not in case:
                    continue
                fn = os.path.join(tmp, f"{os.path.basename(path)[:-5]}__{n}.mlir")
                with open(fn, "w") as f:
                    f.write(case)
                for t in tgts:
                    total += 1
                    r = subprocess.run([a.lanescope, "sim", fn, "--target", t, "--workgroups", "4",
                                        "--no-check"], capture_output=True, text=True, timeout=120)
                    if r.returncode == 0:
                        ok += 1
                    else:
                        fails.setdefault(reason(r.stderr), []).append(f"{os.path.basename(fn)}@{t}")
                    if a.verbose:
                        print(f"{os.path.basename(fn)} {t}: "
                              f"{'ok' if r.returncode == 0 else reason(r.stderr)}")
    print(f"{ok} of {total} case x target rows simulate")
    for why, where in sorted(fails.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
