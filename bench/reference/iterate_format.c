/* The reference for `sdk_iterate format`: libtracecmd's tracecmd_iterate_events, each record
 * formatted by tep_print_event into one reused trace_seq ("COMM-PID [CPU] NAME: INFO"), nothing
 * printed unless --print. No plugins, as on the ringscope side.
 *   iterate_format FILE [--print]   -> prints "EVENTS BYTES" (or every line with --print) */
#include <stdio.h>
#include <string.h>
#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

struct totals {
	struct trace_seq seq;
	unsigned long long events;
	unsigned long long bytes;
	int print;
};

static int format_record(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	struct totals *t = data;

	(void)cpu;
	trace_seq_reset(&t->seq);
	tep_print_event(tracecmd_get_tep(handle), &t->seq, record, "%s-%d [%03d] %s: %s\n", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_NAME, TEP_PRINT_INFO);
	t->events++;
	t->bytes += t->seq.len;
	if (t->print)
		fwrite(t->seq.buffer, 1, t->seq.len, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	struct totals t = {0};

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--print") != 0)) {
		fprintf(stderr, "usage: %s FILE [--print]\n", argv[0]);
		return 2;
	}
	t.print = argc == 3;
	handle = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 1;
	}
	trace_seq_init(&t.seq);
	tracecmd_iterate_events(handle, NULL, 0, format_record, &t);
	if (!t.print)
		printf("%llu %llu\n", t.events, t.bytes);
	trace_seq_destroy(&t.seq);
	tracecmd_close(handle);
	return 0;
}
