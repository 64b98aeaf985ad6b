// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

namespace attnscope {
struct Document;
}

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace attnscope::test {

// ../shared/fixtures/traces/NAME, or "" when the shared folder is missing.
std::string fixture(const std::string& name);
// Skips the current test with a clear message when a fixture is missing.
#define ATTNSCOPE_REQUIRE_FIXTURE(var, name)                                                                 \
    const std::string var = ::attnscope::test::fixture(name);                                                \
    if (var.empty()) GTEST_SKIP() << "shared fixtures not found (" ATTNSCOPE_SHARED_DIR "): " << (name)

// Loads JSON text from memory; throws LoadError like a file would.
std::shared_ptr<const Trace> loadText(std::string_view json);
// The trace cut by time into `steps` equal spans (each event in the span it starts in), as the live
// benchmark cuts its steps and a profiled program writes them: events that start in one step may end in
// the next.
std::vector<std::shared_ptr<const Trace>> cutByTime(const Trace& whole, std::size_t steps);
// A trace shaped as AttnScope's own CPU runs write them: a process labelled "CPU" whose two workers
// each ran their share of a naive call (QKᵀ, softmax, PV) and of a flash call, with the run's exact
// FLOPs and bytes in the args, recorded on this machine (its host_name) — kernels held to this
// machine's measured roofs.
std::string cpuRunTraceText();

// The trace file opened with those parts of a document (document.h's Parts: AnalysisPart, AllParts).
std::shared_ptr<const Document> openedFile(const std::string& path, unsigned parts);

// The first event (by track, then start) whose name holds part; {track 0, event 0} when none does.
EventRef firstEventNamed(const Trace& trace, std::string_view part);

// gzip-compresses bytes (one member).
std::string gzipBytes(std::string_view bytes);
// The file's bytes, gunzipped when they are gzip.
std::string readAllBytes(const std::string& path);

// A fresh temporary directory, removed when the object goes.
class TempDir {
public:
    TempDir();
    ~TempDir();
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

private:
    std::filesystem::path m_dir;
};

void writeFile(const std::string& path, std::string_view bytes);
// cpuRunTraceText() written into dir, then the H100 fixture when the shared folder is there: the
// traces the verdict-consistency tests check, one of each kind of roofs.
std::vector<std::string> verdictTraces(const TempDir& dir);

// An event as an independent reference reader (nlohmann's SAX parser, keeping the number texts)
// sees it: the oracle for the reader's figures on real files.
struct RefEvent {
    std::string ph, cat, name, pid, tid, ts, dur; // numbers as their text, pid/tid unquoted
    bool hasTs = false, hasDur = false;
};
std::vector<RefEvent> referenceEvents(const std::string& jsonText);
// "1712195495519689.047" us -> ns, by string surgery (no exponents: real traces have none).
std::int64_t refMicrosToNs(const std::string& text);

// Everything a user sees of a trace, so that two loads can be compared.
struct Snapshot {
    std::multiset<
        std::tuple<std::string, std::string, std::string, TimeNs, TimeNs, int, std::uint8_t, std::string>>
        events;
    std::multiset<std::tuple<std::string, std::string>> flows; // track label @ start of both ends
    std::map<std::string, std::vector<std::pair<TimeNs, double>>> counters;
    std::size_t devices = 0;
    std::optional<std::int64_t> rank, worldSize;
    std::set<std::tuple<std::string, std::string>> processes; // name, labels of those with events
};
Snapshot snapshot(const Trace& t);
// gtest expectations that two snapshots are equal.
void expectSame(const Snapshot& a, const Snapshot& b);

// First event on a track with this name, for assertions.
std::optional<EventRef> findEvent(const Trace& t, std::string_view name);

} // namespace attnscope::test
