#!/usr/bin/env python3
"""gen-suite.py: writes examples/suite/ -- the reductions `lanescope compare`
times on the simulator and on an NVIDIA GPU (subgroup size 32, model h100),
and suite.txt, the list compare reads.

The cases span what decides a reduction's time on the GPU: 1-16 subgroups
per workgroup; short and long reductions; latency-bound problems of a few
workgroups up to bandwidth-bound ones of hundreds of MB; f32, and f16 input
accumulated in f32 (arith.extf in the body, as IREE's dispatches have it);
1-8 elements per load; ragged tails (sizes that are not multiples of the
tile); IREE's default config (no lowering_config in the file: lanescope
applies IREE's heuristic for the target) and deliberately bad ones (one
element per load, too few workgroups to fill the GPU, column reductions
walked along the strided dim, cross-subgroup buffers with bank conflicts).
Cases that share a problem share a `group`, so compare can measure how well
the simulator ranks the configs of one problem.

Every file is complete dispatch IR (bindings, load, fill, the linalg.generic,
store) so `lanescope suggest` accepts the ones without a config.  The
generated files are committed; rerun after editing the table below:

    python3 tools/gen-suite.py            # from the source tree's root
    python3 tools/gen-suite.py --check    # also: every case passes
                                          # `lanescope sim --target h100`
                                          # (LANESCOPE=path/to/lanescope)
    python3 tools/gen-suite.py --test-data
        # tests/data/compare/: a 7-case suite for tests/cli_compare.sh and a
        # SYNTHETIC measured CSV made from the simulator's own times, so the
        # error figures are known exactly (see TEST_ERRORS); the pinned
        # model h100_pinned.hw is kept as it is (the test's times move only
        # when the engine does) unless --repin copies targets/h100.hw again
"""
import os
import subprocess
import sys
import time

SG = 32  # NVIDIA subgroup (warp) size

TYPE_BYTES = {"f16": 2, "f32": 4}


class Problem:
    """A reduction: sizes, which dims reduce, element types, combiner."""

    def __init__(self, key, sizes, iters, in_t="f32", acc_t="f32", comb="add", what="",
                 kind="reduce"):
        self.key, self.sizes, self.iters = key, sizes, iters
        self.in_t, self.acc_t, self.comb, self.what = in_t, acc_t, comb, what
        # reduce: the input itself; sumsq: in * in (RMSNorm's reduction);
        # matvec: [M, K] x [K] -> [M], a product of two inputs (LLM decode)
        self.kind = kind

    @property
    def rank(self):
        return len(self.sizes)

    def bytes(self):
        n = 1
        for s in self.sizes:
            n *= s
        if self.kind == "matvec":
            n += self.sizes[-1]
        return n * TYPE_BYTES[self.in_t]


def cfg(wg, part, thread, lanes, sgs, level="partial_reduction", promote=None):
    """A VectorDistribute lowering_config over the problem's dims (identity
    basis mappings); the workgroup has SG x prod(sgs) threads.  level names
    the tiling level `part` goes to: partial_reduction (the accumulator stays
    in registers across the loop) or reduction (IREE's serial level: every
    stage runs per tile, the result folds into a carried value); promote
    lists the operands IREE copies through shared memory (promote_operands)."""
    return {"wg": wg, "part": part, "thread": thread, "lanes": lanes, "sgs": sgs,
            "level": level, "promote": promote}


def tf_cfg(wg, red, thread, threads):
    """A TileAndFuse lowering_config (IREE's pipeline for outer reductions,
    isOuterReduction in LLVMGPU/KernelConfig.cpp): a `reduction` tile walked
    serially by each thread, no lanes or subgroups on the reduced dims;
    `threads` is the workgroup size."""
    return {"tf": True, "wg": wg, "red": red, "thread": thread, "threads": threads}


def row(R, P, T, Lp=1, Lr=SG, S=1):
    """2-D row reduction [M, K] -> [M]: R rows per workgroup, partial
    reduction P, T elements per load, Lp x Lr lanes (rows x reduction), S
    subgroups on the reduction."""
    assert Lp * Lr == SG and P % (Lr * T * S) == 0 and R % Lp == 0
    return cfg([R, 0], [0, P], [0, T], [Lp, Lr], [1, S])


def ilist(v):
    return "[" + ", ".join(str(x) for x in v) + "]"


def config_text(c):
    if c.get("tf"):
        return ("#iree_gpu.lowering_config<{reduction = %s, thread = %s, workgroup = %s}>"
                % (ilist(c["red"]), ilist(c["thread"]), ilist(c["wg"])))
    ident = ilist(range(len(c["wg"])))
    promote = ""
    if c.get("promote") is not None:
        promote = "promote_operands = %s, " % ilist(c["promote"])
    return ("#iree_gpu.lowering_config<{lane_basis = [%s, %s], %s = %s, %s"
            "subgroup_basis = [%s, %s], thread = %s, workgroup = %s}>"
            % (ilist(c["lanes"]), ident, c.get("level", "partial_reduction"), ilist(c["part"]),
               promote, ilist(c["sgs"]), ident, ilist(c["thread"]), ilist(c["wg"])))


def workgroup_size(c):
    if c.get("tf"):
        return c["threads"]
    n = SG
    for s in c["sgs"]:
        n *= s
    return n


def tensor(sizes, t):
    return "tensor<%s>" % "x".join([str(s) for s in sizes] + [t])


def mlir(name, prob, c, comment):
    dims = ["d%d" % i for i in range(prob.rank)]
    par = [d for d, it in zip(dims, prob.iters) if it == "p"]
    out_sizes = [s for s, it in zip(prob.sizes, prob.iters) if it == "p"]
    tin, tout = tensor(prob.sizes, prob.in_t), tensor(out_sizes, prob.acc_t)
    init = "0.000000e+00" if prob.comb == "add" else "0xFF800000"
    op = {"add": "arith.addf", "max": "arith.maxnumf"}[prob.comb]
    iters = ", ".join('"%s"' % ("parallel" if it == "p" else "reduction") for it in prob.iters)
    zeros_in, ones_in = ilist([0] * prob.rank), ilist([1] * prob.rank)
    zeros_out, ones_out = ilist([0] * len(out_sizes)), ilist([1] * len(out_sizes))
    lines = ["// %s" % ln for ln in comment]
    lines.append("// Generated by tools/gen-suite.py; part of examples/suite/suite.txt.")
    attrs = ""
    fattrs = ""
    if c is not None:
        lines.append("#config = " + config_text(c))
        lines.append("#translation = #iree_codegen.translation_info<pipeline = "
                     "%s workgroup_size = [%d, 1, 1] subgroup_size = %d>"
                     % ("LLVMGPUTileAndFuse" if c.get("tf") else "LLVMGPUVectorDistribute",
                        workgroup_size(c), SG))
        attrs = " attrs =  {lowering_config = #config}"
        fattrs = " attributes {translation_info = #translation}"
    dt = "!iree_tensor_ext.dispatch.tensor"
    mv = prob.kind == "matvec"
    tvec = tensor(prob.sizes[-1:], prob.in_t)
    if mv:
        body = ["  ^bb0(%%in: %s, %%in_0: %s, %%out: %s):" % (prob.in_t, prob.in_t, prob.acc_t)]
    else:
        body = ["  ^bb0(%%in: %s, %%out: %s):" % (prob.in_t, prob.acc_t)]
    val, val2 = "%in", "%in_0" if mv else "%in"
    if prob.in_t != prob.acc_t:
        body.append("    %%e = arith.extf %%in : %s to %s" % (prob.in_t, prob.acc_t))
        val = "%e"
        val2 = "%e"
        if mv:
            body.append("    %%e2 = arith.extf %%in_0 : %s to %s" % (prob.in_t, prob.acc_t))
            val2 = "%e2"
    if prob.kind in ("matvec", "sumsq"):
        body.append("    %%m = arith.mulf %s, %s : %s" % (val, val2, prob.acc_t))
        val = "%m"
    body.append("    %%6 = %s %s, %%out : %s" % (op, val, prob.acc_t))
    body.append("    linalg.yield %6 : " + prob.acc_t)
    out_binding = 2 if mv else 1
    maps = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(dims))
    ins = "%%2 : %s" % tin
    if mv:
        maps += ", affine_map<(%s) -> (%s)>" % (", ".join(dims), dims[-1])
        ins = "%%2, %%7 : %s, %s" % (tin, tvec)
    maps += ", affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(par))
    lines += [
        "func.func @%s()%s {" % (name, fattrs),
        "  %%cst = arith.constant %s : %s" % (init, prob.acc_t),
        "  %c0 = arith.constant 0 : index",
        "  %%0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) "
        "offset(%%c0) flags(ReadOnly) : %s<readonly:%s>" % (dt, tin),
    ]
    if mv:
        lines.append("  %%8 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) "
                     "alignment(64) offset(%%c0) flags(ReadOnly) : %s<readonly:%s>" % (dt, tvec))
    lines += [
        "  %%1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(%d) alignment(64) "
        "offset(%%c0) : %s<writeonly:%s>" % (out_binding, dt, tout),
        "  %%2 = iree_tensor_ext.dispatch.tensor.load %%0, offsets = %s, sizes = %s, strides = %s "
        ": %s<readonly:%s> -> %s" % (zeros_in, ilist(prob.sizes), ones_in, dt, tin, tin),
    ]
    if mv:
        lines.append("  %%7 = iree_tensor_ext.dispatch.tensor.load %%8, offsets = [0], sizes = "
                     "[%d], strides = [1] : %s<readonly:%s> -> %s"
                     % (prob.sizes[-1], dt, tvec, tvec))
    lines += [
        "  %%3 = tensor.empty() : %s" % tout,
        "  %%4 = linalg.fill ins(%%cst : %s) outs(%%3 : %s) -> %s" % (prob.acc_t, tout, tout),
        "  %%5 = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s) "
        "outs(%%4 : %s)%s {" % (maps, iters, ins, tout, attrs),
    ] + body + [
        "  } -> %s" % tout,
        "  iree_tensor_ext.dispatch.tensor.store %%5, %%1, offsets = %s, sizes = %s, strides = %s "
        ": %s -> %s<writeonly:%s>" % (zeros_out, ilist(out_sizes), ones_out, tout, dt, tout),
        "  return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def argmax_mlir(name, prob, c, comment):
    """An iree_linalg_ext.arg_compare over the last dim: the best f32 value
    of each row by `ogt` (argmax) or by `ogt` of absf (argabs: the ballot
    path with a transform), and its i32 index."""
    R, N = prob.sizes
    tin, tv, ti = tensor([R, N], "f32"), tensor([R], "f32"), tensor([R], "i32")
    dt = "!iree_tensor_ext.dispatch.tensor"
    lines = ["// %s" % ln for ln in comment]
    lines.append("// Generated by tools/gen-suite.py; part of examples/suite/suite.txt.")
    attrs, fattrs = "", ""
    if c is not None:
        lines.append("#config = " + config_text(c))
        lines.append("#translation = #iree_codegen.translation_info<pipeline = "
                     "LLVMGPUVectorDistribute workgroup_size = [%d, 1, 1] subgroup_size = %d>"
                     % (workgroup_size(c), SG))
        attrs = " {lowering_config = #config}"
        fattrs = " attributes {translation_info = #translation}"
    if prob.kind == "argabs":
        cmp = ["    %x = math.absf %a : f32", "    %y = math.absf %b : f32",
               "    %c = arith.cmpf ogt, %x, %y : f32"]
        init = "0.000000e+00"
    else:
        cmp = ["    %c = arith.cmpf ogt, %a, %b : f32"]
        init = "0xFF800000"
    lines += [
        "func.func @%s()%s {" % (name, fattrs),
        "  %%cst = arith.constant %s : f32" % init,
        "  %zero = arith.constant 0 : i32",
        "  %c0 = arith.constant 0 : index",
        "  %%0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) "
        "offset(%%c0) flags(ReadOnly) : %s<readonly:%s>" % (dt, tin),
        "  %%1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) "
        "offset(%%c0) : %s<writeonly:%s>" % (dt, tv),
        "  %%2 = hal.interface.binding.subspan layout(#pipeline_layout) binding(2) alignment(64) "
        "offset(%%c0) : %s<writeonly:%s>" % (dt, ti),
        "  %%3 = iree_tensor_ext.dispatch.tensor.load %%0, offsets = [0, 0], sizes = [%d, %d], "
        "strides = [1, 1] : %s<readonly:%s> -> %s" % (R, N, dt, tin, tin),
        "  %%4 = tensor.empty() : %s" % tv,
        "  %%5 = tensor.empty() : %s" % ti,
        "  %%6 = linalg.fill ins(%%cst : f32) outs(%%4 : %s) -> %s" % (tv, tv),
        "  %%7 = linalg.fill ins(%%zero : i32) outs(%%5 : %s) -> %s" % (ti, ti),
        "  %%8:2 = iree_linalg_ext.arg_compare%s dimension(1)" % attrs,
        "    ins(%%3 : %s) outs(%%6, %%7 : %s, %s) {" % (tin, tv, ti),
        "  ^bb0(%a: f32, %b: f32):",
    ] + cmp + [
        "    iree_linalg_ext.yield %c : i1",
        "  } -> %s, %s" % (tv, ti),
        "  iree_tensor_ext.dispatch.tensor.store %%8#0, %%1, offsets = [0], sizes = [%d], "
        "strides = [1] : %s -> %s<writeonly:%s>" % (R, tv, dt, tv),
        "  iree_tensor_ext.dispatch.tensor.store %%8#1, %%2, offsets = [0], sizes = [%d], "
        "strides = [1] : %s -> %s<writeonly:%s>" % (R, ti, dt, ti),
        "  return",
        "}",
    ]
    return "\n".join(lines) + "\n"


# ---- the problems ----
P_ROW4K = Problem("rowsum_4096x4096_f32", [4096, 4096], "pr",
                  what="64 MiB f32 row sum: bandwidth-bound")
P_ROW8K16 = Problem("rowsum_8192x8192_f16", [8192, 8192], "pr", "f16", "f32",
                    what="128 MiB f16 row sum accumulated in f32: bandwidth-bound")
P_HUGE = Problem("rowsum_8192x16384_f32", [8192, 16384], "pr",
                 what="512 MiB f32 row sum: bandwidth-bound, well past the 50 MB L2")
P_TINY = Problem("rowsum_8x1024_f32", [8, 1024], "pr",
                 what="8 rows of 1024: 8 workgroups at most, latency-bound")
P_ONE = Problem("sum_1x8192_f32", [1, 8192], "pr",
                what="one row of 8192: a single workgroup, latency-bound")
P_FEW = Problem("rowsum_32x65536_f32", [32, 65536], "pr",
                what="32 long rows (8 MiB): one workgroup per row cannot fill 132 SMs")
P_SHORT = Problem("rowsum_65536x64_f16", [65536, 64], "pr", "f16", "f32",
                  what="65536 rows of 64 f16 (8 MiB): short reductions")
P_RAG1 = Problem("ragged_1000x1000_f32", [1000, 1000], "pr",
                 what="1000x1000 f32: tiles do not divide the reduction (ragged tail)")
P_RAG2 = Problem("ragged_4099x777_f16", [4099, 777], "pr", "f16", "f32",
                 what="4099x777 f16->f32: ragged rows and ragged reduction")
P_BANK = Problem("rowsum_8192x512_f32", [8192, 512], "pr",
                 what="8192x512 f32 (16 MiB): rows per workgroup and the cross-subgroup buffer")
P_TWO = Problem("sum_4096x32x128_f16", [4096, 32, 128], "prr", "f16", "f32",
                what="seed Example 3's shape: two reduction dims, f16->f32")
P_COL = Problem("colsum_4096x1024_f32", [4096, 1024], "rp",
                what="column sum: the reduced dim d0 is the strided one")
P_MAX = Problem("rowmax_2048x2048_f32", [2048, 2048], "pr", comb="max",
                what="2048x2048 f32 row max (maxnumf)")
P_BATCH = Problem("batch_16x512x1024_f16", [16, 512, 1024], "ppr", "f16", "f32",
                  what="16x512 rows of 1024 f16->f32 (16 MiB), two parallel dims")

P_MV = Problem("matvec_32000x4096_f16", [32000, 4096], "pr", "f16", "f16", kind="matvec",
               what="LLM decode: 32000x4096 f16 weights times a 4096 vector (250 MiB)")
P_MV32 = Problem("matvec_4096x4096_f16_f32", [4096, 4096], "pr", "f16", "f32", kind="matvec",
                 what="4096x4096 f16 matvec accumulated in f32 (32 MiB, extf on both operands)")
P_ARGMAX = Problem("argmax_512x32000_f32", [512, 32000], "pr", kind="argmax",
                  what="argmax over a 32000-entry vocabulary, 512 rows (iree_linalg_ext.arg_compare)")
P_ARGABS = Problem("argabs_512x32000_f32", [512, 32000], "pr", kind="argabs",
                   what="arg_compare of |x| (the ballot path with a transform U = absf)")
P_SSQ = Problem("sumsq_4096x4096_f32", [4096, 4096], "pr", kind="sumsq",
                what="RMSNorm's reduction: sum of squares of 4096x4096 f32 (64 MiB)")

# (name, problem, config or None for IREE's default, note)
CASES = [
    ("rowsum4k_default", P_ROW4K, None, "IREE's default: 4 per load, 1 subgroup, partial 128"),
    ("rowsum4k_t1_s1", P_ROW4K, row(1, 32, 1), "bad: 1 element per load"),
    ("rowsum4k_t2_s1", P_ROW4K, row(1, 64, 2), "2 per load"),
    ("rowsum4k_t4_s4", P_ROW4K, row(1, 512, 4, S=4), "4 subgroups on the row"),
    ("rowsum4k_t4_s16", P_ROW4K, row(1, 2048, 4, S=16), "16 subgroups (512 threads)"),
    ("rowsum4k_t4_s8_p4096", P_ROW4K, row(1, 4096, 4, S=8), "8 subgroups, whole row per step"),
    ("rowsum4k_l4x8_r4", P_ROW4K, row(4, 32, 4, Lp=4, Lr=8), "lanes 4 rows x 8, 4 rows per workgroup"),

    ("rowsum8k16_default", P_ROW8K16, None, "IREE's default: 8 per load, 1 subgroup, partial 256"),
    ("rowsum8k16_t8_s16", P_ROW8K16, row(1, 4096, 8, S=16), "8 per load, 16 subgroups"),
    ("rowsum8k16_t8_s4", P_ROW8K16, row(1, 1024, 8, S=4), "8 per load, 4 subgroups"),
    ("rowsum8k16_t1_s1", P_ROW8K16, row(1, 32, 1), "bad: 1 f16 element per load"),
    ("rowsum8k16_t2_s8", P_ROW8K16, row(1, 512, 2, S=8), "2 per load, 8 subgroups"),
    ("rowsum8k16_t4_s2", P_ROW8K16, row(1, 256, 4, S=2), "4 per load, 2 subgroups"),

    ("huge_default", P_HUGE, None, "IREE's default: 4 per load, 1 subgroup, partial 128"),
    ("huge_t4_s4", P_HUGE, row(1, 512, 4, S=4), "4 subgroups"),
    ("huge_t1_s1", P_HUGE, row(1, 32, 1), "bad: 1 element per load"),
    ("huge_t4_s16", P_HUGE, row(1, 2048, 4, S=16), "16 subgroups"),

    ("tiny8_default", P_TINY, None, "IREE's default: 4 per load, 8 subgroups, the whole row per step"),
    ("tiny8_t4_s1", P_TINY, row(1, 128, 4), "1 subgroup, 8 steps"),
    ("tiny8_t1_s8", P_TINY, row(1, 256, 1, S=8), "bad: 1 per load, 8 subgroups, 4 steps"),
    ("tiny8_t2_s16", P_TINY, row(1, 1024, 2, S=16), "16 subgroups, 2 per load"),
    ("tiny8_t4_s4", P_TINY, row(1, 512, 4, S=4), "4 subgroups, 2 steps"),

    ("one_default", P_ONE, None, "IREE's default: 4 per load, 32 subgroups (1024 threads)"),
    ("one_t4_s16", P_ONE, row(1, 2048, 4, S=16), "16 subgroups"),
    ("one_t4_s1", P_ONE, row(1, 128, 4), "1 subgroup: 64 serial steps"),

    ("few_default", P_FEW, None, "IREE's default: 4 per load, 32 subgroups (1024 threads)"),
    ("few_t4_s1", P_FEW, row(1, 128, 4), "bad: 32 single-warp workgroups"),
    ("few_t4_s4", P_FEW, row(1, 512, 4, S=4), "4 subgroups"),
    ("few_t4_s16", P_FEW, row(1, 2048, 4, S=16), "16 subgroups"),

    ("short_default", P_SHORT, None, "IREE's default: 2 per load, one row per warp"),
    ("short_l2x16_t4", P_SHORT, row(2, 64, 4, Lp=2, Lr=16), "2 rows per warp, 4 per load"),
    ("short_l4x8_t8", P_SHORT, row(4, 64, 8, Lp=4, Lr=8), "4 rows per warp, 8 per load"),
    ("short_l8x4_t8_s2", P_SHORT, row(8, 64, 8, Lp=8, Lr=4, S=2), "8 rows, 2 subgroups"),
    ("short_l32x1_t8", P_SHORT, row(32, 64, 8, Lp=32, Lr=1), "bad: each lane walks its own row"),

    ("ragged1000_t4_s1", P_RAG1, row(1, 128, 4), "1000 = 7 x 128 + 104"),
    ("ragged1000_t4_s4", P_RAG1, row(1, 512, 4, S=4), "1000 = 512 + 488"),
    ("ragged1000_t1_s2", P_RAG1, row(1, 64, 1, S=2), "bad: 1 per load; 1000 = 15 x 64 + 40"),

    ("ragged4099_t8_s1", P_RAG2, row(1, 256, 8), "777 = 3 x 256 + 9"),
    ("ragged4099_l4x8_t2_r4", P_RAG2, row(4, 64, 2, Lp=4, Lr=8), "4 rows per workgroup: 4099 = 1024 x 4 + 3"),
    ("ragged4099_t8_s2", P_RAG2, row(1, 512, 8, S=2), "777 = 512 + 265"),

    ("bank_default", P_BANK, None, "IREE's default: 4 per load, 1 subgroup, partial 128"),
    ("bank_l32x1_s2", P_BANK, row(32, 8, 4, Lp=32, Lr=1, S=2), "bad: 32 rows x 2 subgroups, 4-way bank conflicts"),
    ("bank_l16x2_s2", P_BANK, row(16, 16, 4, Lp=16, Lr=2, S=2), "16 rows x 2 subgroups, 2-way bank conflicts"),
    ("bank_l1x32_s2", P_BANK, row(1, 256, 4, S=2), "1 row x 2 subgroups: no conflicts"),
    ("bank_l4x8_s4", P_BANK, row(4, 128, 4, Lp=4, Lr=8, S=4), "4 rows x 4 subgroups"),

    ("two_default", P_TWO, None, "IREE's default: 1 row, d1 walked serially, 4 per load on d2"),
    ("two_ex3", P_TWO, cfg([8, 0, 0], [0, 1, 128], [0, 1, 4], [1, 1, 32], [1, 1, 1]),
     "seed Example 3's config for 32 lanes: d1 serial, 8 rows per workgroup"),
    ("two_r1_s4", P_TWO, cfg([1, 0, 0], [0, 4, 128], [0, 1, 4], [1, 1, 32], [1, 4, 1]),
     "1 row, 4 subgroups on d1"),

    # IREE sends an outer reduction to TileAndFuse (LLVMGPU/KernelConfig.cpp,
    # isOuterReduction), so no VectorDistribute config is IREE's default
    # here; this is what its reduction heuristic would give on sm_90.
    ("col_l32_s8", P_COL, cfg([0, 1], [1024, 0], [4, 0], [32, 1], [8, 1]),
     "the reduction heuristic's config: lanes on the strided reduced dim"),
    ("col_lanes_par", P_COL, cfg([0, 32], [4, 0], [1, 0], [1, 32], [1, 1]),
     "bad: lanes on the contiguous dim, but only 32 workgroups walk all 4096 rows"),
    ("col_lanes_par_s4", P_COL, cfg([0, 32], [16, 0], [1, 0], [1, 32], [4, 1]),
     "lanes on the contiguous dim, 4 subgroups on d0, 32 workgroups"),
    ("col_l4x8_s4", P_COL, cfg([0, 8], [16, 0], [1, 0], [4, 8], [4, 1]),
     "lanes 4 (d0) x 8 (d1), 4 subgroups on d0, 128 workgroups"),

    ("max2k_default", P_MAX, None, "IREE's default: 4 per load, 1 subgroup, partial 128"),
    ("max2k_t4_s2", P_MAX, row(1, 256, 4, S=2), "2 subgroups"),
    ("max2k_t1_s1", P_MAX, row(1, 32, 1), "bad: 1 per load"),

    ("batch_default", P_BATCH, None, "IREE's default: 8 per load, 1 subgroup, partial 256"),
    ("batch_t8_s2", P_BATCH, cfg([1, 1, 0], [0, 0, 512], [0, 0, 8], [1, 1, 32], [1, 1, 2]),
     "8 per load, 2 subgroups"),

    ("mv_default", P_MV, None, "IREE's default: 8 per load, 1 subgroup, partial 256"),
    ("mv_t8_s4", P_MV, row(1, 1024, 8, S=4), "8 per load, 4 subgroups on the row"),
    ("mv_t8_s16", P_MV, row(1, 4096, 8, S=16), "8 per load, 16 subgroups: the whole row per step"),
    ("mv_l4x8_r4", P_MV, row(4, 64, 8, Lp=4, Lr=8), "lanes 4 rows x 8, 4 rows per workgroup"),
    ("mv_t1_s1", P_MV, row(1, 32, 1), "bad: 1 element of each operand per load"),

    ("mv32_default", P_MV32, None, "IREE's default: 8 per load, 1 subgroup, partial 256"),
    ("mv32_t8_s4", P_MV32, row(1, 1024, 8, S=4), "4 subgroups"),
    ("mv32_t2_s1", P_MV32, row(1, 64, 2), "2 per load"),

    ("ssq_default", P_SSQ, None, "IREE's default: 4 per load, 1 subgroup, partial 128"),
    ("ssq_t4_s4", P_SSQ, row(1, 512, 4, S=4), "4 subgroups"),

    # The TileAndFuse pipeline (IREE's default for this outer reduction):
    # each thread walks d0 for its own columns, no shuffles, no barriers.
    ("col_default", P_COL, None,
     "IREE's default: TileAndFuse, 4 columns a thread, 128 a workgroup, rows 4 at a time"),
    ("col_tf_w32_t1", P_COL, tf_cfg([0, 32], [4, 0], [0, 1], 32),
     "TileAndFuse, 1 column a thread: 32 workgroups"),
    ("col_tf_w256_t4_r8", P_COL, tf_cfg([0, 256], [8, 0], [0, 4], 64),
     "TileAndFuse, 4 columns a thread, 64 threads, rows 8 at a time: 4 workgroups"),

    # IREE's serial `reduction` level: every stage, the cross-subgroup
    # buffer and its barriers included, runs once per tile, and each tile's
    # result folds into a carried value (no partial accumulator).
    ("rowsum4k_serial_t4_s2", P_ROW4K, cfg([1, 0], [0, 256], [0, 4], [1, 32], [1, 2], "reduction"),
     "serial reduction level: tiles of 256, 2 subgroups, 16 tiles a row"),
    ("rowsum4k_serial_t4_s8", P_ROW4K, cfg([1, 0], [0, 1024], [0, 4], [1, 32], [1, 8], "reduction"),
     "serial reduction level: tiles of 1024, 8 subgroups, 4 tiles a row"),
    ("ragged1000_serial_t4_s2", P_RAG1, cfg([1, 0], [0, 256], [0, 4], [1, 32], [1, 2], "reduction"),
     "serial reduction level: 1000 = 3 x 256 + 232"),

    # Promoted operands (promote_operands): tiles copied through padded
    # shared memory, two barriers a tile; 4 rows a workgroup, a subgroup each.
    ("mv_serial_r4_s4", P_MV, cfg([4, 0], [0, 256], [0, 8], [1, 32], [4, 1], "reduction"),
     "serial level, 4 rows a workgroup (a subgroup each), nothing promoted"),
    ("mv_promote1_r4_s4", P_MV, cfg([4, 0], [0, 256], [0, 8], [1, 32], [4, 1], "reduction", [1]),
     "as mv_serial_r4_s4 with the vector promoted to shared memory"),
    ("mv_promote01_r4_s4", P_MV, cfg([4, 0], [0, 256], [0, 8], [1, 32], [4, 1], "reduction", [0, 1]),
     "as mv_serial_r4_s4 with the matrix and the vector promoted"),

    ("argmax_default", P_ARGMAX, None, "IREE's default for an arg_compare"),
    ("argmax_t4_s4", P_ARGMAX, row(1, 512, 4, S=4), "4 per load, 4 subgroups: a second ballot over the buffers"),
    ("argabs_default", P_ARGABS, None, "IREE's default; the winner's value shuffled too"),
]

# Decode attention (iree_linalg_ext.attention, one query row per head, f16,
# the softmax in f32): B heads, K2 keys, head dim D (K1 = N = D).  Measured
# as the kernel `lanescope measure` generates for it (src/cuda/
# codegen_attention.c), its outputs equal to the simulator's lowered values
# bit for bit.  (name, group, B, K2, D, config or None, note); a config is
# (workgroup N tile, K2 level, K2 tile, workgroup size, qk attrs, pv attrs),
# each attrs (thread, lane_basis, subgroup_basis) over the matmul's loops.
ATT_DEFAULT_QK = ("[0, 0, 8, 0]", "[[1, 1, 1, 2, 16], [1, 0, 3, 4]]",
                  "[[1, 1, 1, 1, 8], [0, 1, 2, 4]]")
ATT_DEFAULT_PV = ("[0, 0, 0, 8]", "[[1, 1, 1, 2, 16], [1, 0, 4, 3]]",
                  "[[1, 1, 1, 1, 8], [0, 1, 4, 3]]")
ATTENTION = [
    ("att32_default", "attention_32x8192x128_f16", 32, 8192, 128, None,
     "IREE's default: 8 subgroups on K2, 2x16 lanes (K1 x K2), 128 keys a step, merged after"),
    ("att32_serial", "attention_32x8192x128_f16", 32, 8192, 128,
     (32, "reduction", 128, 256, ATT_DEFAULT_QK, ATT_DEFAULT_PV),
     "IREE's layouts with a reduction tile: max, sum and PV reduced over K2 every step"),
    ("att32_sg_on_n", "attention_32x8192x128_f16", 32, 8192, 128,
     (32, "partial_reduction", 128, 256,
      ("[0, 0, 8, 0]", "[[1, 1, 1, 2, 16], [1, 0, 3, 4]]", "[[1, 1, 1, 1, 8], [0, 1, 2, 3]]"),
      ("[0, 0, 0, 2]", "[[1, 1, 1, 2, 16], [1, 0, 4, 3]]", "[[1, 1, 1, 1, 8], [0, 1, 3, 4]]")),
     "8 subgroups split N: every subgroup recomputes the scores (QK replicated), no merge round"),
    ("att4_default", "attention_4x1024x64_f16", 4, 1024, 64, None,
     "IREE's default on a small problem: few workgroups, latency-bound"),
    ("att32_slots4", "attention_32x8192x128_f16", 32, 8192, 128,
     (32, "partial_reduction", 512, 256,
      ("[0, 0, 8, 4]", "[[1, 1, 1, 2, 16], [1, 0, 3, 4]]", "[[1, 1, 1, 1, 8], [0, 1, 2, 4]]"),
      ("[0, 0, 4, 8]", "[[1, 1, 1, 2, 16], [1, 0, 4, 3]]", "[[1, 1, 1, 1, 8], [0, 1, 4, 3]]")),
     "4 key slots a thread (512 keys a step): each slot its own softmax, the slots' maxes "
     "folded as a tree in the merge"),
    ("att32_slots4_serial", "attention_32x8192x128_f16", 32, 8192, 128,
     (32, "reduction", 512, 256,
      ("[0, 0, 8, 4]", "[[1, 1, 1, 2, 16], [1, 0, 3, 4]]", "[[1, 1, 1, 1, 8], [0, 1, 2, 4]]"),
      ("[0, 0, 4, 8]", "[[1, 1, 1, 2, 16], [1, 0, 4, 3]]", "[[1, 1, 1, 1, 8], [0, 1, 4, 3]]")),
     "4 key slots a thread, reduced over K2 every step: a tree of the 4 scores' max, chains "
     "of their sums and PV"),
]


def attention_mlir(name, B, K2, D, c, comment):
    q, kv = "tensor<%dx1x%dxf16>" % (B, D), "tensor<%dx%dx%dxf16>" % (B, K2, D)
    lines = ["// %s" % ln for ln in comment]
    lines += ["#pipeline_layout = #hal.pipeline.layout<bindings = ["]
    lines += ["  #hal.pipeline.binding<storage_buffer>,"] * 3
    lines += ["  #hal.pipeline.binding<storage_buffer>", "]>"]
    attrs, cfg = "", ""
    if c is not None:
        ntile, level, ktile, wg, qk, pv = c
        lines.append("#translation = #iree_codegen.translation_info<pipeline = "
                     "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [%d, 1, 1] "
                     "subgroup_size = %d>" % (wg, SG))
        attrs = " attributes {translation_info = #translation}"

        def part(t):
            return ("#iree_gpu.lowering_config<{thread = %s, lane_basis = %s, "
                    "subgroup_basis = %s}>" % t)
        cfg = (",\n      lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0, 0, "
               "%d], %s = [0, 0, 0, %d, 0]}>,\n      decomposition_config = {qk_attrs = "
               "{lowering_config = %s}, pv_attrs = {lowering_config = %s}}"
               % (ntile, level, ktile, part(qk), part(pv)))
    lines.append("func.func @%s()%s {" % (name, attrs))
    lines.append("  %%scale = arith.constant %s : f16" % ("8.837890e-02" if D == 128 else "1.250000e-01"))
    lines.append("  %c0 = arith.constant 0 : index")
    for i, (t, ro) in enumerate([(q, True), (kv, True), (kv, True), (q, False)]):
        lines.append("  %%%d = hal.interface.binding.subspan layout(#pipeline_layout) binding(%d) "
                     "alignment(64) offset(%%c0)%s : !iree_tensor_ext.dispatch.tensor<%s:%s>"
                     % (i, i, " flags(ReadOnly)" if ro else "",
                        "readonly" if ro else "writeonly", t))
    for v, i, t, sz in [("q", 0, q, [B, 1, D]), ("k", 1, kv, [B, K2, D]), ("v", 2, kv, [B, K2, D])]:
        lines.append("  %%%s = iree_tensor_ext.dispatch.tensor.load %%%d, offsets = [0, 0, 0], "
                     "sizes = %s, strides = [1, 1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:"
                     "%s> -> %s" % (v, i, ilist(sz), t, t))
    maps = ["(d0, d1, d2)", "(d0, d3, d2)", "(d0, d3, d4)", "()", "(d0, d1, d4)"]
    lines.append("  %%out = tensor.empty() : %s" % q)
    lines.append("  %%o = iree_linalg_ext.attention {indexing_maps = [%s]%s}"
                 % (", ".join("affine_map<(d0, d1, d2, d3, d4) -> %s>" % m for m in maps), cfg))
    lines.append("      ins(%%q, %%k, %%v, %%scale : %s, %s, %s, f16)" % (q, kv, kv))
    lines.append("      outs(%%out : %s) {" % q)
    lines.append("    ^bb0(%score: f32):")
    lines.append("      iree_linalg_ext.yield %score : f32")
    lines.append("  } -> %s" % q)
    lines.append("  iree_tensor_ext.dispatch.tensor.store %%o, %%3, offsets = [0, 0, 0], sizes = %s, "
                 "strides = [1, 1, 1] : %s -> !iree_tensor_ext.dispatch.tensor<writeonly:%s>"
                 % (ilist([B, 1, D]), q, q))
    lines += ["  return", "}", ""]
    return "\n".join(lines)


# Cases that are one reduction of a multi-op dispatch elsewhere in
# examples/: (name, file relative to examples/suite, reduction=K, note).
# Each is measured as its own kernel; inputs that are another reduction's
# results get that reduction's reference values.
MULTI = [
    ("softmax_max", "../softmax_4096x32000_f32.mlir", 1,
     "softmax 4096x32000 f32, its max reduction (IREE's default config)"),
    ("softmax_sum", "../softmax_4096x32000_f32.mlir", 2,
     "softmax 4096x32000 f32, its sum of exp(x - max) (IREE's default config)"),
]

# Dispatches measured as the one kernel `sim` times (kernel=dispatch): every
# loop in one launch, every phase's outputs checked.  (name, file, note)
KERNELS = [
    ("softmax_kernel", "../softmax_4096x32000_f32.mlir",
     "softmax 4096x32000 f32 as one kernel: max, sum, divide (IREE's default configs)"),
]


def header(groups):
    return """\
# examples/suite/suite.txt: the comparison suite for `lanescope compare`
# (simulated vs measured times), for an NVIDIA target: subgroup size 32,
# hardware model h100 (sm_90).  Generated by tools/gen-suite.py.
#
# Format: one case per line,
#
#     NAME FILE [group=G] [note="..."] [reduction=K] [kernel=dispatch]
#
# NAME    the case's name: letters, digits and _ . + - (unique in the suite;
#         the measured CSV's rows are matched to cases by it)
# FILE    an .mlir file with exactly one reduction (or see reduction=K), or one
#         decode attention op, relative to this file's folder (absolute paths
#         are taken as they are)
# group=G cases with the same G are configs of one problem: compare reports
#         how well the simulator ranks them (Spearman rho, Kendall tau-b)
# note=   free text, in double quotes (\\" and \\\\ escape)
# reduction=K  FILE holds several reductions (a softmax): the case is the
#         K-th, as `lanescope sim` lists them, measured as its own kernel
# kernel=dispatch  the case is the dispatch (of reduction K, else the
#         first) as the one kernel `sim` times: every loop in one launch
#
# Blank lines and lines starting with # are skipped; a # after the fields
# starts a comment.  Files without a lowering_config get IREE's default
# config for the target, as `lanescope sim` gives them.
#
# %d cases in %d groups, %d single reductions of multi-op dispatches,
# %d dispatch%s as one kernel, and %d decode attention ops in %d groups (a
# file whose one op is an attention: the kernel `lanescope measure` makes).
""" % (len(CASES), len(groups), len(MULTI), len(KERNELS), "" if len(KERNELS) == 1 else "es",
       len(ATTENTION), len(set(a[1] for a in ATTENTION)))


# ---- tests/data/compare: the CLI test's suite and synthetic "measurements" ----
# Each case's synthetic measured time is simulated / (1 + e), so its error,
# (simulated - measured) / measured, is exactly e whatever the simulator
# says; the orders are chosen so that one pair of the `tiny` group swaps.
# Worked by hand from these e (tests/cli_compare.sh checks them):
#   |e| = 10, 60, 10, 2, 30, 8, 4 (%): mean 124 / 7 = 17.7, worst 60
#   (tiny_t4_s4), 90th percentile: sorted 2 4 8 10 10 30 60, h = 0.9 x 6 =
#   5.4, 30 + 0.4 x (60 - 30) = 42.0; mean signed 84 / 7 = +12.0.
#   tiny: simulated default < t4_s4 < t4_s1; measured t4_s4 < default <
#   t4_s1 (e = +60% and -10% swap the first two: 4.106 / 1.6 < 3.701 / 0.9,
#   times with the model's 3 us launch):
#   one discordant pair of 3, tau-b = (2 - 1) / 3 = 0.333; rho = 1 - 6 x 2 /
#   (3 x 8) = 0.5.  few: orders agree, tau-b = rho = 1.  Mean tau-b 0.667.
TEST_SUITE = [  # (name, source case in examples/suite, group, e)
    ("tiny_t4_s1", "tiny8_t4_s1", "tiny", 0.10),
    ("tiny_t4_s4", "tiny8_t4_s4", "tiny", 0.60),
    ("tiny_default", "tiny8_default", "tiny", -0.10),
    ("few_t4_s1", "few_t4_s1", "few", -0.02),
    ("few_t4_s4", "few_t4_s4", "few", 0.30),
    ("few_t4_s16", "few_t4_s16", "few", -0.08),
    ("ragged", "ragged1000_t4_s1", None, 0.04),
]


def test_data(root, repin):
    import json
    import shutil
    out = os.path.join(root, "tests", "data", "compare")
    os.makedirs(out, exist_ok=True)
    exe = os.environ.get("LANESCOPE", "lanescope")
    model = os.path.join(out, "h100_pinned.hw")
    with open(os.path.join(root, "targets", "h100.hw")) as f:
        hw = f.read()
    if repin or not os.path.exists(model):
        with open(model, "w") as f:
            f.write("# tests/data/compare/h100_pinned.hw: a copy of targets/h100.hw (written\n"
                    "# by tools/gen-suite.py --test-data --repin) pinned for\n"
                    "# tests/cli_compare.sh, so that calibrating targets/h100.hw does not\n"
                    "# change the test's simulated times.\n" + hw)
    lines = ["# tests/data/compare/suite.txt: the suite of tests/cli_compare.sh (written by",
             "# tools/gen-suite.py --test-data); the .mlir files are copies of",
             "# examples/suite/ cases.  Format: examples/suite/suite.txt."]
    rows = []
    for name, src, group, e in TEST_SUITE:
        shutil.copyfile(os.path.join(root, "examples", "suite", src + ".mlir"),
                        os.path.join(out, name + ".mlir"))
        lines.append('%s %s.mlir%s note="copy of examples/suite/%s.mlir"'
                     % (name, name, " group=" + group if group else "", src))
        r = subprocess.run([exe, "sim", "--no-check", "--json", "--target", model,
                            os.path.join(out, name + ".mlir")],
                           capture_output=True, text=True, check=True)
        sim = json.loads(r.stdout)["reductions"][0]["time_us"]
        m = "%.6g" % (sim / (1 + e))
        rows.append("%s,%s,%s,%s,1,,,synthetic," % (name, m, m, m))
        print("%-13s simulated %.6g us, e %+.0f%%, synthetic measured %s us" % (name, sim, 100 * e, m))
    with open(os.path.join(out, "suite.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "measured_synthetic.csv"), "w") as f:
        f.write("# lanescope measured kernel times (format: include/lanescope/compare.h)\n"
                "# synthetic: test data for tests/cli_compare.sh, not measurements: measured_us = "
                "simulated_us / (1 + e), e chosen by hand in tools/gen-suite.py\n"
                "# gpu: none (synthetic)\n"
                "# command: python3 tools/gen-suite.py --test-data\n"
                "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date\n")
        f.write("\n".join(rows) + "\n")
    print("wrote %s" % out)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--test-data" in argv:
        test_data(root, "--repin" in argv)
        return 0
    out = os.path.join(root, "examples", "suite")
    os.makedirs(out, exist_ok=True)
    names = set()
    groups = []
    lines = []
    for name, prob, c, note in CASES:
        assert name not in names, name
        names.add(name)
        if prob.key not in groups:
            groups.append(prob.key)
        comment = ["%s: %s." % (name, prob.what), "Config: %s." % note]
        if c is None:
            comment.append("No lowering_config: lanescope applies IREE's heuristic for the "
                           "target (see `lanescope suggest`).")
        gen = argmax_mlir if prob.kind in ("argmax", "argabs") else mlir
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(gen(name, prob, c, comment))
        lines.append('%s %s.mlir group=%s note="%s"' % (name, name, prob.key, note))
    with open(os.path.join(out, "suite.txt"), "w") as f:
        f.write(header(groups))
        # one block per problem, in the order problems first appear
        for key in groups:
            block = [(prob, ln) for (_, prob, _, _), ln in zip(CASES, lines) if prob.key == key]
            f.write("\n# %s: %s\n" % (key, block[0][0].what))
            f.writelines(ln + "\n" for _, ln in block)
        f.write("\n# one reduction of a multi-op dispatch each (reduction=K)\n")
        for name, path, k, note in MULTI:
            assert name not in names, name
            names.add(name)
            f.write('%s %s reduction=%d note="%s"\n' % (name, path, k, note))
        f.write("\n# a multi-op dispatch as its one kernel (kernel=dispatch)\n")
        for name, path, note in KERNELS:
            assert name not in names, name
            names.add(name)
            f.write('%s %s kernel=dispatch note="%s"\n' % (name, path, note))
        f.write("\n# decode attention (a file whose one op is an attention)\n")
        for name, group, B, K2, D, c, note in ATTENTION:
            assert name not in names, name
            names.add(name)
            comment = ["%s: decode attention, %d heads, %d keys, head dim %d, f16." % (name, B, K2, D),
                       "Config: %s." % note]
            if c is None:
                comment.append("No config: lanescope applies IREE's setAttentionReductionConfig "
                               "for the target (see `lanescope explain`).")
            with open(os.path.join(out, name + ".mlir"), "w") as g:
                g.write(attention_mlir(name, B, K2, D, c, comment))
            f.write('%s %s.mlir group=%s note="%s"\n' % (name, name, group, note))
    print("wrote %d cases in %d groups to %s" % (len(CASES), len(groups), out))
    with open(os.path.join(root, "Makefile.am")) as f:
        am = f.read()
    unlisted = [n for n in ["suite.txt"] + [c[0] + ".mlir" for c in CASES + ATTENTION]
                if "examples/suite/" + n not in am]
    if unlisted:
        print("Makefile.am: add to dist_suite_DATA: " +
              " ".join("examples/suite/" + n for n in unlisted))
    if "--check" in argv:
        exe = os.environ.get("LANESCOPE", "lanescope")
        total = 0.0
        for name in [c[0] for c in CASES + ATTENTION]:
            path = os.path.join(out, name + ".mlir")
            took = []
            for extra in (["--no-check"], []):
                t0 = time.time()
                r = subprocess.run([exe, "sim", "--target", "h100"] + extra + [path],
                                   capture_output=True, text=True)
                took.append(time.time() - t0)
                if r.returncode != 0:
                    sys.stderr.write("%s: %s" % (name, r.stderr))
                    return 1
            total += took[0]
            print("%-26s ok  sim --no-check %.2f s, with the check %.2f s"
                  % (name, took[0], took[1]))
        print("total sim --no-check: %.1f s" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
