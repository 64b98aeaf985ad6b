// SPDX-License-Identifier: MIT
#include "core/model/demangle.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <vector>

namespace attnscope {

std::string demangle(std::string_view name) {
    if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
    const std::string mangled(name);
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string_view shortKernelName(std::string_view name) {
    // Only C++ signatures and templates are cut; "aten::mm" or "Memcpy HtoD (Device)" read well as they are.
    const bool signature =
        name.find('(') != std::string_view::npos || name.find('<') != std::string_view::npos;
    const bool qualified =
        name.find("::") != std::string_view::npos || name.find('<') != std::string_view::npos;
    if (!signature || !qualified) return name;
    // The end of the qualified name: the first '<' or '(' outside brackets.
    std::size_t end = name.size();
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        constexpr std::string_view anonymous = "(anonymous namespace)";
        if (name.substr(i, anonymous.size()) == anonymous) {
            i += anonymous.size() - 1;
            continue;
        }
        if (c == '(' && depth == 0 && i > 0) {
            end = i;
            break;
        }
        if (c == '<' && depth == 0 && i > 0 && name.substr(i - 1, 1) != " ") {
            end = i;
            break;
        }
        if (c == '(' || c == '<' || c == '[') ++depth;
        if ((c == ')' || c == '>' || c == ']') && depth > 0) --depth;
    }
    std::string_view head = name.substr(0, end);
    while (!head.empty() && head.back() == ' ')
        head.remove_suffix(1);
    // Drop the return type ("void ") and the namespaces: the name starts after the last "::" or space.
    const std::size_t colon = head.rfind("::");
    if (colon != std::string_view::npos) head = head.substr(colon + 2);
    const std::size_t space = head.rfind(' ');
    if (space != std::string_view::npos) head = head.substr(space + 1);
    return head.empty() ? name : head;
}

std::string_view kernelNameFromOwn(std::string_view name) {
    const std::string_view own = shortKernelName(name);
    if (own.data() < name.data() || own.data() > name.data() + name.size()) return name; // not a part of it
    return name.substr(std::size_t(own.data() - name.data()));
}

std::string tellingKernelName(std::string_view name) {
    const std::string_view from = kernelNameFromOwn(name);
    const std::string_view own = shortKernelName(name);
    if (from.size() <= own.size() || from[own.size()] != '<') return std::string(from);
    // Identifiers in the arguments that name an op: "…_kernel_cuda", "…_cuda_kernel", "…Functor…",
    // "…functor…", another "…_kernel" than PyTorch's generic launchers; PyTorch's wrappers of another
    // functor (BinaryFunctor<…, MulFunctor>) tell nothing of their own. Then the first element type, where
    // one op runs for several (a bf16 and a float instance read alike without it).
    auto generic = [](std::string_view id) {
        for (std::string_view g : {"BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "UnaryFunctor",
                                   "gpu_kernel_impl", "gpu_kernel_impl_nocast", "elementwise_kernel",
                                   "vectorized_elementwise_kernel", "unrolled_elementwise_kernel",
                                   "elementwise_kernel_with_index", "gpu_kernel", "launch_vectorized_kernel"})
            if (id == g) return true;
        return false;
    };
    auto telling = [&](std::string_view id) {
        if (generic(id) || id == own) return false;
        return id.ends_with("_kernel_cuda") || id.ends_with("_cuda_kernel") || id.ends_with("_kernel") ||
               id.find("Functor") != std::string_view::npos || id.find("functor") != std::string_view::npos;
    };
    auto elementType = [](std::string_view id) {
        for (std::string_view t : {"BFloat16", "Half", "float", "double", "Float8_e4m3fn", "Float8_e5m2",
                                   "complex", "bool", "long", "int"})
            if (id == t) return true;
        return false;
    };
    std::vector<std::string_view> found;
    std::string_view type;
    // The template's arguments only (not the parameters after them: "(int)").
    std::string_view args = from.substr(own.size());
    for (std::size_t k = 0, depth = 0; k < args.size(); ++k) {
        depth += args[k] == '<';
        if (args[k] == '>' && --depth == 0) {
            args = args.substr(0, k + 1);
            break;
        }
    }
    const auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t i = 0; i < args.size();) {
        if (!isWord(args[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < args.size() && isWord(args[end]))
            ++end;
        const std::string_view id = args.substr(i, end - i);
        if (found.size() < 2 && telling(id) && std::find(found.begin(), found.end(), id) == found.end())
            found.push_back(id);
        if (type.empty() && elementType(id)) type = id;
        i = end;
    }
    if (found.empty()) return std::string(from);
    std::string out(own);
    out += "<\u2026 ";
    for (std::size_t f = 0; f < found.size(); ++f)
        out += (f ? ", " : "") + std::string(found[f]);
    if (!type.empty()) out += ", " + std::string(type);
    out += " \u2026>";
    return out;
}

} // namespace attnscope
