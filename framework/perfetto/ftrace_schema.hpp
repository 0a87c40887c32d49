// The ftrace events Perfetto has typed messages for (protos/perfetto/trace/ftrace/*.proto): the
// FtraceEvent oneof field of each and the field numbers of its message. An event of a trace is
// written typed only when every one of its fields has a slot of a fitting type here (the kernel's
// formats change between versions); otherwise it becomes a GenericFtraceEvent with all its fields.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ringscope::perfetto {

enum class ProtoType : uint8_t {
    int32,
    int64,
    uint32,
    uint64,
    string,
    // A kernel function address, written as the iid of its name in InternedData.kernel_symbols
    // (what traced_probes writes with symbolize_ksyms; trace processor names slices with it).
    ksym,
};

struct TypedField {
    std::string_view name;
    uint32_t number;
    ProtoType type;
};

struct TypedEvent {
    std::string_view system;
    std::string_view name;
    uint32_t oneof_field;  // FtraceEvent's field number for this event's message
    std::span<const TypedField> fields;
};

// The typed message of SYSTEM/NAME, or nullptr.
const TypedEvent* find_typed_event(std::string_view system, std::string_view name) noexcept;
std::span<const TypedEvent> typed_events() noexcept;

// Field numbers of the messages the writer builds (trace_packet.proto, ftrace_event.proto,
// ftrace_event_bundle.proto (with its CompactSched), generic.proto, ftrace_stats.proto, process_tree.proto,
// system_info.proto, interned_data.proto).
namespace field {
inline constexpr uint32_t kTracePacket = 1;  // Trace.packet

inline constexpr uint32_t kPacketFtraceEvents = 1;
inline constexpr uint32_t kPacketProcessTree = 2;
inline constexpr uint32_t kPacketTimestamp = 8;
inline constexpr uint32_t kPacketSequenceId = 10;  // trusted_packet_sequence_id
inline constexpr uint32_t kPacketInternedData = 12;
inline constexpr uint32_t kPacketSequenceFlags = 13;
inline constexpr uint32_t kPacketFtraceStats = 34;
inline constexpr uint32_t kPacketSystemInfo = 45;
inline constexpr uint32_t kPacketMachineId = 98;
inline constexpr uint32_t kSeqIncrementalStateCleared = 1;
inline constexpr uint32_t kSeqNeedsIncrementalState = 2;

inline constexpr uint32_t kBundleCpu = 1;
inline constexpr uint32_t kBundleEvent = 2;
inline constexpr uint32_t kBundleLostEvents = 3;
inline constexpr uint32_t kBundleCompactSched = 4;
inline constexpr uint32_t kBundleFtraceClock = 5;
inline constexpr uint32_t kBundleFtraceTimestamp = 6;
inline constexpr uint32_t kBundleBootTimestamp = 7;

// FtraceClock (ftrace_event_bundle.proto): the clock of the bundle's timestamps; unset is
// CLOCK_BOOTTIME. Trace processor refuses UNKNOWN and the values after MONO_RAW.
inline constexpr uint32_t kFtraceClockUnspecified = 0;
inline constexpr uint32_t kFtraceClockGlobal = 2;
inline constexpr uint32_t kFtraceClockLocal = 3;
inline constexpr uint32_t kFtraceClockMonoRaw = 4;

// FtraceEventBundle.CompactSched: sched_switch and sched_waking as packed columns, timestamps as
// deltas from the previous one of the same kind in the bundle (the first from 0), comms as
// indexes into the bundle's intern_table.
inline constexpr uint32_t kCompactSwitchTimestamp = 1;
inline constexpr uint32_t kCompactSwitchPrevState = 2;
inline constexpr uint32_t kCompactSwitchNextPid = 3;
inline constexpr uint32_t kCompactSwitchNextPrio = 4;
inline constexpr uint32_t kCompactInternTable = 5;
inline constexpr uint32_t kCompactSwitchNextCommIndex = 6;
inline constexpr uint32_t kCompactWakingTimestamp = 7;
inline constexpr uint32_t kCompactWakingPid = 8;
inline constexpr uint32_t kCompactWakingTargetCpu = 9;
inline constexpr uint32_t kCompactWakingPrio = 10;
inline constexpr uint32_t kCompactWakingCommIndex = 11;
inline constexpr uint32_t kCompactWakingCommonFlags = 12;

inline constexpr uint32_t kEventTimestamp = 1;
inline constexpr uint32_t kEventPid = 2;
inline constexpr uint32_t kEventCommonFlags = 5;
inline constexpr uint32_t kEventGeneric = 327;

inline constexpr uint32_t kGenericEventName = 1;
inline constexpr uint32_t kGenericField = 2;
inline constexpr uint32_t kGenericFieldName = 1;
inline constexpr uint32_t kGenericFieldStr = 3;
inline constexpr uint32_t kGenericFieldInt = 4;
inline constexpr uint32_t kGenericFieldUint = 5;

inline constexpr uint32_t kInternedKernelSymbols = 26;
inline constexpr uint32_t kInternedStringIid = 1;
inline constexpr uint32_t kInternedStringStr = 2;

inline constexpr uint32_t kTreeProcesses = 1;
inline constexpr uint32_t kTreeThreads = 2;
inline constexpr uint32_t kThreadTid = 1;
inline constexpr uint32_t kThreadName = 2;
inline constexpr uint32_t kThreadTgid = 3;
inline constexpr uint32_t kProcessPid = 1;
inline constexpr uint32_t kProcessPpid = 2;
inline constexpr uint32_t kProcessCmdline = 3;

inline constexpr uint32_t kStatsPhase = 1;
inline constexpr uint32_t kStatsCpuStats = 2;
inline constexpr uint32_t kPhaseStartOfTrace = 1;
inline constexpr uint32_t kPhaseEndOfTrace = 2;
inline constexpr uint32_t kCpuStatsCpu = 1;
inline constexpr uint32_t kCpuStatsEntries = 2;
inline constexpr uint32_t kCpuStatsOverrun = 3;
inline constexpr uint32_t kCpuStatsCommitOverrun = 4;
inline constexpr uint32_t kCpuStatsBytesRead = 5;
inline constexpr uint32_t kCpuStatsOldestEventTs = 6;
inline constexpr uint32_t kCpuStatsNowTs = 7;
inline constexpr uint32_t kCpuStatsDroppedEvents = 8;
inline constexpr uint32_t kCpuStatsReadEvents = 9;

inline constexpr uint32_t kSystemInfoUtsname = 1;
inline constexpr uint32_t kSystemInfoPageSize = 6;
inline constexpr uint32_t kSystemInfoNumCpus = 8;
inline constexpr uint32_t kUtsSysname = 1;
inline constexpr uint32_t kUtsVersion = 2;
inline constexpr uint32_t kUtsRelease = 3;
inline constexpr uint32_t kUtsMachine = 4;
}  // namespace field

}  // namespace ringscope::perfetto
