// SPDX-License-Identifier: MIT
#include "torch_backend.h"
#include "core/model/categories.h"

#include "kernels/run_session.h"
#include "kernels/temp_folder.h"

#include "core/analysis/analysis.h"
#include "core/io/load_error.h"
#include "core/io/trace_loader.h"
#include "core/model/run_args.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace attnscope::kernels {

namespace fs = std::filesystem;

const std::vector<std::string>& torchImpls() {
    static const std::vector<std::string> impls{"naive",     "naive_inplace", "math",      "flash",
                                                "efficient", "cudnn",         "flash_bf16"};
    return impls;
}

std::string torchImplText(const std::string& impl) {
    if (impl == "naive") return "attention written by hand: QKᵀ, scale, mask, softmax and PV as separate ops";
    if (impl == "naive_inplace")
        return "attention written by hand, its mask filled in place (masked_fill_: no copy of the scores)";
    if (impl == "flash_bf16")
        return "scaled_dot_product_attention's flash backend on the inputs in bf16 (half precision for an "
               "fp32 call)";
    return "scaled_dot_product_attention's " + impl + " backend";
}

std::vector<std::string> torchRunImpls() {
    std::vector<std::string> impls = torchImpls();
    std::erase(impls, "naive_inplace");
    std::erase(impls, "flash_bf16");
    return impls;
}

std::string pythonBeside(const std::filesystem::path& program) {
    std::error_code ignored;
    for (const fs::path& dir : {program.parent_path(), program.parent_path().parent_path()}) {
        const fs::path python = dir / "torch-venv" / "bin" / "python";
        if (!dir.empty() && fs::exists(python, ignored) && access(python.c_str(), X_OK) == 0)
            return python.string();
    }
    return {};
}

std::string pythonToRun(const std::string& chosen) {
    if (!chosen.empty()) return chosen;
    if (const char* python = std::getenv("ATTNSCOPE_PYTHON"); python && *python) return python;
    std::error_code unreadable;
    if (std::string venv = pythonBeside(fs::read_symlink("/proc/self/exe", unreadable)); !venv.empty())
        return venv;
    return "python3";
}

std::string torchPython(const RunConfig& config) {
    return pythonToRun(config.python);
}

std::vector<RunEvent> stepEvents(const Trace& step, TimeNs origin, const std::string& impl, int call,
                                 bool warmup, int stepIndex) {
    std::vector<RunEvent> out;
    const std::string range = impl + " attention";
    // Each kernel's role, as the analysis sees the step (a call of one implementation).
    const TraceAnalysis analysis = analyzeTrace(step);
    // Host threads keep PyTorch's thread ids, GPU streams their numbers ("7", or "stream 7" in some
    // Kineto versions).
    for (std::uint32_t t = 0; t < step.tracks().size(); ++t) {
        const Track& track = step.tracks()[t];
        const ProcessInfo& process = step.process(track.process);
        const std::string_view tid = step.str(track.tidKey);
        const bool gpu = track.kind == TrackKind::GpuStream;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::string_view category = step.str(track.events.category[i]);
            // Kineto's own markers (the profiler's span, its iteration instants) are not the run's.
            if ((track.events.flags[i] & kInstant) || category == category::kTraceMarker ||
                track.kind == TrackKind::Global)
                continue;
            RunEvent e;
            e.name = std::string(step.str(track.events.name[i]));
            e.category = std::string(category);
            e.startNs = track.events.start[i] - origin;
            e.endNs = track.end(i) - origin;
            e.device = gpu ? int(std::max<std::int64_t>(0, process.deviceIndex)) : -1;
            const std::size_t digits = std::min(tid.find_first_of("0123456789"), tid.size());
            const std::uint64_t lane = std::strtoull(std::string(tid.substr(digits)).c_str(), nullptr, 10);
            if (gpu)
                e.stream = std::uint32_t(lane);
            else
                e.thread = std::uint32_t(lane), e.track = 0;
            if (const std::uint64_t c = track.events.correlation[i])
                e.correlation = std::uint64_t(stepIndex + 1) << 32 | (c & 0xffffffffu);
            step.forEachArg({TrackId{t}, i}, [&](std::string_view key, std::string_view value) {
                e.args.emplace_back(std::string(key), std::string(value));
            });
            if (isKernelEvent(step, track, i))
                if (const KernelAnalysis* k = analysis.find({TrackId{t}, i}))
                    e.role = std::string(roleName(k->role));
            e.impl = impl;
            e.call = call;
            e.warmup = warmup;
            if (category == category::kUserAnnotation && e.name == range) {
                e.track = -1; // the call, on the run's calls track
                e.args = {{std::string(runargs::kImpl), "\"" + impl + "\""},
                          {std::string(runargs::kCall), std::to_string(call)},
                          {std::string(runargs::kWarmup), warmup ? "true" : "false"}};
            }
            out.push_back(std::move(e));
        }
    }
    return out;
}

namespace {

// The runner's process: stdout read line by line, stderr kept in a file for the error message.
class Runner {
public:
    ~Runner() {
        if (m_pid > 0) end(std::chrono::seconds(0));
        if (m_out >= 0) close(m_out);
    }

    // "" when it started, else why not.
    std::string start(const std::string& python, const std::vector<std::string>& args,
                      const std::string& errPath) {
        int pipeFds[2];
        if (pipe2(pipeFds, O_CLOEXEC) != 0) return std::string("cannot make a pipe: ") + std::strerror(errno);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
        posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(python.c_str()));
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        const int failed = posix_spawnp(&m_pid, python.c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(pipeFds[1]);
        m_out = pipeFds[0];
        if (failed) {
            m_pid = -1;
            return failed == ENOENT
                       ? "no Python: '" + python +
                             "' was not found (install python3, or name one with ATTNSCOPE_PYTHON "
                             "or the Run panel's Python setting)"
                       : "cannot start '" + python + "': " + std::strerror(failed);
        }
        return {};
    }

    // The next line from stdout; false at its end. Waits in short steps, calling idle() between.
    template <class Idle> bool readLine(std::string& line, Idle&& idle) {
        for (;;) {
            if (const std::size_t nl = m_buffer.find('\n'); nl != std::string::npos) {
                line = m_buffer.substr(0, nl);
                m_buffer.erase(0, nl + 1);
                return true;
            }
            if (m_eof) {
                if (m_buffer.empty()) return false;
                line.swap(m_buffer);
                m_buffer.clear();
                return true;
            }
            pollfd p{m_out, POLLIN, 0};
            if (poll(&p, 1, 100) > 0) {
                char chunk[65536];
                const ssize_t n = read(m_out, chunk, sizeof chunk);
                if (n > 0)
                    m_buffer.append(chunk, std::size_t(n));
                else if (n == 0 || errno != EINTR)
                    m_eof = true;
            }
            idle();
        }
    }

    // Asks the runner to stop after the call under way (SIGTERM: it finishes cleanly).
    void askToStop() {
        if (m_pid > 0 && !m_asked) kill(m_pid, SIGTERM);
        m_asked = true;
    }

    // Waits for the process to end, killing it after grace; its wait status.
    int end(std::chrono::milliseconds grace) {
        if (m_pid <= 0) return m_status;
        const auto until = std::chrono::steady_clock::now() + grace;
        for (;;) {
            const pid_t r = waitpid(m_pid, &m_status, WNOHANG);
            if (r == m_pid || (r < 0 && errno != EINTR)) break;
            if (std::chrono::steady_clock::now() >= until) {
                kill(m_pid, SIGKILL);
                waitpid(m_pid, &m_status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        m_pid = -1;
        return m_status;
    }

private:
    pid_t m_pid = -1;
    int m_out = -1;
    int m_status = 0;
    bool m_eof = false;
    bool m_asked = false;
    std::string m_buffer;
};

std::string lastLines(const std::string& path, std::size_t lines) {
    std::ifstream in(path);
    std::vector<std::string> kept;
    for (std::string line; std::getline(in, line);) {
        // Kineto's own log lines ("USDT:2026-12-01 03:12:13 … profiler_start", "ERROR:… gpuGetDeviceCount
        // failed" on a machine without a GPU) are not what went wrong.
        const std::size_t colon = line.find(':');
        const bool kineto = colon != std::string::npos && colon <= 7 && colon + 1 < line.size() &&
                            std::isdigit(static_cast<unsigned char>(line[colon + 1])) &&
                            line.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == colon;
        if (line.empty() || kineto) continue;
        kept.push_back(line);
        if (kept.size() > lines) kept.erase(kept.begin());
    }
    std::string out;
    for (const std::string& l : kept)
        out += (out.empty() ? "" : " | ") + l;
    return out;
}

std::string configJson(const RunConfig& config) {
    const AttentionShape& s = config.shape;
    nlohmann::json j{{"impls", config.impls},
                     {"batch", s.batch},
                     {"heads", s.heads},
                     {"seq", s.seq},
                     {"dim", s.dim},
                     {"kv_heads", s.kvHeads},
                     {"kv_len", s.kvLen},
                     {"causal", s.causal},
                     {"mask_by", config.maskBy},
                     {"dtype", std::string(precisionName(s.dtype))},
                     {"warmup", config.warmup},
                     {"iters", config.iters},
                     {"threads", config.threads}};
    return j.dump();
}

} // namespace

std::string runTorch(const RunConfig& config, const RunHooks& hooks) {
    TempFolder folder("attnscope-torch");
    if (folder.path().empty()) return std::string("cannot make a temporary folder: ") + std::strerror(errno);
    const std::string script = folder.path() + "/torch_runner.py";
    {
        std::ofstream out(script, std::ios::binary);
        out << torchRunnerScript();
        if (!out) return "cannot write the runner script into " + folder.path();
    }
    const std::string python = torchPython(config);
    const std::string errPath = folder.path() + "/stderr.txt";
    Runner runner;
    if (std::string why = runner.start(python, {"-u", script, configJson(config), folder.path()}, errPath);
        !why.empty())
        return why;

    std::string error;
    bool finished = false;
    std::optional<TimeNs> origin;
    int steps = 0;
    std::string line;
    std::vector<nlohmann::json> waiting; // the steps said and not yet read
    auto readSteps = [&] {
        for (const nlohmann::json& msg : waiting) {
            const std::string path = msg.value("trace", "");
            try {
                if (error.empty()) {
                    const auto trace = loadTraceFile(path);
                    if (!origin) origin = trace->startNs();
                    hooks.events(stepEvents(*trace, *origin, msg.value("impl", "?"), msg.value("call", 0),
                                            msg.value("warmup", false), steps++));
                }
            } catch (const std::exception& e) {
                error = "a step's trace could not be read: " + std::string(e.what());
                runner.askToStop();
            }
            std::error_code ignored;
            fs::remove(path, ignored);
        }
        waiting.clear();
    };
    auto idle = [&] {
        if (hooks.stopRequested()) runner.askToStop();
    };
    // One line of the runner's; a field of the wrong type throws (the line is then ignored).
    auto handle = [&](const nlohmann::json& msg) {
        const std::string event = msg.value("event", "");
        if (event == "started") {
            const bool gpu = msg.value("device", "cpu") == "cuda";
            hooks.device(gpu ? msg.value("device_name", "") : std::string());
            hooks.notice("PyTorch " + msg.value("torch", "?") + " on " +
                         (gpu ? msg.value("device_name", "the GPU")
                              : "the CPU, " + std::to_string(msg.value("threads", 0)) + " threads"));
        } else if (event == "skipped") {
            hooks.unavailable(msg.value("impl", "?"), msg.value("reason", ""));
        } else if (event == "checked") {
            // Its output against the fp32 reference on the same inputs: the same computation, or not.
            char said[200];
            std::snprintf(said, sizeof said,
                          "%s: output %s the fp32 reference's (largest difference %.2g, tolerance %.2g)",
                          msg.value("impl", "?").c_str(), msg.value("ok", false) ? "matches" : "DIFFERS FROM",
                          msg.value("max_diff", 0.0), msg.value("tolerance", 0.0));
            hooks.notice(said);
        } else if (event == "step") {
            // Only the runner's own step files are read, and removed: nothing outside its folder.
            if (fs::path(msg.value("trace", "")).parent_path() != fs::path(folder.path())) return;
            waiting.push_back(msg);
            if (!config.stepsAfter) readSteps();
        } else if (event == "error") {
            error = msg.value("message", "the runner failed");
        } else if (event == "finished") {
            finished = true;
        }
    };
    while (runner.readLine(line, idle)) {
        const nlohmann::json msg = nlohmann::json::parse(line, nullptr, false);
        if (!msg.is_object() || !msg.contains("event")) continue; // a stray print
        try {
            handle(msg);
        } catch (const nlohmann::json::exception&) {
        }
    }
    const int status = runner.end(std::chrono::seconds(5));
    readSteps(); // what came after the last read (all of them, when read after)
    if (!error.empty()) return "PyTorch backend (" + python + "): " + error;
    if (finished || hooks.stopRequested()) return {};
    std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                          : "exited with status " + std::to_string(WEXITSTATUS(status));
    const std::string said = lastLines(errPath, 3);
    return "the PyTorch runner (" + python + ") " + how + " before the run finished" +
           (said.empty() ? std::string() : ": " + said);
}

} // namespace attnscope::kernels
