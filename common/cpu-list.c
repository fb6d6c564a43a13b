/* cpu-list.c: see cpu-list.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-list.h"
#include "macro.h"

DEFINE_FREEP(FILE, fclose);

static int parse_number(const char **p, unsigned long *ret) {
        char *end;

        if (**p < '0' || **p > '9')
                return -EINVAL;
        errno = 0;
        *ret = strtoul(*p, &end, 10);
        if (errno != 0)
                return -EINVAL;
        *p = end;
        return 0;
}

int cpu_list_parse(const char *text, bool *set, size_t n_set) {
        const char *p = text;

        memset(set, 0, n_set * sizeof(bool));
        while (*p && *p != '\n') {
                unsigned long first, last;
                int r;

                r = parse_number(&p, &first);
                if (r < 0)
                        return r;
                last = first;
                if (*p == '-') {
                        p++;
                        r = parse_number(&p, &last);
                        if (r < 0)
                                return r;
                }
                if (last < first)
                        return -EINVAL;
                if (last >= n_set)
                        return -ERANGE;
                for (unsigned long c = first; c <= last; c++)
                        set[c] = true;
                if (*p == ',')
                        p++;
                else if (*p && *p != '\n')
                        return -EINVAL;
        }
        return 0;
}

static int read_line(const char *path, char *buf, size_t size) {
        _cleanup_(fclosep) FILE *f = fopen(path, "re");

        if (!f)
                return -errno;
        if (!fgets(buf, (int) size, f))
                return -EIO;
        return 0;
}

int cpu_list_n_possible(size_t *ret) {
        char buf[4096];
        const char *last;
        unsigned long n;
        char *end;
        int r;

        r = read_line(CPU_LIST_POSSIBLE, buf, sizeof(buf));
        if (r < 0)
                return r;
        /* The highest number is the last one in the list. */
        last = buf + strcspn(buf, "\n");
        while (last > buf && last[-1] >= '0' && last[-1] <= '9')
                last--;
        n = strtoul(last, &end, 10);
        if (end == last || n >= 65536)
                return -EINVAL;
        *ret = n + 1;
        return 0;
}

int cpu_list_read(const char *path, size_t n, bool **ret) {
        _cleanup_free_ bool *set = calloc(n ? n : 1, sizeof(bool));
        char buf[4096];
        int r;

        if (!set)
                return -ENOMEM;
        r = read_line(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        r = cpu_list_parse(buf, set, n);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(set);
        return 0;
}
