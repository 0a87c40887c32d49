/*
 * Oracle for the ringscope kvm plugin tests: prints records described in cases.txt with
 * libtraceevent 1.7.1 and its kvm plugin (Debian libtraceevent1-plugin), one output per case.
 * Guest functions come from tep_plugin_kvm_get_func() below (hence -rdynamic), looking up the
 * "K" lines of cases.txt as the tep_plugin_kvm_get_func(3) example does. See make-oracle.sh.
 *
 * cases.txt lines:
 *   K <kallsyms line>                         a guest symbol
 *   C[B] <format file> <system> <pid> <field>=<value>...   a record (CB: big-endian file)
 *        value: a number (C syntax), or hex:<bytes> for a byte array
 *   D <text>                                  ringscope's deliberate correction (ignored here)
 * Output: one line per C case: the info text, with '\\' '\n' and NUL escaped as \\\\, \\n, \\0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>

static struct tep_handle *guest;

const char *tep_plugin_kvm_get_func(struct tep_event *event, struct tep_record *record,
                                    unsigned long long *paddr)
{
	const char *func = tep_find_function(guest, *paddr);
	if (!func)
		return NULL;
	*paddr = tep_find_function_address(guest, *paddr);
	return func;
}

void tep_plugin_kvm_put_func(const char *func)
{
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(*len + 1);
	if (fread(buf, 1, *len, f) != *len)
		exit(1);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static void put(unsigned char *data, int off, int size, unsigned long long v, int big)
{
	for (int i = 0; i < size; i++) {
		int shift = big ? 8 * (size - 1 - i) : 8 * i;
		data[off + i] = (v >> shift) & 0xff;
	}
}

int main(int argc, char **argv)
{
	char line[4096];
	char *kallsyms = calloc(1, 1);
	size_t klen = 0;
	FILE *in;

	if (argc < 3) {
		fprintf(stderr, "usage: %s cases.txt data_dir\n", argv[0]);
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	/* First pass: the guest symbols. */
	while (fgets(line, sizeof line, in)) {
		if (line[0] == 'K' && line[1] == ' ') {
			size_t n = strlen(line + 2);
			kallsyms = realloc(kallsyms, klen + n + 1);
			memcpy(kallsyms + klen, line + 2, n + 1);
			klen += n;
		}
	}
	guest = tep_alloc();
	tep_parse_kallsyms(guest, kallsyms);
	rewind(in);

	while (fgets(line, sizeof line, in)) {
		char path[1024], system[64], *tok, *save = NULL;
		unsigned char data[256];
		struct tep_record record;
		struct tep_event *event;
		struct tep_handle *tep;
		struct trace_seq s;
		size_t flen;
		char *fmt;
		int pid, big;

		if (line[0] != 'C')
			continue;
		big = line[1] == 'B';
		line[strcspn(line, "\n")] = 0;
		tok = strtok_r(line, " ", &save);
		snprintf(path, sizeof path, "%s/%s", argv[2], strtok_r(NULL, " ", &save));
		snprintf(system, sizeof system, "%s", strtok_r(NULL, " ", &save));
		pid = atoi(strtok_r(NULL, " ", &save));

		tep = tep_alloc();
		tep_set_long_size(tep, 8);
		tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_load_plugins(tep);
		fmt = slurp(path, &flen);
		if (tep_parse_event(tep, fmt, flen, system) != 0)
			fprintf(stderr, "note: %s: print fmt not fully parsed\n", path);
		free(fmt);
		event = tep_get_first_event(tep);
		if (!event) {
			fprintf(stderr, "%s: no event\n", path);
			return 1;
		}
		memset(data, 0, sizeof data);
		put(data, 0, 2, event->id, big);
		put(data, 4, 4, pid, big);
		while ((tok = strtok_r(NULL, " ", &save))) {
			char *eq = strchr(tok, '=');
			struct tep_format_field *f;
			*eq = 0;
			f = tep_find_any_field(event, tok);
			if (!f) {
				fprintf(stderr, "%s: no field %s\n", path, tok);
				return 1;
			}
			if (strncmp(eq + 1, "hex:", 4) == 0) {
				const char *h = eq + 5;
				for (int i = 0; h[2 * i] && h[2 * i + 1]; i++) {
					unsigned int b;
					sscanf(h + 2 * i, "%2x", &b);
					data[f->offset + i] = b;
				}
			} else {
				put(data, f->offset, f->size, strtoull(eq + 1, NULL, 0), big);
			}
		}
		memset(&record, 0, sizeof record);
		record.data = data;
		record.size = sizeof data;
		trace_seq_init(&s);
		tep_print_event(tep, &s, &record, "%s", TEP_PRINT_INFO);
		for (unsigned int i = 0; i < s.len; i++) {
			char c = s.buffer[i];
			if (c == 0)
				fputs("\\0", stdout);
			else if (c == '\\')
				fputs("\\\\", stdout);
			else if (c == '\n')
				fputs("\\n", stdout);
			else
				putchar(c);
		}
		putchar('\n');
		trace_seq_destroy(&s);
		tep_unload_plugins(NULL, tep);
		tep_free(tep);
	}
	return 0;
}
