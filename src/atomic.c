/* atomic.c: every file lanescope writes goes through here.  A regular file
 * is written through a temporary name beside it and a rename, so readers
 * never see half a file and a failure leaves the old one alone; a device,
 * FIFO or "-" is written directly (it has no old content to protect, and no
 * folder to put a temporary in).  An output may never be a file this run
 * read, nor another output of the same run: files are compared by device
 * and inode, so a second name (a link, "./x", a symlink) is caught too, in
 * either order (an output staged first and then opened as an input poisons
 * its set).  Several outputs of one result are written as a set: every
 * temporary is complete before the first rename.  A signal removes this
 * run's temporaries, and its registered temporary folders, before the
 * process dies.
 *
 * Names are never cut to fit a buffer: a path of PATH_MAX bytes or more is
 * refused with the limit, and every name built here is allocated to its
 * length.  Workload: a handful of outputs and a few to a few thousand inputs
 * per run (a compare suite reads one .mlir per case); the tables grow. */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* syscall (getdents64): a folder listed inside a signal handler */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#ifndef SYS_getdents64
#include <dirent.h>
#endif

#include "lanescope/arena.h"
#include "lanescope/atomic.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* ".tmp" and mkstemp's six characters after the (maybe shortened) name */
#define TMP_SUFFIX ".tmpXXXXXX"
#define TMP_SUFFIX_LEN (sizeof TMP_SUFFIX - 1)

/* Files of this run: inputs (read) and outputs (declared, staged or written
 * in the open set), by device and inode. */
typedef struct {
    dev_t dev;
    ino_t ino;
    bool input, output; /* read by this run; an output of the open set */
    char *path;         /* as the user named it (owned): for the message */
} known_file;

static known_file *known;
static size_t n_known, cap_known;

/* The outputs of the open set: declared (tmp NULL) or staged (tmp names
 * the complete temporary that commit renames to dst).  The array, its
 * count and every tmp are changed only with the signals blocked: the
 * handler reads them. */
typedef struct {
    char *path; /* as the user named it: declare-then-stage finds it by this */
    char *dst;  /* the name the rename makes (its folder made canonical) */
    char *tmp;  /* the staged temporary, or NULL while only declared */
} out_slot;

static out_slot *slots;
static volatile sig_atomic_t n_slots;
static size_t cap_slots;
static bool set_open;
/* Why the open set may not be committed (an output of it was opened as an
 * input after it was staged), or NULL; owned. */
static char *set_refusal;

/* Temporary folders of this run (ls_io_temp_dir_make), removed with all
 * they hold by a signal; changed only with the signals blocked. */
static char **temp_dirs;
static volatile sig_atomic_t n_temp_dirs;
static size_t cap_temp_dirs;

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGHUP);
    sigprocmask(SIG_BLOCK, &all, old);
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(ls_xmalloc(n), s, n);
}

/* path as a message shows it: whole up to 160 bytes, else its start and
 * end around "...", so the reason after it survives the caller's buffer. */
static const char *shown(const char *path, char *buf, size_t size)
{
    size_t n = strlen(path);
    if (n <= 160 || size < 160)
        return path;
    snprintf(buf, size, "%.60s...%s", path, path + n - 80);
    return buf;
}

/* err = "PATH: reason" with a long PATH shortened (shown). */
static int refuse(char *err, size_t errsize, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(char *err, size_t errsize, const char *path, const char *fmt, ...)
{
    char buf[200];
    int u = snprintf(err, errsize, "%s: ", shown(path, buf, sizeof buf));
    if (u >= 0 && (size_t)u < errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + u, errsize - (size_t)u, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The run's earlier file that st is, or NULL. */
static known_file *already(const struct stat *st)
{
    for (size_t i = 0; i < n_known; i++)
        if (known[i].dev == st->st_dev && known[i].ino == st->st_ino)
            return &known[i];
    return NULL;
}

static void remember(const struct stat *st, const char *path, bool output)
{
    known_file *was = already(st);
    if (was) {
        was->output |= output;
        was->input |= !output;
        return;
    }
    if (n_known == cap_known) {
        cap_known = cap_known ? 2 * cap_known : 64;
        known = ls_xrealloc(known, cap_known * sizeof *known);
    }
    known_file *k = &known[n_known++];
    k->dev = st->st_dev;
    k->ino = st->st_ino;
    k->output = output;
    k->input = !output;
    k->path = xstrdup(path);
}

/* A set is over: its outputs may be written again (a window saving the same
 * view twice), its inputs never. */
static void forget_outputs(void)
{
    size_t m = 0;
    for (size_t i = 0; i < n_known; i++) {
        known[i].output = false;
        if (known[i].input)
            known[m++] = known[i];
        else
            free(known[i].path);
    }
    n_known = m;
}

static int clash(const known_file *k, const char *path, char *err, size_t errsize)
{
    char buf[200];
    if (!k->input)
        return refuse(err, errsize, path,
                      "already an output of this run (as %s); give each "
                      "output its own file",
                      shown(k->path, buf, sizeof buf));
    return refuse(err, errsize, path,
                  "is an input of this run (read as %s); writing it would "
                  "destroy it: give the output another name",
                  shown(k->path, buf, sizeof buf));
}

/* Noting an input: refused (and the open set poisoned, so its commit fails
 * even where a caller ignores the answer) when the file is an output of the
 * open set, with the message the other order gives. */
static int note_input(int fd, const char *path, char *err, size_t errsize)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    const known_file *k = already(&st);
    if (k && k->output) {
        char buf[200];
        refuse(err, errsize, k->path,
               "is an input of this run (read as %s); writing it would "
               "destroy it: give the output another name",
               shown(path, buf, sizeof buf));
        if (set_refusal == NULL)
            set_refusal = xstrdup(err);
        remember(&st, path, false);
        return -1;
    }
    remember(&st, path, false);
    return 0;
}

int ls_io_note_input(int fd, const char *path)
{
    char err[512];
    return note_input(fd, path, err, sizeof err);
}

int ls_io_note_input_err(int fd, const char *path, char *err, size_t errsize)
{
    return note_input(fd, path, err, errsize);
}

/* The file a symlink finally names, which need not exist yet (so not
 * realpath): the links followed by hand, at most 40 of them.  Returns the
 * name (owned), or NULL with errno set (ENAMETOOLONG: the name grew past
 * PATH_MAX). */
static char *resolve_link(const char *path)
{
    char *cur = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char to[PATH_MAX];
        ssize_t n = readlink(cur, to, sizeof to);
        if (n < 0 || (size_t)n >= sizeof to) {
            if (n >= 0)
                errno = ENAMETOOLONG;
            free(cur);
            return NULL;
        }
        to[n] = '\0';
        /* relative to the link's folder: replace the link's own name */
        const char *slash = strrchr(cur, '/');
        size_t keep = to[0] == '/' ? 0 : slash ? (size_t)(slash - cur) + 1 : 0;
        if (keep + (size_t)n >= PATH_MAX) {
            free(cur);
            errno = ENAMETOOLONG;
            return NULL;
        }
        char *next = ls_xmalloc(keep + (size_t)n + 1);
        memcpy(next, cur, keep);
        memcpy(next + keep, to, (size_t)n + 1);
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

/* The descriptor a name for an open file stands for ("/dev/stdout",
 * "/dev/fd/63" from a shell's process substitution), or -1.  Such a name is
 * written through the descriptor: renaming over it would replace the file
 * behind it, which the shell still holds open under the old inode. */
static int named_fd(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    const char *n = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        n = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        n = path + 14;
    if (n == NULL || *n < '0' || *n > '9')
        return -1;
    char *end;
    errno = 0;
    long fd = strtol(n, &end, 10);
    return *end == '\0' && errno == 0 && fd <= INT_MAX ? (int)fd : -1;
}

/* The folder part of path ("." when none, "/" for the root): owned. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return xstrdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = ls_xmalloc(n + 1);
    memcpy(dir, path, n);
    dir[n] = '\0';
    return dir;
}

/* dst with its folder made canonical, so "x" and "./x" are one name; dst
 * itself (a copy) when the folder cannot be resolved (missing: mkstemp will
 * say so) or the canonical name would pass PATH_MAX (a deep working
 * folder: the relative name still works).  Owned. */
static char *canonical(const char *dst)
{
    char *dir = folder_of(dst);
    char *real = realpath(dir, NULL);
    free(dir);
    if (real == NULL)
        return xstrdup(dst);
    const char *slash = strrchr(dst, '/');
    const char *base = slash ? slash + 1 : dst;
    bool root = strcmp(real, "/") == 0;
    size_t n = strlen(real) + !root + strlen(base);
    char *out = NULL;
    if (n < PATH_MAX) {
        out = ls_xmalloc(n + 1);
        snprintf(out, n + 1, "%s%s%s", real, root ? "" : "/", base);
    }
    free(real);
    return out ? out : xstrdup(dst);
}

/* The longest file name the folder of path takes. */
static size_t name_max_of(const char *path)
{
    char *dir = folder_of(path);
    errno = 0;
    long m = pathconf(dir, _PC_NAME_MAX);
    free(dir);
    return m > 0 ? (size_t)m : NAME_MAX;
}

/* A name no output can have: empty, or past the kernel's PATH_MAX (which
 * would otherwise be cut to fit, or fail later with a vaguer reason). */
static int check_name(const char *path, char *err, size_t errsize)
{
    if (path[0] == '\0') {
        snprintf(err, errsize,
                 "an empty output name names no file: give a file name (or - for "
                 "standard output)");
        return -1;
    }
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return refuse(err, errsize, path,
                      "the name is %zu bytes, past the limit of %d bytes for a "
                      "path (PATH_MAX); give a shorter one",
                      n, PATH_MAX - 1);
    return 0;
}

/* The declared slot of the open set named path and not yet staged. */
static out_slot *declared(const char *path)
{
    for (int i = 0; i < n_slots; i++)
        if (slots[i].tmp == NULL && strcmp(slots[i].path, path) == 0)
            return &slots[i];
    return NULL;
}

/* A new slot of the open set (signals blocked by the caller). */
static out_slot *add_slot(const char *path, char *dst)
{
    if ((size_t)n_slots == cap_slots) {
        cap_slots = cap_slots ? 2 * cap_slots : 8;
        slots = ls_xrealloc(slots, cap_slots * sizeof *slots);
    }
    out_slot *s = &slots[n_slots];
    s->path = xstrdup(path);
    s->dst = dst;
    s->tmp = NULL;
    n_slots++;
    return s;
}

/* What an output name means, every refusal made: 1 with *fd (when fd is
 * not NULL: a dup of "-" or of a /dev/fd name, or a device or FIFO opened)
 * for a target written directly; 0 with *dst (owned) for a regular file,
 * staged through a temporary and a rename to *dst; -1 with err set. */
static int resolve_output(const char *path, int *fd, char **dst, char *err, size_t errsize)
{
    if (check_name(path, err, errsize))
        return -1;
    if (set_refusal) {
        snprintf(err, errsize, "%s", set_refusal);
        return -1;
    }
    int direct = strcmp(path, "-") == 0 ? STDOUT_FILENO : named_fd(path);
    if (direct >= 0) {
        if (fd && (*fd = dup(direct)) < 0)
            return refuse(err, errsize, path, "cannot write: %s", strerror(errno));
        return 1;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists) {
        const known_file *k = already(&st);
        if (k)
            return clash(k, path, err, errsize);
        if (S_ISDIR(st.st_mode))
            return refuse(err, errsize, path, "is a folder; name a file");
        if (!S_ISREG(st.st_mode)) { /* a terminal, /dev/null, a FIFO, /dev/stdout */
            if (fd && (*fd = open(path, O_WRONLY | O_APPEND)) < 0)
                return refuse(err, errsize, path, "cannot write: %s", strerror(errno));
            return 1; /* not remembered: -o /dev/null --trace /dev/null is fine */
        }
    }
    char *linked = resolve_link(path);
    if (linked == NULL)
        return errno == ENAMETOOLONG
                   ? refuse(err, errsize, path,
                            "the symbolic link leads to a name past the "
                            "limit of %d bytes for a path (PATH_MAX)",
                            PATH_MAX - 1)
                   : refuse(err, errsize, path, "cannot follow the symbolic link: %s",
                            strerror(errno));
    char *real = canonical(linked);
    free(linked);
    const char *slash = strrchr(real, '/');
    size_t base_len = strlen(slash ? slash + 1 : real), name_max = name_max_of(real);
    if (base_len > name_max) {
        free(real);
        return refuse(err, errsize, path,
                      "the file name is %zu bytes, past the limit of %zu "
                      "bytes for a name in its folder (NAME_MAX); give a shorter one",
                      base_len, name_max);
    }
    /* two outputs of one run with the same new name: no inode yet to compare */
    for (int i = 0; i < n_slots; i++)
        if (strcmp(slots[i].dst, real) == 0) {
            char buf[200];
            free(real);
            return refuse(err, errsize, path,
                          "already an output of this run (as %s); give each "
                          "output its own file",
                          shown(slots[i].path, buf, sizeof buf));
        }
    if (exists) /* the old file too: a second name for it is caught */
        remember(&st, path, true);
    *dst = real;
    return 0;
}

/* The temporary beside dst: its name's first bytes (all of them when they
 * fit), then ".tmp" and six random characters, within the folder's
 * NAME_MAX and PATH_MAX, so every name an output may have can be staged.
 * Owned; the template for mkstemp. */
static char *temp_name(const char *dst)
{
    const char *slash = strrchr(dst, '/');
    const char *base = slash ? slash + 1 : dst;
    size_t dir_len = (size_t)(base - dst), keep = strlen(base);
    size_t name_max = name_max_of(dst);
    if (name_max > TMP_SUFFIX_LEN && keep > name_max - TMP_SUFFIX_LEN)
        keep = name_max - TMP_SUFFIX_LEN;
    if (dir_len + TMP_SUFFIX_LEN < PATH_MAX && dir_len + keep + TMP_SUFFIX_LEN >= PATH_MAX)
        keep = PATH_MAX - 1 - dir_len - TMP_SUFFIX_LEN;
    /* cut at a character's start, not inside a UTF-8 sequence */
    while (keep > 0 && keep < strlen(base) && ((unsigned char)base[keep] & 0xC0) == 0x80)
        keep--;
    char *tmp = ls_xmalloc(dir_len + keep + TMP_SUFFIX_LEN + 1);
    memcpy(tmp, dst, dir_len + keep);
    memcpy(tmp + dir_len + keep, TMP_SUFFIX, TMP_SUFFIX_LEN + 1);
    return tmp;
}

static int write_all(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

int ls_out_set_declare(const char *path, char *err, size_t errsize)
{
    if (!set_open) {
        snprintf(err, errsize, "%s: declared outside an output set", path);
        return -1;
    }
    char *dst;
    int kind = resolve_output(path, NULL, &dst, err, errsize);
    if (kind != 0)
        return kind < 0 ? -1 : 0; /* written directly: nothing to stage */
    sigset_t old;
    block_signals(&old);
    add_slot(path, dst);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}

/* Open where path's new content goes: the descriptor of "-" or of a
 * /dev/fd name (a dup), a device or FIFO itself, or a new temporary in the
 * target's folder registered for the set's rename (the slot path was
 * declared with, whose checks were made then, or a new one).  Returns the
 * fd, or -1 with err set. */
static int stage_open(const char *path, char *err, size_t errsize)
{
    out_slot *s = set_open ? declared(path) : NULL;
    if (s && set_refusal) {
        snprintf(err, errsize, "%s", set_refusal);
        return -1;
    }
    char *dst = NULL;
    int fd = -1;
    if (s == NULL) {
        int kind = resolve_output(path, &fd, &dst, err, errsize);
        if (kind != 0)
            return kind < 0 ? -1 : fd;
    }
    char *tmp = temp_name(s ? s->dst : dst);
    sigset_t old;
    block_signals(&old); /* the temporary exists only once the handler knows it */
    fd = mkstemp(tmp);
    if (fd >= 0) {
        if (s == NULL)
            s = add_slot(path, dst);
        s->tmp = tmp;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(dst);
        return refuse(err, errsize, path, "cannot create a temporary file: %s", strerror(e));
    }
    /* mkstemp creates 0600; give the file the mode a plain fopen would */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        refuse(err, errsize, path, "write failed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Finish what stage_open began: a temporary is synced and remembered as
 * an output (a second name for it is then caught). */
static int stage_close(int fd, const char *path, char *err, size_t errsize)
{
    struct stat st;
    bool temp = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (temp && fsync(fd) != 0 && errno != EINVAL) {
        refuse(err, errsize, path, "write failed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (temp)
        remember(&st, path, true);
    if (close(fd) != 0)
        return refuse(err, errsize, path, "write failed: %s", strerror(errno));
    return 0;
}

/* Stage path's new content in a complete, synced temporary; the rename
 * waits for commit.  A non-regular target is written at once. */
static int stage(const char *path, const char *data, size_t len, char *err, size_t errsize)
{
    int fd = stage_open(path, err, errsize);
    if (fd < 0)
        return -1;
    if (write_all(fd, data, len) != 0) {
        refuse(err, errsize, path, "write failed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return stage_close(fd, path, err, errsize);
}

FILE *ls_out_set_stream(const char *path, char *err, size_t errsize)
{
    if (!set_open) {
        snprintf(err, errsize, "%s: a streamed output needs an open output set", path);
        return NULL;
    }
    int fd = stage_open(path, err, errsize);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && f == NULL) {
        refuse(err, errsize, path, "cannot write: %s", strerror(errno));
        close(fd);
    }
    return f;
}

int ls_out_set_stream_close(FILE *f, const char *path, char *err, size_t errsize)
{
    bool bad = ferror(f) != 0 || fflush(f) != 0;
    int fd = dup(fileno(f));
    fclose(f);
    if (bad || fd < 0) {
        refuse(err, errsize, path, "write failed: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return stage_close(fd, path, err, errsize);
}

/* The set's slots dropped, their temporaries removed unless renamed (the
 * signals blocked by the caller). */
static void drop_slots(void)
{
    for (int i = 0; i < n_slots; i++) {
        if (slots[i].tmp)
            unlink(slots[i].tmp);
        free(slots[i].tmp);
        free(slots[i].dst);
        free(slots[i].path);
    }
    n_slots = 0;
}

static void close_set(void)
{
    set_open = false;
    free(set_refusal);
    set_refusal = NULL;
    forget_outputs();
}

void ls_out_set_abort(void)
{
    sigset_t old;
    block_signals(&old);
    drop_slots();
    sigprocmask(SIG_SETMASK, &old, NULL);
    close_set();
}

int ls_out_set_commit(char *err, size_t errsize)
{
    if (set_refusal) { /* an output of the set was read after it was staged */
        snprintf(err, errsize, "%s", set_refusal);
        ls_out_set_abort();
        return -1;
    }
    /* tests/cli.sh's hook to signal a run while its temporaries exist */
    if (n_slots > 0 && getenv("LANESCOPE_TEST_HOLD_OUTPUTS"))
        sleep(30);
    sigset_t old;
    block_signals(&old); /* all the renames or, on a signal, none */
    int rc = 0;
    for (int i = 0; i < n_slots; i++) {
        if (slots[i].tmp == NULL)
            continue; /* declared, never staged */
        if (rc == 0 && rename(slots[i].tmp, slots[i].dst) != 0)
            rc = refuse(err, errsize, slots[i].dst, "cannot finish writing: %s", strerror(errno));
        if (rc == 0) { /* renamed: nothing to remove */
            free(slots[i].tmp);
            slots[i].tmp = NULL;
        }
    }
    drop_slots(); /* after a failed rename, the rest's temporaries */
    sigprocmask(SIG_SETMASK, &old, NULL);
    close_set();
    return rc;
}

void ls_out_set_begin(void)
{
    set_open = true;
}

int ls_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errsize)
{
    if (stage(path, data, len, err, errsize) != 0) {
        if (!set_open)
            ls_out_set_abort();
        return -1;
    }
    return set_open ? 0 : ls_out_set_commit(err, errsize);
}

/* Remove name (in the folder dfd) and, when it is a folder, all it holds:
 * safe inside a signal handler on Linux (getdents64 into a buffer on the
 * stack, no allocation); elsewhere through readdir, which may allocate.
 * A folder is listed again until it is empty (entries removed during a
 * listing, or a file an orphaned compiler adds meanwhile), a few times at
 * most; depth is bounded, so is the stack. */
static void remove_tree_at(int dfd, const char *name, int depth)
{
    if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        return;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    for (int pass = 0; pass < 4 && depth < 16; pass++) {
#ifdef SYS_getdents64
        /* struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name */
        _Alignas(8) char buf[2048];
        long n;
        lseek(fd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *entry = buf + off + 19;
                off += reclen;
                if (strcmp(entry, ".") != 0 && strcmp(entry, "..") != 0)
                    remove_tree_at(fd, entry, depth + 1);
            }
        }
#else
        int lfd = dup(fd);
        DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
        if (d == NULL) {
            if (lfd >= 0)
                close(lfd);
            break;
        }
        rewinddir(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                remove_tree_at(fd, e->d_name, depth + 1);
        closedir(d);
#endif
        if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
            break;
    }
    close(fd);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

int ls_io_temp_dir_make(char *tmpl)
{
    sigset_t old;
    block_signals(&old); /* the folder exists only once the handler knows it */
    char *dir = mkdtemp(tmpl);
    int e = errno;
    if (dir) {
        if ((size_t)n_temp_dirs == cap_temp_dirs) {
            cap_temp_dirs = cap_temp_dirs ? 2 * cap_temp_dirs : 4;
            temp_dirs = ls_xrealloc(temp_dirs, cap_temp_dirs * sizeof *temp_dirs);
        }
        temp_dirs[n_temp_dirs] = xstrdup(dir);
        n_temp_dirs++;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return dir ? 0 : -1;
}

void ls_io_temp_dir_remove(const char *path)
{
    sigset_t old;
    block_signals(&old);
    remove_tree_at(AT_FDCWD, path, 0);
    for (int i = 0; i < n_temp_dirs; i++)
        if (strcmp(temp_dirs[i], path) == 0) {
            free(temp_dirs[i]);
            temp_dirs[i] = temp_dirs[n_temp_dirs - 1];
            n_temp_dirs--;
            break;
        }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void on_signal(int sig)
{
    int e = errno;
    for (int i = 0; i < n_slots; i++)
        if (slots[i].tmp)
            unlink(slots[i].tmp);
    for (int i = 0; i < n_temp_dirs; i++)
        remove_tree_at(AT_FDCWD, temp_dirs[i], 0);
    errno = e;
    signal(sig, SIG_DFL);
    raise(sig);
}

void ls_io_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction was;
        /* a signal ignored at start (nohup, a shell's background job) stays ignored */
        if (sigaction(sigs[i], NULL, &was) == 0 && was.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

