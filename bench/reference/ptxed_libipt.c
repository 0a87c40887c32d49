/* The reference for `ringscope ipt flow`: libipt 2.0.5's instruction flow decoder (Debian's
 * libipt-dev) printing what ptxed prints with --no-inst: instruction addresses, events, errors and
 * the instruction count, from ptxed's arguments. Without XED: --check and the disassembly are not
 * done (--check is accepted and prints nothing). The code is added as ptxed adds it, through an
 * image section cache (pt_iscache_add_file, pt_image_add_cached), which holds the block decoder's
 * block cache. --block-decoder with --quiet decodes with libipt's block decoder, as ptxed does;
 * without --quiet with the instruction flow decoder (ptxed's expectations are the same for both;
 * the block decoder returns no instruction addresses to print without an instruction length
 * decoder, which ptxed takes from XED). Its errors name the IP as ptxed's do, but after a partial
 * block that ended at code that is not there (-pte_nomap, -pte_bad_insn) the last instruction's:
 * ptxed finds the next one with XED. Options libipt 2.0.5
 * does not know (--event:iflags, --resync-on-error, *:keep-tcal-on-ovf) and the block decoder's
 * flags are accepted and do nothing.
 *   ptxed_libipt [--insn-decoder|--block-decoder] --raw FILE[:OFF[-END]]:ADDR ... --pt FILE */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

struct options {
    int block, quiet, event_ip, event_time, stats, stat_flags;
};

static uint64_t number(const char* text, int* ok) {
    char* rest;
    uint64_t v;

    errno = 0;
    v = strtoull(text, &rest, 0);
    *ok = text[0] && !errno && !*rest;
    return v;
}

/* FILE[:OFF[-END]]:ADDR */
static int add_raw(struct pt_image_section_cache* iscache, struct pt_image* image, char* arg) {
    uint64_t addr, off = 0, size = 0;
    char *sep = strrchr(arg, ':'), *range;
    int ok;

    if (!sep) return -1;
    addr = number(sep + 1, &ok);
    if (!ok) return -1;
    *sep = 0;
    range = strrchr(arg, ':');
    if (range) {
        char* dash = strchr(range + 1, '-');

        if (dash) *dash = 0;
        off = number(range + 1, &ok);
        if (ok) {
            *range = 0;
            if (dash) {
                uint64_t end = number(dash + 1, &ok);

                if (!ok || end <= off) return -1;
                size = end - off;
            }
        } else if (dash) {
            *dash = '-';
        }
    }
    {
        int isid = pt_iscache_add_file(iscache, arg, off, size ? size : UINT64_MAX, addr);

        return isid < 0 || pt_image_add_cached(image, iscache, isid, NULL) < 0 ? -1 : 0;
    }
}

static int load_pt(struct pt_config* config, const char* path) {
    FILE* f = fopen(path, "rb");
    long size;
    uint8_t* buf;

    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return -1;
    }
    buf = malloc((size_t)size);
    if (!buf || fread(buf, (size_t)size, 1, f) != 1) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    config->begin = buf;
    config->end = buf + size;
    return 0;
}

static const char* mode_name(enum pt_exec_mode mode) {
    switch (mode) {
        case ptem_16bit:
            return "16-bit";
        case ptem_32bit:
            return "32-bit";
        case ptem_64bit:
            return "64-bit";
        default:
            return "<unknown>";
    }
}

static void print_event(const struct pt_event* ev, const struct options* o) {
    printf("[");
    if (o->event_time && ev->has_tsc) printf("%016" PRIx64 "  ", ev->tsc);
    switch (ev->type) {
        case ptev_enabled:
            printf("%s", ev->variant.enabled.resumed ? "resumed" : "enabled");
            if (o->event_ip) printf(", ip: %016" PRIx64, ev->variant.enabled.ip);
            break;
        case ptev_disabled:
            printf("disabled");
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.disabled.ip);
            break;
        case ptev_async_disabled:
            printf("disabled");
            if (o->event_ip) {
                printf(", at: %016" PRIx64, ev->variant.async_disabled.at);
                if (!ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.async_disabled.ip);
            }
            break;
        case ptev_async_branch:
            printf("interrupt");
            if (o->event_ip) {
                printf(", from: %016" PRIx64, ev->variant.async_branch.from);
                if (!ev->ip_suppressed) printf(", to: %016" PRIx64, ev->variant.async_branch.to);
            }
            break;
        case ptev_paging:
            printf("paging, cr3: %016" PRIx64 "%s", ev->variant.paging.cr3,
                   ev->variant.paging.non_root ? ", nr" : "");
            break;
        case ptev_async_paging:
            printf("paging, cr3: %016" PRIx64 "%s", ev->variant.async_paging.cr3,
                   ev->variant.async_paging.non_root ? ", nr" : "");
            if (o->event_ip) printf(", ip: %016" PRIx64, ev->variant.async_paging.ip);
            break;
        case ptev_overflow:
            printf("overflow");
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.overflow.ip);
            break;
        case ptev_exec_mode:
            printf("exec mode: %s", mode_name(ev->variant.exec_mode.mode));
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.exec_mode.ip);
            break;
        case ptev_tsx:
            printf("%s", ev->variant.tsx.aborted       ? "aborted"
                         : ev->variant.tsx.speculative ? "begin transaction"
                                                       : "committed");
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.tsx.ip);
            break;
        case ptev_stop:
            printf("stopped");
            break;
        case ptev_vmcs:
            printf("vmcs, base: %016" PRIx64, ev->variant.vmcs.base);
            break;
        case ptev_async_vmcs:
            printf("vmcs, base: %016" PRIx64, ev->variant.async_vmcs.base);
            if (o->event_ip) printf(", ip: %016" PRIx64, ev->variant.async_vmcs.ip);
            break;
        case ptev_exstop:
            printf("exstop");
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.exstop.ip);
            break;
        case ptev_mwait:
            printf("mwait %" PRIx32 " %" PRIx32, ev->variant.mwait.hints, ev->variant.mwait.ext);
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.mwait.ip);
            break;
        case ptev_pwre:
            printf("pwre c%u.%u", (ev->variant.pwre.state + 1) & 0xf, (ev->variant.pwre.sub_state + 1) & 0xf);
            if (ev->variant.pwre.hw) printf(" hw");
            break;
        case ptev_pwrx:
            printf("pwrx ");
            if (ev->variant.pwrx.interrupt) printf("int: ");
            if (ev->variant.pwrx.store) printf("st: ");
            if (ev->variant.pwrx.autonomous) printf("hw: ");
            printf("c%u (c%u)", (ev->variant.pwrx.last + 1) & 0xf, (ev->variant.pwrx.deepest + 1) & 0xf);
            break;
        case ptev_ptwrite:
            printf("ptwrite: %" PRIx64, ev->variant.ptwrite.payload);
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.ptwrite.ip);
            break;
        case ptev_tick:
            printf("tick");
            if (o->event_ip && !ev->ip_suppressed) printf(", ip: %016" PRIx64, ev->variant.tick.ip);
            break;
        case ptev_cbr:
            printf("cbr: %x", ev->variant.cbr.ratio);
            break;
        case ptev_mnt:
            printf("mnt: %" PRIx64, ev->variant.mnt.payload);
            break;
    }
    printf("]\n");
}

static void diagnose(uint64_t offset, int have_offset, uint64_t ip, const char* kind, int err) {
    if (have_offset)
        printf("[%" PRIx64 ", %" PRIx64 ": %s: %s]\n", offset, ip, kind, pt_errstr(pt_errcode(err)));
    else
        printf("[?, %" PRIx64 ": %s: %s]\n", ip, kind, pt_errstr(pt_errcode(err)));
}

static void insn_diagnose(struct pt_insn_decoder* d, uint64_t ip, const char* kind, int err) {
    uint64_t off = 0;

    diagnose(off, pt_insn_get_offset(d, &off) >= 0, ip, kind, err);
}

static void decode_insn(struct pt_insn_decoder* d, const struct options* o, uint64_t* ninsn) {
    uint64_t sync = 0;

    for (;;) {
        struct pt_insn insn;
        int status;

        insn.ip = 0;
        status = pt_insn_sync_forward(d);
        if (status < 0) {
            uint64_t now;

            if (status == -pte_eos) break;
            insn_diagnose(d, insn.ip, "sync error", status);
            if (pt_insn_get_offset(d, &now) < 0 || now <= sync) break;
            sync = now;
            continue;
        }
        for (;;) {
            while (status & pts_event_pending) {
                struct pt_event ev;

                status = pt_insn_event(d, &ev, sizeof(ev));
                if (status < 0) break;
                if (!o->quiet && !ev.status_update) print_event(&ev, o);
            }
            if (status < 0) break;
            if (status & pts_eos) {
                if (!(status & pts_ip_suppressed) && !o->quiet) printf("[end of trace]\n");
                status = -pte_eos;
                break;
            }
            status = pt_insn_next(d, &insn, sizeof(insn));
            if (insn.iclass != ptic_error) {
                if (!o->quiet) printf("%s%016" PRIx64 "\n", insn.speculative ? "? " : "", insn.ip);
                ++*ninsn;
            }
            if (status < 0) break;
        }
        if (!status) status = -pte_internal;
        if (status == -pte_eos) break;
        insn_diagnose(d, insn.ip, "error", status);
    }
}

static void block_diagnose(struct pt_block_decoder* d, const struct pt_block* block, const char* kind,
                           int err) {
    uint64_t off = 0;

    diagnose(off, pt_blk_get_offset(d, &off) >= 0, block->ninsn ? block->end_ip : block->ip, kind, err);
}

/* ptxed's decode_block with --quiet: nothing printed but errors. */
static void decode_block(struct pt_block_decoder* d, uint64_t* ninsn) {
    uint64_t sync = 0;

    for (;;) {
        struct pt_block block;
        int status;

        block.ip = 0;
        block.ninsn = 0;
        status = pt_blk_sync_forward(d);
        if (status < 0) {
            uint64_t now;

            if (status == -pte_eos) break;
            block_diagnose(d, &block, "sync error", status);
            if (pt_blk_get_offset(d, &now) < 0 || now <= sync) break;
            sync = now;
            continue;
        }
        for (;;) {
            while (status & pts_event_pending) {
                struct pt_event ev;

                status = pt_blk_event(d, &ev, sizeof(ev));
                if (status < 0) break;
            }
            if (status < 0) break;
            if (status & pts_eos) {
                status = -pte_eos;
                break;
            }
            status = pt_blk_next(d, &block, sizeof(block));
            *ninsn += block.ninsn;
            if (status < 0) break;
        }
        if (!status) status = -pte_internal;
        if (status == -pte_eos) break;
        block_diagnose(d, &block, "error", status);
    }
}

int main(int argc, char** argv) {
    struct options o = {1, 0, 0, 0, 0, 0};
    struct pt_config config;
    struct pt_image_section_cache* iscache = pt_iscache_alloc(NULL);
    struct pt_image* image = pt_image_alloc(NULL);
    uint64_t ninsn = 0;
    int i, ok, have_pt = 0;

    pt_config_init(&config);
    for (i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--insn-decoder"))
            o.block = 0;
        else if (!strcmp(a, "--block-decoder"))
            o.block = 1;
        else if (!strcmp(a, "--raw") && v) {
            char copy[4096];

            snprintf(copy, sizeof(copy), "%s", v);
            if (add_raw(iscache, image, copy) < 0) {
                fprintf(stderr, "ptxed_libipt: bad --raw %s\n", v);
                return 1;
            }
            ++i;
        } else if (!strcmp(a, "--pt") && v) {
            if (load_pt(&config, v) < 0) {
                fprintf(stderr, "ptxed_libipt: cannot read %s\n", v);
                return 1;
            }
            have_pt = 1;
            ++i;
        } else if (!strcmp(a, "--cpu") && v) {
            unsigned f, m;

            ++i;
            if (sscanf(v, "%u/%u", &f, &m) != 2) {
                fprintf(stderr, "ptxed_libipt: bad cpu %s\n", v);
                return 2;
            }
            config.cpu.vendor = f ? pcv_intel : pcv_unknown;
            config.cpu.family = (uint16_t)f;
            config.cpu.model = (uint8_t)m;
            /* ptxed diagnoses an unknown cpu and decodes without errata. */
            if (pt_cpu_errata(&config.errata, &config.cpu) < 0)
                printf("[0, 0: config error: %s]\n", pt_errstr(pte_bad_cpu));
        } else if (!strcmp(a, "--mtc-freq") && v)
            config.mtc_freq = (uint8_t)number(argv[++i], &ok);
        else if (!strcmp(a, "--nom-freq") && v)
            config.nom_freq = (uint8_t)number(argv[++i], &ok);
        else if (!strcmp(a, "--cpuid-0x15.eax") && v)
            config.cpuid_0x15_eax = (uint32_t)number(argv[++i], &ok);
        else if (!strcmp(a, "--cpuid-0x15.ebx") && v)
            config.cpuid_0x15_ebx = (uint32_t)number(argv[++i], &ok);
        else if (!strcmp(a, "--filter:addr0_cfg") && v)
            config.addr_filter.config.ctl.addr0_cfg = (uint32_t)number(argv[++i], &ok);
        else if (!strcmp(a, "--filter:addr0_a") && v)
            config.addr_filter.addr0_a = number(argv[++i], &ok);
        else if (!strcmp(a, "--filter:addr0_b") && v)
            config.addr_filter.addr0_b = number(argv[++i], &ok);
        else if (!strcmp(a, "--event:ip"))
            o.event_ip = 1;
        else if (!strcmp(a, "--event:time"))
            o.event_time = 1;
        else if (!strcmp(a, "--event:tick")) {
            config.flags.variant.insn.enable_tick_events = 1;
            config.flags.variant.block.enable_tick_events = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o.quiet = 1;
        else if (!strcmp(a, "--stat"))
            o.stats = 1;
        else if (!strcmp(a, "--stat:insn")) {
            o.stats = 1;
            o.stat_flags |= 1;
        } else if (!strcmp(a, "--no-inst") || !strcmp(a, "--check") || !strcmp(a, "--event:iflags") ||
                   !strcmp(a, "--resync-on-error") || !strcmp(a, "--insn:keep-tcal-on-ovf") ||
                   !strcmp(a, "--block:keep-tcal-on-ovf") || !strcmp(a, "--stat:blocks") ||
                   !strncmp(a, "--block:", 8))
            continue;
        else {
            fprintf(stderr, "ptxed_libipt: unknown option %s\n", a);
            return 2;
        }
    }
    if (!have_pt) {
        fprintf(stderr, "ptxed_libipt: no --pt\n");
        return 2;
    }
    if (o.block && o.quiet) {
        struct pt_block_decoder* d = pt_blk_alloc_decoder(&config);

        if (!d || pt_blk_set_image(d, image) < 0) return 1;
        decode_block(d, &ninsn);
        pt_blk_free_decoder(d);
    } else {
        struct pt_insn_decoder* d = pt_insn_alloc_decoder(&config);

        if (!d || pt_insn_set_image(d, image) < 0) return 1;
        decode_insn(d, &o, &ninsn);
        pt_insn_free_decoder(d);
    }
    if (o.stats) {
        int flags = o.stat_flags ? o.stat_flags : 3;

        if (flags & 1) printf("insn: %" PRIu64 ".\n", ninsn);
    }
    pt_image_free(image);
    pt_iscache_free(iscache);
    free((void*)config.begin);
    return 0;
}
