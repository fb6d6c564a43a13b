/* make-corpus.c: writes the seed corpus of fuzz-manager: one file per Manager method call, as a
 * peer sends it on the wire (raw-bus.c's marshaller), with plausible arguments (pid 1, this
 * program's event ids, the mode bits clients use). The multiplexing methods take arrays of
 * structs, which raw-bus.c does not marshal: sd-bus writes those (write_mx()). The files are
 * committed in tests/fuzz/corpus; rerun this to regenerate them:   make-corpus tests/fuzz/corpus */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "raw-bus.h"

/* A call of a multiplexing method: its target (pid, tid) or CPU, and its program of n_sets sets
 * (set k's mode modes[k % 2]; events: page faults, then minor faults or the task clock). */
typedef struct MxSeed {
        const char *method;
        enum { MX_NONE, MX_TARGET, MX_CPU, MX_CGROUP, MX_CGROUP_CPU } head;
        bool program;
        int32_t slice_ms;
        bool multi_mode;
        int n_sets;
        int32_t modes[2];
} MxSeed;

static int append_mx(sd_bus_message *m, const MxSeed *s) {
        int r = 0;

        if (s->head == MX_TARGET)
                r = sd_bus_message_append(m, "ii", 1, 1);
        else if (s->head == MX_CPU)
                r = sd_bus_message_append(m, "ub", 0, 1);
        else if (s->head == MX_CGROUP)
                r = sd_bus_message_append(m, "t", (uint64_t) 1);
        else if (s->head == MX_CGROUP_CPU)
                r = sd_bus_message_append(m, "tub", (uint64_t) 1, 0, 1);
        if (r < 0 || !s->program)
                return r;
        r = sd_bus_message_append(m, "ib", s->slice_ms, (int) s->multi_mode);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(iai)");
        for (int k = 0; r >= 0 && k < s->n_sets; k++) {
                int32_t events[8] = { 2, k % 2 ? 1 : 5, -1, -1, -1, -1, -1, -1 };

                r = sd_bus_message_open_container(m, 'r', "iai");
                if (r >= 0)
                        r = sd_bus_message_append(m, "i", s->modes[k % 2]);
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'i', events, sizeof(events));
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* Writes the n calls to fd as sd-bus sends them on one connection. sd-bus is the client of a pipe
 * pair whose server is played here: its answer to the authentication is written beforehand, and
 * what sd-bus writes after its "BEGIN" line is the messages. 0 or -1. */
static int write_mx(int fd, const MxSeed *seeds, size_t n) {
        static const char server[] = "OK 0123456789abcdef0123456789abcdef\r\n";
        static char out[65536];
        int to_client[2], from_client[2], r;
        sd_bus *bus = NULL;
        const char *begin;
        ssize_t len;

        if (pipe2(to_client, O_CLOEXEC) < 0 || pipe2(from_client, O_CLOEXEC) < 0 ||
            write(to_client[1], server, sizeof(server) - 1) != (ssize_t) sizeof(server) - 1)
                return -1;
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_fd(bus, to_client[0], from_client[1]);
        if (r >= 0)
                r = sd_bus_set_anonymous(bus, 1);
        if (r >= 0)
                r = sd_bus_negotiate_fds(bus, 0);
        if (r >= 0)
                r = sd_bus_start(bus);
        for (int i = 0; r >= 0 && i < 100 && sd_bus_is_ready(bus) <= 0; i++)
                r = sd_bus_process(bus, NULL);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                sd_bus_message *m = NULL;

                r = sd_bus_message_new_method_call(bus, &m, "org.pmapi.PerfMon1", "/org/pmapi/PerfMon1",
                                                   "org.pmapi.PerfMon1.Manager", seeds[i].method);
                if (r >= 0)
                        r = append_mx(m, &seeds[i]);
                if (r >= 0)
                        r = sd_bus_send(bus, m, NULL);
                sd_bus_message_unref(m);
        }
        if (r >= 0)
                r = sd_bus_flush(bus);
        sd_bus_flush_close_unref(bus);          /* closes the client's ends */
        close(to_client[1]);
        len = r < 0 ? -1 : read(from_client[0], out, sizeof(out));
        close(from_client[0]);
        if (len <= 0 || (size_t) len == sizeof(out) || !(begin = memmem(out, (size_t) len, "BEGIN\r\n", 7)))
                return -1;
        begin += 7;
        return write(fd, begin, (size_t) (out + len - begin)) == out + len - begin ? 0 : -1;
}

typedef struct Seed {
        const char *method;
        RawArg args[5];
        size_t n;
} Seed;

int main(int argc, char *argv[]) {
        static const Seed seeds[] = {
                { "GetEvents", {}, 0 },
                { "SetProgram", { { 'i', 1 }, { 'i', 1 }, { 'i', 0x6 }, { 'a', 2 } }, 4 },
                { "SetProgram", { { 'i', 1 }, { 'i', 1 }, { 'i', 0x8000e }, { 'a', 1 } }, 4 },
                { "GetProgram", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "DeleteProgram", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "Start", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "Stop", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "ResetData", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "GetData", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "SetGroupProgram", { { 'i', 1 }, { 'i', 1 }, { 'i', 0x16 }, { 'a', 5 } }, 4 },
                { "GetGroupProgram", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "DeleteGroupProgram", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "StartGroup", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "StopGroup", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "ResetGroupData", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "GetGroupData", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "GetGroupMembers", { { 'i', 1 }, { 'i', 1 } }, 2 },
                { "GetGroupMembersPage", { { 'i', 1 }, { 'i', 1 }, { 'u', 0 }, { 'u', 100 } }, 4 },
                { "SetSystemProgram", { { 'i', 0x7 }, { 'a', 3 } }, 2 },
                { "SetSystemProgram", { { 'i', 0x6 }, { 'a', 2 } }, 2 },
                { "GetSystemProgram", {}, 0 },
                { "StartSystem", {}, 0 },
                { "StopSystem", {}, 0 },
                { "ResetSystemData", {}, 0 },
                { "GetSystemData", {}, 0 },
                { "GetCpuData", { { 'u', 0 }, { 'b', 1 } }, 2 },
                { "DeleteSystemProgram", {}, 0 },
                { "ListCgroups", { { 's', 0, "/" }, { 'b', 1 } }, 2 },
                { "ListCgroups", { { 's', 0, "/sys/fs/cgroup/../x" }, { 'b', 0 } }, 2 },
                { "SetCgroupProgram", { { 't', 1 }, { 'i', 0x6 }, { 'a', 2 } }, 3 },
                { "GetCgroupProgram", { { 't', 1 } }, 1 },
                { "StartCgroup", { { 't', 1 } }, 1 },
                { "StopCgroup", { { 't', 1 } }, 1 },
                { "ResetCgroupData", { { 't', 1 } }, 1 },
                { "GetCgroupData", { { 't', 1 } }, 1 },
                { "GetCgroupCpuData", { { 't', 1 }, { 'u', 0 }, { 'b', 1 } }, 3 },
                { "DeleteCgroupProgram", { { 't', 1 } }, 1 },
                { "ListContexts", {}, 0 },
                { "Inherit", { { 'i', 1 }, { 'i', 1 }, { 'i', 1 }, { 'i', 1 }, { 't', 1 } }, 5 },
        };

        /* Modes: 0x6 user and count, 0xa kernel and count, 0x7 and 0x5 the same in a process tree,
         * 0x16 a process group. */
        static const MxSeed mx_seeds[] = {
                { "SetProgramMx", MX_TARGET, true, 100, false, 2, { 0x6, 0x6 } },
                { "SetProgramMx", MX_TARGET, true, 10, true, 2, { 0x6, 0xa } },
                { "SetProgramMx", MX_TARGET, true, 9, true, 3, { 0x6, 0x4 } },
                { "GetProgramMx", MX_TARGET, false, 0, false, 0, { 0, 0 } },
                { "GetDataMx", MX_TARGET, false, 0, false, 0, { 0, 0 } },
                { "SetGroupProgramMx", MX_TARGET, true, 100, false, 2, { 0x16, 0x16 } },
                { "GetGroupProgramMx", MX_TARGET, false, 0, false, 0, { 0, 0 } },
                { "GetGroupDataMx", MX_TARGET, false, 0, false, 0, { 0, 0 } },
                { "SetSystemProgramMx", MX_NONE, true, 30000, false, 8, { 0x7, 0x7 } },
                { "SetSystemProgramMx", MX_NONE, true, 100, true, 2, { 0x7, 0x5 } },
                { "GetSystemProgramMx", MX_NONE, false, 0, false, 0, { 0, 0 } },
                { "GetSystemDataMx", MX_NONE, false, 0, false, 0, { 0, 0 } },
                { "GetCpuDataMx", MX_CPU, false, 0, false, 0, { 0, 0 } },
                /* Added later, at the end, so that the files before keep their names. */
                { "GetGroups", MX_NONE, false, 0, false, 0, { 0, 0 } },
                { "GetMetrics", MX_NONE, false, 0, false, 0, { 0, 0 } },
                { "SetCgroupProgramMx", MX_CGROUP, true, 100, false, 2, { 0x6, 0x6 } },
                { "GetCgroupProgramMx", MX_CGROUP, false, 0, false, 0, { 0, 0 } },
                { "GetCgroupDataMx", MX_CGROUP, false, 0, false, 0, { 0, 0 } },
                { "GetCgroupCpuDataMx", MX_CGROUP_CPU, false, 0, false, 0, { 0, 0 } },
        };
        /* Plain calls added after the multiplexing ones, numbered after them for the same reason:
         * the bulk reads of monitoring agents, a page and a hostile page. */
        static const Seed late_seeds[] = {
                { "ReadContexts", { { 'u', 0 }, { 'u', 1024 } }, 2 },
                { "ReadGroups", { { 'u', 0 }, { 'u', 1024 } }, 2 },
                { "ReadContexts", { { 'u', 0xffffffff }, { 'u', 0 } }, 2 },
        };
        const size_t n_seeds = sizeof(seeds) / sizeof(seeds[0]), n_mx = sizeof(mx_seeds) / sizeof(mx_seeds[0]);
        const size_t n_late = sizeof(late_seeds) / sizeof(late_seeds[0]);

        if (argc != 2)
                return 2;
        for (size_t i = 0; i < n_seeds + n_mx + n_late; i++) {
                const Seed *plain = i < n_seeds ? &seeds[i] : i >= n_seeds + n_mx ? &late_seeds[i - n_seeds - n_mx] : NULL;
                const char *method = plain ? plain->method : mx_seeds[i - n_seeds].method;
                char path[4096];
                int fd, r;

                snprintf(path, sizeof(path), "%s/%02zu-%s", argv[1], i, method);
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0)
                        return 1;
                r = plain ? raw_bus_send(fd, method, plain->args, plain->n) : write_mx(fd, &mx_seeds[i - n_seeds], 1);
                if (r < 0 || close(fd) < 0)
                        return 1;
        }
        /* All of them on one connection, in that order: a session of calls. */
        {
                char path[4096];
                int fd;

                snprintf(path, sizeof(path), "%s/99-session", argv[1]);
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                for (size_t i = 0; fd >= 0 && i < n_seeds; i++)
                        if (raw_bus_send(fd, seeds[i].method, seeds[i].args, seeds[i].n) < 0)
                                return 1;
                if (fd < 0 || write_mx(fd, mx_seeds, n_mx) < 0)
                        return 1;
                for (size_t i = 0; i < n_late; i++)
                        if (raw_bus_send(fd, late_seeds[i].method, late_seeds[i].args, late_seeds[i].n) < 0)
                                return 1;
                if (close(fd) < 0)
                        return 1;
        }
        return 0;
}
