/* arena.h: bump allocator for parse trees and other short-lived graphs.
 *
 * Everything allocated from an arena is freed at once by ls_arena_fini, which
 * makes error paths in the parser leak-free by construction.  Allocation
 * failure aborts through one wrapper (ls_xmalloc), as the library has no
 * sensible way to continue without memory.
 */
#ifndef LANESCOPE_ARENA_H
#define LANESCOPE_ARENA_H

#include <stddef.h>

typedef struct ls_arena_block ls_arena_block;
typedef struct {
    ls_arena_block *head;
    size_t total_bytes; /* bytes handed out, for limits and tests */
} ls_arena;

void ls_arena_init(ls_arena *a);
void ls_arena_fini(ls_arena *a);
/* Zeroed, 16-byte aligned memory owned by the arena. */
void *ls_arena_alloc(ls_arena *a, size_t size);
/* NUL-terminated copy of s[0..len) owned by the arena. */
char *ls_arena_strndup(ls_arena *a, const char *s, size_t len);

/* malloc/calloc/realloc that abort with a message on failure. */
void *ls_xmalloc(size_t size);
void *ls_xcalloc(size_t n, size_t size);
/* ls_xcalloc at an address that is a multiple of align (a power of two):
 * an array of cache-line-sized records starts on a line.  free() frees it. */
void *ls_xcalloc_aligned(size_t n, size_t size, size_t align);
void *ls_xrealloc(void *p, size_t size);

#endif
