// SPDX-License-Identifier: MIT
// The main of the test binaries without a window: each process runs in an environment of its own
// (test_isolation.h).
#include "support/test_isolation.h"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    const attnscope::test::IsolatedEnvironment isolated;
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
