/* pmctl-show.c: the commands of pmctl that print what pmapid holds (list, program, one read of
 * data), as aligned text for people or as one JSON document for programs, and the reads the other
 * printing commands share. The command line and the commands that change state are in pmctl.c;
 * members and data -I have files of their own. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "context-list.h"
#include "json-writer.h"
#include "macro.h"
#include "pmctl.h"
#include "event-group.h"
#include "prog-text.h"
#include "text-table.h"
#include "tool-usage.h"

void pmctl_json_target(JsonWriter *w, const Options *o) {
        json_int(w, "pid", o->pid);
        json_int(w, "tid", o->tid);
        json_bool(w, "group", o->group);
}

/* "thread 4242/4243" or "group of thread 4242/4243": what the command acted on. */
void pmctl_print_target(const Options *o) {
        fprintf(o->out, "%s %d/%d", o->group ? "group of thread" : "thread", (int) o->pid, (int) o->tid);
}

int pmctl_get_program(const Options *o, pm_prog_t *prog) {
        const pm_groups_t *g;
        int r;

        r = o->group ? pm_get_program_group(o->pid, o->tid, prog) : pm_get_program_thread(o->pid, o->tid, prog);
        if (r != 0 || !prog->mode.b.is_group || !o->groups)
                return r;
        g = event_group_find(o->groups, prog->events[0]);
        if (g)
                event_group_events(g, MAX_COUNTERS, prog->events);
        return 0;
}

int pmctl_read(const Options *o, pm_data_t *data, unsigned long long *ret_ns) {
        timebasestruct_t tb;
        int r;

        r = o->group ? pm_get_tdata_group(o->pid, o->tid, data, &tb)
                     : pm_get_tdata_thread(o->pid, o->tid, data, &tb);
        if (r == 0)
                *ret_ns = PM_TB_TO_NS(tb);
        return r;
}

bool pmctl_partial(const Options *o, const pm_data_t *data) {
        return o->group && data->ginfo.flags.b.partial;
}

static void json_mode(JsonWriter *w, int mode) {
        json_open_object(w, "mode");
        json_int(w, "value", mode);
        for (size_t i = 0; i < prog_text_n_mode_words; i++)
                json_bool(w, prog_text_mode_words[i].json_name, mode & prog_text_mode_words[i].bit);
        json_close_object(w);
}

static int program_json(const Options *o, const pm_info_t *info, const pm_prog_t *prog) {
        JsonWriter w;

        json_writer_init(&w, o->out);
        json_open_object(&w, NULL);
        pmctl_json_target(&w, o);
        json_mode(&w, prog->mode.w);
        json_bool(&w, "counting", prog->mode.b.count);
        json_open_array(&w, "counters");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(info, c, prog->events[c]);
                if (prog->events[c] == COUNT_NOTHING)
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", prog->events[c]);
                json_string(&w, "name", e ? e->short_name : NULL);
                json_string(&w, "status", e ? prog_text_status_name(e->status) : NULL);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        return json_writer_finish(&w);
}

static int program_text(const Options *o, const pm_info_t *info, const pm_prog_t *prog) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        char mode[128];
        int r;

        r = text_table_new(4, &t);
        if (r < 0)
                return r;
        text_table_align_right(t, 0);
        text_table_align_right(t, 1);
        text_table_add(t, "CTR");
        text_table_add(t, "ID");
        text_table_add(t, "EVENT");
        text_table_add(t, "STATUS");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(info, c, prog->events[c]);
                if (prog->events[c] == COUNT_NOTHING)
                        continue;
                text_table_add(t, "%d", c);
                text_table_add(t, "%d", prog->events[c]);
                text_table_add(t, "%s", e ? e->short_name : "?");
                text_table_add(t, "%s", e ? prog_text_status_name(e->status) : "?");
        }
        pmctl_print_target(o);
        fprintf(o->out, ": %s, mode %s (0x%x)\n", prog->mode.b.count ? "counting" : "not counting",
                prog_text_format_mode(prog->mode.w, mode, sizeof(mode)), (unsigned) prog->mode.w);
        return text_table_print(t, o->out);
}

int pmctl_show_program(const Options *o, const pm_info_t *info) {
        pm_prog_t prog;
        int r;

        r = pmctl_get_program(o, &prog);
        if (r != 0)
                return pmctl_fail(o, r);
        r = o->json ? program_json(o, info, &prog) : program_text(o, info, &prog);
        return r < 0 ? pmctl_fail_output(o, r) : 0;
}

static int data_json(const Options *o, const pm_info_t *info, const pm_prog_t *prog, const pm_data_t *data,
                     unsigned long long ns) {
        JsonWriter w;

        json_writer_init(&w, o->out);
        json_open_object(&w, NULL);
        pmctl_json_target(&w, o);
        json_uint(&w, "time_ns", ns);
        json_bool(&w, "counting", prog->mode.b.count);
        if (o->group) {
                json_int(&w, "members", data->ginfo.members);
                json_bool(&w, "consistent", data->ginfo.flags.b.consistent);
                json_bool(&w, "process", data->ginfo.flags.b.process);
                json_bool(&w, "partial", data->ginfo.flags.b.partial);
        }
        json_open_array(&w, "counters");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(info, c, prog->events[c]);
                if (prog->events[c] == COUNT_NOTHING)
                        continue;
                json_open_object(&w, NULL);
                json_int(&w, "counter", c);
                json_int(&w, "id", prog->events[c]);
                json_string(&w, "name", e ? e->short_name : NULL);
                json_int(&w, "value", data->accu[c]);
                json_close_object(&w);
        }
        json_close_array(&w);
        json_close_object(&w);
        return json_writer_finish(&w);
}

static int data_text(const Options *o, const pm_info_t *info, const pm_prog_t *prog, const pm_data_t *data,
                     unsigned long long ns) {
        _cleanup_(text_table_freep) TextTable *t = NULL;
        int r;

        r = text_table_new(3, &t);
        if (r < 0)
                return r;
        text_table_align_right(t, 0);
        text_table_align_right(t, 2);
        text_table_add(t, "CTR");
        text_table_add(t, "EVENT");
        text_table_add(t, "VALUE");
        for (int c = 0; c < MAX_COUNTERS; c++) {
                const pm_events_t *e = prog_text_event_by_id(info, c, prog->events[c]);
                char value[THOUSANDS_MAX];
                if (prog->events[c] == COUNT_NOTHING)
                        continue;
                text_table_add(t, "%d", c);
                text_table_add(t, "%s", e ? e->short_name : "?");
                text_table_add(t, "%s", format_thousands(data->accu[c], value));
        }
        pmctl_print_target(o);
        fprintf(o->out, " at %llu.%09llu s (CLOCK_MONOTONIC), %s", ns / 1000000000ULL, ns % 1000000000ULL,
                prog->mode.b.count ? "counting" : "not counting");
        if (o->group)
                fprintf(o->out, ", %d member%s, %s, %s group%s", data->ginfo.members,
                        data->ginfo.members == 1 ? "" : "s",
                        data->ginfo.flags.b.consistent ? "consistent" : "inconsistent",
                        data->ginfo.flags.b.process ? "process" : "descendant",
                        data->ginfo.flags.b.partial ? ", partial: threads ran uncounted" : "");
        fputc('\n', o->out);
        return text_table_print(t, o->out);
}

int pmctl_show_data(const Options *o, const pm_info_t *info) {
        unsigned long long ns;
        pm_prog_t prog;
        pm_data_t data;
        int r;

        /* Two calls: the program names the counters, the read gives the counts (one consistent
         * snapshot). A program changes only by delete and set, so the two disagree only if the
         * context was replaced between them. */
        r = pmctl_get_program(o, &prog);
        if (r == 0)
                r = pmctl_read(o, &data, &ns);
        if (r != 0)
                return pmctl_fail(o, r);
        r = o->json ? data_json(o, info, &prog, &data, ns) : data_text(o, info, &prog, &data, ns);
        if (r < 0)
                return pmctl_fail_output(o, r);
        return pmctl_partial(o, &data) ? TOOL_EXIT_INCOMPLETE : 0;
}

/* A thread's name as the kernel keeps it: 15 bytes at most, whatever the workload chose. NULL when
 * the thread is gone or its name unreadable. */
#define COMM_RAW_MAX 32
static const char *thread_comm(pid_t pid, pid_t tid, char buf[static COMM_RAW_MAX]) {
        char path[64];
        ssize_t n;
        int fd;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int) pid, (int) tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        n = read(fd, buf, COMM_RAW_MAX - 1);
        (void) close(fd);
        if (n <= 0)
                return NULL;
        if (buf[n - 1] == '\n')         /* the kernel's, after the name; a newline inside stays */
                n--;
        buf[n] = '\0';
        return buf;
}

/* The name as pmapid sends names (comm-text.h), for JSON: each byte that is not part of a UTF-8
 * character as the text \xNN, the rest, control characters too, as it is. */
#define COMM_TEXT_MAX (4 * COMM_RAW_MAX + 1)
static const char *comm_utf8(const char *comm, char buf[static COMM_TEXT_MAX]) {
        size_t n = strlen(comm), out = 0;

        for (size_t i = 0; i < n;) {
                gunichar c = g_utf8_get_char_validated(comm + i, (gssize) (n - i));

                if ((unsigned char) comm[i] < 0x80 || (c != (gunichar) -1 && c != (gunichar) -2)) {
                        size_t len = g_utf8_skip[(unsigned char) comm[i]];

                        memcpy(buf + out, comm + i, len);
                        out += len;
                        i += len;
                } else {
                        (void) snprintf(buf + out, 5, "\\x%02x", (unsigned char) comm[i]);
                        out += 4;
                        i++;
                }
        }
        buf[out] = '\0';
        return buf;
}

static int list_json(const Options *o, const ContextList *l) {
        JsonWriter w;

        json_writer_init(&w, o->out);
        json_open_array(&w, NULL);
        for (size_t i = 0; i < l->n_entries; i++) {
                const ContextEntry *e = &l->entries[i];
                char comm[COMM_RAW_MAX], text[COMM_TEXT_MAX];

                json_open_object(&w, NULL);
                json_int(&w, "pid", e->pid);
                json_int(&w, "tid", e->tid);
                if (thread_comm(e->pid, e->tid, comm))
                        json_string(&w, "comm", comm_utf8(comm, text));
                else
                        json_null(&w, "comm");
                json_uint(&w, "owner_uid", e->owner_uid);
                json_uint(&w, "target_uid", e->target_uid);
                json_int(&w, "creator_pid", e->creator_pid);
                json_string(&w, "origin", e->origin);
                json_bool(&w, "counting", e->counting);
                if (e->group_id >= 0)
                        json_int(&w, "group", e->group_id);
                else
                        json_null(&w, "group");
                json_string(&w, "group_path", e->group_path);
                json_close_object(&w);
        }
        json_close_array(&w);
        return json_writer_finish(&w);
}

static int list_text(const Options *o, const ContextList *l) {
        static const char *const headers[] = {
                "PID", "TID", "COMM", "OWNER", "TARGET", "CREATOR", "ORIGIN", "COUNTING", "GROUP"
        };
        _cleanup_(text_table_freep) TextTable *t = NULL;
        int r;

        r = text_table_new(ELEMENTSOF(headers), &t);
        if (r < 0)
                return r;
        for (size_t c = 0; c < 6; c++)          /* the ids */
                if (c != 2)
                        text_table_align_right(t, c);
        for (size_t c = 0; c < ELEMENTSOF(headers); c++)
                text_table_add(t, "%s", headers[c]);
        for (size_t i = 0; i < l->n_entries; i++) {
                const ContextEntry *e = &l->entries[i];
                char comm[COMM_RAW_MAX];

                /* The raw name: the table escapes control characters and bad bytes itself. */
                text_table_add(t, "%d", (int) e->pid);
                text_table_add(t, "%d", (int) e->tid);
                text_table_add(t, "%s", thread_comm(e->pid, e->tid, comm) ?: "-");
                text_table_add(t, "%u", e->owner_uid);
                text_table_add(t, "%u", e->target_uid);
                text_table_add(t, "%d", (int) e->creator_pid);
                text_table_add(t, "%s", e->origin);
                text_table_add(t, "%s", e->counting ? "yes" : "no");
                if (e->group_id >= 0)
                        text_table_add(t, "%ld", e->group_id);
                else
                        text_table_add(t, "%s", e->group_path ? e->group_path : "-");
        }
        return text_table_print(t, o->out);
}

int pmctl_show_list(const Options *o) {
        _cleanup_(context_list_freep) ContextList *l = NULL;
        int r;

        r = context_list_fetch(&l);
        if (r != 0)
                return pmctl_fail(o, r);
        r = o->json ? list_json(o, l) : list_text(o, l);
        return r < 0 ? pmctl_fail_output(o, r) : 0;
}
