// SPDX-License-Identifier: MIT
#include "core/model/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

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

} // namespace attnscope
