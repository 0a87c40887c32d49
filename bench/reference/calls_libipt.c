/* The reference for `ringscope ipt calls` and `ringscope ipt profile`: libipt 2.0.5's instruction
 * flow decoder (Debian's libipt-dev) one instruction at a time, the same call tree over it (a call
 * pushes the function the next instruction is in, a return pops; instructions count to the top
 * of the stack, which a jump to another function replaces), and the same output. With --time
 * a function counts the TSC ticks its instructions took (profile and folded): the time after
 * each instruction (pt_insn_time) less the time after the one before, modulo 2^64; and a line
 * of calls starts with the time after the instruction before the call's or return's next one.
 *   calls_libipt calls|profile|folded [--time] --raw FILE:ADDR --kallsyms FILE --pt FILE */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

struct sym {
    uint64_t address;
    char name[128];
};
struct node {
    int parent, symbol;
    uint64_t insn, ticks;
};

static struct sym* syms;
static int nsyms;
static struct node* nodes;
static int nnodes, cap_nodes;
static int stack[1 << 16], depth; /* depth: entries in stack */
static FILE* out;
static int print_calls, by_time;
static uint64_t line_time; /* calls --time: what a line starts with */

static int by_address(const void* a, const void* b) {
    const struct sym *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

/* The symbol at or below ip (the last of equal addresses, as a stable sort and upper_bound give). */
static int find(uint64_t ip) {
    int lo = 0, hi = nsyms; /* first symbol above ip */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (syms[mid].address <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static const char* name(int s) {
    return s < 0 ? "[unknown]" : syms[s].name;
}

static int child(int parent, int symbol) {
    for (int n = 0; n < nnodes; ++n)
        if (nodes[n].parent == parent && nodes[n].symbol == symbol) return n;
    if (nnodes == cap_nodes) {
        cap_nodes = cap_nodes ? 2 * cap_nodes : 256;
        nodes = realloc(nodes, (size_t)cap_nodes * sizeof *nodes);
        if (!nodes) exit(1);
    }
    nodes[nnodes].parent = parent;
    nodes[nnodes].symbol = symbol;
    nodes[nnodes].insn = 0;
    nodes[nnodes].ticks = 0;
    return nnodes++;
}

static void indent(void) {
    if (by_time) fprintf(out, "%016" PRIx64 "  ", line_time);
    for (int k = 1; k < depth; ++k) fputs("  ", out);
}

static void instruction(uint64_t ip, enum pt_insn_class* pending, enum pt_insn_class iclass, uint64_t ticks) {
    int s = find(ip);
    if (*pending == ptic_call || *pending == ptic_far_call) {
        stack[depth] = child(depth ? stack[depth - 1] : -1, s);
        ++depth;
        if (print_calls) {
            indent();
            fprintf(out, "%s() {\n", name(s));
        }
    } else if (*pending == ptic_return || *pending == ptic_far_return) {
        int from = depth ? nodes[stack[depth - 1]].symbol : -1;
        if (print_calls) {
            indent();
            fprintf(out, "} /* %s */\n", name(from));
        }
        if (depth) --depth;
    }
    *pending = iclass;
    if (!depth)
        stack[depth++] = child(-1, s);
    else if (nodes[stack[depth - 1]].symbol != s)
        stack[depth - 1] = child(nodes[stack[depth - 1]].parent, s);
    nodes[stack[depth - 1]].insn += 1;
    nodes[stack[depth - 1]].ticks += ticks;
}

static uint64_t count(int n) {
    return by_time ? nodes[n].ticks : nodes[n].insn;
}

static void follow(struct pt_insn_decoder* d) {
    for (;;) {
        enum pt_insn_class pending = ptic_other;
        int status = pt_insn_sync_forward(d);
        uint64_t last = 0, now = 0;
        pt_insn_time(d, &last, NULL, NULL);
        depth = 0;
        if (status < 0) {
            if (status == -pte_eos) return;
            continue;
        }
        while (status >= 0) {
            struct pt_insn insn;
            while (status >= 0 && (status & pts_event_pending)) {
                struct pt_event ev;
                status = pt_insn_event(d, &ev, sizeof ev);
            }
            if (status < 0 || (status & pts_eos)) break;
            status = pt_insn_next(d, &insn, sizeof insn);
            pt_insn_time(d, &now, NULL, NULL);
            line_time = last;
            if (insn.iclass != ptic_error) instruction(insn.ip, &pending, insn.iclass, now - last);
            last = now;
        }
        if (status == -pte_eos || status >= 0) return;
        uint64_t offset = 0;
        pt_insn_get_offset(d, &offset);
        fprintf(out, "[%" PRIx64 ": error: %s]\n", offset, pt_errstr(pt_errcode(status)));
    }
}

static char* path(int n) {
    char* p = strdup(name(nodes[n].symbol));
    for (n = nodes[n].parent; n >= 0; n = nodes[n].parent) {
        const char* s = name(nodes[n].symbol);
        char* q = malloc(strlen(s) + strlen(p) + 2);
        sprintf(q, "%s;%s", s, p);
        free(p);
        p = q;
    }
    return p;
}

static int by_text(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

struct row {
    uint64_t insn;
    int symbol;
};
static int by_count(const void* a, const void* b) {
    const struct row *x = a, *y = b;
    if (x->insn != y->insn) return x->insn > y->insn ? -1 : 1;
    return strcmp(name(x->symbol), name(y->symbol));
}

static void load_syms(const char* file) {
    FILE* f = fopen(file, "r");
    char line[512], type[8], sym[128];
    uint64_t a;
    int cap = 0;
    if (!f) exit(1);
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%" SCNx64 " %7s %127s", &a, type, sym) != 3 ||
            (strcmp(type, "t") && strcmp(type, "T")))
            continue;
        if (nsyms == cap) syms = realloc(syms, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *syms);
        syms[nsyms].address = a;
        strcpy(syms[nsyms++].name, sym);
    }
    fclose(f);
    qsort(syms, (size_t)nsyms, sizeof *syms, by_address); /* the tests' files are sorted already */
}

int main(int argc, char** argv) {
    struct pt_config config;
    struct pt_image* image = pt_image_alloc("code");
    const char *what = argc > 1 ? argv[1] : "", *pt = NULL;
    static uint8_t buf[64 << 20];
    size_t size;
    FILE* f;

    out = stdout;
    for (int i = 2; i < argc; i += 2) {
        if (!strcmp(argv[i], "--time")) {
            by_time = 1;
            --i;
        } else if (i + 1 >= argc) {
            return 2;
        } else if (!strcmp(argv[i], "--raw")) {
            char* colon = strrchr(argv[i + 1], ':');
            if (!colon) return 2;
            *colon = 0;
            if (pt_image_add_file(image, argv[i + 1], 0, UINT64_MAX, NULL, strtoull(colon + 1, NULL, 0)) < 0)
                return 1;
        } else if (!strcmp(argv[i], "--kallsyms")) {
            load_syms(argv[i + 1]);
        } else if (!strcmp(argv[i], "--pt")) {
            pt = argv[i + 1];
        } else {
            return 2;
        }
    }
    if (!pt || !(f = fopen(pt, "rb"))) return 2;
    size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    pt_config_init(&config);
    config.begin = buf;
    config.end = buf + size;
    struct pt_insn_decoder* d = pt_insn_alloc_decoder(&config);
    if (!d || pt_insn_set_image(d, image) < 0) return 1;
    print_calls = !strcmp(what, "calls");
    follow(d);
    if (!strcmp(what, "folded")) {
        char** lines = malloc((size_t)nnodes * sizeof *lines);
        int n = 0;
        for (int k = 0; k < nnodes; ++k) {
            if (!count(k)) continue;
            char* p = path(k);
            lines[n] = malloc(strlen(p) + 32);
            sprintf(lines[n++], "%s %" PRIu64, p, count(k));
            free(p);
        }
        qsort(lines, (size_t)n, sizeof *lines, by_text);
        for (int k = 0; k < n; ++k) {
            printf("%s\n", lines[k]);
            free(lines[k]);
        }
        free(lines);
    } else if (!strcmp(what, "profile")) {
        struct row* rows = calloc((size_t)nsyms + 1, sizeof *rows);
        uint64_t total = 0;
        int n = 0;
        for (int s = -1; s < nsyms; ++s) {
            uint64_t insn = 0;
            for (int k = 0; k < nnodes; ++k)
                if (nodes[k].symbol == s) insn += count(k);
            total += insn;
            if (insn) rows[n].insn = insn, rows[n++].symbol = s;
        }
        qsort(rows, (size_t)n, sizeof *rows, by_count);
        printf("%14s %6s  %s\n", by_time ? "ticks" : "instructions", "%", "function");
        for (int k = 0; k < n; ++k)
            printf("%14" PRIu64 " %6.2f  %s\n", rows[k].insn, 100.0 * (double)rows[k].insn / (double)total,
                   name(rows[k].symbol));
        free(rows);
    }
    pt_insn_free_decoder(d);
    pt_image_free(image);
    return 0;
}
