// SPDX-License-Identifier: MIT
#pragma once

// Where a CUDA toolkit library may be, for dlopen: the file a variable names, the library's sonames
// (the loader's search path), then the file in the toolkit's folders (CUDA_HOME, CUDA_PATH,
// /usr/local/cuda), where distributions that do not register the toolkit with the loader leave it.
// Header-only: the program (NVTX's injection path) and the CUDA plugin (CUPTI, cuBLAS) both use it.
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace attnscope_cuda {

struct LibraryCandidates {
    std::vector<std::string> named;     // the variable's, then the sonames
    std::vector<std::string> inFolders; // the toolkit's files
};

inline LibraryCandidates toolkitLibrary(const char* variable, std::initializer_list<const char*> sonames,
                                        const char* file, std::initializer_list<const char*> folders) {
    LibraryCandidates c;
    if (const char* own = variable ? std::getenv(variable) : nullptr; own && *own) c.named.push_back(own);
    for (const char* s : sonames)
        c.named.push_back(s);
    for (const char* root : {static_cast<const char*>(std::getenv("CUDA_HOME")),
                             static_cast<const char*>(std::getenv("CUDA_PATH")), "/usr/local/cuda"})
        if (root && *root)
            for (const char* folder : folders)
                c.inFolders.push_back(std::string(root) + folder + "/" + file);
    return c;
}

inline LibraryCandidates cuptiLibrary() {
    return toolkitLibrary("ATTNSCOPE_CUPTI_LIBRARY", {"libcupti.so.13", "libcupti.so.12", "libcupti.so"},
                          "libcupti.so", {"/lib64", "/extras/CUPTI/lib64"});
}

inline LibraryCandidates cublasLibrary() {
    return toolkitLibrary(nullptr, {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "libcublas.so",
                          {"/lib64", "/targets/x86_64-linux/lib"});
}

} // namespace attnscope_cuda
