// SPDX-License-Identifier: MIT
#include "cublas_gemm.h"
#include "toolkit_paths.h"

#include "plugin_api.h"

#include <cublas_api.h>
#include <dlfcn.h>

namespace attnscope_cuda {

namespace {

// The entry points used, as the library exports them (cublas_api.h also declares C++ overloads).
using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using StatusNameFn = const char* (*)(cublasStatus_t);
using GemmFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                  const void*, const void*, cudaDataType, int, long long, const void*,
                                  cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);

struct Library {
    void* handle = nullptr;
    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    SetStreamFn setStream = nullptr;
    StatusNameFn statusName = nullptr;
    GemmFn gemm = nullptr;
    std::string why;
};

const Library& library() {
    static const Library lib = [] {
        Library l;
        // By soname, then in the toolkit's folders (as CUPTI is found).
        const LibraryCandidates found = cublasLibrary();
        std::vector<std::string> candidates = found.named;
        candidates.insert(candidates.end(), found.inFolders.begin(), found.inFolders.end());
        for (const std::string& name : candidates)
            if ((l.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
        if (!l.handle) {
            const char* e = dlerror();
            l.why = std::string("cuBLAS is not installed (naive needs it): ") + (e ? e : "");
            return l;
        }
        l.create = reinterpret_cast<CreateFn>(dlsym(l.handle, "cublasCreate_v2"));
        l.destroy = reinterpret_cast<DestroyFn>(dlsym(l.handle, "cublasDestroy_v2"));
        l.setStream = reinterpret_cast<SetStreamFn>(dlsym(l.handle, "cublasSetStream_v2"));
        l.statusName = reinterpret_cast<StatusNameFn>(dlsym(l.handle, "cublasGetStatusName"));
        l.gemm = reinterpret_cast<GemmFn>(dlsym(l.handle, "cublasGemmStridedBatchedEx"));
        if (!l.create || !l.destroy || !l.setStream || !l.gemm)
            l.why = "this cuBLAS lacks cublasGemmStridedBatchedEx";
        return l;
    }();
    return lib;
}

cudaDataType dataType(int dtype) {
    return dtype == ATTNSCOPE_CUDA_F16 ? CUDA_R_16F : dtype == ATTNSCOPE_CUDA_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

} // namespace

Cublas::~Cublas() {
    if (m_handle) library().destroy(static_cast<cublasHandle_t>(m_handle));
}

bool Cublas::open(cudaStream_t stream, std::string& why) {
    const Library& lib = library();
    if (!lib.why.empty()) {
        why = lib.why;
        return false;
    }
    cublasHandle_t handle = nullptr;
    if (const cublasStatus_t s = lib.create(&handle); s != CUBLAS_STATUS_SUCCESS) {
        why = std::string("cublasCreate failed: ") +
              (lib.statusName ? lib.statusName(s) : std::to_string(int(s)));
        return false;
    }
    m_handle = handle;
    lib.setStream(handle, stream);
    return true;
}

std::string Cublas::gemm(const Problem& p, bool transposeA, int m, int n, int k, const void* a, int lda,
                         long long strideA, const void* b, int ldb, long long strideB, void* c, int ldc,
                         long long strideC) {
    const Library& lib = library();
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType type = dataType(p.dtype);
    const cublasStatus_t s =
        lib.gemm(static_cast<cublasHandle_t>(m_handle), transposeA ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N,
                 m, n, k, &one, a, type, lda, strideA, b, type, ldb, strideB, &zero, c, type, ldc, strideC,
                 int(p.heads_total()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s == CUBLAS_STATUS_SUCCESS) return {};
    return std::string("cublasGemmStridedBatchedEx: ") +
           (lib.statusName ? lib.statusName(s) : std::to_string(int(s)));
}

// Row-major matrices are column-major transposes: row-major S = Q·Kᵀ is column-major Sᵀ = K·Qᵀ,
// where the column-major view of row-major K (seq×dim) is Kᵀ (dim×seq, leading dimension dim).
std::string Cublas::qk(const Problem& p, const void* q, const void* k, void* s) {
    const long long n = p.seq, d = p.dim;
    return gemm(p, true, p.seq, p.seq, p.dim, k, p.dim, n * d, q, p.dim, n * d, s, p.seq, n * n);
}

// Row-major O = P·V is column-major Oᵀ = Vᵀ·Pᵀ: both operands as they lie.
std::string Cublas::pv(const Problem& p, const void* probabilities, const void* v, void* o) {
    const long long n = p.seq, d = p.dim;
    return gemm(p, false, p.dim, p.seq, p.seq, v, p.dim, n * d, probabilities, p.seq, n * n, o, p.dim, n * d);
}

} // namespace attnscope_cuda
