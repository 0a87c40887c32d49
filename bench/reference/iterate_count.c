/* The reference for `sdk_iterate count`: libtracecmd's tracecmd_iterate_events over every CPU of a
 * trace.dat in time order, counting the records. No plugins, as on the ringscope side.
 *   iterate_count FILE   -> prints "EVENTS" */
#include <stdio.h>
#include <trace-cmd/trace-cmd.h>

static int count_record(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	(void)handle;
	(void)record;
	(void)cpu;
	++*(unsigned long long *)data;
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	unsigned long long count = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	handle = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 1;
	}
	tracecmd_iterate_events(handle, NULL, 0, count_record, &count);
	printf("%llu\n", count);
	tracecmd_close(handle);
	return 0;
}
