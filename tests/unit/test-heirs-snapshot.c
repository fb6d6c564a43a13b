/* test-heirs-snapshot.c: the batch copy of the kernel's controls and counts maps (heirs-snapshot.h)
 * finds what the maps held, across several batches and with entries in one map only. Needs the bpf
 * system call (root or CAP_BPF): skipped (77) without it. */
#include <bpf/bpf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "heirs-snapshot.h"

#define N 5000          /* more than one batch */

static int controls = -1, counts = -1;

static void test_finds_every_thread_of_both_maps(void **state) {
        HeirsSnapshot *s = NULL;
        struct heirs_control c;
        struct heirs_counts n;

        (void) state;
        for (__u32 tid = 1; tid <= N; tid++) {
                struct heirs_control cv = { .flags = HEIRS_ACCOUNT, .tgid = tid / 10, .born_ns = tid * 7ull };
                struct heirs_counts nv = { .counts = { tid, 2 * tid }, .born_ns = tid * 7ull };

                assert_int_equal(bpf_map_update_elem(counts, &tid, &nv, BPF_ANY), 0);
                if (tid != N)   /* the last one's control not written yet (a birth under way) */
                        assert_int_equal(bpf_map_update_elem(controls, &tid, &cv, BPF_ANY), 0);
        }
        assert_int_equal(heirs_snapshot_new(controls, counts, &s), 0);
        for (pid_t tid = 1; tid < N; tid++) {
                assert_int_equal(heirs_snapshot_find(s, tid, &c, &n), 0);
                assert_int_equal(c.tgid, tid / 10);
                assert_int_equal(n.counts[0], tid);
                assert_int_equal(n.counts[1], 2 * tid);
                assert_int_equal(n.born_ns, tid * 7ull);
        }
        assert_int_equal(heirs_snapshot_find(s, N, &c, &n), -ENOENT);
        assert_int_equal(heirs_snapshot_find(s, N + 1, &c, &n), -ENOENT);
        /* A copy: the maps' later changes are not in it. */
        assert_int_equal(bpf_map_delete_elem(counts, &(__u32) { 1 }), 0);
        assert_int_equal(heirs_snapshot_find(s, 1, &c, &n), 0);
        heirs_snapshot_free(s);
}

static int setup(void **state) {
        (void) state;
        controls = bpf_map_create(BPF_MAP_TYPE_HASH, "controls", sizeof(__u32), sizeof(struct heirs_control), 2 * N,
                                  NULL);
        counts = bpf_map_create(BPF_MAP_TYPE_HASH, "counts", sizeof(__u32), sizeof(struct heirs_counts), 2 * N, NULL);
        return controls < 0 || counts < 0 ? -1 : 0;
}

static int teardown(void **state) {
        (void) state;
        close(controls);
        close(counts);
        return 0;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_finds_every_thread_of_both_maps),
        };
        int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 4, 1, NULL);

        if (fd < 0) {
                printf("1..0 # SKIP no bpf system call here (%s)\n", strerror(errno));
                return 77;
        }
        close(fd);
        return cmocka_run_group_tests(tests, setup, teardown);
}
