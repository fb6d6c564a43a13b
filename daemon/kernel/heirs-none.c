/* heirs-none.c: heirs.h where pmapid was built without BPF (no clang or libbpf): every new thread is
 * attached after the fact, as heirs_unavailable_reason() says at start. */
#include <errno.h>

#include "heirs.h"

int heirs_new(unsigned max_threads, unsigned max_births, Heirs **ret) {
        return -EOPNOTSUPP;
}

Heirs *heirs_free(Heirs *h) {
        return NULL;
}

const char *heirs_unavailable_reason(int error) {
        return "pmapid was built without BPF (clang or libbpf missing)";
}

int heirs_carry(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, bool counting,
                unsigned group_id, uid_t owner) {
        return -EOPNOTSUPP;
}

int heirs_set_counting(Heirs *h, pid_t tid, bool counting) {
        return -EOPNOTSUPP;
}

int heirs_reset(Heirs *h, pid_t tid, uint64_t born_ns) {
        return -EOPNOTSUPP;
}

int heirs_set_local(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t ret_local[8]) {
        return -EOPNOTSUPP;
}

int heirs_local_settled(Heirs *h, pid_t tid, uint64_t born_ns) {
        return -EOPNOTSUPP;
}

int heirs_unset_local(Heirs *h, pid_t tid, uint64_t born_ns, const uint64_t local[8]) {
        return -EOPNOTSUPP;
}

void heirs_drop(Heirs *h, pid_t tid) {
}

bool heirs_born(Heirs *h, pid_t tid, HeirsBirth *ret) {
        return false;
}

void heirs_foreach_born(Heirs *h, void (*fn)(pid_t tid, void *userdata), void *userdata) {
}

bool heirs_carries(Heirs *h, pid_t tid) {
        return false;
}

bool heirs_births_spent(Heirs *h, pid_t tid) {
        return false;
}

bool heirs_maybe_on_cpu(Heirs *h, pid_t tid) {
        return true;
}

int heirs_register_carrier(Heirs *h, pid_t tid, const struct perf_event_attr *attrs, size_t n, unsigned group_id,
                           uid_t owner) {
        return -EOPNOTSUPP;
}

int heirs_fold_running(Heirs *h) {
        return -EOPNOTSUPP;
}

bool heirs_sealed(Heirs *h, pid_t tid) {
        return false;
}

void heirs_batch_begin(Heirs *h) {
}

void heirs_batch_end(Heirs *h) {
}

int heirs_read(Heirs *h, pid_t tid, uint64_t born_ns, HeirsReading *ret) {
        return -ENOENT;
}

bool heirs_wait_final(Heirs *h, pid_t tid, uint64_t born_ns, uint64_t timeout_ns) {
        return false;
}

uint64_t heirs_ambiguous_slices(Heirs *h) {
        return 0;
}

void heirs_log_stats(Heirs *h) {
}

size_t heirs_fds(Heirs *h, int *ret, size_t max) {
        return 0;
}

int heirs_adopt(const int *fds, size_t n, Heirs **ret) {
        return -EOPNOTSUPP;
}
