/*
 * Reference oracle, NOT part of ringscope: the EXAMPLE of the tracecmd_iterate_events(3) man page
 * (libtracecmd 1.3.1; ../../../shared/seeds/004_5e489ec0c351fcd5.txt), kept verbatim below this comment
 * so that its output is exactly what the C example prints. Built only in the test tree against Debian's
 * libtracecmd/libtraceevent (tests/oracles/CMakeLists.txt); sdk/examples/iterate_events is ringscope's
 * own port and must print the same (tests/conformance, tests/data/traces/examples.tsv).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <getopt.h>
#include <trace-cmd.h>

struct private_data {
	int		cpu;
	const char	*file;
};

static int print_events(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *data)
{
	static struct trace_seq seq;
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct private_data *pdata = tracecmd_get_private(handle);

	/* For multi handles we need this */
	if (pdata->cpu >= 0 && pdata->cpu != record->cpu)
		return 0;

	if (!seq.buffer)
		trace_seq_init(&seq);

	trace_seq_reset(&seq);
	trace_seq_printf(&seq, "%s: ", pdata->file);
	tep_print_event(tep, &seq, record, "%6.1000d [%03d] %s-%d %s: %s\n",
			TEP_PRINT_TIME, TEP_PRINT_CPU, TEP_PRINT_COMM, TEP_PRINT_PID,
			TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	trace_seq_do_printf(&seq);
	return 0;
}

static int print_event(struct tracecmd_input *handle, struct tep_event *event,
		       struct tep_record *record, int cpu, void *data)
{
	return print_events(handle, record, cpu, data);
}

static int missed_events(struct tracecmd_input *handle, struct tep_event *event,
			 struct tep_record *record, int cpu, void *data)
{
	if (record->missed_events > 0)
		printf("CPU [%03d] has %d missed events\n",
			 record->cpu, record->missed_events);
	else
		printf("CPU [%03d] has missed events\n", record->cpu);
	return 0;
}

static void usage(const char *argv0)
{
	printf("usage: [-c cpu][-f filter][-e event] %s trace.dat [trace.dat ...]\n",
	       argv0);
	exit(-1);
}

int main(int argc, char **argv)
{
	struct tracecmd_input **handles = NULL;
	const char *filter_str = NULL;
	const char *argv0 = argv[0];
	struct private_data *priv;
	cpu_set_t *cpuset = NULL;
	char *event = NULL;
	size_t cpusize = 0;
	int nr_handles = 0;
	int cpu = -1;
	int i;
	int c;

	while ((c = getopt(argc, argv, "c:f:e:")) >= 0) {
		switch (c) {
		case 'c':
			/* filter all trace data to this one CPU. */
			cpu = atoi(optarg);
			break;
		case 'f':
			filter_str = optarg;
			break;
		case 'e':
			event = optarg;
			break;
		default:
			usage(argv0);
		}
	}
	argc -= optind;
	argv += optind;

	if (argc == 0)
		usage(argv0);

	for (i = 0; i < argc; i++) {
		handles = realloc(handles, sizeof(*handles) * (nr_handles + 1));
		if (!handles)
			exit(-1);
		handles[nr_handles] = tracecmd_open(argv[i], 0);
		if (!handles[nr_handles]) {
			perror(argv[i]);
			exit(-1);
		}
		if (filter_str) {
			if (tracecmd_filter_add(handles[nr_handles], filter_str, false) == NULL) {
				perror("adding filter");
				exit(-1);
			}
		}
		priv = calloc(1, sizeof(*priv));
		if (!priv)
			exit(-1);
		priv->file = argv[i];
		priv->cpu = cpu;
		tracecmd_set_private(handles[nr_handles], priv);
		if (event) {
			if (tracecmd_follow_event(handles[nr_handles], NULL, event, print_event, NULL) < 0) {
				printf("Could not follow event %s for file %s\n", event, argv[i]);
				exit(-1);
			}
		}
		tracecmd_follow_missed_events(handles[nr_handles], missed_events, NULL);
		nr_handles++;
	}

	/* Shortcut */
	if (nr_handles == 1) {
		if (cpu >= 0) {
			cpuset = CPU_ALLOC(cpu + 1);
			if (!cpuset)
				exit(-1);
			cpusize = CPU_ALLOC_SIZE(cpu + 1);
			CPU_SET_S(cpu, cpusize, cpuset);
		}
		if (event)
			tracecmd_iterate_events(handles[0], cpuset, cpusize, NULL, NULL);
		else
			tracecmd_iterate_events(handles[0], cpuset, cpusize, print_events, NULL);
	} else {
		if (event)
			tracecmd_iterate_events_multi(handles, nr_handles, NULL, NULL);
		else
			tracecmd_iterate_events_multi(handles, nr_handles, print_events, NULL);
	}

	for (i = 0; i < nr_handles; i++) {
		priv = tracecmd_get_private(handles[i]);
		free(priv);
		tracecmd_close(handles[i]);
	}
	free(handles);
}
