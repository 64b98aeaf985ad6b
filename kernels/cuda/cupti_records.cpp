// SPDX-License-Identifier: MIT
#include "cupti_records.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"

#include "core/io/json_escape.h"

#include <algorithm>
#include <cstdio>

namespace attnscope::kernels {

namespace {

std::string triple(int x, int y, int z) {
    return "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
}

const char* memcpyKind(std::uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "DtoA";
    default:
        return "Unknown";
    }
}

const char* memoryKind(std::uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return "Managed";
    default:
        return "Unknown";
    }
}

const char* syncType(CUpti_ActivitySynchronizationType type) {
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        return "Context Sync";
    default:
        return "Unknown Sync";
    }
}

// The fields every record of work on a stream has (kernels, copies, memsets), and their args.
template <class Record>
void streamWork(const Record& r, GpuRecord::Kind kind, std::string_view category, std::string name,
                GpuRecord& out) {
    out = {};
    out.kind = kind;
    out.category = std::string(category);
    out.name = std::move(name);
    out.startNs = r.start;
    out.endNs = r.end;
    out.device = r.deviceId;
    out.stream = r.streamId;
    out.correlation = r.correlationId;
    out.args = {{kineto::kDevice, std::to_string(r.deviceId)},
                {kineto::kStream, std::to_string(r.streamId)},
                {kineto::kCorrelation, std::to_string(r.correlationId)}};
}

} // namespace

namespace {

// One converter per kind of CUPTI activity record, a few fields each.
void convertKernel(const CUpti_Activity* record, const DeviceLimits& limits, GpuRecord& out) {
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    streamWork(*k, GpuRecord::Kind::Kernel, category::kKernel, k->name ? k->name : "(unnamed kernel)", out);
    const int threads = k->blockX * k->blockY * k->blockZ;
    const int shared = k->staticSharedMemory + k->dynamicSharedMemory;
    char occupancy[32];
    std::snprintf(occupancy, sizeof occupancy, "%.2f",
                  100 * theoreticalOccupancy(limits, threads, k->registersPerThread, shared));
    out.args.insert(out.args.end(), {{kineto::kRegistersPerThread, std::to_string(k->registersPerThread)},
                                     {kineto::kSharedMemory, std::to_string(shared)},
                                     {kineto::kGrid, triple(k->gridX, k->gridY, k->gridZ)},
                                     {kineto::kBlock, triple(k->blockX, k->blockY, k->blockZ)},
                                     {"theoretical occupancy %", occupancy}});
}

void convertMemcpy(const CUpti_Activity* record, GpuRecord& out) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
    streamWork(*m, GpuRecord::Kind::Memcpy, category::kMemcpy,
               std::string("Memcpy ") + memcpyKind(m->copyKind) + " (" + memoryKind(m->srcKind) + " -> " +
                   memoryKind(m->dstKind) + ")",
               out);
    out.args.emplace_back("bytes", std::to_string(m->bytes));
}

void convertMemset(const CUpti_Activity* record, GpuRecord& out) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
    streamWork(*m, GpuRecord::Kind::Memset, category::kMemset,
               std::string("Memset (") + memoryKind(m->memoryKind) + ")", out);
    out.args.emplace_back("bytes", std::to_string(m->bytes));
    out.args.emplace_back("value", std::to_string(m->value));
}

void convertApi(const CUpti_Activity* record, const CallbackNames& names, GpuRecord& out) {
    const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
    const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
    out = {};
    out.kind = driver ? GpuRecord::Kind::Driver : GpuRecord::Kind::Runtime;
    out.category = driver ? category::kDriver : category::kRuntime;
    out.name = names ? names(driver, a->cbid) : std::string();
    if (out.name.empty()) out.name = (driver ? "driver API " : "runtime API ") + std::to_string(a->cbid);
    out.startNs = a->start;
    out.endNs = a->end;
    out.correlation = a->correlationId;
    out.processId = a->processId;
    out.threadId = a->threadId;
    out.args = {{kineto::kCbid, std::to_string(a->cbid)},
                {kineto::kCorrelation, std::to_string(a->correlationId)}};
    if (a->returnValue) out.args.emplace_back("return", std::to_string(a->returnValue));
}

void convertSynchronization(const CUpti_Activity* record, GpuRecord& out) {
    const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
    out = {};
    out.kind = GpuRecord::Kind::Synchronization;
    out.category = category::kCudaSync;
    out.name = syncType(s->type);
    out.startNs = s->start;
    out.endNs = s->end;
    out.stream = s->streamId;
    out.correlation = s->correlationId;
    out.args = {{kineto::kCorrelation, std::to_string(s->correlationId)},
                {kineto::kStream, std::to_string(s->streamId)}};
}

void convertMarker(const CUpti_Activity* record, GpuRecord& out) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
    out = {};
    out.kind = GpuRecord::Kind::Marker;
    out.category = category::kUserAnnotation;
    out.name = m->name ? m->name : "";
    out.startNs = out.endNs = m->timestamp;
    out.markerId = m->id;
    out.markerStart = (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0;
    out.markerEnd = (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0;
    if (m->domain) out.args = {{"domain", jsonQuoted(m->domain)}};
}

void convertOverhead(const CUpti_Activity* record, GpuRecord& out) {
    const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
    out = {};
    out.kind = GpuRecord::Kind::Overhead;
    out.category = category::kOverhead;
    out.name = "CUPTI overhead";
    out.startNs = o->start;
    out.endNs = o->end;
    out.args = {{"overhead kind", std::to_string(int(o->overheadKind))}};
}

} // namespace

bool convertActivity(const CUpti_Activity* record, const DeviceLimits& limits, const CallbackNames& names,
                     GpuRecord& out) {
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        convertKernel(record, limits, out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        convertMemcpy(record, out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        convertMemset(record, out);
        return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        convertApi(record, names, out);
        return true;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        convertSynchronization(record, out);
        return true;
    case CUPTI_ACTIVITY_KIND_MARKER:
        convertMarker(record, out);
        return true;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        convertOverhead(record, out);
        return true;
    default:
        return false;
    }
}

} // namespace attnscope::kernels
