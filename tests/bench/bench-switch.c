/* bench-switch.c: see bench-switch.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench-stats.h"
#include "bench-switch.h"

#define BATCH 100               /* round trips timed together */

typedef struct Pipes {
        int ping[2], pong[2];
} Pipes;

/* Answers each byte on ping with the same byte on pong, until a 0 byte. */
static void *partner(void *arg) {
        Pipes *p = arg;
        char c;

        while (read(p->ping[0], &c, 1) == 1 && c)
                if (write(p->pong[1], &c, 1) != 1)
                        break;
        return NULL;
}

long long bench_switch_ns(int round_trips) {
        int batches = round_trips / BATCH, k = 0;
        long long *t = batches > 0 ? calloc((size_t) batches, sizeof(*t)) : NULL, median = -1;
        Pipes p = { { -1, -1 }, { -1, -1 } };
        pthread_t th;
        char c = 1, z = 0;
        bool started = false;

        if (t && pipe(p.ping) == 0 && pipe(p.pong) == 0 && pthread_create(&th, NULL, partner, &p) == 0)
                started = true;
        for (; started && k < batches; k++) {
                long long s = bench_now_ns();
                int i;

                for (i = 0; i < BATCH; i++)
                        if (write(p.ping[1], &c, 1) != 1 || read(p.pong[0], &c, 1) != 1)
                                break;
                if (i < BATCH)
                        break;
                t[k] = (bench_now_ns() - s) / (2 * BATCH);
        }
        if (started) {
                (void) !write(p.ping[1], &z, 1);
                pthread_join(th, NULL);
        }
        for (int i = 0; i < 2; i++) {
                if (p.ping[i] >= 0)
                        close(p.ping[i]);
                if (p.pong[i] >= 0)
                        close(p.pong[i]);
        }
        if (started && k == batches)
                median = bench_median(t, batches);
        free(t);
        return median;
}
