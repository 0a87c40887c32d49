/* Differential-test oracle: prints events with Debian's libtraceevent exactly as trace-cmd does.
 * Built only in the test tree and only when pkg-config finds libtraceevent; never part of the product.
 *
 * -F LIST reads "SYS:FORMAT" lines from a file (command lines have a length limit).
 * tep_oracle [-l LONG_SIZE] [-k KALLSYMS] [-p PRINTK] [-m info|raw|fields|failed] -f SYS:FORMAT... [-r RECORDS]
 *   RECORDS: repeated { u32 size (host order); size payload bytes }.
 *   Output per record: "<len>\n" then <len> bytes of event text, then "\n".
 *   -m failed: one line per format: "SYS:NAME 0|1" (1 = TEP_EVENT_FL_FAILED).
 * tep_oracle -d TRACE.dat RECORDS_OUT: writes every record's payload of TRACE.dat in file order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#ifdef HAVE_TRACECMD
#include <trace-cmd.h>
#endif

static char* slurp(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    size_t cap = 1 << 16, n = 0;
    char* buf = malloc(cap + 1);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) { cap *= 2; buf = realloc(buf, cap + 1); }
    }
    fclose(f);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

#ifdef HAVE_TRACECMD
static int dump_one(struct tracecmd_input* h, struct tep_record* rec, int cpu, void* f) {
    uint32_t sz = (uint32_t)rec->size;
    fwrite(&sz, 4, 1, f);
    fwrite(rec->data, 1, sz, f);
    return 0;
}

static int dump_trace(const char* in, const char* out) {
    struct tracecmd_input* h = tracecmd_open(in, TRACECMD_FL_LOAD_NO_PLUGINS);
    if (!h) { fprintf(stderr, "cannot open %s\n", in); return 2; }
    FILE* f = fopen(out, "wb");
    tracecmd_iterate_events(h, NULL, 0, dump_one, f);
    fclose(f);
    tracecmd_close(h);
    return 0;
}
#endif

static void load_format(struct tep_handle* tep, const char* mode, char* spec) {
    char* colon = strchr(spec, ':');
    if (!colon) exit(2);
    *colon = 0;
    size_t len;
    char* t = slurp(colon + 1, &len);
    struct tep_event* ev = NULL;
    enum tep_errno e = tep_parse_format(tep, &ev, t, len, spec);
    if (!strcmp(mode, "failed"))
        printf("%s:%s %d\n", spec, ev ? ev->name : colon + 1, !ev || e ? 2 : ((ev->flags & TEP_EVENT_FL_FAILED) ? 1 : 0));
    free(t);
}

int main(int argc, char** argv) {
    int long_size = 8, opt;
    const char* mode = "info";
    const char* records = NULL;
    struct tep_handle* tep = tep_alloc();
    tep_set_long_size(tep, 8);
    tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
    while ((opt = getopt(argc, argv, "l:k:p:m:f:F:r:d:")) != -1) {
        switch (opt) {
        case 'l': long_size = atoi(optarg); tep_set_long_size(tep, long_size); break;
        case 'k': { char* t = slurp(optarg, NULL); tep_parse_kallsyms(tep, t); free(t); break; }
        case 'p': { char* t = slurp(optarg, NULL); tep_parse_printk_formats(tep, t); free(t); break; }
        case 'm': mode = optarg; break;
        case 'r': records = optarg; break;
        case 'F': {
            char* list = slurp(optarg, NULL);
            for (char* line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) load_format(tep, mode, line);
            free(list);
            break;
        }
        case 'f': {
            load_format(tep, mode, optarg);
            break;
        }
        case 'd':
#ifdef HAVE_TRACECMD
            return dump_trace(optarg, argv[optind]);
#else
            return 2;
#endif
        default: return 2;
        }
    }
    if (!records) return 0;
    size_t len;
    char* buf = slurp(records, &len);
    size_t pos = 0;
    struct trace_seq s;
    trace_seq_init(&s);
    while (pos + 4 <= len) {
        uint32_t sz;
        memcpy(&sz, buf + pos, 4);
        pos += 4;
        if (pos + sz > len) break;
        /* a private, aligned copy with slack so that libtraceevent's unchecked reads stay inside */
        char* data = calloc(1, sz + 4096);
        memcpy(data, buf + pos, sz);
        pos += sz;
        struct tep_record rec;
        memset(&rec, 0, sizeof rec);
        rec.data = data;
        rec.size = (int)sz;
        trace_seq_reset(&s);
        if (!strcmp(mode, "fields")) {
            struct tep_event* ev = tep_find_event_by_record(tep, &rec);
            if (ev) tep_print_fields(&s, data, (int)sz, ev);
        } else {
            tep_print_event(tep, &s, &rec, "%s", !strcmp(mode, "raw") ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
        }
        printf("%u\n", s.len);
        fwrite(s.buffer, 1, s.len, stdout);
        printf("\n");
        free(data);
    }
    trace_seq_destroy(&s);
    free(buf);
    tep_free(tep);
    return 0;
}
