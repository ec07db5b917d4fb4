/* atomic.h: whole-file writes that never leave a half-written file. */
#ifndef LANESCOPE_ATOMIC_H
#define LANESCOPE_ATOMIC_H

#include <stddef.h>

/* Write data to path through a temporary file in the same folder, fsync and
 * rename.  Returns 0, or -1 with a one-line reason (naming path) in err. */
int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize);

#endif
