// SPDX-License-Identifier: MIT
#include "cuda_backend.h"

#include "kernels/run_session.h"

#include "cuda/plugin_api.h"
#include "cuda/toolkit_paths.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace attnscope::kernels {

namespace {

// The folder of the running program: the plugin is installed beside it (or in ../lib/attnscope).
std::string programDir() {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return "./";
    const std::string path(self, std::size_t(n));
    return path.substr(0, path.rfind('/') + 1);
}

// The plugin, loaded once and kept for the program's life (CUDA's runtime does not take well to
// being unloaded); null with the reason when it is missing or cannot load.
void* loadPlugin(std::string& why) {
    static std::string loadWhy;
    static void* plugin = []() -> void* {
        const std::string dir = programDir();
        for (const std::string& candidate :
             {dir + "libattnscope_cuda.so", dir + "../lib/attnscope/libattnscope_cuda.so"}) {
            if (access(candidate.c_str(), F_OK) != 0) continue;
            if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
            const char* e = dlerror();
            loadWhy = std::string("the CUDA backend cannot load: ") + (e ? e : "unknown error");
            return nullptr;
        }
        loadWhy = "no CUDA backend in this build (built without a CUDA compiler)";
        return nullptr;
    }();
    why = loadWhy;
    return plugin;
}

} // namespace

void pointNvtxAtCupti() {
    if (const char* set = std::getenv("NVTX_INJECTION64_PATH"); set && *set) return;
    // A file that is there: the variable's, else the toolkit's (a soname cannot be checked unloaded).
    const attnscope_cuda::LibraryCandidates found = attnscope_cuda::cuptiLibrary();
    std::vector<std::string> files = found.inFolders;
    if (const char* own = std::getenv("ATTNSCOPE_CUPTI_LIBRARY"); own && *own)
        files.insert(files.begin(), own);
    for (const std::string& f : files)
        if (access(f.c_str(), R_OK) == 0) {
            setenv("NVTX_INJECTION64_PATH", f.c_str(), 0);
            return;
        }
}

CudaAvailability probeCuda() {
    std::string why;
    void* plugin = loadPlugin(why);
    if (!plugin) return {0, false, why, {}};
    auto probe = reinterpret_cast<AttnscopeCudaProbe>(dlsym(plugin, ATTNSCOPE_CUDA_PROBE));
    if (!probe) return {0, false, "the CUDA backend has no " ATTNSCOPE_CUDA_PROBE, {}};
    std::vector<char> message(512, '\0');
    const int devices = probe(message.data(), int(message.size()));
    // The probe says "… device 0: NAME, compute capability …" (plugin.cpp).
    const std::string said = message.data();
    std::string name;
    if (const auto at = said.find("device 0: "); devices > 0 && at != std::string::npos) {
        const auto from = at + std::string_view("device 0: ").size();
        name = said.substr(from, said.find(", compute capability", from) - from);
    }
    return {devices, devices > 0, said, name};
}

const std::vector<std::string>& cudaImpls() {
    static const std::vector<std::string> impls = {"naive", "naive_simt", "flash", "flash_simt"};
    return impls;
}

std::string runCudaAttention(const std::string& impl, const AttentionShape& s, const float* q, const float* k,
                             const float* v, float* o) {
    std::string why;
    void* plugin = loadPlugin(why);
    if (!plugin) return why;
    auto run = reinterpret_cast<AttnscopeCudaAttention>(dlsym(plugin, ATTNSCOPE_CUDA_ATTENTION));
    if (!run) return "the CUDA backend has no " ATTNSCOPE_CUDA_ATTENTION;
    std::vector<char> message(512, '\0');
    if (run(impl.c_str(), abiDtype(s.dtype), s.batch, s.heads, s.seq, s.dim, s.kvHeads, s.kvLen,
            s.causal ? 1 : 0, q, k, v, o, message.data(), int(message.size())))
        return message.data();
    return {};
}

namespace {

extern "C" void cudaRecords(void* user, const AttnscopeCudaRecord* records, int count) {
    const RunHooks& hooks = *static_cast<const RunHooks*>(user);
    std::vector<RunEvent> batch;
    batch.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        const AttnscopeCudaRecord& r = records[i];
        RunEvent e;
        e.name = r.name ? r.name : "";
        e.category = r.category ? r.category : "";
        e.startNs = r.startNs;
        e.endNs = r.endNs;
        e.device = r.kind == ATTNSCOPE_RECORD_GPU ? r.device : -1;
        e.stream = r.stream;
        e.thread = r.thread;
        e.track = r.kind == ATTNSCOPE_RECORD_CALL ? -1 : 0;
        e.correlation = r.correlation;
        for (int a = 0; a < r.argCount; ++a)
            e.args.emplace_back(r.args[2 * a], r.args[2 * a + 1]);
        e.impl = r.impl ? r.impl : "";
        e.role = r.role ? r.role : "";
        e.call = r.call;
        e.warmup = r.warmup != 0;
        e.measuredNs = r.gpuNs;
        batch.push_back(std::move(e));
    }
    if (hooks.events) hooks.events(std::move(batch));
}

extern "C" void cudaNotice(void* user, const char* text) {
    const RunHooks& hooks = *static_cast<const RunHooks*>(user);
    if (hooks.notice) hooks.notice(text);
}

extern "C" void cudaDropped(void* user, std::uint64_t total) {
    const RunHooks& hooks = *static_cast<const RunHooks*>(user);
    if (hooks.dropped) hooks.dropped(total);
}

extern "C" int cudaStopRequested(void* user) {
    const RunHooks& hooks = *static_cast<const RunHooks*>(user);
    return hooks.stopRequested && hooks.stopRequested() ? 1 : 0;
}

} // namespace

std::string runCuda(const RunConfig& config, const RunHooks& hooks) {
    std::string why;
    void* plugin = loadPlugin(why);
    if (!plugin) return why;
    auto run = reinterpret_cast<AttnscopeCudaRun>(dlsym(plugin, ATTNSCOPE_CUDA_RUN));
    if (!run) return "the CUDA backend has no " ATTNSCOPE_CUDA_RUN;
    std::string impls;
    for (const std::string& impl : config.impls)
        impls += (impls.empty() ? "" : ",") + impl;
    const AttentionShape& s = config.shape;
    AttnscopeCudaRunRequest request{};
    request.impls = impls.c_str();
    request.dtype = abiDtype(s.dtype);
    request.batch = s.batch;
    request.heads = s.heads;
    request.seq = s.seq;
    request.dim = s.dim;
    request.kvHeads = s.kvHeads;
    request.kvLen = s.kvLen;
    request.causal = s.causal ? 1 : 0;
    request.warmup = config.warmup;
    request.iters = config.iters;
    request.collect = config.collect ? 1 : 0;
    request.user = const_cast<RunHooks*>(&hooks);
    request.stopRequested = cudaStopRequested;
    request.records = cudaRecords;
    request.notice = cudaNotice;
    request.dropped = cudaDropped;
    std::vector<char> message(512, '\0');
    if (run(&request, message.data(), int(message.size()))) return message.data();
    return {};
}

} // namespace attnscope::kernels
