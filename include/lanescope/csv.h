/* csv.h: one line of a CSV file split into fields, as RFC 4180 defines
 * them: commas separate, a field in double quotes may hold commas, and ""
 * inside quotes is one quote.  Unquoted fields lose their surrounding
 * spaces.  Every CSV reader of the tool splits through this. */
#ifndef LANESCOPE_CSV_H
#define LANESCOPE_CSV_H

/* Split ln in place: f[i] the i-th field (unquoted, NUL-terminated), col[i]
 * its 1-based column in the line.  Returns the number of fields; -1 past
 * max fields; -2 for a quote left open or text after a closing quote, with
 * *bad_col the column. */
int ls_csv_split(char *ln, char **f, int *col, int max, int *bad_col);

#endif
