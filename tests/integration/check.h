/* check.h: assertions usable in forked children (exit status), where cmocka's cannot reach. */
#pragma once

#include <stdio.h>

#define CHECK(x)                                                                                   \
        do {                                                                                       \
                if (!(x)) {                                                                        \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x);      \
                        return 1;                                                                  \
                }                                                                                  \
        } while (0)

#define CHECK_RC(call, expected)                                                                   \
        do {                                                                                       \
                int _rc = (call);                                                                  \
                if (_rc != (expected)) {                                                           \
                        fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__,    \
                                __LINE__, #call, _rc, pm_strerror(NULL, _rc), (expected));         \
                        return 1;                                                                  \
                }                                                                                  \
        } while (0)

#define CHECK_NEAR(value, expected, tolerance)                                                     \
        do {                                                                                       \
                long long _v = (value), _e = (expected), _t = (tolerance);                         \
                if (_v < _e - _t || _v > _e + _t) {                                                \
                        fprintf(stderr, "%s:%d: %s = %lld, expected %lld +- %lld\n", __FILE__,     \
                                __LINE__, #value, _v, _e, _t);                                     \
                        return 1;                                                                  \
                }                                                                                  \
        } while (0)

#define CHECK_RANGE(value, low, high)                                                              \
        do {                                                                                       \
                long long _v = (value), _l = (low), _h = (high);                                   \
                if (_v < _l || _v > _h) {                                                          \
                        fprintf(stderr, "%s:%d: %s = %lld, expected %lld to %lld\n", __FILE__,     \
                                __LINE__, #value, _v, _l, _h);                                     \
                        return 1;                                                                  \
                }                                                                                  \
        } while (0)
