/* make-corpus.c: writes the seed corpus of fuzz-manager: one file per Manager method call, as a
 * peer sends it on the wire (raw-bus.c's marshaller), with plausible arguments (pid 1, this
 * program's event ids, the mode bits clients use). The files are committed in tests/fuzz/corpus;
 * rerun this to regenerate them:   make-corpus tests/fuzz/corpus */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "raw-bus.h"

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

        if (argc != 2)
                return 2;
        for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
                char path[4096];
                int fd;

                snprintf(path, sizeof(path), "%s/%02zu-%s", argv[1], i, seeds[i].method);
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || raw_bus_send(fd, seeds[i].method, seeds[i].args, seeds[i].n) < 0 || close(fd) < 0)
                        return 1;
        }
        /* All of them on one connection, in that order: a session of calls. */
        {
                char path[4096];
                int fd;

                snprintf(path, sizeof(path), "%s/99-session", argv[1]);
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                for (size_t i = 0; fd >= 0 && i < sizeof(seeds) / sizeof(seeds[0]); i++)
                        if (raw_bus_send(fd, seeds[i].method, seeds[i].args, seeds[i].n) < 0)
                                return 1;
                if (fd < 0 || close(fd) < 0)
                        return 1;
        }
        return 0;
}
