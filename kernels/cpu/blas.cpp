// SPDX-License-Identifier: MIT
#include "blas.h"

#include "cpu_attention.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace attnscope::kernels {

namespace {

struct Loaded {
    Blas blas;
    bool ok = false;
    std::string problem;
};

Loaded& loaded() {
    static Loaded l;
    return l;
}

std::once_flag opened;

void open() {
    Loaded& l = loaded();
    chooseBlasKernels();
    void* lib = nullptr;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
        l.problem = "naive attention needs OpenBLAS (Debian's libopenblas0): " + std::string(dlerror());
        return;
    }
    l.blas.sgemm = reinterpret_cast<BlasSgemm>(dlsym(lib, "cblas_sgemm"));
    auto threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));

    if (!l.blas.sgemm || !threads) {
        l.problem = "the OpenBLAS found has no cblas_sgemm or openblas_set_num_threads";
        return;
    }
    threads(1); // each worker's call is its own: AttnScope's workers are the parallelism

    l.ok = true;
}

} // namespace

void chooseBlasKernels() {
    if (std::getenv("OPENBLAS_CORETYPE")) return; // the user's choice
    __builtin_cpu_init();
    const CpuIsa isa = bestCpuIsa();
    const char* core = isa >= CpuIsa::Avx512
                           ? (__builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX")
                       : isa == CpuIsa::Avx2 ? "Haswell"
                                             : nullptr;
    if (core) setenv("OPENBLAS_CORETYPE", core, 0);
}

const Blas* blas() {
    std::call_once(opened, open);
    return loaded().ok ? &loaded().blas : nullptr;
}

std::string blasProblem() {
    std::call_once(opened, open);
    return loaded().problem;
}

} // namespace attnscope::kernels
