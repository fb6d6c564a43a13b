/* config.c: see config.h. Only the keys named here are accepted, and every group named must exist,
 * so that a typo in an admin's file is an error at start-up, not a limit silently left at its
 * default or a grant to nobody. */
#include <errno.h>
#include <glib.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "manager.h"

static const char *const limit_keys[] = { "MaxContextsPerUser", "MaxContexts", "MaxSets", "CarriedCounters", NULL };
static const char *const access_keys[] = { "UserModeGroups", "KernelModeGroups", "OnlyGroups", NULL };

static int read_limit_up_to(GKeyFile *f, const char *path, const char *key, unsigned max, unsigned *value) {
        g_autoptr(GError) e = NULL;
        g_autofree char *s = NULL;
        char *end;
        unsigned long long v;

        if (!g_key_file_has_key(f, "Limits", key, NULL))
                return 0;
        s = g_key_file_get_value(f, "Limits", key, &e);
        if (!s)
                return log_error_errno(-EINVAL, "%s: [Limits] %s: %s", path, key, e->message);
        g_strstrip(s);
        errno = 0;
        v = strtoull(s, &end, 10);
        if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v == 0 || v > max)
                return log_error_errno(-EINVAL, "%s: [Limits] %s='%s' is not a number from 1 to %u.", path, key,
                                       s, max);
        *value = (unsigned) v;
        return 0;
}

/* CarriedCounters: 0 (no hardware event carried) to MAX_COUNTERS, or "auto". */
static int read_carried_counters(GKeyFile *f, const char *path, int *value) {
        g_autofree char *s = NULL;

        if (!g_key_file_has_key(f, "Limits", "CarriedCounters", NULL))
                return 0;
        s = g_key_file_get_value(f, "Limits", "CarriedCounters", NULL);
        if (s && strcmp(g_strstrip(s), "auto") == 0) {
                *value = CONFIG_CARRIED_COUNTERS_AUTO;
                return 0;
        }
        if (!s || strlen(s) != 1 || s[0] < '0' || s[0] > '0' + MAX_COUNTERS)
                return log_error_errno(-EINVAL, "%s: [Limits] CarriedCounters='%s' is not auto or a number from 0 "
                                       "to %d.", path, s ? s : "", MAX_COUNTERS);
        *value = s[0] - '0';
        return 0;
}

static int read_limit(GKeyFile *f, const char *path, const char *key, unsigned *value) {
        return read_limit_up_to(f, path, key, CONFIG_MAX_LIMIT, value);
}

static int check_known(GKeyFile *f, const char *path) {
        g_auto(GStrv) groups = g_key_file_get_groups(f, NULL);

        for (size_t i = 0; groups[i]; i++) {
                g_auto(GStrv) keys = NULL;

                const char *const *known = strcmp(groups[i], "Limits") == 0 ? limit_keys :
                                           strcmp(groups[i], "Access") == 0 ? access_keys : NULL;

                if (!known)
                        return log_error_errno(-EINVAL, "%s: unknown section [%s].", path, groups[i]);
                keys = g_key_file_get_keys(f, groups[i], NULL, NULL);
                for (size_t k = 0; keys && keys[k]; k++)
                        if (!g_strv_contains(known, keys[k]))
                                return log_error_errno(-EINVAL, "%s: unknown key '%s' in [%s].", path,
                                                       keys[k], groups[i]);
        }
        return 0;
}

/* A group name, or a gid as a number; the group must exist, so that a typo is not a grant to
 * nobody. */
static int resolve_group(const char *word, gid_t *ret) {
        struct group *g;
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(word, &end, 10);
        if (*word >= '0' && *word <= '9' && *end == '\0' && errno == 0 && v < (gid_t) -1)
                g = getgrgid((gid_t) v);
        else
                g = getgrnam(word);
        if (!g)
                return -ENOENT;
        *ret = g->gr_gid;
        return 0;
}

static int read_groups(GKeyFile *f, const char *path, const char *key, GroupList *ret) {
        g_autoptr(GError) e = NULL;
        g_autofree char *s = NULL;
        g_auto(GStrv) words = NULL;

        if (!g_key_file_has_key(f, "Access", key, NULL))
                return 0;
        s = g_key_file_get_value(f, "Access", key, &e);
        if (!s)
                return log_error_errno(-EINVAL, "%s: [Access] %s: %s", path, key, e->message);
        words = g_strsplit_set(s, ",; \t", -1);
        for (size_t i = 0; words[i]; i++) {
                gid_t gid;

                if (words[i][0] == '\0')
                        continue;
                if (resolve_group(words[i], &gid) < 0)
                        return log_error_errno(-EINVAL, "%s: [Access] %s: no group '%s'.", path, key, words[i]);
                for (size_t k = 0; k < ret->n && gid != (gid_t) -1; k++)
                        if (ret->gids[k] == gid)
                                gid = (gid_t) -1;               /* named twice: once is enough */
                if (gid == (gid_t) -1)
                        continue;
                if (ret->n == ACCESS_POLICY_MAX_GROUPS)
                        return log_error_errno(-EINVAL, "%s: [Access] %s: more than %d groups.", path, key,
                                               ACCESS_POLICY_MAX_GROUPS);
                ret->gids[ret->n++] = gid;
        }
        return 0;
}

static void print_groups(FILE *f, const char *key, const GroupList *l) {
        fprintf(f, "%s=", key);
        for (size_t i = 0; i < l->n; i++) {
                struct group *g = getgrgid(l->gids[i]);
                fprintf(f, "%s%s (%u)", i ? " " : "", g ? g->gr_name : "?", (unsigned) l->gids[i]);
        }
        fputc('\n', f);
}

void config_print(const Config *c, int paranoid, FILE *f) {
        const AccessPolicy *a = &c->access;

        fprintf(f, "[Limits]\nMaxContextsPerUser=%u\nMaxContexts=%u\nMaxSets=%u\n", c->max_contexts_per_uid,
                c->max_contexts, c->max_sets);
        if (c->carried_counters == CONFIG_CARRIED_COUNTERS_AUTO)
                fputs("CarriedCounters=auto\n", f);
        else
                fprintf(f, "CarriedCounters=%d\n", c->carried_counters);
        fputs("[Access]\n", f);
        print_groups(f, "UserModeGroups", &a->user_mode);
        print_groups(f, "KernelModeGroups", &a->kernel_mode);
        print_groups(f, "OnlyGroups", &a->only);
        fprintf(f, "perf_event_paranoid=%d: root counts everything", paranoid);
        if (a->only.n > 0)
                fputs("; nobody else but OnlyGroups' members may use pmapid", f);
        if (a->kernel_mode.n > 0)
                fputs("; KernelModeGroups' members count their own threads in user and kernel mode", f);
        if (a->user_mode.n > 0)
                fprintf(f, "; UserModeGroups' members count their own threads in user mode%s",
                        paranoid <= 1 ? " and kernel mode (paranoid allows it)" : "");
        fprintf(f, "; other users %s.\n",
                paranoid >= 3 ? "are refused" : paranoid == 2 ? "count their own threads in user mode" :
                                                               "count their own threads in user and kernel mode");
}

int config_load(const char *path, bool required, Config *ret) {
        g_autoptr(GKeyFile) f = g_key_file_new();
        g_autoptr(GError) e = NULL;
        Config c = {
                .max_contexts_per_uid = manager_default_max_contexts_per_uid(),
                .max_contexts = manager_default_max_contexts(),
                .max_sets = CONFIG_DEFAULT_MAX_SETS,
                .carried_counters = CONFIG_CARRIED_COUNTERS_AUTO,
        };
        int r;

        if (!g_key_file_load_from_file(f, path, G_KEY_FILE_NONE, &e)) {
                if (!required && g_error_matches(e, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
                        *ret = c;
                        return 0;
                }
                return log_error_errno(-EINVAL, "Cannot read the configuration '%s': %s", path, e->message);
        }
        r = check_known(f, path);
        if (r < 0)
                return r;
        r = read_limit(f, path, "MaxContextsPerUser", &c.max_contexts_per_uid);
        if (r < 0)
                return r;
        r = read_limit(f, path, "MaxContexts", &c.max_contexts);
        if (r < 0)
                return r;
        r = read_limit_up_to(f, path, "MaxSets", PM_MX_MAX_SETS, &c.max_sets);
        if (r < 0)
                return r;
        r = read_carried_counters(f, path, &c.carried_counters);
        if (r < 0)
                return r;
        r = read_groups(f, path, "UserModeGroups", &c.access.user_mode);
        if (r >= 0)
                r = read_groups(f, path, "KernelModeGroups", &c.access.kernel_mode);
        if (r >= 0)
                r = read_groups(f, path, "OnlyGroups", &c.access.only);
        if (r < 0)
                return r;
        *ret = c;
        return 0;
}
