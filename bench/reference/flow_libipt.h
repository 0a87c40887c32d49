/* The reference for `ipt_flow_bench`: libipt 2.0.5's instruction and block decoders (Debian's
 * libipt-dev) over a stream and a code file, reduced to what the benchmark compares (see
 * flow_libipt.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a decode saw: instructions, events, errors (each sync error or decode error, then resync),
 * and a hash of where control went as the trace told it: the address of every instruction after
 * an indirect branch or return and after a taken conditional branch, with the instruction count
 * at that point. (libipt's blocks may run on across direct branches, so where they start is not
 * comparable; these addresses are.) */
struct flow_libipt_result {
    uint64_t insn, events, errors, hash;
};

/* The code: size bytes of code_path at address. size_at[ip - address] is the length of the
 * instruction at ip and kind_at[ip - address] what it does: 2 a conditional branch, 3 an
 * indirect branch or return (the block decoder reports only a block's last instruction). */
struct flow_libipt_code {
    const char* code_path;
    uint64_t address, size;
    const uint8_t* size_at;
    const uint8_t* kind_at;
};

/* Where the path hash stands: after what (kind) and where its fall-through is. */
struct flow_libipt_path {
    uint64_t fall;
    uint8_t kind;
};

/* ip reached after the instruction the path stands at; the next one is at last_ip. */
static inline uint64_t flow_libipt_step(struct flow_libipt_path* p, const struct flow_libipt_code* code,
                                        uint64_t hash, uint64_t ip, uint64_t count, uint64_t last_ip) {
    if (p->kind == 3 || (p->kind == 2 && ip != p->fall)) {
        hash ^= ip + 0x9e3779b97f4a7c15ull + (count << 6) + (count >> 2);
        hash *= 0xff51afd7ed558ccdull;
    }
    p->kind = code->kind_at[last_ip - code->address];
    p->fall = last_ip + code->size_at[last_ip - code->address];
    return hash;
}

/* Decodes the whole stream with pt_insn_next (block == 0) or pt_blk_next (block == 1); 0, or
 * a negative libipt error when a decoder cannot be made. */
int flow_libipt_decode(const uint8_t* pt, size_t pt_size, const struct flow_libipt_code* code, int block,
                       struct flow_libipt_result* out);

#ifdef __cplusplus
}
#endif
