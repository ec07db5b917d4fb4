/* cli.h: helpers shared by the lanescope subcommands (output capture,
 * atomic file writes, flag parsing) and the subcommand entry points. */
#ifndef LANESCOPE_CLI_H
#define LANESCOPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/diag.h"

/* Output collected in memory so a failure leaves nothing half-written. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} ls_out;

void ls_out_open(ls_out *o);
/* Close and deliver: to path atomically (temp file + rename), or stdout when
 * path is NULL or "-".  Returns 0, or 1 after printing a one-line error. */
int ls_out_commit(ls_out *o, const char *path);
void ls_out_discard(ls_out *o);

/* Write data to path through a temporary file in the same folder and rename. */
int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize);

/* Parse a non-negative integer flag value; prints "lanescope CMD: --flag: ..." on error. */
bool ls_flag_int(const char *cmd, const char *flag, const char *value, int64_t min, int64_t max,
                 int64_t *out);
/* Print "lanescope CMD: file:line:col: message" for a diag to stderr. */
void ls_cli_report(const char *cmd, const ls_diag *d);
/* Print "lanescope CMD: message" to stderr. */
void ls_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int ls_cmd_explain(int argc, char **argv);
int ls_cmd_sim(int argc, char **argv);

#endif
