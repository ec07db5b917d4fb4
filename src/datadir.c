/* datadir.c: the data folder beside the running executable (datadir.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lanescope/datadir.h"

const char *ls_exe_data_dir(const char *sub, char *buf, size_t size)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0'; /* PREFIX/bin */
    int len = snprintf(buf, size, "%s/../share/lanescope/%s", exe, sub);
    struct stat st;
    if (len < 0 || (size_t)len >= size || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return buf;
}
