// SPDX-License-Identifier: MIT
#pragma once

// The roofs of the devices kernels run on: datasheet peaks per precision and memory bandwidth,
// from resources/device_specs.txt (the user's own file first), matched by device name.
#include "core/model/precision.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// A device's roofs: peak FLOP/s per precision (0: none; a narrower type falls back to the wider
// one's figure) and memory bandwidth in bytes/s.
struct DeviceSpec {
    std::string name;   // the spec's pattern ("H100 80GB HBM3"), or "CPU (measured)"
    std::string source; // "datasheet", "measured"
    double fp32 = 0, tf32 = 0, fp16 = 0, fp8 = 0;
    double bandwidth = 0;
    // The peak for p (a type the device has no path for runs on the next wider one).
    double peak(Precision p) const;
};

// Device specs as data: resources/device_specs.txt, built in, after the user's own file.
class DeviceSpecs {
public:
    static DeviceSpecs parse(std::string_view text, std::vector<std::string>* problems = nullptr);
    static const DeviceSpecs& standard();
    // The spec whose pattern is the longest one the device name contains (any case).
    std::optional<DeviceSpec> match(std::string_view deviceName) const;
    std::size_t size() const { return m_specs.size(); }

private:
    std::vector<DeviceSpec> m_specs;
};

} // namespace attnscope
