// SPDX-License-Identifier: MIT
#include "cupti_collector.h"
#include "toolkit_paths.h"

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <dlfcn.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace attnscope_cuda {

using attnscope::kernels::GpuRecord;

namespace {

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr auto kFlushEvery = std::chrono::milliseconds(50);

// The CUPTI entry points used, resolved from the library loaded at run time.
struct Api {
    void* library = nullptr;
    std::string why;
    decltype(&cuptiActivityEnable) enable = nullptr;
    decltype(&cuptiActivityDisable) disable = nullptr;
    decltype(&cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
    decltype(&cuptiActivityFlushAll) flushAll = nullptr;
    decltype(&cuptiActivityGetNextRecord) nextRecord = nullptr;
    decltype(&cuptiActivityGetNumDroppedRecords) droppedRecords = nullptr;
    decltype(&cuptiActivityPushExternalCorrelationId) pushExternal = nullptr;
    decltype(&cuptiActivityPopExternalCorrelationId) popExternal = nullptr;
    decltype(&cuptiGetTimestamp) timestamp = nullptr;
    decltype(&cuptiGetResultString) resultString = nullptr;
    decltype(&cuptiGetCallbackName) callbackName = nullptr;

    std::string error(CUptiResult r) const {
        const char* text = nullptr;
        if (resultString) resultString(r, &text);
        return text ? text : "CUPTI error " + std::to_string(int(r));
    }
};

template <class F> bool resolve(void* library, const char* name, F& target) {
    target = reinterpret_cast<F>(dlsym(library, name));
    return target != nullptr;
}

const Api& api() {
    static const Api loaded = [] {
        Api a;
        // ATTNSCOPE_CUPTI_LIBRARY names the CUPTI to use (the tests' fake of its entry points too).
        const LibraryCandidates found = cuptiLibrary();
        std::vector<std::string> candidates = found.named;
        candidates.insert(candidates.end(), found.inFolders.begin(), found.inFolders.end());
        for (const std::string& c : candidates)
            if ((a.library = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
        if (!a.library) {
            a.why =
                "CUPTI is missing (libcupti not found): kernels are not recorded, only the calls are timed";
            return a;
        }
        const bool ok = resolve(a.library, "cuptiActivityEnable", a.enable) &&
                        resolve(a.library, "cuptiActivityDisable", a.disable) &&
                        resolve(a.library, "cuptiActivityRegisterCallbacks", a.registerCallbacks) &&
                        resolve(a.library, "cuptiActivityFlushAll", a.flushAll) &&
                        resolve(a.library, "cuptiActivityGetNextRecord", a.nextRecord) &&
                        resolve(a.library, "cuptiActivityGetNumDroppedRecords", a.droppedRecords) &&
                        resolve(a.library, "cuptiActivityPushExternalCorrelationId", a.pushExternal) &&
                        resolve(a.library, "cuptiActivityPopExternalCorrelationId", a.popExternal) &&
                        resolve(a.library, "cuptiGetTimestamp", a.timestamp) &&
                        resolve(a.library, "cuptiGetResultString", a.resultString) &&
                        resolve(a.library, "cuptiGetCallbackName", a.callbackName);
        if (!ok) {
            a.why = "this CUPTI lacks the activity API AttnScope uses";
            return a;
        }
        return a;
    }();
    return loaded;
}

} // namespace

struct CuptiCollector::Impl {
    attnscope::kernels::DeviceLimits limits;
    Sink sink;
    Notice notice;
    Dropped dropped;
    TagOf tagOf;
    std::uint64_t origin = 0; // set before the collector thread starts, read by it only

    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::pair<std::uint8_t*, std::size_t>> completed;
    std::vector<std::uint8_t*> spare;
    bool stopping = false;
    std::thread thread;
    std::atomic<std::uint64_t> droppedTotal{0};
    std::vector<CUpti_ActivityKind> enabled;

    // Collector thread only.
    std::unique_ptr<attnscope::kernels::RecordAssembler> assembler;
    std::map<std::pair<bool, std::uint32_t>, std::string> callbackNames;

    void collect();
    void parse(std::uint8_t* buffer, std::size_t valid);
    void pass(bool final);
};

namespace {

// CUPTI's buffer callbacks carry no user pointer: the one collector at work.
std::atomic<CuptiCollector::Impl*> g_active{nullptr};

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords) {
    *maxRecords = 0;
    *size = kBufferBytes;
    *buffer = nullptr;
    if (CuptiCollector::Impl* c = g_active.load()) {
        std::lock_guard lock(c->mutex);
        if (!c->spare.empty()) {
            *buffer = c->spare.back();
            c->spare.pop_back();
            return;
        }
    }
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
}

// Only queues the buffer: parsing happens on the collector thread.
void CUPTIAPI bufferCompleted(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                              std::size_t valid) {
    CuptiCollector::Impl* c = g_active.load();
    if (!c) {
        std::free(buffer);
        return;
    }
    std::size_t lost = 0;
    if (api().droppedRecords(context, stream, &lost) == CUPTI_SUCCESS && lost) c->droppedTotal += lost;
    {
        std::lock_guard lock(c->mutex);
        c->completed.emplace_back(buffer, valid);
    }
    c->wake.notify_one();
}

} // namespace

CuptiCollector::CuptiCollector() : m(std::make_unique<Impl>()) {}

CuptiCollector::~CuptiCollector() {
    stop();
}

bool CuptiCollector::start(const attnscope::kernels::DeviceLimits& limits, std::uint64_t origin, Sink sink,
                           Notice notice, Dropped dropped, TagOf tagOf, std::string& why) {
    const Api& a = api();
    if (!a.why.empty()) {
        why = a.why;
        return false;
    }
    Impl* expected = nullptr;
    if (!g_active.compare_exchange_strong(expected, m.get())) {
        why = "another CUDA run is being collected";
        return false;
    }
    m->limits = limits;
    m->sink = std::move(sink);
    m->notice = std::move(notice);
    m->dropped = std::move(dropped);
    m->tagOf = std::move(tagOf);
    m->assembler = std::make_unique<attnscope::kernels::RecordAssembler>(m->tagOf);
    m->origin = origin;
    m->stopping = false;
    // Once per process: the callbacks find the collector at work through g_active.
    static const CUptiResult registered = a.registerCallbacks(bufferRequested, bufferCompleted);
    if (registered != CUPTI_SUCCESS) {
        g_active = nullptr;
        why = "CUPTI: " + a.error(registered);
        return false;
    }
    // Kernels are what a run is for: without them there is no collection; the rest is best effort.
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                        CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMSET,
                                        CUPTI_ACTIVITY_KIND_RUNTIME,
                                        CUPTI_ACTIVITY_KIND_DRIVER,
                                        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                        CUPTI_ACTIVITY_KIND_MARKER,
                                        CUPTI_ACTIVITY_KIND_OVERHEAD};
    for (CUpti_ActivityKind kind : kinds) {
        const CUptiResult r = a.enable(kind);
        if (r == CUPTI_SUCCESS) {
            m->enabled.push_back(kind);
            continue;
        }
        if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            why = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                      ? "CUPTI: insufficient privileges for profiling (the driver restricts it to "
                        "administrators: "
                        "NVreg_RestrictProfilingToAdminUsers=0, or run as root)"
                      : "CUPTI cannot record kernels: " + a.error(r);
            stop();
            return false;
        }
        if (m->notice)
            m->notice("CUPTI: activity kind " + std::to_string(int(kind)) + " not recorded: " + a.error(r));
    }
    m->thread = std::thread([impl = m.get()] { impl->collect(); });
    return true;
}

// The order CUPTI's documentation and its samples use: no new records (disable), every buffer handed
// over, the partly filled ones too (a forced flush), then the collector thread drains and parses
// them all before it ends. Only then are the buffers freed: none with records in it.
void CuptiCollector::stop() {
    if (g_active.load() != m.get()) return;
    const Api& a = api();
    for (CUpti_ActivityKind kind : m->enabled)
        a.disable(kind);
    m->enabled.clear();
    a.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
        std::lock_guard lock(m->mutex);
        m->stopping = true;
    }
    m->wake.notify_one();
    if (m->thread.joinable()) m->thread.join();
    g_active = nullptr;
    std::lock_guard lock(m->mutex);
    for (auto& [buffer, valid] : m->completed) // none: the thread parsed everything before it ended
        std::free(buffer);
    m->completed.clear();
    for (std::uint8_t* buffer : m->spare)
        std::free(buffer);
    m->spare.clear();
}

std::uint64_t CuptiCollector::now() {
    std::uint64_t t = 0;
    if (api().timestamp) api().timestamp(&t);
    return t;
}

void CuptiCollector::push(std::uint64_t externalId) {
    api().pushExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, externalId);
}

void CuptiCollector::pop() {
    std::uint64_t last = 0;
    api().popExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

void CuptiCollector::Impl::collect() {
    std::uint64_t droppedSeen = 0;
    for (;;) {
        std::deque<std::pair<std::uint8_t*, std::size_t>> work;
        bool last = false;
        {
            std::unique_lock lock(mutex);
            wake.wait_for(lock, kFlushEvery, [&] { return !completed.empty() || stopping; });
            work.swap(completed);
            last = stopping;
        }
        for (auto& [buffer, valid] : work) {
            parse(buffer, valid);
            std::lock_guard lock(mutex);
            spare.push_back(buffer);
        }
        pass(last);
        if (const std::uint64_t d = droppedTotal.load(); d != droppedSeen && dropped)
            dropped(droppedSeen = d);
        if (last) return;
        if (work.empty()) api().flushAll(0); // hands over the buffers with finished records
    }
}

void CuptiCollector::Impl::parse(std::uint8_t* buffer, std::size_t valid) {
    const Api& a = api();
    const attnscope::kernels::CallbackNames names = [&](bool driver, std::uint32_t cbid) -> std::string {
        auto [it, added] = callbackNames.try_emplace({driver, cbid});
        if (added) {
            const char* name = nullptr;
            if (a.callbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid,
                               &name) == CUPTI_SUCCESS &&
                name)
                it->second = name;
        }
        return it->second;
    };
    CUpti_Activity* record = nullptr;
    while (a.nextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
            assembler->externalCorrelation(e->correlationId, e->externalId);
            continue;
        }
        GpuRecord g;
        if (!attnscope::kernels::convertActivity(record, limits, names, g)) continue;
        std::uint32_t thread = g.threadId;
        if (g.kind == GpuRecord::Kind::Marker) {
            const auto* marker = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
            if (marker->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) thread = marker->objectId.pt.threadId;
        }
        assembler->add(std::move(g), thread);
    }
}

void CuptiCollector::Impl::pass(bool final) {
    struct Passed {
        attnscope::kernels::AssembledRecord assembled;
        std::vector<const char*> args; // into the record's args (moved along with it: strings stay put)
    };
    std::vector<Passed> passed;
    for (attnscope::kernels::AssembledRecord& r : assembler->take(final)) {
        std::vector<const char*> flat;
        for (const auto& [key, value] : r.record.args) {
            flat.push_back(key.c_str());
            flat.push_back(value.c_str());
        }
        passed.push_back({std::move(r), std::move(flat)});
    }

    std::vector<AttnscopeCudaRecord> records;
    records.reserve(passed.size());
    for (const Passed& p : passed) {
        const GpuRecord& g = p.assembled.record;
        const LaunchTag* tag = p.assembled.tag;
        const bool gpu = g.kind == GpuRecord::Kind::Kernel || g.kind == GpuRecord::Kind::Memcpy ||
                         g.kind == GpuRecord::Kind::Memset;
        AttnscopeCudaRecord r{};
        r.kind = gpu ? ATTNSCOPE_RECORD_GPU : ATTNSCOPE_RECORD_HOST;
        r.name = g.name.c_str();
        r.category = g.category.c_str();
        r.startNs = std::int64_t(g.startNs) - std::int64_t(origin);
        r.endNs = std::int64_t(g.endNs) - std::int64_t(origin);
        r.device = gpu ? int(g.device) : -1;
        r.stream = g.stream;
        r.thread = p.assembled.thread;
        r.correlation = g.correlation;
        r.args = p.args.data();
        r.argCount = int(p.args.size() / 2);
        r.impl = tag ? tag->impl.c_str() : "";
        r.role = tag ? tag->role.c_str() : "";
        r.call = tag ? tag->call : -1;
        r.warmup = tag && tag->warmup ? 1 : 0;
        records.push_back(r);
    }
    if (!records.empty() && sink) sink(records.data(), int(records.size()));
}

} // namespace attnscope_cuda
