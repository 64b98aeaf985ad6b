// SPDX-License-Identifier: MIT
#include "cuda_backend.h"

#include "cuda/plugin_api.h"

#include <dlfcn.h>
#include <unistd.h>

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

CudaAvailability probeCuda() {
    std::string why;
    void* plugin = loadPlugin(why);
    if (!plugin) return {0, false, why};
    auto probe = reinterpret_cast<AttnscopeCudaProbe>(dlsym(plugin, ATTNSCOPE_CUDA_PROBE));
    if (!probe) return {0, false, "the CUDA backend has no " ATTNSCOPE_CUDA_PROBE};
    std::vector<char> message(512, '\0');
    const int devices = probe(message.data(), int(message.size()));
    std::string said = message.data();
    if (devices > 0) said += "; the CUDA workloads are not in this version yet";
    return {devices, false, said};
}

std::string runCudaAttention(const std::string& impl, int batch, int heads, int seq, int dim, bool causal,
                             const float* q, const float* k, const float* v, float* o) {
    std::string why;
    void* plugin = loadPlugin(why);
    if (!plugin) return why;
    auto run = reinterpret_cast<AttnscopeCudaAttention>(dlsym(plugin, ATTNSCOPE_CUDA_ATTENTION));
    if (!run) return "the CUDA backend has no " ATTNSCOPE_CUDA_ATTENTION;
    std::vector<char> message(512, '\0');
    if (run(impl.c_str(), batch, heads, seq, dim, causal ? 1 : 0, q, k, v, o, message.data(),
            int(message.size())))
        return message.data();
    return {};
}

} // namespace attnscope::kernels
