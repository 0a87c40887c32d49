#include "framework/engine/blktrace_format.hpp"

#include <ringscope/event_type.hpp>

#include "framework/format/format_catalog.hpp"

namespace ringscope::engine {
namespace {

// The common fields the record must start with: struct blk_io_trace's magic, sequence and time
// lie under them and the kernel leaves them unwritten in the ftrace buffer.
const FieldInfo* common_field(const EventType& type, const char* name) {
    for (const FieldInfo& f : type.common_fields)
        if (f.name == name) return &f;
    return nullptr;
}

bool common_field_is(const EventType& type, const char* name, uint32_t offset, uint32_t size) {
    const FieldInfo* f = common_field(type, name);
    return f && f->offset == offset && f->size == size;
}

}  // namespace

std::optional<std::string> blktrace_format(const format::FormatCatalog& formats) {
    const EventType* after = nullptr;
    for (const char* name : {"power", "kmem_free", "user_stack"})
        if ((after = formats.find("ftrace", name))) break;
    if (!after) return std::nullopt;
    const uint32_t id = after->id + 1;
    if (formats.declares(id) || formats.by_id(id)) return std::nullopt;
    if (!common_field_is(*after, "common_type", 0, 2) || !common_field_is(*after, "common_flags", 2, 1) ||
        !common_field_is(*after, "common_preempt_count", 3, 1) ||
        !common_field_is(*after, "common_pid", 4, 4))
        return std::nullopt;
    std::string text = "name: blktrace\nID: " + std::to_string(id) +
                       "\nformat:\n"
                       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
                       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
                       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
                       "\tfield:int common_pid;\toffset:4;\tsize:4;\n";
    // 2.6-era kernels' lock depth: kept where it is where the record expects it, else no event
    if (const FieldInfo* lock = common_field(*after, "common_lock_depth")) {
        if (lock->offset != 8 || lock->size != 4) return std::nullopt;
        text += "\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n";
    }
    text +=
        "\n"
        "\tfield:u64 sector;\toffset:16;\tsize:8;\n"
        "\tfield:int bytes;\toffset:24;\tsize:4;\n"
        "\tfield:int action;\toffset:28;\tsize:4;\n"
        "\tfield:int pid;\toffset:32;\tsize:4;\n"
        "\tfield:int device;\toffset:36;\tsize:4;\n"
        "\tfield:int cpu;\toffset:40;\tsize:4;\n"
        "\tfield:short error;\toffset:44;\tsize:2;\n"
        "\tfield:short pdu_len;\toffset:46;\tsize:2;\n"
        "\tfield:void data;\toffset:48;\tsize:0;\n"
        "\n"
        "print fmt: \"%d\", REC->pid\n";
    return text;
}

}  // namespace ringscope::engine
