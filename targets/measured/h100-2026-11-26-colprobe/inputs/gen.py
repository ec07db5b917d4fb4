#!/usr/bin/env python3
"""gen.py: the column-walk probe of 2026-11-26 (see ../README.md): column
sums on the TileAndFuse pipeline and a few VectorDistribute layouts, varying
the rows each thread has in flight, the workgroups and the bytes a lane
reads, so the measured times show how the GPU's DRAM round trip grows with
the distinct rows in flight.  Writes the .mlir files and suite.txt here,
with tools/gen-suite.py's writer:

    python3 targets/measured/h100-2026-11-26-colprobe/inputs/gen.py
"""
import importlib.util
import os

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
spec = importlib.util.spec_from_file_location("gen_suite", os.path.join(root, "tools", "gen-suite.py"))
gs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gs)

COL = gs.P_COL  # colsum 4096x1024 f32, d0 reduced (16 MiB)
BIG = gs.Problem("colsum_16384x8192_f32", [16384, 8192], "rp",
                 what="column sum of 512 MiB: enough columns for every SM")

CASES = []
# TileAndFuse, 8 workgroups of 32 threads, 4 columns (16 bytes) a thread:
# R rows a trip
for r in (1, 2, 4, 8, 16):
    CASES.append(("tf_w128_t4_r%d" % r, COL, gs.tf_cfg([0, 128], [r, 0], [0, 4], 32),
                  "8 workgroups x 32 threads, 16 B a thread, %d rows a trip" % r))
# 32 workgroups of 32 threads, 1 column (4 bytes) a thread
for r in (1, 4, 16):
    CASES.append(("tf_w32_t1_r%d" % r, COL, gs.tf_cfg([0, 32], [r, 0], [0, 1], 32),
                  "32 workgroups x 32 threads, 4 B a thread, %d rows a trip" % r))
# 4 workgroups of 64 threads, 16 bytes a thread
for r in (2, 4, 8):
    CASES.append(("tf_w256_t4_r%d" % r, COL, gs.tf_cfg([0, 256], [r, 0], [0, 4], 64),
                  "4 workgroups x 64 threads, 16 B a thread, %d rows a trip" % r))
# one workgroup of 256 threads, 16 bytes a thread
CASES.append(("tf_w1024_t4_r4", COL, gs.tf_cfg([0, 1024], [4, 0], [0, 4], 256),
              "1 workgroup x 256 threads, 16 B a thread, 4 rows a trip"))
# 128 workgroups of 8 threads (a partial warp), 4 bytes a thread
CASES.append(("tf_w8_t1_r4", COL, gs.tf_cfg([0, 8], [4, 0], [0, 1], 8),
              "128 workgroups x 8 threads, 4 B a thread, 4 rows a trip"))
# the 512 MiB problem: every SM busy
CASES.append(("big_default", BIG, None, "IREE's default (TileAndFuse)"))
CASES.append(("big_tf_w128_t4_r8", BIG, gs.tf_cfg([0, 128], [8, 0], [0, 4], 32),
              "64 workgroups x 32 threads, 16 B a thread, 8 rows a trip"))
CASES.append(("big_l4x8_s4", BIG, gs.cfg([0, 8], [16, 0], [1, 0], [4, 8], [4, 1]),
              "VectorDistribute: lanes 4 (d0) x 8 (d1), 4 subgroups on d0, 1024 workgroups"))


def main():
    lines = ["# The column-walk probe (written by gen.py beside this file); format:",
             "# examples/suite/suite.txt."]
    for name, prob, c, note in CASES:
        comment = ["%s: %s." % (name, prob.what), "Config: %s." % note]
        with open(os.path.join(here, name + ".mlir"), "w") as f:
            f.write(gs.mlir(name, prob, c, comment))
        lines.append('%s %s.mlir group=%s note="%s"' % (name, name, prob.key, note))
    with open(os.path.join(here, "suite.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d cases to %s" % (len(CASES), here))


if __name__ == "__main__":
    main()
