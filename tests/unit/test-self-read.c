/* test-self-read.c: the user-page protocol of pmapi/self-read.c with a page and a counter made up
 * here (no PMU on the test machine): the fallback whenever the event is not on a counter or user
 * access is off, the count as offset plus the counter sign-extended from pmc_width bits, a retry
 * when the page changed during the read; then a real software event's page, which always says
 * "read() me" (index 0). */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "self-read.h"

static struct perf_event_mmap_page page;
static uint64_t counter_value;
static unsigned pmc_calls;
static uint32_t last_idx;
static int bump_lock_once;

static uint64_t fake_pmc(uint32_t idx) {
        pmc_calls++;
        last_idx = idx;
        if (bump_lock_once) {           /* the kernel rescheduled the event meanwhile */
                bump_lock_once = 0;
                page.lock += 2;
                page.offset += 1000;
        }
        return counter_value;
}

static void reset_page(void) {
        memset(&page, 0, sizeof(page));
        page.cap_user_rdpmc = 1;
        page.index = 4;                 /* counter 3 */
        page.pmc_width = 48;
        page.offset = 100;
        counter_value = 5;
        pmc_calls = 0;
        bump_lock_once = 0;
}

static void test_off_a_counter_falls_back(void **state) {
        uint64_t v = 0;

        (void) state;
        reset_page();
        page.index = 0;
        assert_int_equal(self_read(&page, fake_pmc, &v), 1);
        reset_page();
        page.cap_user_rdpmc = 0;
        assert_int_equal(self_read(&page, fake_pmc, &v), 1);
        reset_page();
        assert_int_equal(self_read(&page, NULL, &v), 1);       /* no rdpmc on this architecture */
        assert_int_equal(pmc_calls, 0);
}

static void test_count_is_offset_plus_the_sign_extended_counter(void **state) {
        uint64_t v = 0;

        (void) state;
        reset_page();
        assert_int_equal(self_read(&page, fake_pmc, &v), 0);
        assert_int_equal(v, 105);
        assert_int_equal(last_idx, 3);
        counter_value = 0xffffffffffffULL;      /* -1 in 48 bits */
        assert_int_equal(self_read(&page, fake_pmc, &v), 0);
        assert_int_equal(v, 99);
        counter_value = 0xffff800000000000ULL | 7;      /* junk above the width is dropped */
        page.pmc_width = 40;
        assert_int_equal(self_read(&page, fake_pmc, &v), 0);
        assert_int_equal(v, 107);
}

static void test_a_changed_page_is_read_again(void **state) {
        uint64_t v = 0;

        (void) state;
        reset_page();
        bump_lock_once = 1;
        assert_int_equal(self_read(&page, fake_pmc, &v), 0);
        assert_int_equal(pmc_calls, 2);
        assert_int_equal(v, 1105);              /* the second, consistent read */
}

static void test_a_software_event_says_read_me(void **state) {
        struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
                                     .config = PERF_COUNT_SW_PAGE_FAULTS, .exclude_kernel = 1 };
        long size = sysconf(_SC_PAGESIZE);
        uint64_t v = 0;
        void *p;
        int fd;

        (void) state;
        fd = (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
        if (fd < 0)
                skip();
        p = mmap(NULL, (size_t) size, PROT_READ, MAP_SHARED, fd, 0);
        assert_true(p != MAP_FAILED);
        pmc_calls = 0;
        assert_int_equal(self_read(p, fake_pmc, &v), 1);
        assert_int_equal(pmc_calls, 0);
        munmap(p, (size_t) size);
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_off_a_counter_falls_back),
                cmocka_unit_test(test_count_is_offset_plus_the_sign_extended_counter),
                cmocka_unit_test(test_a_changed_page_is_read_again),
                cmocka_unit_test(test_a_software_event_says_read_me),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
