/* datadir.h: where lanescope's data files (hardware models, examples) are
 * found.  Each lookup tries, in order: the folder an environment variable
 * names ($LANESCOPE_TARGETS, $LANESCOPE_EXAMPLES), the folder beside the
 * running executable (PREFIX/share/lanescope/SUB for a binary in
 * PREFIX/bin, so an install moved to another prefix or staged with DESTDIR
 * finds its own files), the configured pkgdatadir, then the source tree the
 * build came from. */
#ifndef LANESCOPE_DATADIR_H
#define LANESCOPE_DATADIR_H

#include <stddef.h>

/* PREFIX/share/lanescope/SUB for the running executable, in buf; NULL when
 * the executable's path is unknown or the folder does not exist. */
const char *ls_exe_data_dir(const char *sub, char *buf, size_t size);

#endif
