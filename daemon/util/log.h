/* log.h: daemon logging to stderr with sd-daemon level prefixes, so journald keeps the level.
 * log_*_errno() return the negative error they were given, so logging and returning fit in one
 * statement at the edge. Only the daemon logs; libpmapi stays silent. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

extern int log_max_level;

#define log_full(level, prefix, fmt, ...)                                                          \
        ({                                                                                         \
                if ((level) <= log_max_level)                                                      \
                        fprintf(stderr, prefix fmt "\n", ##__VA_ARGS__);                           \
        })

#define log_full_errno(level, prefix, error, fmt, ...)                                             \
        ({                                                                                         \
                int _e = (error) < 0 ? -(error) : (error);                                         \
                if ((level) <= log_max_level) {                                                    \
                        errno = _e;                                                                \
                        fprintf(stderr, prefix fmt "\n", ##__VA_ARGS__);                           \
                }                                                                                  \
                -_e;                                                                               \
        })

#define log_debug(...)   log_full(7, SD_DEBUG, __VA_ARGS__)
#define log_info(...)    log_full(6, SD_INFO, __VA_ARGS__)
#define log_notice(...)  log_full(5, SD_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(4, SD_WARNING, __VA_ARGS__)
#define log_error(...)   log_full(3, SD_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...)   log_full_errno(7, SD_DEBUG, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(4, SD_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...)   log_full_errno(3, SD_ERR, e, __VA_ARGS__)
