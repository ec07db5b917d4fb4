/* npy.c: minimal .npy reader (see npy.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/atomic.h"
#include "lanescope/arena.h"
#include "lanescope/npy.h"

static ls_status bad(ls_diag *d, const char *path, const char *msg)
{
    return ls_diag_set(d, LS_ERR_SYNTAX, path, 0, 0, "not a usable .npy file: %s", msg);
}

ls_status ls_npy_load(const char *path, ls_npy *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    FILE *f = ls_open_input(path, diag);
    if (f == NULL)
        return diag->status;
    unsigned char pre[12];
    ls_status st = LS_OK;
    char *hdr = NULL;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        st = bad(diag, path, "no \\x93NUMPY magic");
        goto done;
    }
    size_t hlen;
    if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            st = bad(diag, path, "truncated header");
            goto done;
        }
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        st = bad(diag, path, "unknown format version");
        goto done;
    }
    if (hlen > 65536) {
        st = bad(diag, path, "header longer than 64 KiB");
        goto done;
    }
    hdr = ls_xmalloc(hlen + 1);
    if (fread(hdr, 1, hlen, f) != hlen) {
        st = bad(diag, path, "truncated header");
        goto done;
    }
    hdr[hlen] = 0;
    char *descr = strstr(hdr, "'descr'"), *fo = strstr(hdr, "'fortran_order'"),
         *shape = strstr(hdr, "'shape'");
    if (!descr || !fo || !shape) {
        st = bad(diag, path, "header lacks descr, fortran_order or shape");
        goto done;
    }
    char dt[8] = "";
    char *q = strchr(descr + 7, '\'');
    if (q)
        sscanf(q + 1, "%7[^']", dt);
    static const struct {
        const char *d;
        ls_elem_type t;
    } dtypes[] = {{"<f2", LS_ET_F16}, {"<f4", LS_ET_F32}, {"<f8", LS_ET_F64}, {"|i1", LS_ET_I8},
                  {"|u1", LS_ET_I8},  {"<i2", LS_ET_I16}, {"<u2", LS_ET_I16}, {"<i4", LS_ET_I32},
                  {"<u4", LS_ET_I32}, {"<i8", LS_ET_I64}, {"<u8", LS_ET_I64}};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dt, dtypes[i].d) == 0)
            out->type = dtypes[i].t;
    if (out->type == LS_ET_UNKNOWN) {
        char msg[64];
        snprintf(msg, sizeof msg, "dtype '%s' is not one of <f2 <f4 <f8 i1 i2 i4 i8", dt);
        st = bad(diag, path, msg);
        goto done;
    }
    if (strstr(fo, "True") && strstr(fo, "True") < shape) {
        st = bad(diag, path, "fortran_order arrays are not supported (save in C order)");
        goto done;
    }
    char *p = strchr(shape, '(');
    out->count = 1;
    while (p && *++p && *p != ')') {
        if (*p == ' ' || *p == ',')
            continue;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || out->rank >= LS_MAX_SHAPE_RANK) {
            st = bad(diag, path, "malformed shape (or rank over 16)");
            goto done;
        }
        out->shape[out->rank++] = v;
        if (__builtin_mul_overflow(out->count, (int64_t)v, &out->count) ||
            out->count > LS_NPY_MAX_BYTES) {
            st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "array larger than the %lld-byte limit",
                             (long long)LS_NPY_MAX_BYTES);
            goto done;
        }
        p = end - 1;
    }
    int64_t bytes = out->count * (ls_elem_type_bits(out->type) / 8);
    if (bytes > LS_NPY_MAX_BYTES) {
        st = ls_diag_set(diag, LS_ERR_LIMIT, path, 0, 0, "array larger than the %lld-byte limit",
                         (long long)LS_NPY_MAX_BYTES);
        goto done;
    }
    out->data = ls_xmalloc((size_t)bytes);
    if ((int64_t)fread(out->data, 1, (size_t)bytes, f) != bytes) {
        st = bad(diag, path, "fewer data bytes than the shape needs");
        goto done;
    }
done:
    free(hdr);
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
