/* fuzz_csv.c: libFuzzer target for the readers of `compare`: the suite
 * file and the measured-timings CSV (RFC 4180, columns by name), then the
 * matching of one against the other.  An input holding a line "%%" is a
 * suite before it and a CSV after it; any other input is tried as both.
 * Every line also goes through the field splitter alone, whose fields must
 * lie inside the line. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lanescope/compare.h"
#include "lanescope/csv.h"

static void split_lines(char *text)
{
    for (char *ln = text; ln != NULL && *ln;) {
        char *nl = strchr(ln, '\n');
        if (nl)
            *nl = 0;
        size_t len = strlen(ln);
        char *f[64];
        int col[64], bad = 0;
        int n = ls_csv_split(ln, f, col, 64, &bad);
        for (int i = 0; i < n; i++)
            if (f[i] < ln || f[i] + strlen(f[i]) > ln + len || col[i] < 1 ||
                (size_t)col[i] > len + 1)
                __builtin_trap();
        if (n == -2 && (bad < 1 || (size_t)bad > len + 1))
            __builtin_trap();
        ln = nl ? nl + 1 : NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    const char *suite = text, *csv = text;
    size_t suite_len = size, csv_len = size;
    char *sep = strstr(text, "\n%%\n");
    if (sep != NULL) {
        suite_len = (size_t)(sep - text) + 1;
        csv = sep + 4;
        csv_len = size - (size_t)(csv - text);
    }
    ls_diag d;
    ls_measured m;
    ls_suite s;
    memset(&m, 0, sizeof m);
    memset(&s, 0, sizeof s);
    ls_diag_clear(&d);
    bool have_s = ls_suite_parse(suite, suite_len, "fuzz.suite", &s, &d) == LS_OK;
    ls_diag_clear(&d);
    bool have_m = ls_measured_parse(csv, csv_len, "fuzz.csv", &m, &d) == LS_OK;
    if (have_m && have_s) {
        size_t *row_of = malloc((s.n + 1) * sizeof *row_of), missing = 0, extra = 0;
        ls_diag_clear(&d);
        if (ls_measured_match(&m, &s, true, row_of, &missing, &extra, &d) == LS_OK)
            for (size_t i = 0; i < s.n; i++)
                if (row_of[i] != SIZE_MAX && row_of[i] >= m.n)
                    __builtin_trap();
        free(row_of);
    }
    ls_measured_free(&m);
    ls_suite_free(&s);
    split_lines(text);
    free(text);
    return 0;
}
