// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// What a GPU kernel does. QkGemm and PvGemm are GEMMs of a recognized attention call (analysis.h);
// by its name alone a kernel is at most Gemm.
enum class KernelRole : std::uint8_t {
    QkGemm,
    Softmax,
    PvGemm,
    FusedAttention,
    Gemm,
    Elementwise,
    Reduction,
    Copy,
    Communication,
    Other,
    Count
};

std::string_view roleName(KernelRole role);  // "qk_gemm", "softmax", … as files and JSON write them
std::string_view roleLabel(KernelRole role); // "QKᵀ GEMM", "softmax", "fused attention", …
std::optional<KernelRole> roleNamed(std::string_view name);

// Rules from kernel names (and categories) to roles, as data: resources/kernel_roles.txt, built
// in, after the user's own file if there is one (resources.h). Lines are "role pattern"; the first
// rule whose pattern the name contains (in any case) wins; "@pattern" matches the category.
class RoleRules {
public:
    // Parses rules; lines it cannot read are reported in problems ("line 3: unknown role 'gem'").
    static RoleRules parse(std::string_view text, std::vector<std::string>* problems = nullptr);
    // The built-in rules after the user's, read once.
    static const RoleRules& standard();

    KernelRole classify(std::string_view name, std::string_view category) const;
    std::size_t size() const { return m_rules.size(); }

private:
    struct Rule {
        KernelRole role;
        bool category;
        std::string pattern; // lower case
    };
    std::vector<Rule> m_rules;
};

// RoleRules::standard().classify(name, category).
KernelRole classifyKernel(std::string_view name, std::string_view category);

} // namespace attnscope
