// SPDX-License-Identifier: MIT
#include "test_support.h"

#include "core/analysis/machine_roofs.h"
#include "core/document/document.h"
#include "core/io/byte_source.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <zlib.h>

namespace attnscope::test {

std::string fixture(const std::string& name) {
    const std::filesystem::path p =
        std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "fixtures" / "traces" / name;
    return std::filesystem::exists(p) ? p.string() : std::string();
}

std::shared_ptr<const Trace> loadText(std::string_view json) {
    auto source = openMemorySource(json);
    return readJsonTrace(*source, "memory");
}

std::string gzipBytes(std::string_view bytes) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflate");
    std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::string readAllBytes(const std::string& path) {
    auto source = openFileSource(path);
    std::string out;
    char buf[1 << 16];
    while (std::size_t n = source->read(buf, sizeof buf))
        out.append(buf, n);
    return out;
}

TempDir::TempDir() {
    std::random_device rd;
    m_dir = std::filesystem::temp_directory_path() /
            ("attnscope-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(m_dir);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

void writeFile(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

namespace {

class RefHandler : public nlohmann::json_sax<nlohmann::json> {
public:
    std::vector<RefEvent> events;

    bool null() override { return scalar("null"); }
    bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
    bool number_integer(number_integer_t v) override { return scalar(std::to_string(v)); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v)); }
    bool number_float(number_float_t, const string_t& s) override { return scalar(s); }
    bool string(string_t& v) override { return scalar(v); }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
        ++m_depth;
        if (inEventArray() && m_depth == m_arrayDepth + 1) {
            events.emplace_back();
            m_inEvent = true;
        }
        return true;
    }
    bool end_object() override {
        if (m_inEvent && m_depth == m_arrayDepth + 1) m_inEvent = false;
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) override {
        ++m_depth;
        if (m_arrayDepth == 0 && (m_depth == 1 || (m_depth == 2 && m_key == "traceEvents")))
            m_arrayDepth = m_depth;
        return true;
    }
    bool end_array() override {
        if (m_depth == m_arrayDepth) m_arrayDepth = -1;
        --m_depth;
        return true;
    }
    bool key(string_t& k) override {
        if (m_depth <= 1) m_key = k;
        if (m_inEvent && m_depth == m_arrayDepth + 1) m_eventKey = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        throw std::runtime_error(e.what());
    }

private:
    bool inEventArray() const { return m_arrayDepth > 0; }
    bool scalar(const std::string& v) {
        if (!m_inEvent || m_depth != m_arrayDepth + 1) return true;
        RefEvent& e = events.back();
        if (m_eventKey == "ph")
            e.ph = v;
        else if (m_eventKey == "cat")
            e.cat = v;
        else if (m_eventKey == "name")
            e.name = v;
        else if (m_eventKey == "pid")
            e.pid = v;
        else if (m_eventKey == "tid")
            e.tid = v;
        else if (m_eventKey == "ts")
            e.ts = v, e.hasTs = true;
        else if (m_eventKey == "dur")
            e.dur = v, e.hasDur = true;
        return true;
    }
    int m_depth = 0;
    int m_arrayDepth = 0; // 0: not seen yet, -1: done
    bool m_inEvent = false;
    std::string m_key, m_eventKey;
};

} // namespace

std::vector<RefEvent> referenceEvents(const std::string& jsonText) {
    RefHandler h;
    nlohmann::json::sax_parse(jsonText, &h);
    return std::move(h.events);
}

std::int64_t refMicrosToNs(const std::string& text) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    const std::size_t dot = digits.find('.');
    const std::string whole = digits.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
    frac = (frac + "000").substr(0, 3);
    const std::int64_t v = std::stoll(whole) * 1000 + std::stoll(frac);
    return negative ? -v : v;
}

Snapshot snapshot(const Trace& t) {
    Snapshot s;
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
        const Track& track = t.tracks()[ti];
        const std::string label = t.trackLabel(TrackId(ti));
        for (std::uint32_t i = 0; i < track.size(); ++i)
            s.events.emplace(label, std::string(t.str(track.events.name[i])),
                             std::string(t.str(track.events.category[i])), track.events.start[i],
                             track.events.duration[i], track.events.depth[i],
                             track.events.flags[i] & kInstant, t.argsJson(EventRef{TrackId(ti), i}));
    }
    for (const Flow& f : t.flows())
        s.flows.emplace(t.trackLabel(f.from.track) + "@" +
                            std::to_string(t.track(f.from.track).events.start[f.from.index]),
                        t.trackLabel(f.to.track) + "@" +
                            std::to_string(t.track(f.to.track).events.start[f.to.index]));
    for (const CounterSeries& c : t.counters())
        for (std::size_t i = 0; i < c.time.size(); ++i)
            s.counters[c.name].emplace_back(c.time[i], c.value[i]);
    for (const Track& track : t.tracks())
        if (track.kind != TrackKind::Global)
            s.processes.emplace(t.process(track.process).name, t.process(track.process).labels);
    for (const CounterSeries& c : t.counters())
        s.processes.emplace(t.process(c.process).name, t.process(c.process).labels);
    s.devices = t.devices().size();
    s.rank = t.distributed().rank;
    s.worldSize = t.distributed().worldSize;
    return s;
}

void expectSame(const Snapshot& a, const Snapshot& b) {
    EXPECT_EQ(a.events.size(), b.events.size());
    EXPECT_TRUE(a.events == b.events);
    EXPECT_TRUE(a.flows == b.flows);
    EXPECT_TRUE(a.counters == b.counters);
    EXPECT_EQ(a.devices, b.devices);
    EXPECT_TRUE(a.processes == b.processes) << "process names or labels differ";
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.worldSize, b.worldSize);
}

std::optional<EventRef> findEvent(const Trace& t, std::string_view name) {
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
        const Track& track = t.tracks()[ti];
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (t.str(track.events.name[i]) == name) return EventRef{TrackId(ti), i};
    }
    return std::nullopt;
}

std::string cpuRunTraceText() {
    std::string events = R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"CPU"}},
{"ph":"M","name":"process_labels","pid":1,"args":{"labels":"CPU"}})";
    struct Kernel {
        const char* name;
        const char* role;
        const char* impl;
        int call;
        int start, dur; // µs
        double flops, bytes;
    };
    // B=1 H=8 N=1024 D=64 fp32, split over two workers: GEMMs near the CPU's compute roof, the
    // softmax far from it and memory-bound, flash in between.
    const Kernel kernels[] = {
        {"naive_qk_gemm", "qk_gemm", "naive", 0, 0, 9000, 0.1e9, 8.9e6},
        {"naive_softmax", "softmax", "naive", 0, 9000, 3000, 0.02e9, 33.6e6},
        {"naive_pv_gemm", "pv_gemm", "naive", 0, 12000, 9000, 0.1e9, 8.9e6},
        {"flash_forward", "fused_attention", "flash", 1, 22000, 15000, 0.2e9, 1.0e6},
    };
    for (int worker = 1; worker <= 2; ++worker)
        for (const Kernel& k : kernels)
            events += ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + std::string(k.name) +
                      "\",\"pid\":1,\"tid\":" + std::to_string(worker) +
                      ",\"ts\":" + std::to_string(k.start) + ",\"dur\":" + std::to_string(k.dur) +
                      ",\"args\":{\"role\":\"" + k.role + "\",\"impl\":\"" + k.impl +
                      "\",\"call\":" + std::to_string(k.call) + ",\"flops\":" + std::to_string(k.flops) +
                      ",\"bytes\":" + std::to_string(k.bytes) + ",\"dtype\":\"fp32\"}}";
    // Recorded here: its CPU kernels are held to this machine's roofs.
    return "{\"host_name\":\"" + thisHostName() + "\",\"traceEvents\":[" + events + "]}";
}

std::vector<std::string> verdictTraces(const TempDir& dir) {
    writeFile(dir.path("cpu_run.json"), cpuRunTraceText());
    std::vector<std::string> files = {dir.path("cpu_run.json")};
    if (const std::string h100 = fixture("h100_sdpa_flash_qwen.json.gz"); !h100.empty())
        files.push_back(h100);
    return files;
}

std::vector<std::shared_ptr<const Trace>> cutByTime(const Trace& whole, std::size_t steps) {
    std::vector<std::shared_ptr<const Trace>> parts;
    const TimeNs from = whole.startNs(), span = std::max<TimeNs>(1, whole.endNs() - whole.startNs());
    for (std::size_t k = 0; k < steps; ++k) {
        TraceMerger merger;
        TraceMerger::Part part;
        part.window = {{from + TimeNs(double(span) * double(k) / double(steps)),
                        k + 1 == steps ? whole.endNs() + 1
                                       : from + TimeNs(double(span) * double(k + 1) / double(steps))}};
        merger.add(whole, part);
        merger.builder().info().format = whole.info().format;
        merger.builder().setDistributed(whole.distributed());
        parts.push_back(merger.finish());
    }
    return parts;
}

std::shared_ptr<const Document> openedFile(const std::string& path, unsigned parts) {
    DocumentOptions options;
    options.parts = parts;
    return openDocument(DocumentSource::file(path), options);
}

EventRef firstEventNamed(const Trace& trace, std::string_view part) {
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t)
        for (std::uint32_t i = 0; i < trace.tracks()[t].size(); ++i)
            if (trace.str(trace.tracks()[t].events.name[i]).find(part) != std::string_view::npos)
                return {TrackId{t}, i};
    return {TrackId{0}, 0};
}

} // namespace attnscope::test
