// SPDX-License-Identifier: MIT
#pragma once

// The arg keys and event names of PyTorch profiler (Kineto) traces that AttnScope reads and writes:
// one spelling each for the readers, the run session, the CUPTI records, the CUDA plugin and the
// analysis. Header-only (plain character arrays, so they fit a C string, a std::string and a
// std::string_view alike), so the plugin, which links none of core, shares it.

namespace attnscope::kineto {

// An op's record_shapes args.
inline constexpr char kInputDims[] = "Input Dims";
inline constexpr char kInputStrides[] = "Input Strides";
inline constexpr char kInputType[] = "Input type";
inline constexpr char kConcreteInputs[] = "Concrete Inputs";
// autograd: an op recorded for the backward pass, and its backward node's range, carry one number
// (per forward thread); the node's range is named kBackwardNode + the node ("BmmBackward0").
inline constexpr char kSequenceNumber[] = "Sequence number";
inline constexpr char kForwardThread[] = "Fwd thread id";
inline constexpr char kBackwardNode[] = "autograd::engine::evaluate_function: ";
// Where GPU work ran, and the id that links it to its launch.
inline constexpr char kDevice[] = "device";
inline constexpr char kStream[] = "stream";
inline constexpr char kCorrelation[] = "correlation";
inline constexpr char kCbid[] = "cbid"; // a runtime call's CUPTI callback id
// A kernel's launch configuration.
inline constexpr char kGrid[] = "grid";
inline constexpr char kBlock[] = "block";
inline constexpr char kRegistersPerThread[] = "registers per thread";
inline constexpr char kSharedMemory[] = "shared memory";
inline constexpr char kReportedOccupancy[] = "est. achieved occupancy %";
// profile_memory=True: an instant named "[memory]" after each allocation and free, with these.
inline constexpr char kMemoryEvent[] = "[memory]";
inline constexpr char kTotalAllocated[] = "Total Allocated";
inline constexpr char kTotalReserved[] = "Total Reserved";
inline constexpr char kBytes[] = "Bytes";
inline constexpr char kDeviceType[] = "Device Type";
inline constexpr char kDeviceId[] = "Device Id";

} // namespace attnscope::kineto
