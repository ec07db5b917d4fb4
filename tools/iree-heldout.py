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
numbers and paths folded, so one line stands for one reason.  With --cuda,
every NVIDIA row that simulates also goes through the CUDA generator:
`lanescope measure CASE --target T --emulate` runs its kernel on the CPU and
checks every output against the reference, then against the simulator's
values bit for bit.
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
    "LLVMGPU/test/NVVM/pipeline_vector_distribute_paged_attention.mlir",
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


def run_lines(text):
    """Each RUN line (continued lines joined) as (target, check prefixes).
    A RUN line without --iree-gpu-test-target compiles for the file's own
    executable target: IREE's CUDA default (sm_60, its --iree-cuda-target)
    for a "cuda" one, gfx942 otherwise."""
    default = "sm_60" if re.search(r'hal\.executable\.target<"cuda"', text) else "gfx942"
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
    out = {}
    for r in runs:
        m = re.search(r"--iree-gpu-test-target=(\S+)", r)
        t = m.group(1) if m else default
        p = re.search(r"--check-prefix(?:es)?=(\S+)", r)
        out.setdefault(t, set()).update(p.group(1).split(",") if p else ["CHECK"])
    return sorted(out.items()) or [(default, {"CHECK"})]


def bracketed(s, i):
    """The balanced [...] starting at s[i], or None."""
    depth = 0
    for j in range(i, len(s)):
        depth += {"[": 1, "]": -1}.get(s[j], 0)
        if depth == 0:
            return s[i:j + 1]
    return None


def expected_config(case, prefixes):
    """What IREE's FileCheck lines for these prefixes say the strategy is:
    the pipeline, workgroup and subgroup sizes, and each `key = [...]` of a
    lowering config.  Fragments that still hold a FileCheck regex after the
    usual `{{\\[}}` escape is undone are left out (they are patterns, not
    values)."""
    lines = []
    for line in case.splitlines():
        m = re.match(r"^//\s*([A-Z0-9_]+)(?:-(?:DAG|SAME|LABEL|NEXT))?:\s*(.*)$", line)
        if m and m.group(1) in prefixes:
            lines.append(m.group(2))
    text = " ".join(lines).replace("{{\\[}}", "[")
    facts = []
    m = re.search(r"#iree_gpu\.pipeline<(\w+)>", text)
    if m:
        facts.append(("pipeline", m.group(1)))
    for key in ("workgroup_size", "subgroup_size"):
        m = re.search(key + r"\s*=\s*(\[[^\]]*\]|\d+)", text)
        if m:
            facts.append((key, m.group(1)))
    for m in re.finditer(r"\b(workgroup|reduction|partial_reduction|thread|subgroup_basis|lane_basis|"
                         r"promote_operands|subgroup|serial)\s*=\s*\[", text):
        val = bracketed(text, m.end() - 1)
        if val and "{{" not in val:
            facts.append((m.group(1), val))
    return facts


def normal(s):
    return re.sub(r"\s+", "", s)


def config_matches(facts, out):
    """Each expected fact appears in lanescope's suggest output."""
    flat = normal(out)
    miss = []
    for key, val in facts:
        want = {"pipeline": "pipeline<" + val + ">"}.get(key, key + "=" + val)
        if normal(want) not in flat:
            miss.append(f"{key} = {val}")
    return miss


def reason(err):
    first = err.strip().splitlines()[0] if err.strip() else "(no message)"
    first = re.sub(r"^lanescope (sim|measure|explain): \S+?:(\d+:\d+: )?", "", first)
    return re.sub(r"\d+", "N", first)


# Refusals whose message says IREE's reduction pipeline does not take the
# case either (it routes it to another pipeline, or fails on the same
# config): correct answers, counted apart from what lanescope lacks.
IREE_TOO = re.compile(r"IREE's reduction heuristic rejects|IREE stops there too|IREE's legacy config")
# A config key no IREE pass reads: IREE runs as if it were absent, and
# lanescope refuses to drop it silently (neither a gap nor IREE's refusal).
NO_READER = re.compile(r"a field no IREE pass reads")
MATMUL_ROUTE = "which IREE's matmul configs"
DYN = re.compile(r"give its size with --dim (\w+)=N")
DYN_SIZE = "1024"


def run_sized(cmd0):
    """Run cmd0, giving dynamic sizes as --dim 1024 as the message asks a
    user to.  Returns (rc, stdout, stderr, dims given)."""
    dims = []
    while True:
        cmd = list(cmd0)
        for d in dims:
            cmd += ["--dim", d + "=" + DYN_SIZE]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        m = DYN.search(r.stderr)
        if r.returncode == 0 or not m or m.group(1) in dims or len(dims) > 8:
            return r.returncode, r.stdout, r.stderr, dims
        dims.append(m.group(1))


def simulate(ls, fn, t):
    """sim with the functional check.  Returns (rc, stdout, stderr, dims given)."""
    rc, out, err, dims = run_sized([ls, "sim", fn, "--target", t, "--workgroups", "4"])
    return rc, out, err, dims


def emulate(ls, fn, t, dims, limit):
    """The CUDA generator's kernel for the case, run on the CPU by
    `lanescope measure --emulate` and checked.  Returns (rc, message)."""
    cmd = [ls, "measure", fn, "--target", t, "--emulate"]
    for d in dims:
        cmd += ["--dim", d + "=" + DYN_SIZE]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return 1, f"emulation ran past {limit} s (the kernel generated; the CPU emulation is slow for it)"
    return r.returncode, (r.stdout + r.stderr).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iree", required=True, help="IREE checkout or bare git directory")
    ap.add_argument("--lanescope", default="./lanescope")
    ap.add_argument("--verbose", action="store_true", help="one line per case")
    ap.add_argument("--keep", metavar="DIR", help="write the split cases into DIR (kept after the run)")
    ap.add_argument("--cuda", action="store_true",
                    help="also run the CUDA generator on every NVIDIA (sm_*) row that simulates: "
                         "its kernel emulated on the CPU and checked (minutes)")
    ap.add_argument("--cuda-limit", type=int, default=600, metavar="S",
                    help="seconds one emulation may take (default 600)")
    a = ap.parse_args()
    cuda_ok, cuda_sim, cuda_fails = 0, 0, {}
    att_ok, att_total, att_sim = 0, 0, 0
    ok, with_dims, fails, total = 0, 0, {}, 0
    cfg_total, cfg_ok, cfg_miss, cfg_routed = 0, 0, [], []
    one_kernel, apart = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        tmp = a.keep or scratch
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
        for path in FILES:
            text = read_source(a.iree, path)
            if text is None:
                print(f"iree-heldout: {PREFIX + path}: not in {a.iree}", file=sys.stderr)
                continue
            # Only files whose RUN lines pick the strategy (IREE's
            # select-lowering-strategy or whole configuration pipeline) say
            # in their CHECK lines which config IREE chooses.
            selects = ("select-lowering-strategy" in text or "configuration-pipeline" in text)
            for n, case in enumerate(re.split(r"(?m)^// -----\s*$", text)):
                if "func.func" not in case and "util.func" not in case:
                    continue
                fn = os.path.join(tmp, f"{os.path.basename(path)[:-5]}__{n}.mlir")
                with open(fn, "w") as f:
                    f.write(case)
                name = os.path.basename(fn)
                for t, prefixes in run_lines(text):
                    total += 1
                    rc, out, err, dims = simulate(a.lanescope, fn, t)
                    if rc == 0:
                        ok += 1
                        with_dims += bool(dims)
                        # a dispatch of several loops: one kernel, or why apart
                        if "one kernel for the dispatch" in out:
                            one_kernel.append(f"{name}@{t}")
                        m = re.search(r"here timed apart: (.*)", out)
                        if m:
                            apart.setdefault(re.sub(r"\d+", "N", m.group(1)), []).append(f"{name}@{t}")
                    else:
                        fails.setdefault(reason(err), []).append(f"{name}@{t}")
                    line = f"{name} {t}: sim " + ("ok" if rc == 0 else reason(err))
                    if dims:
                        line += " (--dim " + ",".join(dims) + ")"
                    if ("iree_linalg_ext.attention" in case
                            or "iree_linalg_ext.online_attention" in case):
                        # what explain does with it: both matmuls laid out
                        xrc, xout, xerr, _ = run_sized([a.lanescope, "explain", fn, "--target", t])
                        att_total += 1
                        att_sim += rc == 0
                        att_ok += xrc == 0 and "PV matmul" in xout
                        line += "; explain " + ("lays it out" if xrc == 0 else reason(xerr))
                    if a.cuda and rc == 0 and t.startswith("sm_"):
                        crc, cmsg = emulate(a.lanescope, fn, t, dims, a.cuda_limit)
                        if crc == 0:
                            cuda_ok += 1
                            cuda_sim += ("the simulator's, bit for bit" in cmsg or
                                         "the simulator's lowered values bit for bit" in cmsg)
                            line += "; CUDA kernel emulated and checked"
                        else:
                            cuda_fails.setdefault(reason(cmsg), []).append(f"{name}@{t}")
                            line += "; CUDA: " + reason(cmsg)
                    # IREE's chosen strategy, where the case has none and
                    # its CHECK lines say which one IREE picks.
                    facts = expected_config(case, prefixes)
                    code = "\n".join(l for l in case.splitlines() if not l.lstrip().startswith("//"))
                    if selects and "lowering_config" not in code and facts:
                        cfg_total += 1
                        r = subprocess.run([a.lanescope, "suggest", fn, "--target", t],
                                           capture_output=True, text=True, timeout=120)
                        miss = config_matches(facts, r.stdout + r.stderr)
                        checks = "\n".join(l for l in case.splitlines() if "CHECK" in l)
                        matmul = "mma_kind" in checks or (
                            "TileAndFuse" in checks and "partial_reduction" not in checks)
                        if miss and matmul and MATMUL_ROUTE in r.stderr:
                            # IREE's matmul configs take it; suggest says so.
                            cfg_total -= 1
                            cfg_routed.append(f"{name}@{t}")
                            miss = None
                        elif miss:
                            cfg_miss.append(f"{name}@{t}: " + "; ".join(miss))
                        else:
                            cfg_ok += 1
                        line += "; suggest " + ("= IREE" if not miss else "differs: " + "; ".join(miss))
                        if f"{name}@{t}" in cfg_routed:
                            line = line.replace("; suggest = IREE", "; suggest: IREE's matmul config")
                    if a.verbose:
                        print(line)
    print(f"{ok} of {total} case x target rows simulate with the functional check"
          f" ({with_dims} of them with --dim {DYN_SIZE} for their dynamic sizes)")
    print(f"{len(one_kernel)} of them are dispatches of several loops timed as IREE's one kernel"
          f"{': ' + ', '.join(one_kernel[:6]) if one_kernel else ''}"
          f"{' ...' if len(one_kernel) > 6 else ''}; "
          f"{sum(len(v) for v in apart.values())} are timed one reduction at a time:")
    for why, where in sorted(apart.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    same = {w: v for w, v in fails.items() if IREE_TOO.search(w)}
    unread = {w: v for w, v in fails.items() if NO_READER.search(w)}
    lack = {w: v for w, v in fails.items() if not IREE_TOO.search(w) and not NO_READER.search(w)}
    print(f"{sum(len(v) for v in same.values())} rows refused as IREE's reduction pipeline refuses them:")
    for why, where in sorted(same.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    if unread:
        print(f"{sum(len(v) for v in unread.values())} rows refused for a config key no IREE "
              "pass reads (IREE ignores it; lanescope will not drop it silently):")
        for why, where in sorted(unread.items(), key=lambda kv: -len(kv[1])):
            print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    print(f"{sum(len(v) for v in lack.values())} rows lanescope cannot run yet:")
    for why, where in sorted(lack.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    if att_total:
        print(f"{att_sim} of {att_total} attention rows simulate (timed, values checked); "
              f"`lanescope explain` lays out both matmuls in {att_ok}")
    print(f"{cfg_ok} of {cfg_total} rows whose CHECK lines give IREE's reduction strategy: "
          "suggest gives it")
    if cfg_routed:
        print(f"{len(cfg_routed)} rows IREE gives a matmul config (MMA or TileAndFuse), which "
              "suggest names and refuses: " + ", ".join(cfg_routed))
    for m in cfg_miss:
        print("      " + m)
    if a.cuda:
        n = cuda_ok + sum(len(v) for v in cuda_fails.values())
        print(f"{cuda_ok} of {n} NVIDIA rows that simulate: the CUDA generator's kernel, "
              f"emulated on the CPU, matches the reference ({cuda_sim} of them the simulator's "
              "values bit for bit)")
        for why, where in sorted(cuda_fails.items(), key=lambda kv: -len(kv[1])):
            print(f"{len(where):4d}  {why}  (e.g. {where[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
