/* atomic.h: the tool's file I/O.  Whole-file writes that never leave a
 * half-written file, never overwrite an input or another output of the same
 * run, and leave no temporaries behind on a signal; and the opening and
 * reading of inputs, which notes them so. */
#ifndef LANESCOPE_ATOMIC_H
#define LANESCOPE_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "lanescope/diag.h"

/* Write data to path: "-" and names of open descriptors (/dev/stdout,
 * /dev/fd/N) through the descriptor; a device or FIFO directly; a symlink's
 * target, or a regular file, through a synced temporary in the same folder
 * and a rename.  Refused: a file this run read (ls_io_note_input), a file
 * it already wrote, a folder.  Returns 0, or -1 with a one-line reason
 * (naming path) in err. */
int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize);

/* Several outputs as one set: between begin and commit, ls_write_atomic
 * only stages (each temporary complete and synced); commit renames them
 * all, with signals held off, so a reader never sees old and new files
 * mixed; abort removes the temporaries. */
void ls_out_set_begin(void);
int ls_out_set_commit(char *err, size_t errsize);
void ls_out_set_abort(void);
/* An output of the open set written as a stream (a trace too large to hold
 * in memory): the same rules and targets as ls_write_atomic, the same
 * temporary-and-rename at commit.  NULL with err set when refused;
 * ls_out_set_stream_close flushes and syncs it (-1 with err on a failed
 * write: abort the set then). */
FILE *ls_out_set_stream(const char *path, char *err, size_t errsize);
int ls_out_set_stream_close(FILE *f, const char *path, char *err, size_t errsize);

/* A file this run reads (fd open on it): never to be written. */
void ls_io_note_input(int fd, const char *path);

/* Open path for reading as every reader does: a folder is refused with its
 * own message (not a "read error" later), and the file is noted as an input
 * of the run.  Returns NULL with the diag set. */
FILE *ls_open_input(const char *path, ls_diag *diag);

/* A whole text file of at most limit bytes (the limit in the message past
 * it), NUL-terminated in *buf for the caller to free; a NUL byte inside is
 * an error at its line and column (ls_diag_check_text). */
ls_status ls_read_text(const char *path, size_t limit, char **buf, size_t *len, ls_diag *diag);

/* SIGINT, SIGTERM, SIGHUP: remove this run's temporaries, then die of the
 * signal (exit status 128 + the signal's number in a shell). */
void ls_io_install_signal_cleanup(void);

#endif
