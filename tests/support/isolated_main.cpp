// SPDX-License-Identifier: MIT
// The main of the test binaries without a window: the user's own kernel rules, device specs, settings
// and cached CPU roofs stay out of the tests, and the tests write none of theirs into the user's
// folders — each process gets a configuration and a cache folder of its own, removed at the end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
    std::string home = (std::filesystem::temp_directory_path() / "attnscope-test-XXXXXX").string();
    const bool made = mkdtemp(home.data()) != nullptr;
    if (made) {
        setenv("XDG_CONFIG_HOME", (home + "/config").c_str(), 1);
        setenv("XDG_CACHE_HOME", (home + "/cache").c_str(), 1);
    } else {
        // No temporary folder: point them at nothing rather than at the user's folders.
        setenv("XDG_CONFIG_HOME", "/nonexistent/attnscope-tests", 1);
        setenv("XDG_CACHE_HOME", "/nonexistent/attnscope-tests", 1);
    }
    unsetenv("ATTNSCOPE_KERNEL_ROLES");
    unsetenv("ATTNSCOPE_DEVICE_SPECS");
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    if (made) {
        std::error_code ignored;
        std::filesystem::remove_all(home, ignored);
    }
    return rc;
}
