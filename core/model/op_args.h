// SPDX-License-Identifier: MIT
#pragma once

// The args PyTorch's profiler records on an op with record_shapes ("Input Dims", "Input type",
// "Concrete Inputs"), read.
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// The op args PyTorch records with record_shapes, read: "Input Dims" "[[16,559,1024],[1024,1024],[]]" →
// {{16,559,1024},{1024,1024},{}} (nullopt when not that shape); "Input type" and "Concrete Inputs"
// ["c10::BFloat16","","True"] → their strings (JSON escapes are not expected in these args).
std::optional<std::vector<std::vector<std::int64_t>>> parseDims(std::string_view s);
std::vector<std::string> parseStrings(std::string_view s);
// The integers in a value, in order: "[1, 1]" → {1, 1}; "2" → {2}.
std::vector<std::int64_t> parseInts(std::string_view s);
// The elements of the tensors among an op's inputs ("Input Dims" read); scalars and arguments that
// are no tensor ([]) count none.
std::uint64_t inputElements(const std::vector<std::vector<std::int64_t>>& dims);
// Bytes per element of a tensor input by its "Input type" ("float" 4, "c10::BFloat16" 2, "bool" 1,
// "long int" 8, …); 0 for what is no tensor ("Scalar", "ScalarList", "") or a type not known.
int inputTypeBytes(std::string_view type);
// Bytes per element of a dtype as "Concrete Inputs" give it (c10::ScalarType's number: 6 float, 15
// bfloat16, 11 bool, …); 0 when not known.
int scalarTypeBytes(std::int64_t scalarType);

// An op's recorded inputs, read from its args: "Input Dims", "Input type", "Concrete Inputs" and "Input
// Strides" (one reading for the analysis' call inputs and the findings).
struct OpInputs {
    std::optional<std::vector<std::vector<std::int64_t>>> dims;
    std::vector<std::string> types, concrete;
    std::optional<std::vector<std::vector<std::int64_t>>> strides; // PyTorch 2.1 on
};
// Whether a tensor of these dims with these strides is laid out row-major with no gaps (a dimension of one
// element may have any stride): a view of it reshaped needs no copy.
bool rowMajor(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides);
OpInputs opInputs(const Trace& trace, EventRef op);

} // namespace attnscope
