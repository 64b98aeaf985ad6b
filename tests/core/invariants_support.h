// SPDX-License-Identifier: MIT
#pragma once
// The invariants every trace holds (test_invariants.cpp says which), for the tests that read traces: the
// fixtures', the random ones, and the model traces the model tests make.
#include "core/document/document.h"

#include <string>

namespace attnscope::test {

void expectInvariants(const Document& d, const std::string& label);

} // namespace attnscope::test
