/* libipt 2.0.5's instruction and block decoders reduced to flow_libipt_result (flow_libipt.h):
 * the loops ptxed runs, without printing. The code is one file section (pt_image_add_file), as
 * ptxed's --raw adds it, so the block decoder keeps its block cache in that section. */
#include "flow_libipt.h"

#include <intel-pt.h>

static int image_of(const struct flow_libipt_code* code, struct pt_image** image) {
    *image = pt_image_alloc("code");
    if (!*image) return -pte_nomem;
    return pt_image_add_file(*image, code->code_path, 0, code->size, NULL, code->address);
}

/* One decoder's calls; the loop below is inlined into each caller with them, so they are direct
 * calls as in ptxed. step decodes an instruction or a block into r and returns the status. */
struct decoder_ops {
    int (*sync)(void* d);
    int (*event)(void* d, struct pt_event* ev);
    int (*step)(void* d, const struct flow_libipt_code* code, struct flow_libipt_path* path,
                struct flow_libipt_result* r);
};

/* ptxed's loop: sync, then events and instructions until an error or the end, then sync again. */
static inline __attribute__((always_inline)) void decode_loop(void* d, const struct decoder_ops ops,
                                                              const struct flow_libipt_code* code,
                                                              struct flow_libipt_result* r) {
    struct flow_libipt_path path = {0, 0};
    for (;;) {
        int status = ops.sync(d);
        path.kind = 0;
        if (status < 0) {
            if (status == -pte_eos) return;
            ++r->errors;
            continue;
        }
        for (;;) {
            while (status & pts_event_pending) {
                struct pt_event ev;
                status = ops.event(d, &ev);
                if (status < 0) break;
                ++r->events;
            }
            if (status < 0) break;
            if (status & pts_eos) {
                status = -pte_eos;
                break;
            }
            status = ops.step(d, code, &path, r);
            if (status < 0) break;
        }
        if (status == -pte_eos) return;
        ++r->errors;
    }
}

static int insn_sync(void* d) {
    return pt_insn_sync_forward(d);
}
static int insn_event(void* d, struct pt_event* ev) {
    return pt_insn_event(d, ev, sizeof *ev);
}
static int insn_step(void* d, const struct flow_libipt_code* code, struct flow_libipt_path* path,
                     struct flow_libipt_result* r) {
    struct pt_insn insn;
    int status = pt_insn_next(d, &insn, sizeof insn);
    if (insn.iclass != ptic_error) {
        r->hash = flow_libipt_step(path, code, r->hash, insn.ip, r->insn, insn.ip);
        ++r->insn;
    }
    return status;
}

static int block_sync(void* d) {
    return pt_blk_sync_forward(d);
}
static int block_event(void* d, struct pt_event* ev) {
    return pt_blk_event(d, ev, sizeof *ev);
}
static int block_step(void* d, const struct flow_libipt_code* code, struct flow_libipt_path* path,
                      struct flow_libipt_result* r) {
    struct pt_block block;
    int status = pt_blk_next(d, &block, sizeof block);
    if (block.ninsn) {
        /* Inside a block the trace decided nothing: only the last instruction counts. */
        r->hash = flow_libipt_step(path, code, r->hash, block.ip, r->insn, block.end_ip);
        r->insn += block.ninsn;
    }
    return status;
}

int flow_libipt_decode(const uint8_t* pt, size_t pt_size, const struct flow_libipt_code* code, int block,
                       struct flow_libipt_result* out) {
    struct pt_config config;
    struct pt_image* image;
    int status;

    out->insn = out->events = out->errors = out->hash = 0;
    pt_config_init(&config);
    config.begin = (uint8_t*)pt;
    config.end = (uint8_t*)pt + pt_size;
    status = image_of(code, &image);
    if (status < 0) {
        pt_image_free(image);
        return status;
    }
    if (block) {
        struct pt_block_decoder* d = pt_blk_alloc_decoder(&config);
        if (!d) {
            pt_image_free(image);
            return -pte_nomem;
        }
        status = pt_blk_set_image(d, image);
        if (status >= 0) {
            const struct decoder_ops ops = {block_sync, block_event, block_step};
            decode_loop(d, ops, code, out);
        }
        pt_blk_free_decoder(d);
    } else {
        struct pt_insn_decoder* d = pt_insn_alloc_decoder(&config);
        if (!d) {
            pt_image_free(image);
            return -pte_nomem;
        }
        status = pt_insn_set_image(d, image);
        if (status >= 0) {
            const struct decoder_ops ops = {insn_sync, insn_event, insn_step};
            decode_loop(d, ops, code, out);
        }
        pt_insn_free_decoder(d);
    }
    pt_image_free(image);
    return status < 0 ? status : 0;
}
