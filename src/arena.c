/* arena.c: bump allocator (see arena.h).  Blocks grow geometrically; a large
 * request gets a block of its own, so waste stays bounded by the block size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"

struct ls_arena_block {
    ls_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { LS_ARENA_MIN_BLOCK = 16 * 1024 };

void *ls_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "lanescope: out of memory (%zu bytes)\n", size);
        abort();
    }
    return p;
}

void *ls_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "lanescope: out of memory (%zu x %zu bytes)\n", n, size);
        abort();
    }
    return p;
}

void *ls_xcalloc_aligned(size_t n, size_t size, size_t align)
{
    size_t bytes = 0;
    void *p = NULL;
    if (!__builtin_mul_overflow(n ? n : 1, size ? size : 1, &bytes) &&
        bytes <= SIZE_MAX - align)
        p = aligned_alloc(align, (bytes + align - 1) / align * align);
    if (p == NULL) {
        fprintf(stderr, "lanescope: out of memory (%zu x %zu bytes)\n", n, size);
        abort();
    }
    return memset(p, 0, bytes);
}

void *ls_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (q == NULL) {
        fprintf(stderr, "lanescope: out of memory (%zu bytes)\n", size);
        abort();
    }
    return q;
}

void ls_arena_init(ls_arena *a)
{
    a->head = NULL;
    a->total_bytes = 0;
}

void ls_arena_fini(ls_arena *a)
{
    ls_arena_block *b = a->head;
    while (b) {
        ls_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total_bytes = 0;
}

void *ls_arena_alloc(ls_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    ls_arena_block *b = a->head;
    if (b == NULL || b->cap - b->used < size) {
        size_t cap = b ? b->cap * 2 : LS_ARENA_MIN_BLOCK;
        if (cap < size)
            cap = size;
        ls_arena_block *nb = ls_xmalloc(sizeof *nb + cap);
        nb->used = 0;
        nb->cap = cap;
        nb->next = a->head;
        a->head = nb;
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->total_bytes += size;
    memset(p, 0, size);
    return p;
}

char *ls_arena_strndup(ls_arena *a, const char *s, size_t len)
{
    char *p = ls_arena_alloc(a, len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
