// SPDX-License-Identifier: MIT
// The post's experiment re-run ("Profiling in PyTorch (Part 3): Attention is all you profile"): the
// traces are made at test time by examples/attention_variants.py with the PyTorch of `make test` on the
// CPU (naive, in-place, SDPA math, SDPA flash; bf16), and each lesson a CPU trace can show is found
// where the post finds it — the masked_fill copy, SDPA math's fp32 upcast, its per-call mask and
// _safe_softmax — and not where the post calls the trace fine. The counts are checked against the file
// read independently (nlohmann).
#include "support/test_support.h"

#include "core/analysis/analysis.h"
#include "core/document/document.h"
#include "core/report/findings.h"
#include "core/report/format.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// The four CPU traces, made once for all the tests (a few seconds: PyTorch starts once).
class PostExperiment : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new TempDir();
        const std::string python = ATTNSCOPE_TORCH_PYTHON;
        ASSERT_TRUE(std::filesystem::exists(python))
            << "no Python with PyTorch at " << python << " (make test makes it)";
        const std::string command =
            python + " " ATTNSCOPE_SOURCE_DIR "/examples/attention_variants.py --all -o " +
            s_dir->path("traces") + " --device cpu --seq 512 --heads 4 --steps 4 --threads 1 > " +
            s_dir->path("log.txt") + " 2>&1";
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
    }
    static void TearDownTestSuite() {
        delete s_dir;
        s_dir = nullptr;
    }
    static std::string trace(const std::string& variant) {
        return s_dir->path("traces/" + variant + ".json");
    }

    // The trace's document and its findings against fixed roofs (every rule's threshold at 0: these
    // tests are about what is found, not about how large it must be to be shown).
    struct Read {
        std::shared_ptr<const Document> doc;
        TraceAnalysis analysis;
        std::vector<Finding> findings;
    };
    static Read read(const std::string& variant) {
        Read r;
        r.doc = openDocument(DocumentSource::file(trace(variant)));
        EXPECT_TRUE(r.doc->trace) << variant;
        if (!r.doc->trace) return r;
        DeviceSpec cpu;
        cpu.name = "CPU (fixed for the test)";
        cpu.fp32 = 1e12;
        cpu.fp16 = 2e12;
        cpu.bandwidth = 1e11;
        r.analysis = analyzeTrace(*r.doc->trace, &cpu);
        FindingThresholds th = FindingThresholds::standard();
        th.set("min_share", 0);
        r.findings = findFindings({*r.doc->trace, r.analysis, th});
        return r;
    }
    static const Finding* find(const Read& r, std::string_view id) {
        for (const Finding& f : r.findings)
            if (f.id == id) return &f;
        return nullptr;
    }
    // The trace's complete events, read with nlohmann: an independent count.
    static std::vector<nlohmann::json> events(const std::string& variant) {
        std::ifstream in(trace(variant));
        const nlohmann::json j = nlohmann::json::parse(in);
        std::vector<nlohmann::json> out;
        for (const auto& e : j.at("traceEvents"))
            if (e.value("ph", "") == "X") out.push_back(e);
        return out;
    }
    static inline TempDir* s_dir = nullptr;
};

// Events named `name` inside an event named `parent` (by time, on the same thread).
std::vector<nlohmann::json> inside(const std::vector<nlohmann::json>& all, std::string_view name,
                                   std::string_view parent) {
    std::vector<nlohmann::json> out;
    for (const auto& e : all) {
        if (e.at("name") != name) continue;
        const double ts = e.at("ts"), end = ts + e.at("dur").get<double>();
        for (const auto& p : all)
            if (p.at("name") == parent && p.at("tid") == e.at("tid") && p.at("ts").get<double>() <= ts &&
                end <= p.at("ts").get<double>() + p.at("dur").get<double>()) {
                out.push_back(e);
                break;
            }
    }
    return out;
}

TimeNs microseconds(double us) {
    return TimeNs(std::llround(us * 1000));
}

} // namespace

// Naive (Figure 3): six ops per forward, one the copy masked_fill's clone makes; its finding names the
// op and the fix, with the copies' time as the file has it. In place (Figure 7): five, and no copy.
TEST_F(PostExperiment, TheMaskedFillCopyIsFoundInNaiveAndNotInPlace) {
    const Read naive = read("naive");
    ASSERT_EQ(naive.analysis.calls.size(), 4u);
    ASSERT_EQ(naive.analysis.tables.implCalls.size(), 1u);
    const ImplCalls& impl = naive.analysis.tables.implCalls[0];
    EXPECT_EQ(impl.impl, "naive");
    EXPECT_DOUBLE_EQ(impl.kernelsPerCall(),
                     6.0); // bmm, mul, copy_ (the clone's), masked_fill_, _softmax, bmm
    // Host time per call: the attn_fwd ranges, as the file has them.
    const auto all = events("naive");
    TimeNs ranges = 0;
    for (const auto& e : all)
        if (e.at("name") == "attn_fwd" && e.at("cat") == "user_annotation")
            ranges += microseconds(e.at("dur"));
    ASSERT_TRUE(impl.hostNsPerCall());
    EXPECT_NEAR(double(*impl.hostNsPerCall()), double(ranges) / 4, 4.0);

    const auto copies = inside(all, "aten::clone", "aten::masked_fill");
    ASSERT_EQ(copies.size(), 4u);
    TimeNs copyNs = 0;
    for (const auto& e : inside(all, "aten::copy_", "aten::clone"))
        copyNs += microseconds(e.at("dur"));
    const Finding* f = find(naive, "out_of_place_copy");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, copies.size());
    EXPECT_NEAR(double(f->timeNs), double(copyNs), 4 * 2.0);
    EXPECT_EQ(f->evidence.at(0).name, "aten::copy_");
    // The scores, [1, 4, 512, 512] bf16: 2 MiB read and 2 MiB written.
    EXPECT_NE(f->evidence[0].note.find("aten::masked_fill → aten::clone: 4.194 MB read and written"),
              std::string::npos)
        << f->evidence[0].note;
    EXPECT_NE(f->suggestion.find("masked_fill_"), std::string::npos);
    // The same copies are the kernels naive's expected call did not expect: that finding says its time is
    // this one's, not time besides it (a reader had added the two).
    const Finding* unexpected = find(naive, "unexpected_kernels");
    ASSERT_NE(unexpected, nullptr);
    EXPECT_EQ(unexpected->timeNs, f->timeNs);
    EXPECT_NE(unexpected->explanation.find(formatDuration(f->timeNs) +
                                           " of it is the out-of-place copies out_of_place_copy names"),
              std::string::npos)
        << unexpected->explanation;
    // Every op that did the work has a cost: no more than 5% of the kernel time is without one.
    TimeNs unknown = 0, total = 0;
    for (const KernelAnalysis& k : naive.analysis.kernels) {
        const TimeNs d = naive.doc->trace->track(k.event.track).events.duration[k.event.index];
        total += d;
        unknown += k.cost == CostSource::Unknown ? d : 0;
    }
    EXPECT_LT(double(unknown), 0.05 * double(total)) << unknown << " of " << total;

    const Read inPlace = read("inplace");
    EXPECT_EQ(find(inPlace, "out_of_place_copy"), nullptr);
    EXPECT_NE(find(inPlace, "hand_written_attention"), nullptr);
    ASSERT_EQ(inPlace.analysis.tables.implCalls.size(), 1u);
    EXPECT_DOUBLE_EQ(inPlace.analysis.tables.implCalls[0].kernelsPerCall(), 5.0);
    for (const Read* r : {&naive, &inPlace})
        for (std::string_view id : {"math_upcast", "mask_per_call", "safe_softmax", "host_bound_attention"})
            EXPECT_EQ(find(*r, id), nullptr) << id;
}

// SDPA math: the bf16 inputs cast to fp32 and back and the GEMMs in fp32, the causal mask built on
// every call, _safe_softmax's guard — each counted as the file has it. The casts are not reported twice.
TEST_F(PostExperiment, TheMathBackendsUpcastMaskAndSafeSoftmaxAreFound) {
    const Read math = read("math");
    ASSERT_EQ(math.analysis.calls.size(), 4u);
    EXPECT_EQ(math.analysis.calls[0].impl, kSdpaMathImpl);
    const auto all = events("math");
    // The casts that copy a tensor (not the scalars' casts inside mul): _to_copy's copy_ of a tensor.
    std::size_t casts = 0, fp32Gemms = 0;
    for (const auto& e : inside(all, "aten::copy_", "aten::_to_copy"))
        casts += e.at("args").at("Input Dims").at(0).size() > 0;
    for (const auto& e : all)
        fp32Gemms += e.at("name") == "aten::bmm" && e.at("args").at("Input type").at(0) == "float";
    EXPECT_EQ(casts, 4u * 5);     // q, k, v up; the weights and the output down
    EXPECT_EQ(fp32Gemms, 4u * 2); // QKᵀ and PV in fp32
    const Finding* up = find(math, "math_upcast");
    ASSERT_NE(up, nullptr);
    EXPECT_EQ(up->count, casts + fp32Gemms);
    EXPECT_NE(up->title.find("bf16 attention in fp32"), std::string::npos) << up->title;
    EXPECT_EQ(find(math, "casts_and_copies"), nullptr);

    const Finding* mask = find(math, "mask_per_call");
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->count, inside(all, "aten::tril", "aten::_scaled_dot_product_attention_math").size() * 3)
        << mask->explanation; // per call: ones' fill_, tril, where
    EXPECT_NE(mask->explanation.find("aten::tril ×4"), std::string::npos) << mask->explanation;

    const Finding* safe = find(math, "safe_softmax");
    ASSERT_NE(safe, nullptr);
    const std::size_t guards = inside(all, "aten::isneginf", "aten::_safe_softmax").size() +
                               inside(all, "aten::all", "aten::_safe_softmax").size() +
                               inside(all, "aten::where", "aten::_safe_softmax").size();
    EXPECT_EQ(safe->count, guards);
    EXPECT_EQ(guards, 4u * 3);
    EXPECT_EQ(find(math, "out_of_place_copy"), nullptr);
}

// SDPA flash on the CPU: one op per forward, its host time little more than the op's own — none of
// the lessons applies, and it is not host-bound.
TEST_F(PostExperiment, FlashHasNoneOfTheLessons) {
    const Read flash = read("flash");
    ASSERT_EQ(flash.analysis.tables.implCalls.size(), 1u);
    const ImplCalls& impl = flash.analysis.tables.implCalls[0];
    EXPECT_EQ(impl.impl, "flash");
    EXPECT_DOUBLE_EQ(impl.kernelsPerCall(), 1.0);
    ASSERT_TRUE(impl.hostNsPerCall());
    EXPECT_GE(*impl.hostNsPerCall(), impl.kernelNsPerCall());
    for (std::string_view id : {"out_of_place_copy", "math_upcast", "mask_per_call", "safe_softmax",
                                "host_bound_attention", "hand_written_attention", "sdpa_math_fallback"})
        EXPECT_EQ(find(flash, id), nullptr) << id;
}

// The post's closing table for the four CPU traces in one comparison: a row each, the kernels per call
// checked against the file's own count (the ops that do each variant's work, outermost, inside each
// attn_fwd range) and their time; naive's unexpected copy named with its op, none in place or in flash.
TEST_F(PostExperiment, CompareGivesThePostsTable) {
    const std::vector<std::string> variants = {"naive", "inplace", "math", "flash"};
    std::vector<std::string> paths;
    for (const std::string& v : variants)
        paths.push_back(trace(v));
    const Comparison c = compareFiles(paths, 0);
    ASSERT_EQ(c.traces.size(), 4u);
    // The ops each variant's forward runs as its work (PyTorch's CPU kernels), by name.
    const std::map<std::string, std::vector<std::string>> work = {
        {"naive", {"aten::bmm", "aten::mul", "aten::copy_", "aten::masked_fill_", "aten::_softmax"}},
        {"inplace", {"aten::bmm", "aten::mul", "aten::masked_fill_", "aten::_softmax"}},
        {"math",
         {"aten::bmm", "aten::copy_", "aten::mul", "aten::add_", "aten::_softmax", "aten::isneginf",
          "aten::all", "aten::where", "aten::fill_", "aten::tril"}},
        {"flash", {"aten::_scaled_dot_product_flash_attention_for_cpu"}}};
    for (std::size_t t = 0; t < variants.size(); ++t) {
        SCOPED_TRACE(variants[t]);
        const ComparedTrace& tr = c.traces[t];
        ASSERT_TRUE(tr.error.empty()) << tr.error;
        ASSERT_EQ(tr.rows.size(), 1u);
        const CompareRow& row = tr.rows[0];
        // The independent count: the work ops inside attn_fwd, outermost (an aten::where inside another,
        // the fill_ inside aten::all, are one kernel), per range.
        const auto all = events(variants[t]);
        const std::vector<std::string>& names = work.at(variants[t]);
        auto isWork = [&](const nlohmann::json& e) {
            return std::find(names.begin(), names.end(), e.at("name").get<std::string>()) != names.end();
        };
        auto within = [](const nlohmann::json& inner, const nlohmann::json& outer) {
            const double ts = inner.at("ts"), end = ts + inner.at("dur").get<double>();
            const double ots = outer.at("ts"), oend = ots + outer.at("dur").get<double>();
            return &inner != &outer && inner.at("tid") == outer.at("tid") && ots <= ts && end <= oend;
        };
        std::size_t ranges = 0, kernels = 0;
        TimeNs kernelNs = 0;
        for (const auto& r : all) {
            if (r.at("name") != "attn_fwd" || r.at("cat") != "user_annotation") continue;
            ++ranges;
            for (const auto& e : all) {
                if (!isWork(e) || !within(e, r)) continue;
                const bool nested = std::any_of(all.begin(), all.end(), [&](const nlohmann::json& o) {
                    return isWork(o) && within(e, o) &&
                           !(o.at("ts") == e.at("ts") && o.at("dur") == e.at("dur") &&
                             o.at("name") == e.at("name"));
                });
                if (nested) continue;
                ++kernels;
                kernelNs += microseconds(e.at("dur"));
            }
        }
        ASSERT_EQ(ranges, 4u);
        EXPECT_EQ(row.calls.calls, 4u);
        EXPECT_DOUBLE_EQ(row.calls.kernelsPerCall(), double(kernels) / 4);
        // Their time too (within 0.5%: the math backend's aten::mul wraps the one that does the work).
        EXPECT_NEAR(double(row.calls.kernelNs), double(kernelNs), 0.005 * double(kernelNs));
        const bool unexpected =
            std::any_of(row.findings.begin(), row.findings.end(),
                        [](const CompareRow::Brief& f) { return f.id == "unexpected_kernels"; });
        if (variants[t] == "naive") {
            EXPECT_DOUBLE_EQ(row.calls.kernelsPerCall(), 6.0);
            EXPECT_EQ(row.calls.mismatchedCalls, 4u);
            ASSERT_TRUE(unexpected);
        } else if (variants[t] != "math") {
            EXPECT_EQ(row.calls.mismatchedCalls, 0u);
            EXPECT_FALSE(unexpected);
        }
    }
    EXPECT_DOUBLE_EQ(c.traces[1].rows[0].calls.kernelsPerCall(), 5.0);
    EXPECT_DOUBLE_EQ(c.traces[3].rows[0].calls.kernelsPerCall(), 1.0);
    // The finding learns the answer from the comparison it is in: flash.json, recorded on the same CPU on
    // the same shapes, measured what attention by hand costs; naive's time at stake is that saving over its
    // calls, said so, not the roofs' estimate.
    EXPECT_EQ(c.traces[0].device, c.traces[3].device);
    EXPECT_FALSE(c.traces[0].device.empty());
    for (std::size_t t : {0u, 1u}) {
        const CompareRow& row = c.traces[t].rows[0];
        const TimeNs saving = row.calls.kernelNsPerCall() - c.traces[3].rows[0].calls.kernelNsPerCall();
        bool learned = false;
        for (const CompareRow::Brief& f : row.findings)
            if (f.id == "hand_written_attention") {
                learned = f.measured;
                EXPECT_EQ(f.timeNs, std::max<TimeNs>(0, saving) * 4) << f.title;
                EXPECT_NE(f.title.find("— measured in flash.json (" + c.traces[3].device + "): flash saves " +
                                       formatDuration(std::max<TimeNs>(0, saving)) + " a call"),
                          std::string::npos)
                    << f.title;
            }
        EXPECT_TRUE(learned) << variants[t];
    }
    // The Markdown table names naive's copy and its op.
    const std::string md = formatComparison(c, CompareFormat::Markdown);
    EXPECT_NE(md.find("| naive.json | naive | 4 | 6 | 5 | 4 |"), std::string::npos) << md;
    EXPECT_NE(md.find("naive: 6 kernels per call where 5 are expected: aten::copy_"), std::string::npos)
        << md;
    EXPECT_NE(md.find("| inplace.json | naive | 4 | 5 | 5 | 0 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| flash.json | flash | 4 | 1 | 1 | 0 |"), std::string::npos) << md;
}
