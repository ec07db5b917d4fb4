/* replay.c: runs a libFuzzer target's LLVMFuzzerTestOneInput over files
 * and folders of inputs without libFuzzer, so that `make check` replays the
 * committed corpora and every crash input ever found under the sanitizers
 * of the build.  Exit 0 when every input ran; a finding aborts. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t n; (n = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int names_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's files in name order, for a reproducible replay. */
static int run_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such input %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return run_file(path);
    }
    DIR *dir = opendir(path);
    if (dir == NULL)
        return 1;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[n++], "%s/%s", path, e->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, names_cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        rc |= run_path(names[i], count);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i], &count);
    printf("replay: %d inputs\n", count);
    return rc;
}
