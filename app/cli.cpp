// SPDX-License-Identifier: MIT
#include "cli.h"
#include "cli_job.h"
#include "cli_profile.h"
#include "cli_run.h"

#include "gui_module.h"
#include "ui/gui_requests.h"

#include "kernels/run_session.h"

#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/report/diff.h"
#include "core/report/rank_record.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace attnscope::cli {

const char* version() {
    return ATTNSCOPE_VERSION;
}

namespace {
int summary(int argc, char** argv);
int diff(int argc, char** argv);
int compare(int argc, char** argv);
int convert(int argc, char** argv);
int exportPicture(int argc, char** argv);
int versionVerb(int, char**) {
    std::printf("attnscope %s\n", version());
    return kOk;
}
} // namespace

const std::vector<Verb>& verbs() {
    static const std::vector<Verb> table = {
        {"summary",
         "FILE... [--format text|json|csv|rank] [--top N] [--ranks] [--findings-only] [--fail-on SEVERITY]\n"
         "         [--cpu-roofs auto|this-machine|none] [--first-rank N] [--threads N]",
         "per file: kernels, devices, top kernels, categories, roles, roofline verdicts, attention calls, "
         "findings",
         "  --format F         text (default), json or csv; rank: a rank record per file, one JSON line\n"
         "                     each, for `attnscope job` (docs/RANK_RECORD.md)\n"
         "  --top N            kernels listed by total time (default 20; 0: all; rank records: 10)\n"
         "  --first-rank N     rank records: the files whose trace names no rank are ranks N, N+1, … "
         "(default 0)\n"
         "  --threads N        threads that read a file (default: one per core)\n"
         "  --ranks            the files are the ranks of one job: GPU busy time per rank, spread, slowest\n"
         "                     (with --findings-only: the job's findings, rank imbalance included)\n"
         "  --findings-only    only what is wrong: each finding's time at stake, explanation and places\n"
         "  --fail-on S        exit with status 3 when a finding is at least S (info, warning, critical)\n"
         "  --cpu-roofs C      whose roofs CPU kernels are held to: auto (this machine's for traces\n"
         "                     recorded here; none for a CPU trace from another host), this-machine, none\n",
         summary},
        {"diff", "A B [--format text|json|csv] [--top N] [--cpu-roofs auto|this-machine|none]",
         "what changed between two traces, per role and kernel name (regressions marked)",
         "  --format F   text (default), json or csv\n"
         "  --top N      kernel rows (default 30; 0: all)\n"
         "  --cpu-roofs C  as summary's\n",
         diff},
        {"compare",
         "FILE... [--baseline N] [--format text|json|csv|markdown] [--findings N] [--parallel N]\n"
         "         [--cpu-roofs auto|this-machine|none]",
         "variants side by side: a row per attention implementation of each trace (calls, kernels per call "
         "against the expected call, kernel and host time per call, bytes, roles, verdicts, findings)",
         "  --baseline N   the trace the ratios are to, counted from 1 (default 1)\n"
         "  --format F     text (default), json, csv or markdown (pastes into a report or a PR)\n"
         "  --findings N   findings listed per row in text and markdown (default 3; json and csv: all)\n"
         "  --parallel N   traces opened at once (default: this machine's threads)\n"
         "  --cpu-roofs C  as summary's\n"
         "A file that cannot be read keeps its row with the reason (exit status 1); the others are "
         "compared.\n",
         compare},
        {"convert", "IN -o OUT.json[.gz]",
         "write a trace (Kineto, Chrome or nsys) as Chrome trace JSON Perfetto opens",
         "  -o OUT       the output; gzipped when it ends in .gz; written whole or not at all\n", convert},
        {"export",
         "FILE --timeline OUT.png|svg|pdf [--range START_NS:END_NS] [--size WxH] [--scale 1|2] [--tracks "
         "REGEX]\n"
         "         FILE --chart breakdown|roofline|share OUT.png|svg|pdf [--size WxH] [--scale 1|2]\n"
         "         --compare FILE... (--chart breakdown|roofline OUT.png|svg|pdf | --table OUT.md|csv) "
         "[--baseline N]",
         "a picture of the timeline or of a chart, or a comparison's chart or table, no display needed",
         "  --timeline OUT        the timeline as the window draws it\n"
         "  --chart KIND OUT      breakdown, roofline or share\n"
         "  --range A:B           nanoseconds from the trace's first event (default: all of it)\n"
         "  --size WxH            from 100x50 to 20000x20000\n"
         "  --scale 1|2           2 doubles a PNG's pixels\n"
         "  --tracks REGEX        keep the tracks whose label matches\n"
         "  --compare FILE...     the traces side by side (as `compare`): --chart breakdown (time per call\n"
         "                        by role, a bar per variant) or roofline (a marker per trace), or\n"
         "                        --table OUT.md|csv; --baseline N as compare's\n",
         exportPicture},
        {"run",
         "[--backend cpu|cuda|torch|auto] [--impl naive,flash] [--batch B] [--heads H] [--seq N]\n"
         "         [--dim D] [--kv-heads K] [--decode --kv-len L] [--dtype fp32|fp16|bf16] [--causal]\n"
         "         [--warmup W] [--iters I] [--threads T] [--no-cupti] [--python PY] [--preset NAME]\n"
         "         [-o RUN.json[.gz]]",
         "run attention on the CPU, a GPU or with PyTorch and print time per call; -o saves the run as a "
         "trace",
         "  --backend B   cpu, cuda, torch (PyTorch's own, on its GPU when it has one) or auto\n"
         "                (default: cuda when a GPU is found)\n"
         "  --impl LIST   naive, flash (CUDA also naive_simt, flash_simt; torch: naive, math, flash,\n"
         "                efficient, cudnn, all by default: those that cannot run there are skipped)\n"
         "  --python PY   torch: the Python with PyTorch (default: ATTNSCOPE_PYTHON, else the\n"
         "                torch-venv `make test` made beside attnscope, else python3; the run says which)\n"
         "  --batch, --heads, --seq, --dim   the shape; --dtype fp32, fp16 or bf16; --causal\n"
         "  --kv-heads K  K/V heads (GQA: heads/K query heads share one; 1: MQA); default: heads\n"
         "  --kv-len L    keys per head (the KV cache); --decode: one query (or --seq N) against it\n"
         "  --preset NAME first-look, naive-flash, prefill-decode or mha-gqa-mqa: several shapes in one run\n"
         "  --warmup W, --iters I            calls before and while measuring\n"
         "  --threads T   CPU workers; --no-cupti: CUDA without CUPTI\n"
         "  -o OUT        save the run as Chrome trace JSON\n",
         runVerb},
        {"profile",
         "[-o OUT.json[.gz]] [--steps auto|optimizer|time] [--wait W] [--warmup U] [--active A]\n"
         "         [--repeat R] [--slice S] [--delay S] [--duration S] [--cd DIR] [--log FILE|-]\n"
         "         [--screenshot PNG] -- COMMAND ARGS...",
         "run your own program with PyTorch's profiler on, no change to its code: each finished step's "
         "trace saved (-o) or shown live in the window",
         "  -o OUT          where the steps are saved, one trace per process (several processes:\n"
         "                  OUT-rank-0.json, OUT-rank-1.json, …). Without -o: the window, live, when there\n"
         "                  is a display; else profileN.pt.trace.json in this folder (the next free N)\n"
         "  --steps S       what a step is: optimizer (the program's optimizer steps), time (slices of\n"
         "                  --slice seconds) or auto (default: slices until the first optimizer step,\n"
         "                  those slices then left out of the trace as start-up)\n"
         "  --wait W --warmup U --active A --repeat R\n"
         "                  optimizer steps skipped, warmed up and recorded per cycle, and cycles\n"
         "                  (default 1 1 3 1; --repeat 0: as long as the program runs), as\n"
         "                  torch.profiler.schedule's\n"
         "  --slice S       seconds a time step lasts (default 1)\n"
         "  --delay S       seconds from the program's start before recording (default 0)\n"
         "  --duration S    seconds of recording at most (default: until the program ends)\n"
         "  --cd DIR        run the program there\n"
         "  --log FILE|-    AttnScope's own lines (default: the terminal, else OUT.log; -: stderr)\n"
         "  --screenshot PNG  the window's picture once the program ended and its steps are on show\n"
         "The program's stdin, stdout and stderr are its own, untouched; its exit code is the verb's (127:\n"
         "it could not start). Ctrl+C ends it and keeps the steps recorded so far. torchrun's workers are\n"
         "profiled, each a rank.\n",
         profileVerb},
        {"job",
         "RECORDS... | DIR | --from DIR [--format text|json|csv|markdown]\n"
         "         --map TRACE... [--workers N | --scheduler ADDR] [--records DIR] [--parquet FILE] "
         "[--python PY]\n"
         "         [--batch N] [--threads N] [--attnscope PATH]",
         "a job of many ranks from its ranks' records (summary TRACE --format rank, one per rank, made where "
         "the traces lie): the spread, the slow ranks, the straggler, findings across ranks",
         "  --from DIR     every *.json and *.jsonl record there (a folder given alone: the same)\n"
         "  --format F     text (default), json, csv or markdown\n"
         "  --map TRACE…   make the records first, on Dask (docs/JOBS.md): a local cluster of --workers N\n"
         "                 processes (default: one per core) or the scheduler at --scheduler ADDR\n"
         "                 (tcp://host:8786; AttnScope installed on its workers, the traces at the same "
         "paths)\n"
         "  --records DIR  keep the records there (a file a batch); --parquet FILE: also as one table\n"
         "  --python PY    the Python with dask[distributed] (default: ATTNSCOPE_PYTHON, else the\n"
         "                 torch-venv `make test` made beside attnscope, else python3; the job says which)\n"
         "  --batch N      traces a task (default: a few tasks a worker, at most 64 traces each)\n"
         "  --threads N    threads a summary reads with (default 1); --attnscope PATH: the workers' "
         "attnscope\n"
         "Also `attnscope --job DIR`: the records in the Job window.\n"
         "A rank whose trace could not be read is listed with its error; two records of one rank are "
         "refused.\n",
         jobVerb},
        {"version", "", "print the version", "", versionVerb},
    };
    return table;
}

const Verb* findVerb(std::string_view name) {
    for (const Verb& v : verbs())
        if (name == v.name) return &v;
    return nullptr;
}

void printUsage(const char* program) {
    std::fprintf(stderr, "usage:\n  %s [FILE...]   the window (several files: the ranks of one job)\n",
                 program);
    for (const Verb& v : verbs())
        std::fprintf(stderr, "  %s %s%s%s\n", program, v.name, *v.synopsis ? " " : "", v.synopsis);
    std::fprintf(stderr, "  %s --help | VERB --help\n", program);
}

void printHelp(const char* program) {
    std::printf("AttnScope %s: a profiler for transformer attention.\n\n", version());
    std::printf(
        "  %s [FILE...] [--compare | --job] [--run-backend cpu|cuda|torch|auto] [--screenshot OUT.png]\n"
        "      open the window on traces (Kineto / Chrome JSON, plain or gzipped; Nsight Systems SQLite; "
        "several: the ranks of one job, or with --compare side by side in Compare Variants; with --job, "
        "rank records and folders of them in the Job window); "
        "no file: a live run (on the CPU, or the backend given). --screenshot saves the window once loaded "
        "or run, then quits. With no display, print what it would show.\n",
        program);
    for (const Verb& v : verbs())
        std::printf("  %s %s%s%s\n      %s\n", program, v.name, *v.synopsis ? " " : "", v.synopsis,
                    v.purpose);
    std::printf(
        "\n'%s VERB --help' lists a verb's options. Exit codes: 0 done, 1 a file could not be read or "
        "written, 2 bad usage, 3 summary --fail-on met a finding that severe.\n",
        program);
}

void printVerbHelp(const char* program, const Verb& verb, std::FILE* to) {
    std::fprintf(to, "usage: %s %s %s\n%s\n", program, verb.name, verb.synopsis, verb.purpose);
    if (*verb.options) std::fprintf(to, "\noptions:\n%s", verb.options);
}

namespace {

bool parseCount(const char* s, std::size_t& out) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (!*s || *end || s[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

// "--format text|json|csv" for the verbs that print tables; false (with a line on stderr) otherwise.
bool parseFormat(const char* verb, const std::string& text, SummaryFormat& format) {
    if (text == "text")
        format = SummaryFormat::Text;
    else if (text == "json")
        format = SummaryFormat::Json;
    else if (text == "csv")
        format = SummaryFormat::Csv;
    else {
        std::fprintf(stderr, "%s: unknown format '%s' (text, json or csv%s)\n", verb, text.c_str(),
                     std::strcmp(verb, "summary") == 0 ? "; rank: a rank record per file" : "");
        return false;
    }
    return true;
}

// "--cpu-roofs auto|this-machine|none": whose roofs the CPU kernels of a trace are held to.
bool parseCpuRoofs(const char* verb, const std::string& text, DocumentOptions& options) {
    const auto choice = parseCpuRoofsChoice(text);
    if (!choice) {
        std::fprintf(stderr, "%s: --cpu-roofs takes auto, this-machine or none, got '%s'\n", verb,
                     text.c_str());
        return false;
    }
    options.cpuRoofs = *choice;
    return true;
}

// The document as opened, and on stderr that this machine's CPU was measured for it (once: then cached).
std::shared_ptr<const Document> opened(std::shared_ptr<const Document> doc) {
    if (doc->cpuRoofsMeasured && doc->cpuRoofsNote.empty())
        std::fprintf(stderr,
                     "attnscope: measured this machine's CPU roofs for %s (cached for the next time)\n",
                     doc->name.c_str());
    else if (doc->cpuRoofsMeasured)
        std::fprintf(stderr, "attnscope: measured this machine's CPU roofs for %s: %s\n", doc->name.c_str(),
                     doc->cpuRoofsNote.c_str());
    return doc;
}

// The exit status for --fail-on: kFindings when a file has a finding at least that severe.
int failOn(const std::vector<SummaryResult>& results, std::optional<Severity> threshold, int exitCode) {
    if (!threshold || exitCode != kOk) return exitCode;
    for (const SummaryResult& r : results)
        if (r.summary)
            for (const Finding& f : r.summary->findings)
                if (f.severity >= *threshold) return kFindings;
    return kOk;
}

// summary --format rank: each file's rank record, a JSON line each; a file that cannot be read is a
// record with its error (the job goes on without it, and lists it).
int rankRecords(const std::vector<std::string>& files, DocumentOptions options, std::size_t top,
                std::size_t firstRank) {
    int exitCode = kOk;
    options.parts = SummaryPart | AnalysisPart;
    options.summaryTop = top;
    for (std::size_t position = 0; position < files.size(); ++position) {
        const std::string& path = files[position];
        std::string line;
        try {
            const auto doc = opened(openDocument(DocumentSource::file(path), options));
            line = rankRecordJson(rankRecord(doc->trace, *doc->summary, path, firstRank + position, top));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            line = rankRecordJson(failedRankRecord(path, e.what(), std::int64_t(firstRank + position)));
            exitCode = kFileError;
        }
        std::fwrite(line.data(), 1, line.size(), stdout);
    }
    return exitCode;
}

int summary(int argc, char** argv) {
    std::vector<std::string> files;
    SummaryFormat format = SummaryFormat::Text;
    std::size_t top = 20;
    bool ranks = false, findingsOnly = false, records = false, topGiven = false;
    std::size_t firstRank = 0; // rank records: the rank of the first file that does not say its own
    std::optional<Severity> failSeverity;
    DocumentOptions options;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            if (std::string_view(argv[i + 1]) == "rank") {
                records = true;
                ++i;
            } else if (!parseFormat("summary", argv[++i], format)) {
                return kUsage;
            }
        } else if (arg == "--cpu-roofs" && i + 1 < argc) {
            if (!parseCpuRoofs("summary", argv[++i], options)) return kUsage;
        } else if (arg == "--top" && i + 1 < argc) {
            if (!parseCount(argv[++i], top)) {
                std::fprintf(stderr, "summary: --top needs a number, got '%s'\n", argv[i]);
                return kUsage;
            }
            topGiven = true;
        } else if ((arg == "--first-rank" || arg == "--threads") && i + 1 < argc) {
            std::size_t n = 0;
            if (!parseCount(argv[++i], n)) {
                std::fprintf(stderr, "summary: %s needs a number, got '%s'\n", arg.c_str(), argv[i]);
                return kUsage;
            }
            if (arg == "--threads")
                options.load.threads = unsigned(std::max<std::size_t>(1, n));
            else
                firstRank = n;
        } else if (arg == "--ranks") {
            ranks = true;
        } else if (arg == "--findings-only") {
            findingsOnly = true;
        } else if (arg == "--fail-on" && i + 1 < argc) {
            const std::string s = argv[++i];
            failSeverity = severityNamed(s);
            if (!failSeverity) {
                std::fprintf(stderr, "summary: --fail-on takes info, warning or critical, got '%s'\n",
                             s.c_str());
                return kUsage;
            }
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "summary: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "summary: no trace files given\n");
        printUsage(argv[0]);
        return kUsage;
    }
    if (records) {
        if (ranks || findingsOnly) {
            std::fprintf(stderr, "summary: --format rank is a record per file (attnscope job joins them)\n");
            return kUsage;
        }
        return rankRecords(files, options, topGiven ? top : 10, firstRank);
    }
    std::vector<SummaryResult> results;
    int exitCode = kOk;
    if (ranks) {
        // The files are the ranks of one job: per rank the GPU busy time and its spread, or the job's
        // findings.
        std::shared_ptr<const Document> doc;
        try {
            options.parts = SummaryPart | AnalysisPart;
            doc = opened(openDocument(DocumentSource::ranks(files), options));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "summary: %s\n", e.what());
            return kFileError;
        }
        results.push_back({doc->name, *doc->summary, {}});
        // One shape for the job's findings: the rank report's "findings", alone with --findings-only.
        std::string out;
        if (!findingsOnly)
            out = formatRankReport(*doc->ranks, format,
                                   format == SummaryFormat::Csv ? nullptr : &*doc->summary);
        else
            out = formatJobFindings(*doc->summary, doc->name, format);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return failOn(results, failSeverity, kOk);
    } else {
        for (const std::string& path : files) {
            SummaryResult r;
            r.path = path;
            try {
                options.parts = SummaryPart | AnalysisPart;
                options.summaryTop = top;
                r.summary = *opened(openDocument(DocumentSource::file(path), options))->summary;
            } catch (const std::exception& e) {
                r.error = e.what();
                std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
                exitCode = kFileError;
            }
            results.push_back(std::move(r));
        }
    }
    const std::string out = findingsOnly ? formatFindings(results, format) : formatSummaries(results, format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return failOn(results, failSeverity, exitCode);
}

int diff(int argc, char** argv) {
    std::vector<std::string> files;
    DiffFormat format = DiffFormat::Text;
    std::size_t top = 30;
    DocumentOptions options;
    options.parts = AnalysisPart;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            if (!parseFormat("diff", argv[++i], format)) return kUsage;
        } else if (arg == "--cpu-roofs" && i + 1 < argc) {
            if (!parseCpuRoofs("diff", argv[++i], options)) return kUsage;
        } else if (arg == "--top" && i + 1 < argc) {
            if (!parseCount(argv[++i], top)) {
                std::fprintf(stderr, "diff: --top needs a number, got '%s'\n", argv[i]);
                return kUsage;
            }
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "diff: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "diff: needs two trace files, A and B\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::shared_ptr<const Document> docs[2];
    for (int i = 0; i < 2; ++i) {
        try {
            docs[i] = opened(openDocument(DocumentSource::file(files[std::size_t(i)]), options));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", files[std::size_t(i)].c_str(), e.what());
            return kFileError;
        }
    }
    const TraceDiff d = diffTraces(*docs[0]->trace, *docs[0]->analysis, *docs[1]->trace, *docs[1]->analysis);
    const std::string out = formatDiff(d, files[0], files[1], format, top);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kOk;
}

int compare(int argc, char** argv) {
    std::vector<std::string> files;
    CompareFormat format = CompareFormat::Text;
    std::size_t baseline = 1, findings = 3, parallel = 0;
    DocumentOptions options;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            const std::string f = argv[++i];
            if (f == "text" || f == "json" || f == "csv" || f == "markdown") {
                format = f == "json"       ? CompareFormat::Json
                         : f == "csv"      ? CompareFormat::Csv
                         : f == "markdown" ? CompareFormat::Markdown
                                           : CompareFormat::Text;
            } else {
                std::fprintf(stderr, "compare: unknown format '%s' (text, json, csv or markdown)\n",
                             f.c_str());
                return kUsage;
            }
        } else if (arg == "--cpu-roofs" && i + 1 < argc) {
            if (!parseCpuRoofs("compare", argv[++i], options)) return kUsage;
        } else if ((arg == "--baseline" || arg == "--findings" || arg == "--parallel") && i + 1 < argc) {
            std::size_t& target = arg == "--baseline" ? baseline : arg == "--findings" ? findings : parallel;
            if (!parseCount(argv[++i], target)) {
                std::fprintf(stderr, "compare: %s needs a number, got '%s'\n", arg.c_str(), argv[i]);
                return kUsage;
            }
        } else if (arg == "--baseline" || arg == "--findings" || arg == "--parallel" || arg == "--format" ||
                   arg == "--cpu-roofs") {
            std::fprintf(stderr, "compare: %s needs a value\n", arg.c_str());
            return kUsage;
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "compare: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "compare: no trace files given\n");
        printUsage(argv[0]);
        return kUsage;
    }
    if (baseline < 1 || baseline > files.size()) {
        std::fprintf(stderr, "compare: --baseline is a trace's place among the %zu given, from 1\n",
                     files.size());
        return kUsage;
    }
    const Comparison c = compareFiles(files, baseline - 1, options, unsigned(parallel));
    int exitCode = kOk;
    for (const ComparedTrace& t : c.traces)
        if (!t.error.empty()) {
            std::fprintf(stderr, "%s: %s\n", t.path.c_str(), t.error.c_str());
            exitCode = kFileError;
        }
    const std::string out = formatComparison(c, format, findings);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return exitCode;
}

int convert(int argc, char** argv) {
    std::string in, out;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "-o" || arg == "--output") && i + 1 < argc)
            out = argv[++i];
        else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
            std::fprintf(stderr, "convert: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else if (in.empty())
            in = arg;
        else {
            std::fprintf(stderr, "convert: one input file only\n");
            return kUsage;
        }
    }
    if (in.empty() || out.empty()) {
        std::fprintf(stderr, "convert: needs IN and -o OUT.json[.gz]\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::shared_ptr<const Trace> trace;
    try {
        DocumentOptions options;
        options.parts = 0; // the trace as read, nothing computed
        trace = openDocument(DocumentSource::file(in), options)->trace;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", in.c_str(), e.what());
        return kFileError;
    }
    for (const auto& w : trace->info().warnings)
        std::fprintf(stderr, "%s: warning: %s\n", in.c_str(), w.c_str());
    try {
        writeChromeTrace(*trace, out);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", out.c_str(), e.what());
        return kFileError;
    }
    return kOk;
}

int exportPicture(int argc, char** argv) {
    ui::ExportRequest r;
    bool compare = false;
    auto usage = [&](const std::string& why) {
        std::fprintf(stderr, "export: %s\n", why.c_str());
        printVerbHelp(argv[0], *findVerb("export"), stderr);
        return kUsage;
    };
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--timeline" && hasValue) {
            r.out = argv[++i];
        } else if (a == "--chart" && i + 2 < argc) {
            r.chart = argv[++i];
            r.out = argv[++i];
        } else if (a == "--range" && hasValue) {
            long long from = 0, to = 0;
            char tail = 0;
            if (std::sscanf(argv[++i], "%lld:%lld%c", &from, &to, &tail) != 2 || to <= from)
                return usage("--range wants START_NS:END_NS with START_NS < END_NS");
            r.range = std::make_pair(std::int64_t(from), std::int64_t(to));
        } else if (a == "--size" && hasValue) {
            char tail = 0;
            if (std::sscanf(argv[++i], "%dx%d%c", &r.width, &r.height, &tail) != 2 || r.width < 100 ||
                r.height < 50 || r.width > 20000 || r.height > 20000)
                return usage("--size wants WxH, from 100x50 to 20000x20000");
        } else if (a == "--scale" && hasValue) {
            r.scale = std::atof(argv[++i]);
            if (r.scale != 1 && r.scale != 2) return usage("--scale is 1 or 2");
        } else if (a == "--tracks" && hasValue) {
            r.tracks = argv[++i];
        } else if (a == "--compare") {
            compare = true;
        } else if (a == "--table" && hasValue) {
            r.table = true;
            r.out = argv[++i];
        } else if (a == "--baseline" && hasValue) {
            std::size_t n = 0;
            if (!parseCount(argv[++i], n) || n < 1) return usage("--baseline is a trace's place, from 1");
            r.baseline = n - 1;
        } else if (a.rfind("--", 0) == 0) {
            return usage("unknown option or missing value: " + a);
        } else if (compare) {
            r.compare.push_back(a);
        } else if (r.file.empty()) {
            r.file = a;
        } else {
            return usage("one trace at a time (several: --compare); extra argument: " + a);
        }
    }
    if (compare) {
        if (!r.file.empty()) r.compare.insert(r.compare.begin(), r.file);
        if (r.compare.empty()) return usage("--compare needs the traces");
        if (r.baseline >= r.compare.size()) return usage("--baseline is past the traces given");
        if (r.out.empty() || (!r.table && r.chart.empty()))
            return usage("--compare needs --chart breakdown|roofline OUT or --table OUT");
    } else {
        if (r.table) return usage("--table goes with --compare");
        if (r.file.empty()) return usage("which trace?");
        if (r.out.empty()) return usage("--timeline OUT or --chart KIND OUT is required");
    }
    // Pictures need Qt's painting and fonts, not a screen.
    if (!app::haveDisplay()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    std::string error;
    using Export = int (*)(const ui::ExportRequest*);
    auto entry = reinterpret_cast<Export>(app::guiEntry(argv[0], "attnscope_gui_export", error));
    if (!entry) {
        std::fprintf(stderr, "export: the Qt part of AttnScope cannot load: %s\n", error.c_str());
        return kFileError;
    }
    return entry(&r);
}

} // namespace

int window(int argc, char** argv) {
    kernels::prepareRuns(); // for the window's runs
    // Anything that is not a verb: trace files, and the window's own options.
    ui::WindowRequest request;
    const bool compareRequested =
        std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strcmp(a, "--compare") == 0; });
    const bool jobRequested =
        std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strcmp(a, "--job") == 0; });
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--screenshot" && i + 1 < argc) {
            request.screenshot = argv[++i];
        } else if (arg == "--timing") {
            request.timing = true;
        } else if (arg == "--compare") {
            request.compare = true;
        } else if (arg == "--job") {
            request.job = true;
        } else if (arg == "--run-backend" && i + 1 < argc) {
            request.runBackend = kernels::backendChoiceNamed(argv[++i]);
            if (!request.runBackend) {
                std::fprintf(stderr, "attnscope: --run-backend takes %s, got '%s'\n",
                             kernels::backendChoicesText().c_str(), argv[i]);
                return kUsage;
            }
        } else if (struct stat st{}; stat(argv[i], &st) == 0 && (!S_ISDIR(st.st_mode) || jobRequested)) {
            request.files.push_back(arg); // with --job, records and folders of them
        } else if (compareRequested && arg.rfind('-', 0) != 0) {
            request.files.push_back(arg); // side by side, a file that cannot be read keeps its row with why
        } else if (arg.rfind('-', 0) != 0 && (jobRequested || arg.find('/') != std::string::npos ||
                                              arg.find('.') != std::string::npos)) {
            // A path, not a command: say what is wrong with it.
            std::fprintf(stderr, "attnscope: %s: %s\n", argv[i],
                         stat(argv[i], &st) == 0 ? "is a folder, not a trace file" : std::strerror(errno));
            return kFileError;
        } else {
            std::fprintf(stderr, "attnscope: '%s' is neither a command nor a trace file\n", argv[i]);
            printUsage(argv[0]);
            return kUsage;
        }
    }
    if (!app::haveDisplay()) {
        // No window to open: say so, and print what it would show through the verbs' own code.
        std::fprintf(stderr,
                     "attnscope: no display (DISPLAY and WAYLAND_DISPLAY are unset); printing what the "
                     "window would show. Use xvfb-run or a desktop session for the window.\n");
        std::vector<char*> args = {argv[0], const_cast<char*>(request.files.empty() ? "run"
                                                              : request.job         ? "job"
                                                              : request.compare     ? "compare"
                                                                                    : "summary")};
        std::string backendOption = "--backend",
                    backendName(request.runBackend ? kernels::backendChoiceName(*request.runBackend) : "");
        // The window's first run is the first-look preset: print the same one.
        std::string presetOption = "--preset", presetName = "first-look";
        if (request.files.empty()) {
            args.push_back(presetOption.data());
            args.push_back(presetName.data());
        }
        if (request.files.empty() && request.runBackend) {
            args.push_back(backendOption.data());
            args.push_back(backendName.data());
        }
        for (std::string& f : request.files)
            args.push_back(f.data());
        args.push_back(nullptr);
        if (request.files.empty()) return runVerb(int(args.size()) - 1, args.data());
        if (request.job) return jobVerb(int(args.size()) - 1, args.data());
        return request.compare ? compare(int(args.size()) - 1, args.data())
                               : summary(int(args.size()) - 1, args.data());
    }
    std::string error;
    using Main = int (*)(const char*, const ui::WindowRequest*);
    auto entry = reinterpret_cast<Main>(app::guiEntry(argv[0], "attnscope_gui_main", error));
    if (!entry) {
        std::fprintf(stderr,
                     "attnscope: the Qt part of AttnScope cannot load: %s\nThe other commands still work:\n",
                     error.c_str());
        printUsage(argv[0]);
        return kUsage;
    }
    return entry(argv[0], &request);
}

} // namespace attnscope::cli
