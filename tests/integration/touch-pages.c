/* touch-pages.c: touches N fresh pages and exits; the workload perf stat measures in
 * test-thread-counting.c. */
#include <stdlib.h>

#include "workload.h"

int main(int argc, char *argv[]) {
        return argc == 2 && touch_fresh_pages((size_t) atol(argv[1])) == 0 ? 0 : 1;
}
