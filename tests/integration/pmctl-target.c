/* pmctl-target.c: see pmctl-target.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pmctl-target.h"
#include "workload.h"

Target tool_target;

void tool_target_start(void) {
        TargetIdentity root = TARGET_ROOT;
        assert_int_equal(target_start(&tool_target, &root, 2), 0);
}

void tool_target_touch(size_t n) {
        assert_int_equal(target_touch(&tool_target, 1, n), 0);
}

int tool_target_kill(void **state) {
        (void) state;
        target_kill(&tool_target);
        /* pmapid drops the contexts of exited threads through their pidfds. */
        return wait_for_context_count(0, 2000);
}

long long pmctl_data_value(const char *options, guint i) {
        g_autoptr(JsonNode) root = NULL;
        ToolRun run = {};
        long long value;

        pmctl_ok(&run, "--json %s data %d %d", options, PID, WORKER);
        root = parse_json(run.out);
        value = json_object_get_int_member(counter_at(json_node_get_object(root), i), "value");
        tool_run_done(&run);
        return value;
}
