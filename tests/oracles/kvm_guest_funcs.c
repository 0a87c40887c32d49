/*
 * Reference oracle, NOT part of ringscope: the EXAMPLE of the tep_plugin_kvm_get_func(3) man page
 * (libtraceevent 1.7.1; ../../../shared/seeds/002_fa168b4baad6bba9.txt), verbatim below this comment except
 * for the added `#include <string.h>` (the example calls strcmp/strlen without it). It defines the weak
 * hooks tep_plugin_kvm_get_func/tep_plugin_kvm_put_func, so it must be linked with -rdynamic (ENABLE_EXPORTS
 * in tests/oracles/CMakeLists.txt) for libtraceevent's kvm plugin to find them. sdk/examples/kvm_guest_funcs
 * is ringscope's port and must print the same (tests/conformance, tests/data/traces/examples.tsv).
 */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <event-parse.h>
#include <trace-cmd.h>
#include <sys/stat.h>

static struct tep_handle *tep;

const char *tep_plugin_kvm_get_func(struct tep_event *event, struct tep_record *record,
                                    unsigned long long *paddr)
{
        const char *func;
        char *event_func;
        char *ename;

        func = tep_find_function(tep, *paddr);
        if (!func)
                return NULL;

        if (strcmp(event->name, "kvm_exit") == 0)
                ename = "exit";
        else
                ename = "enter";

        /*
         * Normally, passing back func directly is sufficient and then
         * tep_plugin_kvm_put_func() would not be required. But this example
         * is showing how to handle allocation of the returned string.
         */
        event_func = malloc(strlen(ename) + strlen(func) + 2);
        if (!event_func)
                return NULL;
        sprintf(event_func, "%s %s", ename, func);

        *paddr = tep_find_function_address(tep, *paddr);

        return event_func;
}

void tep_plugin_kvm_put_func(const char *func)
{
        char *f = (char *)func;

        free(f);
}

static int show_event(struct tracecmd_input *handle, struct tep_event *event,
                      struct tep_record *record, int cpu, void *data)
{
        static struct trace_seq seq;
        tep = data;

        if (!seq.buffer)
                trace_seq_init(&seq);

        trace_seq_reset(&seq);
        tep_print_event(tracecmd_get_tep(handle), &seq, record,
                        "%s-%d\t%6.1000d [%03d] %s\t%s\n",
                        TEP_PRINT_COMM, TEP_PRINT_PID,
                        TEP_PRINT_TIME, TEP_PRINT_CPU,
                        TEP_PRINT_NAME, TEP_PRINT_INFO);
        trace_seq_terminate(&seq);
        trace_seq_do_printf(&seq);
        return 0;
}

int main(int argc, char **argv)
{
        struct tracecmd_input *handle;
        struct tep_handle *guest_tep;
        struct stat st;
        FILE *fp;
        char *buf;

        if (argc < 3) {
                printf("usage: trace.dat guest_kallsyms_file\n");
                exit(-1);
        }

        handle = tracecmd_open(argv[1], 0);
        if (!handle) {
                perror(argv[1]);
                exit(-1);
        }

        /* Just for kallsyms parsing */
        guest_tep = tep_alloc();
        if (!guest_tep)
                exit(-1);

        if (stat(argv[2], &st) < 0) {
                perror(argv[2]);
                exit(-1);
        }

        buf = malloc(st.st_size + 1);
        if (!buf)
                exit(-1);

        fp = fopen(argv[2], "r");
        if (!fp) {
                perror(argv[2]);
                exit(-1);
        }

        if (fread(buf, st.st_size, 1, fp) < 0) {
                perror(argv[2]);
                exit(-1);
        }

        buf[st.st_size] = '\0';

        if (tep_parse_kallsyms(guest_tep, buf) < 0) {
                printf("Failed to parse %s\n", argv[2]);
                exit(-1);
        }
        free(buf);

        tracecmd_follow_event(handle, "kvm", "kvm_exit", show_event, guest_tep);
        tracecmd_follow_event(handle, "kvm", "kvm_entry", show_event, guest_tep);

        tracecmd_iterate_events(handle, NULL, 0, NULL, NULL);

        tep_free(guest_tep);
        tracecmd_close(handle);
}
