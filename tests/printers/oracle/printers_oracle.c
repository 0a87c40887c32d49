/*
 * Oracle for tests/printers: prints hand-built records with libtraceevent 1.7.1 and ITS plugins
 * (Debian's libtraceevent1-plugin, loaded by tep_load_plugins), one TEP_PRINT_INFO text per case.
 * Only a test tool: never part of the product.
 *
 * Usage: printers_oracle CASES DATA_DIR
 * CASES lines (see tests/data/printers/cases.txt):
 *   K <kallsyms line>                          a kernel symbol
 *   C <format> <system> <cpu> <ts> <size> <field>=<value>...
 *        <format> is relative to DATA_DIR; the record is <size> bytes, zero-filled, with
 *        common_type set; <value> is a number (C syntax) or hex:<bytes>; "@<offset>=hex:<bytes>"
 *        writes bytes at a byte offset.
 *   anything else is ignored.
 * Output per C case: "<length>\n<text>\n".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>

#define MAX_RECORD 4096

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "%s: read failed\n", path);
		exit(1);
	}
	buf[n] = 0;
	fclose(f);
	*len = n;
	return buf;
}

static void put_le(unsigned char *data, unsigned int off, unsigned int size, unsigned long long v)
{
	for (unsigned int i = 0; i < size && off + i < MAX_RECORD; i++)
		data[off + i] = (v >> (8 * i)) & 0xff;
}

static void put_hex(unsigned char *data, unsigned int off, const char *hex)
{
	for (unsigned int i = 0; hex[2 * i] && hex[2 * i + 1] && off + i < MAX_RECORD; i++) {
		unsigned int b;
		sscanf(hex + 2 * i, "%2x", &b);
		data[off + i] = b;
	}
}

/*
 * Each format file gets a tep handle of its own with the plugins loaded (a plugin's handler binds to
 * the first event of its name only, and the synthetic formats reuse names). The plugins' own state,
 * such as the function plugin's call indent, is global in the plugin and so shared by all of them.
 */
#define MAX_FILES 256
static struct {
	char *file;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct tep_event *event;
} files[MAX_FILES];
static int nfiles;

static struct tep_event *event_for(const char *dir, const char *file, const char *system,
				   const char *kallsyms)
{
	struct tep_handle *tep;
	char path[2048];
	size_t len;
	char *text, *p;
	int id = -1;

	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].file, file) == 0)
			return files[i].event;
	if (nfiles == MAX_FILES)
		return NULL;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_parse_kallsyms(tep, kallsyms);
	files[nfiles].plugins = tep_load_plugins(tep);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	text = read_all(path, &len);
	p = strstr(text, "\nID: ");
	if (p)
		id = atoi(p + 5);
	if (tep_parse_event(tep, text, len, system) != 0)
		fprintf(stderr, "note: %s: print fmt not fully parsed\n", path);
	free(text);
	files[nfiles].file = strdup(file);
	files[nfiles].tep = tep;
	files[nfiles].event = tep_find_event(tep, id);
	return files[nfiles++].event;
}

int main(int argc, char **argv)
{
	static unsigned char data[MAX_RECORD];
	char line[8192];
	char *kallsyms;
	size_t klen = 0;
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CASES DATA_DIR\n", argv[0]);
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	kallsyms = calloc(1, 1);
	while (fgets(line, sizeof line, in)) {
		if (line[0] == 'K' && line[1] == ' ') {
			size_t n = strlen(line + 2);
			kallsyms = realloc(kallsyms, klen + n + 1);
			memcpy(kallsyms + klen, line + 2, n + 1);
			klen += n;
		}
	}
	rewind(in);


	while (fgets(line, sizeof line, in)) {
		char *tok, *save = NULL, *file, *system;
		struct tep_record record;
		struct tep_event *event;
		struct trace_seq s;
		unsigned int size;

		if (line[0] != 'C' || line[1] != ' ')
			continue;
		line[strcspn(line, "\n")] = 0;
		strtok_r(line, " ", &save);
		file = strtok_r(NULL, " ", &save);
		system = strtok_r(NULL, " ", &save);
		event = event_for(argv[2], file, system, kallsyms);
		if (!event) {
			fprintf(stderr, "%s: no event\n", file);
			return 1;
		}
		memset(&record, 0, sizeof record);
		record.cpu = atoi(strtok_r(NULL, " ", &save));
		record.ts = strtoull(strtok_r(NULL, " ", &save), NULL, 0);
		size = strtoul(strtok_r(NULL, " ", &save), NULL, 0);
		if (size > MAX_RECORD)
			size = MAX_RECORD;
		memset(data, 0, sizeof data);
		put_le(data, 0, 2, event->id);
		while ((tok = strtok_r(NULL, " ", &save))) {
			char *eq = strchr(tok, '=');
			struct tep_format_field *f;
			unsigned int off;

			if (!eq)
				continue;
			*eq = 0;
			if (tok[0] == '@') {
				put_hex(data, strtoul(tok + 1, NULL, 0), eq + 1 + 4);
				continue;
			}
			f = tep_find_any_field(event, tok);
			if (!f) {
				fprintf(stderr, "%s: no field %s\n", file, tok);
				return 1;
			}
			off = f->offset;
			if (strncmp(eq + 1, "hex:", 4) == 0)
				put_hex(data, off, eq + 5);
			else
				put_le(data, off, f->size > 8 ? 8 : f->size, strtoull(eq + 1, NULL, 0));
		}
		record.data = data;
		record.size = size;
		trace_seq_init(&s);
		tep_print_event(event->tep, &s, &record, "%s", TEP_PRINT_INFO);
		printf("%u\n", s.len);
		fwrite(s.buffer, 1, s.len, stdout);
		putchar('\n');
		trace_seq_destroy(&s);
	}
	for (int i = 0; i < nfiles; i++) {
		tep_unload_plugins(files[i].plugins, files[i].tep);
		tep_free(files[i].tep);
	}
	return 0;
}
