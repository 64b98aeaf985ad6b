// SPDX-License-Identifier: MIT
// A run's records as a Trace like any other (the analysis, the views and the writers take it).
#include "kernels/run_session.h"

#include "core/analysis/machine_roofs.h"
#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"
#include "core/model/run_args.h"

#include <map>
#include <set>

namespace attnscope::kernels {

namespace {

std::shared_ptr<const Trace> build(const std::vector<const std::vector<RunEvent>*>& batches, Backend backend,
                                   const std::string& deviceName) {
    TraceBuilder b;
    StringPool& pool = b.strings();
    // Host threads by their thread id (CUDA, PyTorch), or CPU workers by their index.
    const bool cuda = backend != Backend::Cpu, torch = backend == Backend::Torch;
    const StringId pid = pool.intern(torch ? "attnscope-torch" : cuda ? "attnscope-host" : "attnscope-cpu");
    b.setProcessName(pid, torch ? "PyTorch run" : cuda ? "CUDA run" : "CPU run");
    b.setProcessLabels(pid, std::string(cuda && !torch ? "host" : runargs::kCpuProcessLabel));
    b.info().format = "attnscope-run";
    b.info().hostName = thisHostName(); // the run's CPU is this machine's, wherever it is opened later
    const StringId callsTid = pool.intern("calls");
    b.setThreadName(pid, callsTid, "attention calls");
    b.setThreadSortIndex(pid, callsTid, -1);
    // Keyed by (device, track or stream or thread): device -1 is the host process.
    std::map<std::pair<int, std::int64_t>, TrackId> tracks;
    auto trackOf = [&](const RunEvent& e) {
        const std::int64_t lane = e.device >= 0 ? std::int64_t(e.stream)
                                  : e.track < 0 ? -1
                                  : cuda        ? std::int64_t(e.thread)
                                                : e.track;
        auto it = tracks.find({e.device, lane});
        if (it != tracks.end()) return it->second;
        StringId owner = pid, tid = callsTid;
        if (e.device >= 0) {
            owner = pool.intern(std::to_string(e.device)); // numbered by device, as Kineto numbers GPUs
            const std::string gpu = gpuName(e.device);
            b.setProcessName(owner, gpu);
            b.setProcessLabels(owner, gpu);
            tid = pool.intern("stream " + std::to_string(e.stream));
            b.setThreadName(owner, tid, "stream " + std::to_string(e.stream));
            b.setThreadSortIndex(owner, tid, lane);
        } else if (lane >= 0) {
            const std::string name =
                cuda ? (e.thread ? "thread " + std::to_string(e.thread) : std::string("driver"))
                     : "worker " + std::to_string(lane);
            tid = pool.intern(name);
            b.setThreadName(pid, tid, name);
            b.setThreadSortIndex(pid, tid, lane);
        }
        return tracks.emplace(std::pair{e.device, lane}, b.track(owner, tid)).first->second;
    };
    ArgsEncoder encoder;
    std::string encoded;
    std::uint64_t events = 0;
    for (const std::vector<RunEvent>* batch : batches)
        for (const RunEvent& e : *batch) {
            ++events;
            encoder.clear();
            for (const auto& [key, value] : e.args)
                encoder.add(key, value);
            encoded.clear();
            encoder.encode(pool, encoded);
            if (e.name == kineto::kMemoryEvent) {
                b.addInstant(trackOf(e), e.startNs, pool.intern(e.name), pool.intern(e.category), encoded);
                std::map<std::string, double> number;
                for (const auto& [key, value] : e.args)
                    number[key] = std::atof(value.c_str());
                b.addMemoryTotals(pid, e.startNs, int(number[kineto::kDeviceType]),
                                  std::int64_t(number[kineto::kDeviceId]), number[kineto::kTotalAllocated],
                                  std::nullopt);
                continue;
            }
            b.addSlice(trackOf(e), e.startNs, std::max<std::int64_t>(0, e.endNs - e.startNs),
                       pool.intern(e.name), pool.intern(e.category), e.correlation, encoded);
        }
    if (!deviceName.empty()) {
        DeviceInfo device;
        device.id = 0;
        device.name = deviceName;
        device.json = "{\"id\":0}";
        b.addDevice(device);
    }
    b.info().eventsRead = events;
    return b.finish();
}

} // namespace

std::shared_ptr<const Trace> buildRunTrace(const std::vector<RunEvent>& events, Backend backend,
                                           const std::string& deviceName) {
    return build({&events}, backend, deviceName);
}

std::shared_ptr<const Trace>
buildRunTrace(const std::vector<std::shared_ptr<const std::vector<RunEvent>>>& batches, Backend backend,
              const std::string& deviceName) {
    std::vector<const std::vector<RunEvent>*> parts;
    for (const auto& batch : batches)
        parts.push_back(batch.get());
    return build(parts, backend, deviceName);
}

} // namespace attnscope::kernels
