// SPDX-License-Identifier: MIT
#include "loaded_trace.h"

#include "job_runner.h"

#include "core/io/trace_loader.h"

#include <chrono>

namespace attnscope::ui {

std::shared_ptr<const LoadedTrace> loadForViews(const std::string& path, const QByteArray& bytes,
                                                const std::string& name, JobControl& control) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    LoadOptions options;
    options.cancel = control.cancelFlag();
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        if (total) control.progress(double(done) / double(total));
    };
    std::shared_ptr<const Trace> trace;
    if (path.empty()) {
        auto source = openMemorySource(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        trace = readJsonTrace(*source, name, options);
    } else {
        trace = loadTraceFile(path, options);
    }
    auto loaded = std::make_shared<LoadedTrace>();
    loaded->loadSeconds = std::chrono::duration<double>(clock::now() - t0).count();
    loaded->trace = trace;
    loaded->index = std::make_shared<const TimelineIndex>(*trace);
    loaded->summary = summarize(*trace, 0);
    loaded->totalSeconds = std::chrono::duration<double>(clock::now() - t0).count();
    return loaded;
}

} // namespace attnscope::ui
