/* access-policy.c: see access-policy.h. */
#include "access-policy.h"

static bool in_list(const GroupList *l, const Caller *c) {
        for (size_t i = 0; i < l->n; i++)
                if (caller_in_group(c, l->gids[i]))
                        return true;
        return false;
}

PolicyGrant access_policy_grant(const AccessPolicy *p, const Caller *c) {
        if (in_list(&p->kernel_mode, c))
                return POLICY_GRANT_KERNEL;
        if (in_list(&p->user_mode, c))
                return POLICY_GRANT_USER;
        return POLICY_GRANT_NONE;
}

bool access_policy_admits(const AccessPolicy *p, const Caller *c) {
        return p->only.n == 0 || c->euid == 0 || in_list(&p->only, c);
}

bool access_policy_names_groups(const AccessPolicy *p) {
        return p->user_mode.n + p->kernel_mode.n + p->only.n > 0;
}

int access_policy_paranoid(PolicyGrant grant, int paranoid) {
        int at_most = grant == POLICY_GRANT_KERNEL ? 1 : grant == POLICY_GRANT_USER ? 2 : paranoid;
        return paranoid < at_most ? paranoid : at_most;
}
