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
 * (the name's first bytes, ".tmp" and six random characters, within the
 * folder's NAME_MAX) and a rename.  Refused: an empty name, a name of
 * PATH_MAX bytes or more (never cut to fit), a file this run read
 * (ls_io_note_input), a file it already wrote, a folder.  Returns 0, or -1
 * with a one-line reason (naming path, a long one shortened) in err. */
int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize);

/* Several outputs as one set: between begin and commit, ls_write_atomic
 * only stages (each temporary complete and synced); commit renames them
 * all, with signals held off, so a reader never sees old and new files
 * mixed; abort removes the temporaries. */
void ls_out_set_begin(void);
/* An output of the open set named before any is written: every refusal
 * ls_write_atomic makes (an input, another output of the set by inode or by
 * name, a folder, a name too long) is made now, and the name is held for
 * the set, so a later output or input naming the same file is refused too.
 * Declare them all, then stage each (ls_write_atomic, ls_out_set_stream
 * with the same path), then commit: a refusal leaves every file as it was.
 * Returns 0, or -1 with err set (abort the set then). */
int ls_out_set_declare(const char *path, char *err, size_t errsize);
/* -1 with err set, everything staged removed, when a staged output of the
 * set was opened as an input since (ls_io_note_input). */
int ls_out_set_commit(char *err, size_t errsize);
void ls_out_set_abort(void);
/* An output of the open set written as a stream (a trace too large to hold
 * in memory): the same rules and targets as ls_write_atomic, the same
 * temporary-and-rename at commit.  NULL with err set when refused;
 * ls_out_set_stream_close flushes and syncs it (-1 with err on a failed
 * write: abort the set then). */
FILE *ls_out_set_stream(const char *path, char *err, size_t errsize);
int ls_out_set_stream_close(FILE *f, const char *path, char *err, size_t errsize);

/* A file this run reads (fd open on it): never to be written.  Returns 0,
 * or -1 when it is an output of the open set (declared or staged): the set
 * is then refused at commit, so the input is never overwritten even where
 * the caller goes on. */
int ls_io_note_input(int fd, const char *path);
/* The same, with the refusal's message in err. */
int ls_io_note_input_err(int fd, const char *path, char *err, size_t errsize);

/* Open path for reading as every reader does: a folder is refused with its
 * own message (not a "read error" later), and the file is noted as an input
 * of the run (refused, as the other order is, when it is an output of the
 * open set).  "-" is standard input, once a run.  Returns NULL with the
 * diag set. */
FILE *ls_open_input(const char *path, ls_diag *diag);

/* A whole text file of at most limit bytes (the limit in the message past
 * it), NUL-terminated in *buf for the caller to free; a NUL byte inside is
 * an error at its line and column (ls_diag_check_text). */
ls_status ls_read_text(const char *path, size_t limit, char **buf, size_t *len, ls_diag *diag);

/* SIGINT, SIGTERM, SIGHUP: remove this run's temporaries and temporary
 * folders, then die of the signal (exit status 128 + the signal's number in
 * a shell). */
void ls_io_install_signal_cleanup(void);

/* A temporary folder of this run (a compiler's sources and output):
 * mkdtemp(tmpl) with the signals held, the folder registered so that a
 * signal removes it and all it holds.  Returns 0, or -1 with errno set.
 * ls_io_temp_dir_remove removes it and all it holds now, and unregisters
 * it (every return path of its user calls it). */
int ls_io_temp_dir_make(char *tmpl);
void ls_io_temp_dir_remove(const char *path);

#endif
