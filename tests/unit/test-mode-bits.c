/* test-mode-bits.c: the bit-field unions of include/pmapi.h (pm_mode_t, pm_status_t, pm_feature_t
 * and pm_ginfo_t.flags) and the AIX constants. AIX code sets mode.b.user and tests mode.w against
 * PM_USER, so every named field must land on exactly the AIX value in the w member, and a w value
 * must read back as exactly that one field. Each union is checked against a table of fields and
 * values; the tables name every field of the union except spare ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pmapi.h"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* One bit field of a union: how to set it to its largest value, how to read it, and the w value
 * that setting it must give. */
typedef struct BitField {
        const char *name;
        unsigned int w;                 /* the AIX value of the field at its largest */
        unsigned int max;               /* 1 for a flag, 63 for the threshold */
        void (*set)(void *u, unsigned int v);
        unsigned int (*get)(const void *u);
} BitField;

#define FIELD(type, member, name_)                                                                 \
        static void set_##name_(void *u, unsigned int v) {                                        \
                ((type *) u)->member = v;                                                          \
        }                                                                                          \
        static unsigned int get_##name_(const void *u) {                                          \
                return ((const type *) u)->member;                                                 \
        }

#define ROW(name_, w_, max_) { #name_, w_, max_, set_##name_, get_##name_ }

/* pm_mode_t */
FIELD(pm_mode_t, b.proctree, mode_proctree)
FIELD(pm_mode_t, b.count, mode_count)
FIELD(pm_mode_t, b.user, mode_user)
FIELD(pm_mode_t, b.kernel, mode_kernel)
FIELD(pm_mode_t, b.process, mode_process)
FIELD(pm_mode_t, b.is_group, mode_is_group)
FIELD(pm_mode_t, b.no_inherit, mode_no_inherit)
FIELD(pm_mode_t, b.wpar_all, mode_wpar_all)
FIELD(pm_mode_t, b.nointerrupt, mode_nointerrupt)
FIELD(pm_mode_t, b.thresh_hres, mode_thresh_hres)
FIELD(pm_mode_t, b.hypervisor, mode_hypervisor)
FIELD(pm_mode_t, b.runlatch, mode_runlatch)
FIELD(pm_mode_t, b.thresh_res, mode_thresh_res)
FIELD(pm_mode_t, b.threshold, mode_threshold)

static const BitField mode_fields[] = {
        ROW(mode_proctree,    0x1u,        1),
        ROW(mode_count,       0x2u,        1),
        ROW(mode_user,        0x4u,        1),
        ROW(mode_kernel,      0x8u,        1),
        ROW(mode_process,     0x10u,       1),
        ROW(mode_is_group,    0x20u,       1),
        ROW(mode_no_inherit,  0x80000u,    1),
        ROW(mode_wpar_all,    0x100000u,   1),
        ROW(mode_nointerrupt, 0x200000u,   1),
        ROW(mode_thresh_hres, 0x400000u,   1),
        ROW(mode_hypervisor,  0x800000u,   1),
        ROW(mode_runlatch,    0x1000000u,  1),
        ROW(mode_thresh_res,  0x2000000u,  1),
        ROW(mode_threshold,   0xfc000000u, 63),
};

/* pm_status_t */
FIELD(pm_status_t, b.verified, status_verified)
FIELD(pm_status_t, b.unverified, status_unverified)
FIELD(pm_status_t, b.caveat, status_caveat)
FIELD(pm_status_t, b.broken, status_broken)
FIELD(pm_status_t, b.group_only, status_group_only)
FIELD(pm_status_t, b.threshold, status_threshold)
FIELD(pm_status_t, b.shared, status_shared)
FIELD(pm_status_t, b.support_mode, status_support_mode)
FIELD(pm_status_t, b.overflow, status_overflow)
FIELD(pm_status_t, b.marked, status_marked)
FIELD(pm_status_t, b.sharedchip, status_sharedchip)

static const BitField status_fields[] = {
        ROW(status_verified,     0x40000000u, 1),
        ROW(status_unverified,   0x80000000u, 1),
        ROW(status_caveat,       0x20000000u, 1),
        ROW(status_broken,       0x10000000u, 1),
        ROW(status_group_only,   0x8000u,     1),
        ROW(status_threshold,    0x4000u,     1),
        ROW(status_shared,       0x2000u,     1),
        ROW(status_support_mode, 0x1000u,     1),
        ROW(status_overflow,     0x800u,      1),
        ROW(status_marked,       0x400u,      1),
        ROW(status_sharedchip,   0x200u,      1),
};

/* pm_feature_t */
FIELD(pm_feature_t, b.hypervisor, feature_hypervisor)
FIELD(pm_feature_t, b.runlatch, feature_runlatch)
FIELD(pm_feature_t, b.purr, feature_purr)
FIELD(pm_feature_t, b.spurr, feature_spurr)
FIELD(pm_feature_t, b.compatibility, feature_compatibility)

static const BitField feature_fields[] = {
        ROW(feature_hypervisor,    0x1u,  1),
        ROW(feature_runlatch,      0x2u,  1),
        ROW(feature_purr,          0x4u,  1),
        ROW(feature_spurr,         0x8u,  1),
        ROW(feature_compatibility, 0x10u, 1),
};

/* pm_ginfo_t.flags: a union inside a struct, so the setters work on the whole pm_ginfo_t. */
FIELD(pm_ginfo_t, flags.b.consistent, ginfo_consistent)
FIELD(pm_ginfo_t, flags.b.process, ginfo_process)
FIELD(pm_ginfo_t, flags.b.direct, ginfo_direct)

static const BitField ginfo_fields[] = {
        ROW(ginfo_consistent, 0x1u, 1),
        ROW(ginfo_process,    0x2u, 1),
        ROW(ginfo_direct,     0x4u, 1),
};

/* Zeroed storage big enough for any of the four types. */
typedef union AnyUnion {
        pm_mode_t mode;
        pm_status_t status;
        pm_feature_t feature;
        pm_ginfo_t ginfo;
} AnyUnion;

typedef unsigned int (*GetW)(const void *u);
typedef void (*SetW)(void *u, unsigned int w);

/* The w member, reached through the same type the fields are set through. */
#define WORD(type, member, name_)                                                                  \
        static unsigned int name_##_get_w(const void *u) {                                        \
                return (unsigned int) ((const type *) u)->member;                                  \
        }                                                                                          \
        static void name_##_set_w(void *u, unsigned int w) {                                      \
                ((type *) u)->member = (int) w;                                                    \
        }

WORD(pm_mode_t, w, mode)
WORD(pm_status_t, w, status)
WORD(pm_feature_t, w, feature)
WORD(pm_ginfo_t, flags.w, ginfo)

/* Setting each field alone gives exactly its value in w. */
static void check_fields_set_w(const BitField *fields, size_t n, GetW get_w) {
        for (size_t i = 0; i < n; i++) {
                AnyUnion u;

                memset(&u, 0, sizeof(u));
                fields[i].set(&u, fields[i].max);
                if (get_w(&u) != fields[i].w)
                        fail_msg("setting %s gives w=%#x, expected %#x", fields[i].name, get_w(&u),
                                 fields[i].w);
                assert_int_equal(fields[i].get(&u), fields[i].max);
        }
}

/* Setting w to each field's value reads back as that field alone; every other field reads 0. */
static void check_w_sets_fields(const BitField *fields, size_t n, SetW set_w) {
        for (size_t i = 0; i < n; i++) {
                AnyUnion u;

                memset(&u, 0, sizeof(u));
                set_w(&u, fields[i].w);
                for (size_t j = 0; j < n; j++) {
                        unsigned int want = i == j ? fields[i].max : 0;
                        if (fields[j].get(&u) != want)
                                fail_msg("w=%#x reads %s=%u, expected %u", fields[i].w, fields[j].name,
                                         fields[j].get(&u), want);
                }
        }
}

/* No two rows share a bit, so a value copied from the row above cannot pass unnoticed. */
static void check_fields_disjoint(const BitField *fields, size_t n) {
        unsigned int seen = 0;

        for (size_t i = 0; i < n; i++) {
                if (seen & fields[i].w)
                        fail_msg("%s overlaps another field (%#x)", fields[i].name, seen & fields[i].w);
                seen |= fields[i].w;
        }
}

static void test_mode_field_sets_exactly_its_aix_value(void **state) {
        check_fields_disjoint(mode_fields, ELEMENTSOF(mode_fields));
        check_fields_set_w(mode_fields, ELEMENTSOF(mode_fields), mode_get_w);
}

static void test_mode_word_reads_back_as_one_field(void **state) {
        check_w_sets_fields(mode_fields, ELEMENTSOF(mode_fields), mode_set_w);
}

static void test_mode_threshold_holds_six_bits(void **state) {
        pm_mode_t m = { .w = 0 };

        m.b.threshold = 1;
        assert_int_equal((unsigned int) m.w, 0x04000000u);
        m.b.threshold = 0x20;
        assert_int_equal((unsigned int) m.w, 0x80000000u);
        m.w = 0;
        m.b.threshold = MAX_THRESH_VALUE;
        assert_int_equal((unsigned int) m.w, 0xfc000000u);
        assert_int_equal(m.b.thresh_res, 0);
}

static void test_mode_constants_match_fields(void **state) {
        pm_mode_t m = { .w = 0 };

        assert_int_equal(PM_PROCTREE, 0x1);
        assert_int_equal(PM_COUNT, 0x2);
        assert_int_equal(PM_USER, 0x4);
        assert_int_equal(PM_KERNEL, 0x8);
        assert_int_equal(PM_PROCESS, 0x10);
        assert_int_equal(PM_NO_INHERIT, 0x80000);

        m.b.user = 1;
        m.b.kernel = 1;
        m.b.count = 1;
        assert_int_equal(m.w, PM_USER | PM_KERNEL | PM_COUNT);
        m.w = PM_PROCTREE | PM_PROCESS | PM_NO_INHERIT;
        assert_int_equal(m.b.proctree, 1);
        assert_int_equal(m.b.process, 1);
        assert_int_equal(m.b.no_inherit, 1);
        assert_int_equal(m.b.user, 0);
        assert_int_equal(m.b.kernel, 0);
        assert_int_equal(m.b.count, 0);
}

static void test_status_field_sets_exactly_its_aix_value(void **state) {
        check_fields_disjoint(status_fields, ELEMENTSOF(status_fields));
        check_fields_set_w(status_fields, ELEMENTSOF(status_fields), status_get_w);
}

static void test_status_word_reads_back_as_one_field(void **state) {
        check_w_sets_fields(status_fields, ELEMENTSOF(status_fields), status_set_w);
}

static void test_feature_field_sets_exactly_its_aix_value(void **state) {
        check_fields_disjoint(feature_fields, ELEMENTSOF(feature_fields));
        check_fields_set_w(feature_fields, ELEMENTSOF(feature_fields), feature_get_w);
}

static void test_feature_word_reads_back_as_one_field(void **state) {
        check_w_sets_fields(feature_fields, ELEMENTSOF(feature_fields), feature_set_w);
}

static void test_ginfo_flag_sets_exactly_its_aix_value(void **state) {
        check_fields_disjoint(ginfo_fields, ELEMENTSOF(ginfo_fields));
        check_fields_set_w(ginfo_fields, ELEMENTSOF(ginfo_fields), ginfo_get_w);
}

static void test_ginfo_word_reads_back_as_one_flag(void **state) {
        check_w_sets_fields(ginfo_fields, ELEMENTSOF(ginfo_fields), ginfo_set_w);
}

static void test_unions_are_one_word(void **state) {
        assert_int_equal(sizeof(pm_mode_t), 4);
        assert_int_equal(sizeof(pm_status_t), 4);
        assert_int_equal(sizeof(pm_feature_t), 4);
        assert_int_equal(sizeof(((pm_ginfo_t *) NULL)->flags), 4);
}

static void test_aix_constants_keep_their_values(void **state) {
        assert_int_equal(MAX_COUNTERS, 8);
        assert_int_equal(COUNT_NOTHING, -1);
        assert_int_equal(PM_VERIFIED, 1);
        assert_int_equal(PM_UNVERIFIED, 2);
        assert_int_equal(PM_CAVEAT, 4);
        assert_int_equal(PM_GET_GROUPS, 8);
        assert_int_equal(PM_CURRENT, -1);
        assert_int_equal(PM_EEXIST, 59);
        assert_int_equal(PM_ENOTSTARTED, 85);
        assert_int_equal(MAX_THRESH_VALUE, 63);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mode_field_sets_exactly_its_aix_value),
                cmocka_unit_test(test_mode_word_reads_back_as_one_field),
                cmocka_unit_test(test_mode_threshold_holds_six_bits),
                cmocka_unit_test(test_mode_constants_match_fields),
                cmocka_unit_test(test_status_field_sets_exactly_its_aix_value),
                cmocka_unit_test(test_status_word_reads_back_as_one_field),
                cmocka_unit_test(test_feature_field_sets_exactly_its_aix_value),
                cmocka_unit_test(test_feature_word_reads_back_as_one_field),
                cmocka_unit_test(test_ginfo_flag_sets_exactly_its_aix_value),
                cmocka_unit_test(test_ginfo_word_reads_back_as_one_flag),
                cmocka_unit_test(test_unions_are_one_word),
                cmocka_unit_test(test_aix_constants_keep_their_values),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
