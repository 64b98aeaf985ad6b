// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"
#include "core/model/string_pool.h"
#include "core/model/types.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope {

enum class TrackKind : std::uint8_t { CpuThread, GpuStream, Global };

// Per-event flags.
enum EventFlag : std::uint8_t {
    kInstant = 1,    // zero-duration marker (ph i/I), not a slice
    kUnfinished = 2, // a B without its E: ends where the trace ends
    // In a trace with no GPU kernel (PyTorch on the CPU): an aten:: op that did the work, its time
    // mostly its own (the working ops inside it, if any, took less than half), inside no other such
    // op. These are the trace's kernels (isKernelEvent).
    kOpKernel = 4,
};

struct ProcessInfo {
    StringId key;       // pid exactly as the file wrote it ("0", "Spans", "")
    std::string name;   // process_name metadata, or a generated name
    std::string labels; // process_labels metadata ("CPU", "GPU 3")
    std::int64_t sortIndex = 0;
    bool isGpu = false;
    std::int64_t deviceIndex = -1; // GPU processes: the device index (pid)
    // GPU processes: the device's model ("NVIDIA H100 80GB HBM3") from the trace's device list — the
    // entry with this index, or the one model listed when no entry has it (a warning says so).
    std::string deviceModel;
    std::int64_t rank = -1; // the rank's group when several files are open as one job
};

inline constexpr std::uint32_t kNoParent = 0xffffffffu;

// The events of one track, sorted by start (longer first on ties), as parallel arrays.
struct EventColumns {
    PodArray<TimeNs> start;
    PodArray<TimeNs> duration;
    PodArray<StringId> name;
    PodArray<StringId> category;
    PodArray<std::uint16_t> depth;
    // The innermost event still open when this one started (kNoParent: none); it encloses this one
    // unless the two overlap partially. Walking up costs a step per level instead of a scan back
    // over the siblings (every kernel's launch is walked up to find the op that launched it).
    PodArray<std::uint32_t> parent;
    PodArray<std::uint8_t> flags;
    PodArray<std::uint64_t> correlation; // 0 when the event has none
    PodArray<const char*> args;          // encoded args (args_codec.h) in the trace's arena, or nullptr
};

struct Track {
    ProcessId process;
    StringId tidKey; // tid exactly as the file wrote it
    std::string name;
    std::int64_t sortIndex = 0;
    TrackKind kind = TrackKind::CpuThread;
    std::uint16_t maxDepth = 0;
    EventColumns events;

    std::size_t size() const { return events.start.size(); }
    TimeNs end(std::size_t i) const { return events.start[i] + events.duration[i]; }
};

struct CounterSeries {
    ProcessId process;
    std::string name;              // "counter" or "counter.series" when an event carries several values
    std::string unit;              // "B" for memory; "" when the trace does not say
    bool fromMemoryEvents = false; // made from "[memory]" instants, which a saved trace carries instead
    std::vector<TimeNs> time;
    std::vector<double> value;
};

// A resolved flow arrow between two events.
struct Flow {
    EventRef from;
    EventRef to;
    StringId category;
};

struct DeviceInfo {
    std::int64_t id = -1;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int numSms = 0;
    std::uint64_t totalGlobalMem = 0;
    std::string json; // the whole entry as the file had it, minified
};

struct DistributedInfo {
    std::optional<std::int64_t> rank;
    std::optional<std::int64_t> worldSize;
    std::string backend;
};

struct TraceInfo {
    std::string path;
    std::string format;           // "kineto-json", "chrome-json"
    std::uint64_t eventsRead = 0; // trace event objects read, all phases
    std::uint64_t bytesRead = 0;  // uncompressed JSON bytes
    std::optional<std::int64_t> baseTimeNs;
    std::optional<std::int64_t> schemaVersion;
    std::string displayTimeUnit;
    std::string hostName; // the machine it was recorded on, when the file says ("host_name")
    std::vector<std::string> warnings;
    // The trace has no GPU kernel and its leaf aten:: ops stand for them (kOpKernel): how many.
    std::uint64_t opKernels = 0;
    // What people noted in it, as AttnScope writes it (the top-level "attnscopeNotes"; core/document/notes.h).
    std::string notesJson;
};

// What an event's category makes it, to the model: read from a column per string id that the trace
// makes when it is built (and appended), not by comparing strings per event.
enum class CategoryKind : std::uint8_t {
    Other,
    CpuOp,       // cpu_op, legacy Operator
    Launch,      // cuda_runtime, cuda_driver, legacy Runtime
    Kernel,      // kernel, legacy Kernel
    Copy,        // gpu_memcpy, gpu_memset, legacy Memcpy, Memset
    DeviceEvent, // an accelerator's own events, told apart by name (isDeviceEventCategory)
};
CategoryKind categoryKindOf(std::string_view category);

// An immutable, loaded trace. Built by TraceBuilder; shared as std::shared_ptr<const Trace>.
class Trace {
public:
    Trace() = default;
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;

    const StringPool& strings() const { return m_strings; }
    std::string_view str(StringId id) const { return m_strings.get(id); }
    const std::vector<ProcessInfo>& processes() const { return m_processes; }
    const ProcessInfo& process(ProcessId id) const { return m_processes[id.value]; }
    const std::vector<Track>& tracks() const { return m_tracks; }
    const Track& track(TrackId id) const { return m_tracks[id.value]; }
    const std::vector<CounterSeries>& counters() const { return m_counters; }
    const std::vector<Flow>& flows() const { return m_flows; }
    const std::vector<DeviceInfo>& devices() const { return m_devices; }
    const DistributedInfo& distributed() const { return m_distributed; }
    const TraceInfo& info() const { return m_info; }

    // The kind of a category by its string id, and of an event's category.
    CategoryKind categoryKind(StringId category) const {
        return category.value < m_categoryKinds.size() ? m_categoryKinds[category.value]
                                                       : CategoryKind::Other;
    }
    CategoryKind categoryKind(EventRef e) const {
        return categoryKind(track(e.track).events.category[e.index]);
    }

    // Events on tracks (slices and instants).
    std::size_t eventCount() const;
    // Earliest start and latest end over all timed events (metadata excluded); 0,0 when empty.
    TimeNs startNs() const { return m_startNs; }
    TimeNs endNs() const { return m_endNs; }

    // The event's args as a minified JSON object ("{}" when it has none).
    std::string argsJson(EventRef e) const;
    // Calls f(key as escaped in JSON, value as minified JSON) for each of the event's args.
    void forEachArg(EventRef e, const std::function<void(std::string_view, std::string_view)>& f) const;
    // The encoded args blob (args_codec.h); empty when the event has none.
    std::string_view encodedArgs(EventRef e) const;
    // "GPU 0 · stream 7", "python3 · thread 25286".
    std::string trackLabel(TrackId id) const;

    // CPU runtime/driver call that launched this GPU event (same correlation id), if any.
    std::optional<EventRef> launchOf(EventRef gpuEvent) const;
    // GPU work launched by this CPU runtime/driver call.
    std::vector<EventRef> gpuWorkOf(EventRef launch) const;
    // The flow arrows that leave or reach this event (a scan of all flows: for one selection).
    std::vector<Flow> flowsOf(EventRef e) const;
    // What an event is linked to, as arrows from → to: the call that launched it, the GPU work it
    // launched (by correlation id), and the file's flow arrows that leave or reach it, each arrow once.
    std::vector<std::pair<EventRef, EventRef>> linksOf(EventRef e) const;

    // Bytes the model holds (arrays, strings, args), for the memory figures.
    std::size_t memoryBytes() const;

private:
    friend class TraceBuilder;
    friend class TraceAppender;
    struct CorrelationEntry {
        std::uint64_t correlation;
        EventRef event;
    };

    // The kind of every string id's category (categoryKind), extended to the strings interned since.
    void indexCategories();

    StringPool m_strings;
    std::vector<CategoryKind> m_categoryKinds; // per string id
    BlockArena m_argsArena{4u << 20};
    std::vector<ProcessInfo> m_processes;
    std::vector<Track> m_tracks;
    std::vector<CounterSeries> m_counters;
    std::vector<Flow> m_flows;
    std::vector<DeviceInfo> m_devices;
    DistributedInfo m_distributed;
    TraceInfo m_info;
    TimeNs m_startNs = 0;
    TimeNs m_endNs = 0;
    // Sorted by correlation (a growing trace's snapshots share them, as they share the columns).
    PodArray<CorrelationEntry> m_launches;
    PodArray<CorrelationEntry> m_gpuWork;
    // A growing trace's snapshot: what holds the strings and args it reads (trace_append.h), and their size.
    std::shared_ptr<const void> m_storage;
    std::size_t m_storageBytes = 0;
};

// Categories with a meaning to the model.
// "GPU 3": a GPU by its index, as traces label it and people read it; "rank 1": a rank of a job.
std::string gpuName(std::int64_t deviceIndex);
std::string rankName(std::int64_t rank);
// A GPU process's device as people read it: "GPU 0", "rank 1 · GPU 0" in a job ("" for other processes).
std::string gpuLabel(const ProcessInfo& p);
// What a device process's device is, as people name it: "MTIA" for Meta's accelerator (Kineto names
// its processes "MTIA N"), else "GPU".
std::string_view deviceKind(const ProcessInfo& p);

bool isKernelCategory(std::string_view cat); // "kernel", legacy "Kernel"
bool isGpuCategory(std::string_view cat);    // anything that runs on a GPU stream
bool isLaunchCategory(std::string_view cat); // "cuda_runtime", "cuda_driver", legacy "Runtime"
bool isCpuOpCategory(std::string_view cat);  // "cpu_op", legacy "Operator" (2021 traces)
bool isCopyCategory(std::string_view cat);   // "gpu_memcpy", "gpu_memset", legacy "Memcpy", "Memset"
// An accelerator's own device events under one category, told apart by name: Meta MTIA's
// "mtia_ccp_events" are its kernels, except its "dma_request"s, which are its copies, and its
// "event_record"/"event_wait", which are synchronization (neither).
bool isDeviceEventCategory(std::string_view cat);
bool isDeviceCopyName(std::string_view name);
bool isDeviceSyncName(std::string_view name);
// What the kernel table, the summary, the charts and the analysis count as kernels: GPU kernels (an
// accelerator's own device kernels), or in a trace without any, the aten:: ops that did the work
// (kOpKernel).
inline bool isKernelEvent(const Trace& trace, const Track& track, std::size_t i);
// aten:: ops that only make views or empty tensors, or return their input: never a trace's kernels.
bool isBookkeepingOp(std::string_view name);

// Walks over the trace, for the views and the analysis.
// The events that enclose an event on its track, innermost first.
std::vector<EventRef> enclosingEvents(const Trace& trace, EventRef event);
// The same, one at a time, until f returns true (then true; false when none did): the innermost
// ancestors are found without walking back to the outermost one, which may be far.
bool forEachEnclosingEvent(const Trace& trace, EventRef event, const std::function<bool(EventRef)>& f);
// The longest event named `name` that overlaps [from, to) (any time when to <= from).
std::optional<EventRef> longestEventNamed(const Trace& trace, StringId name, TimeNs from = 0, TimeNs to = 0);
// The process to show first for a rank: its first GPU, else its first process.
std::optional<ProcessId> firstProcessOfRank(const Trace& trace, std::int64_t rank);

inline bool isKernelEvent(const Trace& trace, const Track& track, std::size_t i) {
    if (track.events.flags[i] & kOpKernel) return true;
    const CategoryKind kind = trace.categoryKind(track.events.category[i]);
    if (kind == CategoryKind::Kernel) return true;
    if (kind != CategoryKind::DeviceEvent) return false;
    const std::string_view name = trace.str(track.events.name[i]);
    return !isDeviceCopyName(name) && !isDeviceSyncName(name);
}

} // namespace attnscope
