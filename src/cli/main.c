/* main.c: the lanescope command line: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lanescope/atomic.h"
#include "config.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope COMMAND [ARGS]\n"
            "\n"
            "Simulate and visualise the GPU reductions IREE lowers from its lowering configs.\n"
            "\n"
            "commands:\n"
            "  explain [INPUT] [--thread N] [--format text|md|json]\n"
            "          the worked-example analysis of a lowering config, nested layout or\n"
            "          swizzle, computed (INPUT: .mlir file; none: a bundled example)\n"
            "  sim INPUT [--target MODEL] [--json|--csv] [--trace FILE]\n"
            "          lower the reductions as IREE's VectorDistribute does, time them on a\n"
            "          hardware model and run them lane by lane against a reference\n"
            "  draw KIND INPUT -o FILE.png|.svg|.pdf\n"
            "          pictures: layout, nested, swizzle, banks, traffic, timeline, compare\n"
            "  suggest [INPUT] --target T\n"
            "          the lowering_config and workgroup/subgroup size IREE's reduction\n"
            "          heuristic would choose, and why (or why IREE would reject it)\n"
            "  sweep INPUT --target T [-j N]\n"
            "          simulate every valid config of a reduction, rank them, and show where\n"
            "          IREE's choice lands (CSV and a chart)\n"
            "  measure INPUT [--emit-cuda | --ptx | --emulate]\n"
            "          the plan as CUDA C, run on an NVIDIA GPU (NVRTC + driver API),\n"
            "          checked against the reference and timed; or on the CPU (--emulate)\n"
            "  calibrate -o FILE.hw\n"
            "          microbenchmarks on an NVIDIA GPU -> a hardware model with provenance\n"
            "  compare SUITE [--measured FILE.csv]\n"
            "          simulated against measured times: error figures, rank agreement\n"
            "  view [INPUT] [--workgroup N] [--keys \"...\" --headless --out DIR]\n"
            "          step through a workgroup in a window, like a debugger: tile, lanes,\n"
            "          shared memory, timeline, traffic, whole GPU, each step explained\n"
            "\n"
            "Inputs without a lowering_config get IREE's default for the target.  Run\n"
            "'lanescope COMMAND --help' for a command's options.  Commands that need a GPU\n"
            "exit 3 without one.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    ls_io_install_signal_cleanup(); /* no temporaries left by Ctrl-C */
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("lanescope %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "explain") == 0)
        return ls_cmd_explain(argc - 1, argv + 1);
    if (strcmp(cmd, "sim") == 0)
        return ls_cmd_sim(argc - 1, argv + 1);
    if (strcmp(cmd, "draw") == 0)
        return ls_cmd_draw(argc - 1, argv + 1);
    if (strcmp(cmd, "suggest") == 0)
        return ls_cmd_suggest(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return ls_cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "measure") == 0)
        return ls_cmd_measure(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0)
        return ls_cmd_calibrate(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return ls_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "view") == 0)
        return ls_cmd_view(argc - 1, argv + 1);
    ls_cli_error(NULL, "unknown command '%s' (this version implements: explain, sim, draw, suggest, sweep, measure, calibrate, compare, view; see "
                       "lanescope --help)",
                 cmd);
    return 2;
}
