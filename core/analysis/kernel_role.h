// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/role.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// Rules from kernel names (and categories) to roles, as data: resources/kernel_roles.txt, built
// in, after the user's own file if there is one (resources.h). Lines are "role pattern"; the first
// rule whose pattern the name contains (in any case) wins; "@pattern" matches the category. A
// fused_attention rule may name the implementation the kernel belongs to: "role pattern = Name".
class RoleRules {
public:
    // Parses rules; lines it cannot read are reported in problems ("line 3: unknown role 'gem'").
    static RoleRules parse(std::string_view text, std::vector<std::string>* problems = nullptr);
    // The built-in rules after the user's, read once.
    static const RoleRules& standard();

    KernelRole classify(std::string_view name, std::string_view category) const;
    // The implementation the first matching fused_attention rule names ("FlashInfer", "SageAttention"),
    // "" when no rule names one: an unknown family is never given a wrong name.
    std::string implementation(std::string_view name) const;
    std::size_t size() const { return m_rules.size(); }

private:
    struct Rule {
        KernelRole role;
        bool category;
        std::string pattern; // lower case
        std::string impl;    // the implementation a fused_attention rule names, or ""
    };
    const Rule* match(std::string_view name, std::string_view category) const;
    std::vector<Rule> m_rules;
};

// RoleRules::standard().classify(name, category).
KernelRole classifyKernel(std::string_view name, std::string_view category);

} // namespace attnscope
