#include "kvm_printer.hpp"

#include <algorithm>

namespace ringscope::kvm {

std::vector<EventMatch> KvmPrinter::subscriptions() const {
    return {{"kvm", "kvm_exit"},
            {"kvm", "kvm_entry"},
            {"kvm", "kvm_emulate_insn"},
            {"kvm", "kvm_nested_vmexit"},
            {"kvm", "kvm_nested_vmexit_inject"},
            {"kvmmmu", "kvm_mmu_get_page"},
            {"kvmmmu", "kvm_mmu_sync_page"},
            {"kvmmmu", "kvm_mmu_unsync_page"},
            {"kvmmmu", "kvm_mmu_zap_page"},
            {"kvmmmu", "kvm_mmu_prepare_zap_page"}};
}

void KvmPrinter::begin(const TraceContext&) {
    types_.clear();
    guest_.reset();
    disasm_.clear();
}

const KvmPrinter::TypeInfo* KvmPrinter::info(const EventType& type) {
    auto it = types_.find(&type);
    if (it != types_.end()) return &it->second;
    TypeInfo ti{};
    auto set = [&](std::initializer_list<std::string_view> names) {
        size_t i = 0;
        for (std::string_view n : names) ti.f[i++] = NumField::find(type, n);
    };
    const std::string_view sys = type.system, name = type.name;
    if (sys == "kvm" && name == "kvm_exit") {
        ti.kind = Kind::exit;
        set({"exit_reason", "isa", "guest_rip", "info1", "info2"});
        ti.reasons = ExitReasonNames(type, "exit_reason");
    } else if (sys == "kvm" && name == "kvm_entry") {
        ti.kind = Kind::entry;
        set({"vcpu_id", "rip"});
    } else if (sys == "kvm" && name == "kvm_emulate_insn") {
        ti.kind = Kind::emulate_insn;
        set({"rip", "csbase", "len", "flags", "failed"});
    } else if (sys == "kvm" && (name == "kvm_nested_vmexit" || name == "kvm_nested_vmexit_inject")) {
        ti.kind = name == "kvm_nested_vmexit" ? Kind::nested_vmexit : Kind::nested_vmexit_inject;
        set({"exit_code", "isa", "exit_info1", "exit_info2", "exit_int_info", "exit_int_info_err", "rip"});
        ti.reasons = ExitReasonNames(type, "exit_code");
    } else if (sys == "kvmmmu" && name == "kvm_mmu_get_page") {
        ti.kind = Kind::mmu_get_page;
        set({"created", "gfn", "role", "root_count", "unsync"});
    } else if (sys == "kvmmmu" && (name == "kvm_mmu_sync_page" || name == "kvm_mmu_unsync_page" ||
                                   name == "kvm_mmu_zap_page" || name == "kvm_mmu_prepare_zap_page")) {
        ti.kind = Kind::mmu_role;
        set({"role", "root_count", "unsync"});
    } else {
        return nullptr;
    }
    return &types_.emplace(&type, std::move(ti)).first->second;
}

bool KvmPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const TypeInfo* ti = info(ev.type());
    if (!ti) return false;
    bool done = false;
    switch (ti->kind) {
        case Kind::exit:
            done = print_exit(ev, *ti, out);
            break;
        case Kind::entry:
            done = print_entry(ev, *ti, out);
            break;
        case Kind::emulate_insn:
            done = print_emulate_insn(ev, *ti, out);
            break;
        case Kind::nested_vmexit:
            done = print_nested_vmexit(ev, *ti, out);
            break;
        case Kind::nested_vmexit_inject:
            done = print_nested_inject(ev, *ti, out);
            break;
        case Kind::mmu_get_page:
            done = print_mmu_get_page(ev, *ti, out);
            break;
        case Kind::mmu_role:
            done = print_mmu_role(ev, ti->f[0], ti->f[1], ti->f[2], out);
            break;
    }
    // libtraceevent prints the event's own format after a handler that fails (returns nonzero),
    // behind what the handler already wrote (its "<CANT FIND FIELD ...>" marker, say).
    if (!done) pc.print_default(ev, out);
    return true;
}

bool KvmPrinter::print_exit_reason(const Event& ev, const TypeInfo& ti, const NumField& field,
                                   const NumField& isa_f, TextBuffer& out) {
    uint64_t val = 0, isa = 0;
    if (!field.get(ev, val, &out)) return false;
    if (!isa_f.get(ev, isa, nullptr)) isa = kIsaVmx;  // the reference's default
    out.append("reason ");
    ti.reasons.append(isa, val, out);
    return true;
}

bool KvmPrinter::print_exit(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    const NumField &reason = ti.f[0], &isa = ti.f[1], &rip_f = ti.f[2], &info1_f = ti.f[3],
                   &info2_f = ti.f[4];
    if (!print_exit_reason(ev, ti, reason, isa, out)) return false;
    uint64_t rip = 0;
    if (!rip_f.get(ev, rip, &out)) return false;
    out.appendf(" rip 0x%llx", static_cast<unsigned long long>(rip));
    guest_.append(ev, rip, out);
    uint64_t info1 = 0, info2 = 0;
    if (info1_f.get(ev, info1, nullptr) && info2_f.get(ev, info2, nullptr))
        out.appendf(" info %llx %llx", static_cast<unsigned long long>(info1),
                    static_cast<unsigned long long>(info2));
    return true;
}

bool KvmPrinter::print_entry(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    // " vcpu %u" of a 64-bit value: printf reads the low 32 bits.
    if (ti.f[0].readable())
        out.appendf(" vcpu %u", static_cast<unsigned>(ev.u64(ti.f[0].h)));
    else
        print_num_field(ev, ti.f[0], "", out);
    uint64_t rip = 0;
    if (!ti.f[1].get(ev, rip, &out)) return false;
    out.appendf(" rip 0x%llx", static_cast<unsigned long long>(rip));
    guest_.append(ev, rip, out);
    return true;
}

bool KvmPrinter::print_emulate_insn(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    uint64_t rip = 0, csbase = 0, len = 0, flags = 0, failed = 0;
    if (!ti.f[0].get(ev, rip, &out) || !ti.f[1].get(ev, csbase, &out) || !ti.f[2].get(ev, len, &out) ||
        !ti.f[3].get(ev, flags, &out) || !ti.f[4].get(ev, failed, &out))
        return false;
    const FieldInfo* insn = nullptr;
    for (const FieldInfo& f : ev.type().fields)
        if (f.name == "insn") insn = &f;
    if (!insn) {
        out.append("<CANT FIND FIELD insn>");
        return false;
    }
    // Without udis86 (Debian's build) the reference prints the bytes in hex. It reads `len` bytes
    // whatever the field's size; we stop at the field (15 bytes), where the reference overruns.
    // A zero length leaves its static buffer as the previous event left it.
    auto bytes = ev.bytes(FieldHandle{insn->offset, insn->size, insn->flags, true});
    size_t n = std::min<size_t>(len & 0xff, bytes.size());
    if (len != 0) {
        disasm_.clear();
        static const char hex[] = "0123456789abcdef";
        for (size_t i = 0; i < n; ++i) {
            if (i) disasm_.push_back(' ');
            disasm_.push_back(hex[bytes[i] >> 4]);
            disasm_.push_back(hex[bytes[i] & 15]);
        }
    }
    out.appendf("%llx:%llx", static_cast<unsigned long long>(csbase), static_cast<unsigned long long>(rip));
    guest_.append(ev, rip, out);
    out.append(": ");
    out.append(disasm_);
    if (failed) out.append(" FAIL");
    return true;
}

bool KvmPrinter::print_nested_inject(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    if (!print_exit_reason(ev, ti, ti.f[0], ti.f[1], out)) return false;
    print_num_field(ev, ti.f[2], " info1 %llx", out);
    print_num_field(ev, ti.f[3], " info2 %llx", out);
    print_num_field(ev, ti.f[4], " int_info %llx", out);
    print_num_field(ev, ti.f[5], " int_info_err %llx", out);
    return true;
}

bool KvmPrinter::print_nested_vmexit(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    uint64_t rip = 0;
    if (!ti.f[6].get(ev, rip, &out)) return false;
    // No 0x and no space before "reason": the reference's layout.
    out.appendf(" rip %llx", static_cast<unsigned long long>(rip));
    guest_.append(ev, rip, out);
    return print_nested_inject(ev, ti, out);
}

bool KvmPrinter::print_mmu_get_page(const Event& ev, const TypeInfo& ti, TextBuffer& out) {
    uint64_t v = 0;
    if (!ti.f[0].get(ev, v, &out)) return false;
    out.append(v ? "new " : "existing ");
    if (!ti.f[1].get(ev, v, &out)) return false;
    out.appendf("sp gfn %llx ", static_cast<unsigned long long>(v));
    return print_mmu_role(ev, ti.f[2], ti.f[3], ti.f[4], out);
}

bool KvmPrinter::print_mmu_role(const Event& ev, const NumField& role_f, const NumField& root,
                                const NumField& unsync, TextBuffer& out) {
    uint64_t v = 0;
    if (!role_f.get(ev, v, &out)) return false;
    const uint32_t w = static_cast<uint32_t>(v);
    // The reference decodes union kvm_mmu_page_role (bit-fields from bit 0: level:4, cr4_pae:1,
    // quadrant:2, direct:1, access:3, invalid:1, nxe:1, cr0_wp:1, smep_and_not_wp:1,
    // smap_and_not_wp:1, pad:8, smm:8) only when the file has the host's byte order.
    if (ev.context().big_endian() == Event::host_big_endian()) {
        static const char* const access[] = {"---", "--x", "w--", "w-x", "-u-", "-ux", "wu-", "wux"};
        out.appendf("%u q%u%s %s%s %spae %snxe %swp%s%s%s", w & 0xf, (w >> 5) & 3,
                    (w >> 7) & 1 ? " direct" : "", access[(w >> 8) & 7], (w >> 11) & 1 ? " invalid" : "",
                    (w >> 4) & 1 ? "" : "!", (w >> 12) & 1 ? "" : "!", (w >> 13) & 1 ? "" : "!",
                    (w >> 14) & 1 ? " smep" : "", (w >> 15) & 1 ? " smap" : "", (w >> 24) ? " smm" : "");
    } else {
        out.appendf("WORD: %08x", w);
    }
    if (root.readable())
        out.appendf(" root %u ", static_cast<unsigned>(ev.u64(root.h)));
    else
        print_num_field(ev, root, "", out);
    if (!unsync.get(ev, v, &out)) return false;
    // The reference appends a NUL after this word ("%s%c", ..., 0); trace-cmd's "%.*s" output then
    // stops there. We leave the NUL out so that lines stay lines (a documented difference).
    out.append(v ? "unsync" : "sync");
    return true;
}

}  // namespace ringscope::kvm
