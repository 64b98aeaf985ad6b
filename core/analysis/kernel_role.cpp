// SPDX-License-Identifier: MIT
#include "core/analysis/kernel_role.h"
#include "core/model/categories.h"

#include "core/analysis/resources.h"
#include "core/model/text_match.h"

namespace attnscope {

RoleRules RoleRules::parse(std::string_view text, std::vector<std::string>* problems) {
    RoleRules rules;
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = trimBlanks(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        ++lineNumber;
        if (line.empty() || line.front() == '#') continue;
        const std::size_t gap = line.find_first_of(" \t");
        const std::string_view role = line.substr(0, gap);
        std::string_view pattern =
            gap == std::string_view::npos ? std::string_view() : trimBlanks(line.substr(gap));
        if (role == "ignore") {
            if (pattern.empty() || pattern.front() == '@') {
                if (problems)
                    problems->push_back("line " + std::to_string(lineNumber) + ": ignore needs a word");
                continue;
            }
            // Kept as a rule of no role: "ignore word" names a library, not a kind of work; the word is
            // taken out of a name before the rules are matched.
            rules.m_rules.push_back({KernelRole::Count, false, asciiLower(pattern), {}});
            continue;
        }
        std::string_view impl;
        if (const std::size_t named = pattern.find(" = "); named != std::string_view::npos) {
            impl = trimBlanks(pattern.substr(named + 3));
            pattern = trimBlanks(pattern.substr(0, named));
        }
        const auto known = roleNamed(role);
        if (!known || pattern.empty() || pattern == "@") {
            if (problems)
                problems->push_back("line " + std::to_string(lineNumber) + ": " +
                                    (known ? "no pattern" : "unknown role '" + std::string(role) + "'"));
            continue;
        }
        if (!impl.empty() && *known != KernelRole::FusedAttention) {
            if (problems)
                problems->push_back("line " + std::to_string(lineNumber) +
                                    ": only fused_attention rules name an implementation");
            impl = {};
        }
        const bool category = pattern.front() == '@';
        rules.m_rules.push_back(
            {*known, category, asciiLower(category ? pattern.substr(1) : pattern), std::string(impl)});
    }
    return rules;
}

const RoleRules& RoleRules::standard() {
    static const RoleRules rules = [] {
        RoleRules all;
        if (const std::string path = userDataFile("ATTNSCOPE_KERNEL_ROLES", "kernel_roles.txt");
            !path.empty())
            all = parse(readTextFile(path));
        const RoleRules builtin = parse(builtinKernelRoles());
        all.m_rules.insert(all.m_rules.end(), builtin.m_rules.begin(), builtin.m_rules.end());
        return all;
    }();
    return rules;
}

const RoleRules::Rule* RoleRules::match(std::string_view name, std::string_view category) const {
    std::string lowName = asciiLower(name);
    const std::string lowCategory = asciiLower(category);
    for (const Rule& r : m_rules)
        if (r.role == KernelRole::Count)
            for (std::size_t at = lowName.find(r.pattern); at != std::string::npos;
                 at = lowName.find(r.pattern, at))
                lowName.replace(at, r.pattern.size(), " ");
    for (const Rule& r : m_rules)
        if (r.role != KernelRole::Count &&
            (r.category ? lowCategory == r.pattern : lowName.find(r.pattern) != std::string::npos))
            return &r;
    return nullptr;
}

KernelRole RoleRules::classify(std::string_view name, std::string_view category) const {
    const Rule* r = match(name, category);
    return r ? r->role : KernelRole::Other;
}

std::string RoleRules::implementation(std::string_view name) const {
    const Rule* r = match(name, category::kKernel);
    return r && r->role == KernelRole::FusedAttention ? r->impl : std::string();
}

KernelRole classifyKernel(std::string_view name, std::string_view category) {
    return RoleRules::standard().classify(name, category);
}

} // namespace attnscope
