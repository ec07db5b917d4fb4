/* atomic.c: every file lanescope writes goes through here.  A regular file
 * is written through a temporary name beside it and a rename, so readers
 * never see half a file and a failure leaves the old one alone; a device,
 * FIFO or "-" is written directly (it has no old content to protect, and no
 * folder to put a temporary in).  An output may never be a file this run
 * read, nor another output of the same run: files are compared by device
 * and inode, so a second name (a link, "./x", a symlink) is caught too.
 * Several outputs of one result are written as a set: every temporary is
 * complete before the first rename.  A signal removes this run's
 * temporaries before the process dies. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lanescope/arena.h"
#include "lanescope/atomic.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Files of this run: inputs (read) and outputs (written or staged). */
typedef struct {
    dev_t dev;
    ino_t ino;
    bool input, output;  /* read by this run; written in the open set */
    char path[PATH_MAX]; /* as the user named it: for the message */
} known_file;

#define MAX_KNOWN 64
static known_file known[MAX_KNOWN];
static int n_known;

/* Staged outputs: the temporaries a signal must remove.  Written only with
 * the signals blocked, read by the handler. */
#define MAX_STAGED 16
static char staged_tmp[MAX_STAGED][PATH_MAX + 16];
static char staged_dst[MAX_STAGED][PATH_MAX];
static volatile sig_atomic_t n_staged;
static bool set_open;

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGHUP);
    sigprocmask(SIG_BLOCK, &all, old);
}

/* The run's earlier file that st is, or NULL. */
static known_file *already(const struct stat *st)
{
    for (int i = 0; i < n_known; i++)
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
    if (n_known == MAX_KNOWN)
        return; /* a run reads a handful of files; past 64 only the first are guarded */
    known_file *k = &known[n_known++];
    k->dev = st->st_dev;
    k->ino = st->st_ino;
    k->output = output;
    k->input = !output;
    snprintf(k->path, sizeof k->path, "%s", path);
}

/* A set is over: its outputs may be written again (a window saving the same
 * view twice), its inputs never. */
static void forget_outputs(void)
{
    int m = 0;
    for (int i = 0; i < n_known; i++) {
        known[i].output = false;
        if (known[i].input)
            known[m++] = known[i];
    }
    n_known = m;
}

void ls_io_note_input(int fd, const char *path)
{
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        remember(&st, path, false);
}

static int clash(const known_file *k, const char *path, char *err, size_t errsize)
{
    if (!k->input)
        snprintf(err, errsize, "%s: already an output of this run (as %s); give each output its "
                 "own file", path, k->path);
    else
        snprintf(err, errsize, "%s: is an input of this run (read as %s); writing it would "
                 "destroy it: give the output another name", path, k->path);
    return -1;
}

/* The file a symlink finally names, which need not exist yet (so not
 * realpath): the links followed by hand, at most 40 of them. */
static bool resolve_link(const char *path, char *out, size_t size)
{
    char cur[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            snprintf(out, size, "%s", cur);
            return true;
        }
        char to[PATH_MAX];
        ssize_t n = readlink(cur, to, sizeof to - 1);
        if (n < 0)
            return false;
        to[n] = '\0';
        if (to[0] == '/') {
            snprintf(cur, sizeof cur, "%s", to);
        } else { /* relative to the link's folder: replace the link's own name */
            char *slash = strrchr(cur, '/');
            size_t keep = slash ? (size_t)(slash - cur) + 1 : 0;
            if (keep + (size_t)n >= sizeof cur)
                return false;
            memcpy(cur + keep, to, (size_t)n + 1);
        }
    }
    return false;
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
    long fd = strtol(n, &end, 10);
    return *end == '\0' && fd <= INT_MAX ? (int)fd : -1;
}

/* dst with its folder made canonical, so "x" and "./x" are one name. */
static void canonical(char *dst, size_t size)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(dst, '/');
    const char *base = slash ? slash + 1 : dst;
    if (slash == dst)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - dst), dst);
    else
        snprintf(dir, sizeof dir, ".");
    if (realpath(dir, real) == NULL)
        return; /* the folder is missing: mkstemp will say so */
    char out[PATH_MAX];
    if ((size_t)snprintf(out, sizeof out, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base) <
        sizeof out)
        snprintf(dst, size, "%s", out);
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

/* Open where path's new content goes: the descriptor of "-" or of a
 * /dev/fd name (a dup), a device or FIFO itself, or a new temporary in the
 * target's folder registered for the set's rename.  Returns the fd, or -1
 * with err set. */
static int stage_open(const char *path, char *err, size_t errsize)
{
    int direct = strcmp(path, "-") == 0 ? STDOUT_FILENO : named_fd(path);
    if (direct >= 0) {
        int fd = dup(direct);
        if (fd < 0)
            snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
        return fd;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists) {
        const known_file *k = already(&st);
        if (k)
            return clash(k, path, err, errsize);
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errsize, "%s: is a folder; name a file", path);
            return -1;
        }
        if (!S_ISREG(st.st_mode)) { /* a terminal, /dev/null, a FIFO, /dev/stdout */
            int fd = open(path, O_WRONLY | O_APPEND);
            if (fd < 0)
                snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
            return fd; /* not remembered: -o /dev/null --trace /dev/null is fine */
        }
    }
    char dst[PATH_MAX];
    if (!resolve_link(path, dst, sizeof dst)) {
        snprintf(err, errsize, "%s: cannot follow the symbolic link: %s", path,
                 errno ? strerror(errno) : "too many levels");
        return -1;
    }
    canonical(dst, sizeof dst);
    if (exists) /* the old file too: a second name for it is caught */
        remember(&st, path, true);
    /* two outputs of one run with the same new name: no inode yet to compare */
    for (int i = 0; i < n_staged; i++)
        if (strcmp(staged_dst[i], dst) == 0) {
            snprintf(err, errsize, "%s: already an output of this run; give each output its own "
                     "file", path);
            return -1;
        }
    if (n_staged == MAX_STAGED) {
        snprintf(err, errsize, "%s: more than %d outputs in one set", path, MAX_STAGED);
        return -1;
    }
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", dst);
    sigset_t old;
    block_signals(&old); /* the temporary exists only once the handler knows it */
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        snprintf(staged_tmp[n_staged], sizeof staged_tmp[0], "%s", tmp);
        snprintf(staged_dst[n_staged], sizeof staged_dst[0], "%s", dst);
        n_staged++;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        snprintf(err, errsize, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return -1;
    }
    /* mkstemp creates 0600; give the file the mode a plain fopen would */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
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
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (temp)
        remember(&st, path, true);
    if (close(fd) != 0) {
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
        return -1;
    }
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
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return stage_close(fd, path, err, errsize);
}

FILE *ls_out_set_stream(const char *path, char *err, size_t errsize)
{
    int fd = set_open ? stage_open(path, err, errsize) : -1;
    if (!set_open)
        snprintf(err, errsize, "%s: a streamed output needs an open output set", path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && f == NULL) {
        snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
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
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return stage_close(fd, path, err, errsize);
}

void ls_out_set_abort(void)
{
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < n_staged; i++)
        unlink(staged_tmp[i]);
    n_staged = 0;
    set_open = false;
    sigprocmask(SIG_SETMASK, &old, NULL);
    forget_outputs();
}

int ls_out_set_commit(char *err, size_t errsize)
{
    /* tests/cli.sh's hook to signal a run while its temporaries exist */
    if (n_staged > 0 && getenv("LANESCOPE_TEST_HOLD_OUTPUTS"))
        sleep(30);
    sigset_t old;
    block_signals(&old); /* all the renames or, on a signal, none */
    int rc = 0;
    for (int i = 0; i < n_staged; i++) {
        if (rc == 0 && rename(staged_tmp[i], staged_dst[i]) != 0) {
            snprintf(err, errsize, "%s: cannot finish writing: %s", staged_dst[i],
                     strerror(errno));
            rc = -1;
        }
        if (rc != 0)
            unlink(staged_tmp[i]);
    }
    n_staged = 0;
    set_open = false;
    sigprocmask(SIG_SETMASK, &old, NULL);
    forget_outputs();
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

static void on_signal(int sig)
{
    for (int i = 0; i < n_staged; i++)
        unlink(staged_tmp[i]);
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

FILE *ls_open_input(const char *path, ls_diag *diag)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "is a folder; expected a file");
        return NULL;
    }
    ls_io_note_input(fileno(f), path);
    return f;
}

/* "64 MiB", "64 KiB", "1000 bytes": a size limit as a person says it. */
static void size_words(size_t n, char *buf, size_t size)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, size, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, size, "%zu KiB", n >> 10);
    else
        snprintf(buf, size, "%zu bytes", n);
}

ls_status ls_read_text(const char *path, size_t limit, char **out, size_t *out_len,
                       ls_diag *diag)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = ls_open_input(path, diag);
    if (f == NULL)
        return diag->status;
    size_t cap = 4096, len = 0;
    char *buf = ls_xmalloc(cap + 1);
    ls_status st = LS_OK;
    for (;;) {
        if (len == cap) {
            if (cap > limit) {
                char words[32];
                size_words(limit, words, sizeof words);
                st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0,
                                 "file is larger than the %s limit", words);
                break;
            }
            cap *= 2;
            buf = ls_xrealloc(buf, cap + 1);
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
        /* chunk by chunk: /dev/zero ends here, not at the size limit */
        if ((st = ls_diag_check_text(diag, path, buf, len - n, len)))
            break;
    }
    if (st == LS_OK && ferror(f))
        st = ls_diag_set(diag, LS_ERR_IO, path, 0, 0, "read error");
    if (st == LS_OK && len > limit) {
        char words[32];
        size_words(limit, words, sizeof words);
        st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "file is larger than the %s limit",
                         words);
    }
    fclose(f);
    if (st) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return LS_OK;
}
