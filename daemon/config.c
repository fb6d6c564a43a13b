/* config.c: see config.h. Only the keys named here are accepted, so that a typo in an admin's file
 * is an error at start-up, not a limit silently left at its default. */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "manager.h"

static const char *const known_keys[] = { "MaxContextsPerUser", "MaxContexts", NULL };

static int read_limit(GKeyFile *f, const char *path, const char *key, unsigned *value) {
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
        if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v == 0 || v > CONFIG_MAX_LIMIT)
                return log_error_errno(-EINVAL, "%s: [Limits] %s='%s' is not a number from 1 to %u.", path, key,
                                       s, CONFIG_MAX_LIMIT);
        *value = (unsigned) v;
        return 0;
}

static int check_known(GKeyFile *f, const char *path) {
        g_auto(GStrv) groups = g_key_file_get_groups(f, NULL);

        for (size_t i = 0; groups[i]; i++) {
                g_auto(GStrv) keys = NULL;

                if (strcmp(groups[i], "Limits") != 0)
                        return log_error_errno(-EINVAL, "%s: unknown section [%s].", path, groups[i]);
                keys = g_key_file_get_keys(f, groups[i], NULL, NULL);
                for (size_t k = 0; keys && keys[k]; k++)
                        if (!g_strv_contains(known_keys, keys[k]))
                                return log_error_errno(-EINVAL, "%s: unknown key '%s' in [Limits].", path,
                                                       keys[k]);
        }
        return 0;
}

int config_load(const char *path, bool required, Config *ret) {
        g_autoptr(GKeyFile) f = g_key_file_new();
        g_autoptr(GError) e = NULL;
        Config c = {
                .max_contexts_per_uid = manager_default_max_contexts_per_uid(),
                .max_contexts = manager_default_max_contexts(),
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
        *ret = c;
        return 0;
}
