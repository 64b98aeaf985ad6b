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

} // namespace

CudaAvailability probeCuda() {
    const std::string dir = programDir();
    std::string loadError;
    for (const std::string& candidate :
         {dir + "libattnscope_cuda.so", dir + "../lib/attnscope/libattnscope_cuda.so"}) {
        if (access(candidate.c_str(), F_OK) != 0) continue;
        // Kept loaded for the program's life: CUDA's runtime does not take well to being unloaded.
        void* plugin = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!plugin) {
            const char* e = dlerror();
            loadError = e ? e : "unknown error";
            continue;
        }
        auto probe = reinterpret_cast<AttnscopeCudaProbe>(dlsym(plugin, ATTNSCOPE_CUDA_PROBE));
        if (!probe) return {0, false, candidate + " has no " ATTNSCOPE_CUDA_PROBE};
        std::vector<char> message(512, '\0');
        const int devices = probe(message.data(), int(message.size()));
        std::string said = message.data();
        if (devices > 0) said += "; the CUDA workloads are not in this version yet";
        return {devices, false, said};
    }
    if (!loadError.empty()) return {0, false, "the CUDA backend cannot load: " + loadError};
    return {0, false, "no CUDA backend in this build (built without a CUDA compiler)"};
}

} // namespace attnscope::kernels
