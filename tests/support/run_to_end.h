// SPDX-License-Identifier: MIT
#pragma once
// Runs a session to its end, taking its records in batches while it runs, as a viewer would.

#include "kernels/run_session.h"

#include <chrono>
#include <thread>
#include <vector>

namespace attnscope::test {

// The run's records; *live (when given) says whether some were taken while the run was still going.
inline std::vector<kernels::RunEvent> runToEnd(kernels::RunSession& session, bool* live = nullptr) {
    session.start();
    std::vector<kernels::RunEvent> all;
    while (!session.finished()) {
        auto batch = session.takeEvents();
        if (live && !batch.empty() && !session.finished()) *live = true;
        all.insert(all.end(), batch.begin(), batch.end());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    session.wait();
    auto rest = session.takeEvents();
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
}

} // namespace attnscope::test
