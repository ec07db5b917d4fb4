/* compare.c: suites and measured-times CSVs of `lanescope
 * compare` (formats in compare.h; the statistics are in compare_stats.c).
 *
 * Workload: suites and CSVs of at most LS_COMPARE_MAX_CASES lines, read
 * whole into memory; matching and Kendall's tau are quadratic, which at
 * 4096 cases is a few million cheap steps -- not worth an index.  Parsers
 * keep the first error (ls_diag) and leave their output empty on error, so
 * a caller never sees half a suite. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/atomic.h"
#include "lanescope/arena.h"
#include "lanescope/compare.h"
#include "lanescope/csv.h"

/* ------------------------------------------------------------ input */


/* Steps through text a line at a time: the line (without \r\n) is copied
 * into ln, NUL-terminated.  Returns false at the end; a line that is too
 * long or holds a NUL byte is an error (*st set). */
typedef struct {
    const char *text, *path;
    size_t len, pos;
    int lineno;
    char ln[LS_COMPARE_MAX_LINE + 1];
} line_reader;

static bool next_line(line_reader *r, ls_status *st, ls_diag *diag)
{
    *st = LS_OK;
    if (r->pos >= r->len)
        return false;
    const char *s = r->text + r->pos;
    const char *nl = memchr(s, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
    r->pos += n + (nl != NULL);
    r->lineno++;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n > LS_COMPARE_MAX_LINE) {
        *st = ls_diag_set(diag, LS_ERR_LIMIT, r->path, r->lineno, LS_COMPARE_MAX_LINE + 1,
                          "line longer than %d bytes (the limit)", LS_COMPARE_MAX_LINE);
        return false;
    }
    const char *z = memchr(s, '\0', n);
    if (z) {
        *st = ls_diag_set(diag, LS_ERR_SYNTAX, r->path, r->lineno, (int)(z - s) + 1,
                          "NUL byte in a text file");
        return false;
    }
    memcpy(r->ln, s, n);
    r->ln[n] = '\0';
    return true;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '+' || c == '-';
}

/* Checks a case or group name; returns the 0-based offset of the first
 * bad character, or -1 when it is fine. */
static int bad_name_at(const char *s)
{
    for (int i = 0; s[i]; i++)
        if (!name_char(s[i]))
            return i;
    return -1;
}

/* ------------------------------------------------------------ suites */

typedef struct {
    const char *path;
    int lineno;
    ls_diag *diag;
} where;

static ls_status syntax_at(const where *w, int col, ls_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static ls_status syntax_at(const where *w, int col, ls_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ls_status r = ls_diag_vset(w->diag, st, w->path, w->lineno, col, fmt, ap);
    va_end(ap);
    return r;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* A bare word (up to a space) or a double-quoted string at ln[*i] into
 * out; *i ends after it.  Quoted strings must be followed by a space or
 * the end of the line. */
static ls_status field(const char *ln, size_t *i, char *out, size_t cap, const char *what,
                       const where *w)
{
    size_t o = 0, start = *i;
    if (ln[*i] == '"') {
        size_t k = *i + 1;
        for (;; k++) {
            char c = ln[k];
            if (c == '\0')
                return syntax_at(w, (int)start + 1, LS_ERR_SYNTAX,
                                 "%s: unterminated string (no closing '\"')", what);
            if (c == '"')
                break;
            if (c == '\\' && (ln[k + 1] == '"' || ln[k + 1] == '\\'))
                c = ln[++k];
            if (o + 1 >= cap)
                return ls_diag_set(w->diag, LS_ERR_LIMIT, w->path, w->lineno, (int)start + 1,
                                   "%s longer than %zu bytes", what, cap - 1);
            out[o++] = c;
        }
        *i = k + 1;
        if (ln[*i] != '\0' && !is_space(ln[*i]))
            return syntax_at(w, (int)*i + 1, LS_ERR_SYNTAX,
                             "%s: expected a space after the closing quote", what);
    } else {
        while (ln[*i] && !is_space(ln[*i])) {
            if (o + 1 >= cap)
                return ls_diag_set(w->diag, LS_ERR_LIMIT, w->path, w->lineno, (int)start + 1,
                                   "%s longer than %zu bytes", what, cap - 1);
            out[o++] = ln[(*i)++];
        }
    }
    out[o] = '\0';
    return LS_OK;
}

static void skip_space(const char *ln, size_t *i)
{
    while (is_space(ln[*i]))
        (*i)++;
}

static ls_status resolve(const char *suite_path, ls_suite_case *c, int col, const where *w)
{
    const char *slash = strrchr(suite_path, '/');
    int n;
    if (c->file[0] == '/' || slash == NULL)
        n = snprintf(c->path, sizeof c->path, "%s", c->file);
    else
        n = snprintf(c->path, sizeof c->path, "%.*s/%s", (int)(slash - suite_path), suite_path,
                     c->file);
    if (n < 0 || (size_t)n >= sizeof c->path)
        return ls_diag_set(w->diag, LS_ERR_LIMIT, w->path, w->lineno, col,
                           "FILE: the path is longer than %zu bytes", sizeof c->path - 1);
    return LS_OK;
}

/* reduction=K: a positive decimal at most LS_COMPARE_MAX_REDUCTION. */
static ls_status reduction_value(const char *ln, size_t *i, ls_suite_case *c, const where *w)
{
    size_t v0 = *i;
    long k = 0;
    while (ln[*i] >= '0' && ln[*i] <= '9') {
        if (k <= LS_COMPARE_MAX_REDUCTION)
            k = k * 10 + (ln[*i] - '0');
        (*i)++;
    }
    if (*i == v0 || (ln[*i] && !is_space(ln[*i]) && ln[*i] != '#'))
        return syntax_at(w, (int)v0 + 1, LS_ERR_SYNTAX,
                         "reduction=: expected the reduction's number in the file (1, 2, ...)");
    if (k < 1 || k > LS_COMPARE_MAX_REDUCTION)
        return syntax_at(w, (int)v0 + 1, LS_ERR_LIMIT, "reduction=%.*s: the number must be 1 to %d",
                         (int)(*i - v0 < 24 ? *i - v0 : 24), ln + v0, LS_COMPARE_MAX_REDUCTION);
    c->reduction = (int)k;
    return LS_OK;
}

/* kernel=dispatch|reduction: the dispatch's one kernel, or the reduction
 * alone (the default). */
static ls_status kernel_value(const char *ln, size_t *i, ls_suite_case *c, const where *w)
{
    size_t v0 = *i;
    while (ln[*i] && !is_space(ln[*i]) && ln[*i] != '#')
        (*i)++;
    size_t n = *i - v0;
    if (n == 8 && strncmp(ln + v0, "dispatch", 8) == 0)
        c->dispatch = true;
    else if (!(n == 9 && strncmp(ln + v0, "reduction", 9) == 0))
        return syntax_at(w, (int)v0 + 1, LS_ERR_SYNTAX,
                         "kernel=%.*s: expected dispatch (the dispatch's loops as its one "
                         "kernel) or reduction (the reduction alone)",
                         (int)(n < 24 ? n : 24), ln + v0);
    return LS_OK;
}

/* The key=value options after FILE. */
static ls_status case_options(const char *ln, size_t i, ls_suite_case *c, const where *w)
{
    bool have_group = false, have_note = false, have_red = false, have_kernel = false;
    for (;;) {
        skip_space(ln, &i);
        if (ln[i] == '\0' || ln[i] == '#')
            return LS_OK;
        size_t k0 = i;
        while (ln[i] && ln[i] != '=' && !is_space(ln[i]))
            i++;
        char key[16];
        size_t kn = i - k0 < sizeof key ? i - k0 : sizeof key - 1;
        memcpy(key, ln + k0, kn);
        key[kn] = '\0';
        if (ln[i] != '=')
            return syntax_at(w, (int)k0 + 1, LS_ERR_SYNTAX,
                             "expected key=value (group=G, note=\"...\", reduction=K or "
                             "kernel=dispatch), found '%s'", key);
        bool is_group = i - k0 == 5 && strncmp(ln + k0, "group", 5) == 0;
        bool is_note = i - k0 == 4 && strncmp(ln + k0, "note", 4) == 0;
        bool is_red = i - k0 == 9 && strncmp(ln + k0, "reduction", 9) == 0;
        bool is_kernel = i - k0 == 6 && strncmp(ln + k0, "kernel", 6) == 0;
        if (!is_group && !is_note && !is_red && !is_kernel)
            return syntax_at(w, (int)k0 + 1, LS_ERR_SYNTAX,
                             "unknown key '%s' (the keys: group, note, reduction, kernel)", key);
        if ((is_group && have_group) || (is_note && have_note) || (is_red && have_red) ||
            (is_kernel && have_kernel))
            return syntax_at(w, (int)k0 + 1, LS_ERR_SYNTAX, "%s= given twice", key);
        i++;
        size_t v0 = i;
        if (is_kernel) {
            have_kernel = true;
            ls_status st = kernel_value(ln, &i, c, w);
            if (st)
                return st;
            continue;
        }
        if (is_red) {
            have_red = true;
            ls_status st = reduction_value(ln, &i, c, w);
            if (st)
                return st;
            continue;
        }
        ls_status st = is_group ? field(ln, &i, c->group, sizeof c->group, "group", w)
                                : field(ln, &i, c->note, sizeof c->note, "note", w);
        if (st)
            return st;
        if (is_group) {
            have_group = true;
            int bad = bad_name_at(c->group);
            if (c->group[0] == '\0')
                return syntax_at(w, (int)v0 + 1, LS_ERR_SYNTAX, "%s: empty group name", key);
            if (bad >= 0)
                return syntax_at(w, (int)v0 + 1 + bad + (ln[v0] == '"'), LS_ERR_SYNTAX,
                                 "group '%s': names take letters, digits and _ . + - only",
                                 c->group);
        } else {
            have_note = true;
        }
    }
}

/* One line: nothing (blank, comment) or a case appended to s. */
static ls_status suite_line(ls_suite *s, const char *ln, const where *w)
{
    size_t i = 0;
    skip_space(ln, &i);
    if (ln[i] == '\0' || ln[i] == '#')
        return LS_OK;
    if (s->n == LS_COMPARE_MAX_CASES)
        return ls_diag_set(w->diag, LS_ERR_LIMIT, w->path, w->lineno, (int)i + 1,
                           "more than %d cases", LS_COMPARE_MAX_CASES);
    ls_suite_case c;
    memset(&c, 0, sizeof c);
    c.line = w->lineno;
    size_t n0 = i;
    ls_status st = field(ln, &i, c.name, sizeof c.name, "NAME", w);
    if (st)
        return st;
    int bad = bad_name_at(c.name);
    if (bad >= 0)
        return syntax_at(w, (int)n0 + 1 + bad, LS_ERR_SYNTAX,
                         "case name '%s': names take letters, digits and _ . + - only", c.name);
    skip_space(ln, &i);
    if (ln[i] == '\0' || ln[i] == '#')
        return syntax_at(w, (int)i + 1, LS_ERR_SYNTAX, "expected FILE after the case name '%s'",
                         c.name);
    size_t f0 = i;
    if ((st = field(ln, &i, c.file, sizeof c.file, "FILE", w)))
        return st;
    if (c.file[0] == '\0')
        return syntax_at(w, (int)f0 + 1, LS_ERR_SYNTAX, "%s: empty FILE", c.name);
    if (strchr(c.file, '=') && ln[f0] != '"')
        return syntax_at(w, (int)f0 + 1, LS_ERR_SYNTAX,
                         "expected FILE after the case name, found the option '%s' (quote a "
                         "file name with '=' in it)",
                         c.file);
    if ((st = case_options(ln, i, &c, w)) || (st = resolve(s->path, &c, (int)f0 + 1, w)))
        return st;
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->cases[k].name, c.name) == 0)
            return syntax_at(w, (int)n0 + 1, LS_ERR_INVALID,
                             "duplicate case name '%s' (first on line %d)", c.name,
                             s->cases[k].line);
    if ((s->n & (s->n - 1)) == 0) /* doubled at each power of two: linear, not n^2 */
        s->cases = ls_xrealloc(s->cases, (s->n ? 2 * s->n : 1) * sizeof *s->cases);
    s->cases[s->n++] = c;
    return LS_OK;
}

ls_status ls_suite_parse(const char *text, size_t len, const char *path, ls_suite *s, ls_diag *diag)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    line_reader *r = ls_xcalloc(1, sizeof *r);
    r->text = text;
    r->len = len;
    r->path = path;
    ls_status st = LS_OK;
    while (next_line(r, &st, diag)) {
        where w = {path, r->lineno, diag};
        if ((st = suite_line(s, r->ln, &w)))
            break;
    }
    if (st == LS_OK && s->n == 0)
        st = ls_diag_set(diag, LS_ERR_NOTFOUND, path, 0, 0,
                         "no cases (expected lines of NAME FILE [group=G] [note=\"...\"] "
                         "[reduction=K] [kernel=dispatch])");
    free(r);
    if (st) {
        free(s->cases);
        s->cases = NULL;
        s->n = 0;
    }
    return st;
}

ls_status ls_suite_load(const char *path, ls_suite *s, ls_diag *diag)
{
    memset(s, 0, sizeof *s);
    char *buf;
    size_t len;
    ls_status st = ls_read_text(path, (size_t)LS_COMPARE_MAX_FILE, &buf, &len, diag);
    if (st)
        return st;
    st = ls_suite_parse(buf, len, path, s, diag);
    free(buf);
    return st;
}

void ls_suite_free(ls_suite *s)
{
    if (s == NULL)
        return;
    free(s->cases);
    s->cases = NULL;
    s->n = 0;
}

/* ------------------------------------------------------------ measured CSV */

enum {
    COL_NAME,
    COL_MEAS,
    COL_MIN,
    COL_MAX,
    COL_RUNS,
    COL_GBPS,
    COL_COPY,
    COL_GPU,
    COL_DATE,
    N_COLS
};
static const char *const col_names[N_COLS] = {"name",          "measured_us", "min_us",
                                              "max_us",        "runs",        "gbytes_per_s",
                                              "copy_fraction", "gpu",         "date"};
#define COLUMN_LINE "name,measured_us,min_us,max_us,runs,gbytes_per_s,copy_fraction,gpu,date"
/* written after the columns above; readers ignore it (an extra column) */
#define EXTRA_COLUMNS ",launch_us"
#define MAX_FIELDS LS_COMPARE_MAX_FIELDS

/* Splits ln (RFC 4180, csv.h); a syntax error for a broken quote or too
 * many fields.  Returns the field count, or -1 with *st set. */
static int split(char *ln, char **f, int *col, const where *w, ls_status *st)
{
    int bad = 1;
    int n = ls_csv_split(ln, f, col, MAX_FIELDS, &bad);
    if (n == -1)
        *st = syntax_at(w, col[MAX_FIELDS - 1], LS_ERR_LIMIT, "more than %d fields", MAX_FIELDS);
    else if (n == -2)
        *st = syntax_at(w, bad, LS_ERR_SYNTAX,
                        "a quoted field must close its quote on the same line and be followed by "
                        "a comma or the line's end");
    return n < 0 ? -1 : n;
}

/* "# key: value" into prov (keys: letters, digits, _ and -); anything else
 * is a plain comment. */
static void prov_line(ls_measured *m, const char *ln)
{
    const char *k = ln + 1;
    while (is_space(*k))
        k++;
    const char *e = k;
    while (name_char(*e) && *e != '.' && *e != '+')
        e++;
    if (e == k || *e != ':' || m->n_prov == LS_COMPARE_MAX_PROV ||
        (size_t)(e - k) >= sizeof m->prov[0].key)
        return;
    const char *v = e + 1;
    while (is_space(*v))
        v++;
    ls_prov_entry *p = &m->prov[m->n_prov++];
    snprintf(p->key, sizeof p->key, "%.*s", (int)(e - k), k);
    snprintf(p->value, sizeof p->value, "%s", v);
}

/* The column line: where each required column is. */
static ls_status columns(char *ln, int *idx, int *n_fields, const where *w)
{
    char *f[MAX_FIELDS];
    int col[MAX_FIELDS];
    ls_status st = LS_OK;
    int n = split(ln, f, col, w, &st);
    if (n < 0)
        return st;
    for (int k = 0; k < N_COLS; k++)
        idx[k] = -1;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < N_COLS; k++)
            if (strcmp(f[j], col_names[k]) == 0) {
                if (idx[k] >= 0)
                    return syntax_at(w, col[j], LS_ERR_SYNTAX, "column '%s' named twice",
                                     col_names[k]);
                idx[k] = j;
            }
    for (int k = 0; k < N_COLS; k++)
        if (idx[k] < 0)
            return syntax_at(w, 1, LS_ERR_SYNTAX,
                             "the column line has no '%s' column (expected the columns "
                             "%s)",
                             col_names[k], COLUMN_LINE);
    *n_fields = n;
    return LS_OK;
}

/* A finite number filling the whole field; empty allowed when empty_ok
 * (gives NaN). */
static bool number(const char *s, bool empty_ok, double *out)
{
    if (*s == '\0') {
        *out = NAN;
        return empty_ok;
    }
    /* decimal only: strtod would also take hex ("0x10") and "inf" */
    if (strspn(s, "0123456789+-.eE") != strlen(s))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static ls_status row_numbers(char **f, const int *col, const int *idx, ls_measured_row *r,
                             const where *w)
{
    double *t[3] = {&r->measured_us, &r->min_us, &r->max_us};
    for (int k = 0; k < 3; k++) {
        int j = idx[COL_MEAS + k];
        if (!number(f[j], false, t[k]) || *t[k] <= 0 || *t[k] > LS_COMPARE_MAX_US)
            return syntax_at(w, col[j], LS_ERR_SYNTAX,
                             "%s: expected a positive number of microseconds up to %g, found "
                             "'%s'",
                             col_names[COL_MEAS + k], LS_COMPARE_MAX_US, f[j]);
    }
    int j = idx[COL_RUNS];
    double runs;
    if (!number(f[j], false, &runs) || runs < 1 || runs > 1e9 || runs != floor(runs))
        return syntax_at(w, col[j], LS_ERR_SYNTAX,
                         "runs: expected a whole number of runs >= 1, found '%s'", f[j]);
    r->runs = (int64_t)runs;
    for (int k = 0; k < 2; k++) {
        j = idx[COL_GBPS + k];
        double *v = k == 0 ? &r->gbytes_per_s : &r->copy_fraction;
        if (!number(f[j], true, v) || *v < 0)
            return syntax_at(w, col[j], LS_ERR_SYNTAX,
                             "%s: expected a number >= 0 (or nothing), found '%s'",
                             col_names[COL_GBPS + k], f[j]);
    }
    if (r->min_us > r->measured_us)
        return syntax_at(w, col[idx[COL_MIN]], LS_ERR_INVALID, "min_us %g is above measured_us %g",
                         r->min_us, r->measured_us);
    if (r->max_us < r->measured_us)
        return syntax_at(w, col[idx[COL_MAX]], LS_ERR_INVALID, "max_us %g is below measured_us %g",
                         r->max_us, r->measured_us);
    return LS_OK;
}

static ls_status text_field(const char *s, char *out, size_t cap, const char *what, int col,
                            const where *w)
{
    if (strlen(s) >= cap)
        return syntax_at(w, col, LS_ERR_LIMIT, "%s longer than %zu bytes", what, cap - 1);
    snprintf(out, cap, "%s", s);
    return LS_OK;
}

/* One data row, appended to m. */
static ls_status measured_row(ls_measured *m, char *ln, const int *idx, int n_fields,
                              const where *w)
{
    char *f[MAX_FIELDS];
    int col[MAX_FIELDS];
    size_t ln_len = strlen(ln);
    ls_status st = LS_OK;
    int n = split(ln, f, col, w, &st);
    if (n < 0)
        return st;
    if (n != n_fields)
        return syntax_at(w, n > n_fields ? col[n_fields] : (int)ln_len + 1, LS_ERR_SYNTAX,
                         "expected %d fields, as the column line names, found %d", n_fields, n);
    if (m->n == LS_COMPARE_MAX_CASES)
        return syntax_at(w, 1, LS_ERR_LIMIT, "more than %d rows", LS_COMPARE_MAX_CASES);
    ls_measured_row r;
    memset(&r, 0, sizeof r);
    r.line = w->lineno;
    r.launch_us = NAN; /* not read back */
    const char *name = f[idx[COL_NAME]];
    int ncol = col[idx[COL_NAME]];
    st = text_field(name, r.name, sizeof r.name, "name", ncol, w);
    if (st)
        return st;
    int bad = bad_name_at(r.name);
    if (r.name[0] == '\0')
        return syntax_at(w, ncol, LS_ERR_SYNTAX, "empty name");
    if (bad >= 0)
        return syntax_at(w, ncol + bad, LS_ERR_SYNTAX,
                         "name '%s': names take letters, digits and _ . + - only", r.name);
    if ((st = row_numbers(f, col, idx, &r, w)) ||
        (st = text_field(f[idx[COL_GPU]], r.gpu, sizeof r.gpu, "gpu", col[idx[COL_GPU]], w)) ||
        (st = text_field(f[idx[COL_DATE]], r.date, sizeof r.date, "date", col[idx[COL_DATE]], w)))
        return st;
    for (size_t k = 0; k < m->n; k++)
        if (strcmp(m->rows[k].name, r.name) == 0)
            return syntax_at(w, ncol, LS_ERR_INVALID, "a second row for '%s' (first on line %d)",
                             r.name, m->rows[k].line);
    if ((m->n & (m->n - 1)) == 0) /* doubled at each power of two: linear, not n^2 */
        m->rows = ls_xrealloc(m->rows, (m->n ? 2 * m->n : 1) * sizeof *m->rows);
    m->rows[m->n++] = r;
    return LS_OK;
}

ls_status ls_measured_parse(const char *text, size_t len, const char *path, ls_measured *m,
                            ls_diag *diag)
{
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    line_reader *r = ls_xcalloc(1, sizeof *r);
    r->text = text;
    r->len = len;
    r->path = path;
    int idx[N_COLS], n_fields = 0, header_line = 0;
    ls_status st = LS_OK;
    while (next_line(r, &st, diag)) {
        where w = {path, r->lineno, diag};
        size_t i = 0;
        skip_space(r->ln, &i);
        if (r->ln[i] == '\0')
            continue;
        if (r->ln[i] == '#') {
            if (header_line == 0)
                prov_line(m, r->ln + i);
            continue;
        }
        if (header_line == 0) {
            if ((st = columns(r->ln, idx, &n_fields, &w)))
                break;
            header_line = r->lineno;
            continue;
        }
        if ((st = measured_row(m, r->ln, idx, n_fields, &w)))
            break;
    }
    if (st == LS_OK && header_line == 0)
        st = ls_diag_set(diag, LS_ERR_SYNTAX, path, r->lineno, 1, "no column line (expected %s)",
                         COLUMN_LINE);
    else if (st == LS_OK && m->n == 0)
        st = ls_diag_set(diag, LS_ERR_NOTFOUND, path, header_line, 1,
                         "no rows after the column line");
    free(r);
    if (st)
        ls_measured_free(m);
    return st;
}

ls_status ls_measured_load(const char *path, ls_measured *m, ls_diag *diag)
{
    memset(m, 0, sizeof *m);
    char *buf;
    size_t len;
    ls_status st = ls_read_text(path, (size_t)LS_COMPARE_MAX_FILE, &buf, &len, diag);
    if (st)
        return st;
    st = ls_measured_parse(buf, len, path, m, diag);
    free(buf);
    return st;
}

void ls_measured_free(ls_measured *m)
{
    if (m == NULL)
        return;
    free(m->rows);
    m->rows = NULL;
    m->n = 0;
}

void ls_measured_fold_rounds(const ls_measured_row *rounds, int n, ls_measured_row *out)
{
    *out = rounds[0];
    if (n <= 1)
        return;
    double *med = ls_xmalloc((size_t)n * sizeof *med);
    double *launch = ls_xmalloc((size_t)n * sizeof *launch);
    int n_launch = 0;
    out->runs = 0;
    for (int k = 0; k < n; k++) {
        med[k] = rounds[k].measured_us;
        if (!isnan(rounds[k].launch_us))
            launch[n_launch++] = rounds[k].launch_us;
        out->min_us = fmin(out->min_us, rounds[k].min_us);
        out->max_us = fmax(out->max_us, rounds[k].max_us);
        out->runs += rounds[k].runs;
    }
    out->measured_us = ls_stat_percentile(med, (size_t)n, 0.5);
    out->launch_us = n_launch ? ls_stat_percentile(launch, (size_t)n_launch, 0.5) : NAN;
    /* bytes over time: the first round's bytes at the median time */
    double scale = rounds[0].measured_us / out->measured_us;
    out->gbytes_per_s = rounds[0].gbytes_per_s * scale;
    out->copy_fraction = rounds[0].copy_fraction * scale;
    free(med);
    free(launch);
}

const ls_measured_row *ls_measured_find(const ls_measured *m, const char *name)
{
    for (size_t k = 0; k < m->n; k++)
        if (strcmp(m->rows[k].name, name) == 0)
            return &m->rows[k];
    return NULL;
}

const char *ls_measured_prov(const ls_measured *m, const char *key)
{
    for (int k = 0; k < m->n_prov; k++)
        if (strcmp(m->prov[k].key, key) == 0)
            return m->prov[k].value;
    return NULL;
}

ls_status ls_measured_match(const ls_measured *m, const ls_suite *s, bool allow_missing,
                            size_t *row_of, size_t *n_missing, size_t *n_extra, ls_diag *diag)
{
    size_t missing = 0, extra = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ls_measured_row *r = ls_measured_find(m, s->cases[i].name);
        row_of[i] = r ? (size_t)(r - m->rows) : SIZE_MAX;
        if (r)
            continue;
        if (!allow_missing)
            return ls_diag_set(diag, LS_ERR_NOTFOUND, s->path, s->cases[i].line, 1,
                               "case '%s' has no row in %s", s->cases[i].name, m->path);
        missing++;
    }
    for (size_t k = 0; k < m->n; k++) {
        bool found = false;
        for (size_t i = 0; i < s->n && !found; i++)
            found = strcmp(s->cases[i].name, m->rows[k].name) == 0;
        extra += !found;
    }
    if (n_missing)
        *n_missing = missing;
    if (n_extra)
        *n_extra = extra;
    if (missing == s->n)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, m->path, 0, 0,
                           "no row for any of the %zu cases of %s", s->n, s->path);
    return LS_OK;
}

/* Commas would split a field and newlines a row: spaces instead. */
static void put_clean(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == ',' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

void ls_measured_write_header(FILE *f, const ls_prov_entry *prov, int n_prov)
{
    fprintf(f, "# lanescope measured kernel times (format: include/lanescope/compare.h)\n");
    for (int k = 0; k < n_prov; k++) {
        fprintf(f, "# %s: ", prov[k].key);
        for (const char *s = prov[k].value; *s; s++)
            fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
        fputc('\n', f);
    }
    fprintf(f, "%s%s\n", COLUMN_LINE, EXTRA_COLUMNS);
}

static void put_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
}

void ls_measured_write_row(FILE *f, const ls_measured_row *r)
{
    put_clean(f, r->name);
    fprintf(f, ",%.6g,%.6g,%.6g,%lld,", r->measured_us, r->min_us, r->max_us, (long long)r->runs);
    put_number(f, r->gbytes_per_s);
    fputc(',', f);
    put_number(f, r->copy_fraction);
    fputc(',', f);
    put_clean(f, r->gpu);
    fputc(',', f);
    put_clean(f, r->date);
    fputc(',', f);
    put_number(f, r->launch_us);
    fputc('\n', f);
}
