/* hold-count.c: a client of the installed libpmapi for tests/systemd/boot-test.sh. Counts its own
 * group's page faults (PM_PAGE_FLT, user mode) across whatever the test does to pmapid meanwhile:
 * sets the program, touches PAGES fresh pages, reads the group, creates READY, waits for GO to
 * exist, touches PAGES more, reads again. Prints "delta N" (the second read less the first) and
 * "rc R" (0, or the first pm_* error: PM_ERESTARTED where pmapid lost the context), and exits 0
 * if every call succeeded. The same run with nothing done to pmapid gives the delta to compare. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmapi.h"

static int touch(size_t n) {
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return -1;
        (void) madvise((void *) p, n * page, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < n; i++)
                p[i * page] = 1;
        return munmap((void *) p, n * page);
}

static int event_id(const pm_info_t *info, const char *name) {
        for (int i = 0; i < info->maxevents[0]; i++)
                if (strcmp(info->list_events[0][i].short_name, name) == 0)
                        return info->list_events[0][i].event_id;
        return -1;
}

int main(int argc, char *argv[]) {
        struct timespec nap = { 0, 20 * 1000 * 1000 };
        pm_data_t d0, d1;
        pm_info_t info;
        pm_prog_t prog;
        struct stat st;
        size_t pages;
        int rc, fd;

        if (argc != 4) {
                fprintf(stderr, "Usage: hold-count PAGES READY GO\n");
                return 2;
        }
        pages = (size_t) atol(argv[1]);
        rc = pm_init(PM_VERIFIED | PM_CAVEAT, &info, NULL);
        memset(&prog, 0, sizeof(prog));
        for (int i = 0; i < MAX_COUNTERS; i++)
                prog.events[i] = COUNT_NOTHING;
        if (rc == 0 && (prog.events[0] = event_id(&info, "PM_PAGE_FLT")) < 0)
                rc = PM_EEVENT;
        prog.mode.w = PM_USER | PM_COUNT;
        if (rc == 0)
                rc = pm_set_program_mygroup(&prog);
        (void) stat(argv[3], &st);      /* its code paged in before the first read */
        if (rc == 0)
                rc = touch(pages) == 0 ? pm_get_data_mygroup(&d0) : PM_EFAULT;
        fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
                close(fd);
        while (stat(argv[3], &st) != 0)
                nanosleep(&nap, NULL);
        if (rc == 0)
                rc = touch(pages) == 0 ? pm_get_data_mygroup(&d1) : PM_EFAULT;
        printf("delta %lld\nrc %d\n", rc == 0 ? (long long) (d1.accu[0] - d0.accu[0]) : -1LL, rc);
        if (rc != 0)
                pm_error("hold-count", rc);
        return rc == 0 ? 0 : 1;
}
