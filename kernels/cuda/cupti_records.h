// SPDX-License-Identifier: MIT
#pragma once

// CUPTI activity records as AttnScope events. Only CUPTI's headers are needed here (no library):
// the collector, which loads libcupti with dlopen, hands each record of a completed buffer to
// convertActivity; the tests build records from the same structs, so the conversion is tested
// without a GPU.
#include "core/model/occupancy.h"

#include <cupti_activity.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::kernels {

struct GpuRecord {
    enum class Kind { Kernel, Memcpy, Memset, Runtime, Driver, Synchronization, Marker, Overhead };
    Kind kind = Kind::Kernel;
    std::string name;
    std::string category;      // as Kineto writes it: "kernel", "gpu_memcpy", "cuda_runtime", …
    std::uint64_t startNs = 0; // CUPTI's clock
    std::uint64_t endNs = 0;   // == startNs for markers
    std::uint32_t device = 0;
    std::uint32_t stream = 0;
    std::uint32_t correlation = 0;
    std::uint32_t processId = 0; // runtime and driver calls
    std::uint32_t threadId = 0;
    std::uint32_t markerId = 0; // markers: pairs a start with its end
    bool markerStart = false;
    bool markerEnd = false;
    std::vector<std::pair<std::string, std::string>> args; // key, value as JSON
};

// The occupancy of each kernel it records is computed with the calculator's formula (CUPTI reports
// none for kernels launched with cuLaunchKernelEx).
using attnscope::DeviceLimits;
using attnscope::theoreticalOccupancy;

// Names of runtime (driver == false) and driver API calls by callback id (cuptiGetCallbackName).
using CallbackNames = std::function<std::string(bool driver, std::uint32_t cbid)>;

// Converts one record; false for kinds AttnScope does not show (out is left alone).
bool convertActivity(const CUpti_Activity* record, const DeviceLimits& limits, const CallbackNames& names,
                     GpuRecord& out);

} // namespace attnscope::kernels
