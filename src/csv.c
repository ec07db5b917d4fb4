/* csv.c: RFC 4180 field splitting for the line-based CSV readers (see
 * csv.h).  Quoted fields are unescaped in place: the text only shrinks. */
#include <stddef.h>

#include "lanescope/csv.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int ls_csv_split(char *ln, char **f, int *col, int max, int *bad_col)
{
    int n = 0;
    char *p = ln;
    for (;;) {
        if (n == max)
            return -1;
        while (is_blank(*p))
            p++;
        col[n] = (int)(p - ln) + 1;
        char *end;
        if (*p == '"') {
            int open_col = col[n];
            char *w = p; /* the unescaped text overwrites the quoted one */
            f[n] = w;
            p++;
            for (;;) {
                if (*p == '\0') {
                    *bad_col = open_col;
                    return -2;
                }
                if (*p == '"') {
                    if (p[1] != '"')
                        break;
                    p++; /* "" is one quote */
                }
                *w++ = *p++;
            }
            p++; /* the closing quote */
            while (is_blank(*p))
                p++;
            if (*p != ',' && *p != '\0') {
                *bad_col = (int)(p - ln) + 1;
                return -2;
            }
            end = w;
        } else {
            f[n] = p;
            while (*p != ',' && *p != '\0')
                p++;
            end = p;
            while (end > f[n] && is_blank(end[-1]))
                end--;
        }
        n++;
        char sep = *p;
        *end = '\0';
        if (sep == '\0')
            return n;
        p++;
    }
}
