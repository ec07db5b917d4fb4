/* npy.c: the .npy reader (see npy.h).  The header is the Python dict literal
 * NumPy's format document defines (numpy/lib/format.py): exactly the keys
 * descr, fortran_order and shape, in any order, each once; the array's bytes
 * follow it and nothing else does. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lanescope/atomic.h"
#include "lanescope/arena.h"
#include "lanescope/npy.h"

/* The preamble: magic, version, header length (2 bytes in version 1, 4 in
 * versions 2 and 3). */
#define NPY_MAX_HEADER 65536

static ls_status bad(ls_diag *d, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ls_status bad(ls_diag *d, const char *path, const char *fmt, ...)
{
    char msg[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ls_diag_set(d, LS_ERR_SYNTAX, path, 0, 0, "not a usable .npy file: %s", msg);
}

/* A cursor over the header text; off is its byte offset in the file, for
 * messages. */
typedef struct {
    const char *p, *end;
    size_t off;
    const char *path;
    ls_diag *diag;
} hdr_cursor;

static size_t at(const hdr_cursor *c, const char *p)
{
    return c->off + (size_t)(p - c->p);
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* A quoted Python string of at most size-1 characters (no escapes: no key
 * or dtype NumPy writes has one). */
static const char *quoted(hdr_cursor *c, const char *p, char *buf, size_t size)
{
    if (p >= c->end || (*p != '\'' && *p != '"')) {
        bad(c->diag, c->path, "expected a quoted string at byte %zu of the header", at(c, p));
        return NULL;
    }
    char q = *p++;
    size_t n = 0;
    while (p < c->end && *p != q) {
        if (*p == '\\' || n + 1 >= size) {
            bad(c->diag, c->path, "unexpected string at byte %zu of the header", at(c, p));
            return NULL;
        }
        buf[n++] = *p++;
    }
    if (p >= c->end) {
        bad(c->diag, c->path, "unterminated string in the header");
        return NULL;
    }
    buf[n] = 0;
    return p + 1;
}

static ls_elem_type dtype_of(const char *dt)
{
    static const struct {
        const char *d;
        ls_elem_type t;
    } dtypes[] = {{"<f2", LS_ET_F16}, {"<f4", LS_ET_F32}, {"<f8", LS_ET_F64}, {"|i1", LS_ET_I8},
                  {"|u1", LS_ET_I8},  {"<i2", LS_ET_I16}, {"<u2", LS_ET_I16}, {"<i4", LS_ET_I32},
                  {"<u4", LS_ET_I32}, {"<i8", LS_ET_I64}, {"<u8", LS_ET_I64}};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dt, dtypes[i].d) == 0)
            return dtypes[i].t;
    return LS_ET_UNKNOWN;
}

/* shape: a tuple of non-negative integers, "()" for a scalar, "(n,)" for
 * one dimension. */
static const char *shape_tuple(hdr_cursor *c, const char *p, ls_npy *out)
{
    if (p >= c->end || *p != '(') {
        bad(c->diag, c->path, "shape is not a tuple (byte %zu of the header)", at(c, p));
        return NULL;
    }
    p = skip_space(p + 1, c->end);
    out->count = 1;
    while (p < c->end && *p != ')') {
        if (*p < '0' || *p > '9') {
            bad(c->diag, c->path, "malformed shape at byte %zu of the header", at(c, p));
            return NULL;
        }
        int64_t v = 0;
        while (p < c->end && *p >= '0' && *p <= '9') {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v)) {
                ls_diag_set(c->diag, LS_ERR_LIMIT, c->path, 0, 0,
                            "array larger than the %lld-byte limit", (long long)LS_NPY_MAX_BYTES);
                return NULL;
            }
            p++;
        }
        if (out->rank >= LS_MAX_SHAPE_RANK) {
            bad(c->diag, c->path, "rank over %d", LS_MAX_SHAPE_RANK);
            return NULL;
        }
        out->shape[out->rank++] = v;
        if (__builtin_mul_overflow(out->count, v, &out->count) || out->count > LS_NPY_MAX_BYTES) {
            ls_diag_set(c->diag, LS_ERR_LIMIT, c->path, 0, 0, "array larger than the %lld-byte limit",
                        (long long)LS_NPY_MAX_BYTES);
            return NULL;
        }
        p = skip_space(p, c->end);
        if (p < c->end && *p == ',')
            p = skip_space(p + 1, c->end);
        else if (p < c->end && *p != ')') {
            bad(c->diag, c->path, "malformed shape at byte %zu of the header", at(c, p));
            return NULL;
        }
    }
    if (p >= c->end) {
        bad(c->diag, c->path, "unterminated shape tuple");
        return NULL;
    }
    return p + 1;
}

/* The dict: each of the three keys exactly once, nothing else. */
static ls_status parse_dict(const char *text, size_t len, size_t off, const char *path, ls_npy *out,
                            ls_diag *diag)
{
    hdr_cursor c = {text, text + len, off, path, diag};
    const char *p = skip_space(text, c.end);
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    bool fortran = false;
    char dt[16] = "";
    if (p >= c.end || *p != '{')
        return bad(diag, path, "header is not a dict ('{' expected at byte %zu)", at(&c, p));
    p = skip_space(p + 1, c.end);
    while (p < c.end && *p != '}') {
        char key[32];
        const char *key_at = p;
        if ((p = quoted(&c, p, key, sizeof key)) == NULL)
            return diag->status;
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3)
            return bad(diag, path,
                       "unknown header key '%s' at byte %zu (a .npy header holds descr, "
                       "fortran_order and shape)",
                       key, at(&c, key_at));
        if (seen[k])
            return bad(diag, path, "header key '%s' given twice (again at byte %zu)", key,
                       at(&c, key_at));
        seen[k] = true;
        p = skip_space(p, c.end);
        if (p >= c.end || *p != ':')
            return bad(diag, path, "':' expected after '%s' at byte %zu", key, at(&c, p));
        p = skip_space(p + 1, c.end);
        if (k == 0) {
            if ((p = quoted(&c, p, dt, sizeof dt)) == NULL)
                return diag->status;
        } else if (k == 1) {
            size_t rest = (size_t)(c.end - p);
            if (rest >= 4 && memcmp(p, "True", 4) == 0)
                fortran = true, p += 4;
            else if (rest >= 5 && memcmp(p, "False", 5) == 0)
                p += 5;
            else
                return bad(diag, path, "fortran_order is not True or False (byte %zu)", at(&c, p));
        } else if ((p = shape_tuple(&c, p, out)) == NULL) {
            return diag->status;
        }
        p = skip_space(p, c.end);
        if (p < c.end && *p == ',')
            p = skip_space(p + 1, c.end);
        else if (p < c.end && *p != '}')
            return bad(diag, path, "',' or '}' expected at byte %zu of the header", at(&c, p));
    }
    if (p >= c.end)
        return bad(diag, path, "header dict has no closing '}'");
    p = skip_space(p + 1, c.end);
    if (p != c.end)
        return bad(diag, path, "text after the header dict at byte %zu", at(&c, p));
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            return bad(diag, path, "header lacks '%s'", keys[k]);
    if ((out->type = dtype_of(dt)) == LS_ET_UNKNOWN)
        return bad(diag, path, "dtype '%s' is not one of <f2 <f4 <f8 i1 i2 i4 i8 (or u1-u8)", dt);
    if (fortran && out->rank > 1)
        return bad(diag, path, "fortran_order arrays are not supported (save in C order)");
    return LS_OK;
}

/* Preamble and header from the first bytes of the file; *data_off is where
 * the array starts. */
static ls_status parse_header(const unsigned char *buf, size_t len, const char *path, ls_npy *out,
                              size_t *data_off, ls_diag *diag)
{
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return bad(diag, path, "no \\x93NUMPY magic");
    size_t hlen, pre;
    if (buf[6] == 1) {
        hlen = buf[8] | (size_t)buf[9] << 8;
        pre = 10;
    } else if (buf[6] == 2 || buf[6] == 3) {
        if (len < 12)
            return bad(diag, path, "truncated header");
        hlen = buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        pre = 12;
    } else {
        return bad(diag, path, "unknown format version %u", buf[6]);
    }
    if (hlen > NPY_MAX_HEADER)
        return bad(diag, path, "header longer than 64 KiB");
    if (len - pre < hlen)
        return bad(diag, path, "truncated header");
    if (memchr(buf + pre, 0, hlen) != NULL)
        return bad(diag, path, "NUL byte in the header");
    *data_off = pre + hlen;
    return parse_dict((const char *)buf + pre, hlen, pre, path, out, diag);
}

static int64_t data_bytes(const ls_npy *a)
{
    return a->count * (ls_elem_type_bits(a->type) / 8);
}

static ls_status size_check(const ls_npy *a, const char *path, ls_diag *diag)
{
    if (data_bytes(a) > LS_NPY_MAX_BYTES)
        return ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "array larger than the %lld-byte limit",
                           (long long)LS_NPY_MAX_BYTES);
    return LS_OK;
}

static ls_status trailing(const char *path, int64_t extra, ls_diag *diag)
{
    return bad(diag, path, "%lld byte%s after the array's data (a .npy file holds one array)",
               (long long)extra, extra == 1 ? "" : "s");
}

ls_status ls_npy_parse(const unsigned char *buf, size_t len, const char *path, ls_npy *out,
                       ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    size_t off;
    if (parse_header(buf, len, path, out, &off, diag) != LS_OK ||
        size_check(out, path, diag) != LS_OK)
        return diag->status;
    int64_t bytes = data_bytes(out);
    if ((int64_t)(len - off) < bytes)
        return bad(diag, path, "fewer data bytes than the shape needs (%lld of %lld)",
                   (long long)(len - off), (long long)bytes);
    if ((int64_t)(len - off) > bytes)
        return trailing(path, (int64_t)(len - off) - bytes, diag);
    out->data = ls_xmalloc((size_t)bytes + 1);
    memcpy(out->data, buf + off, (size_t)bytes);
    return LS_OK;
}

ls_status ls_npy_load(const char *path, ls_npy *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    FILE *f = ls_open_input(path, diag);
    if (f == NULL)
        return diag->status;
    /* The header is read whole first (it is at most 64 KiB past a 12-byte
     * preamble); the array then goes straight into its own buffer. */
    unsigned char *head = ls_xmalloc(12 + NPY_MAX_HEADER);
    size_t got = fread(head, 1, 12, f), off = 0;
    ls_status st = LS_OK;
    if (got >= 10 && memcmp(head, "\x93NUMPY", 6) == 0) {
        size_t pre = head[6] == 1 ? 10 : 12;
        size_t hlen = head[8] | (size_t)head[9] << 8;
        if (pre == 12 && got == 12)
            hlen |= (size_t)head[10] << 16 | (size_t)head[11] << 24;
        if (hlen <= NPY_MAX_HEADER && pre + hlen > got)
            got += fread(head + got, 1, pre + hlen - got, f);
    }
    if (parse_header(head, got, path, out, &off, diag) != LS_OK ||
        size_check(out, path, diag) != LS_OK) {
        st = diag->status;
        goto done;
    }
    int64_t bytes = data_bytes(out), have = (int64_t)(got - off);
    out->data = ls_xmalloc((size_t)bytes + 1);
    /* bytes read with the header (version 1 reads 12 of which 2 may be data) */
    if (have > bytes) {
        st = trailing(path, have - bytes, diag);
        goto done;
    }
    memcpy(out->data, head + off, (size_t)have);
    int64_t rest = bytes - have;
    if ((int64_t)fread(out->data + have, 1, (size_t)rest, f) != rest) {
        st = bad(diag, path, "fewer data bytes than the shape needs");
        goto done;
    }
    /* Anything after the array is an error.  A regular file says how much
     * from its size; a stream (a pipe, /dev/stdin) is not read past its
     * first extra byte, so an endless one cannot hold the run. */
    int c = fgetc(f);
    if (c != EOF) {
        struct stat sb;
        long at = ftell(f);
        if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && at > 0 && sb.st_size >= at)
            st = trailing(path, (int64_t)(sb.st_size - at) + 1, diag);
        else
            st = bad(diag, path, "bytes after the array's data (a .npy file holds one array)");
    }
done:
    free(head);
    fclose(f);
    if (st != LS_OK)
        ls_npy_free(out);
    return st;
}

void ls_npy_free(ls_npy *a)
{
    free(a->data);
    a->data = NULL;
}

uint64_t ls_npy_get(const ls_npy *a, int64_t i)
{
    int bytes = ls_elem_type_bits(a->type) / 8;
    uint64_t v = 0;
    for (int b = bytes - 1; b >= 0; b--) /* little-endian */
        v = v << 8 | a->data[i * bytes + b];
    return v;
}
