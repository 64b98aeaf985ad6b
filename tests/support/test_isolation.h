// SPDX-License-Identifier: MIT
#pragma once

// What every test process does first: nothing of the user's or another test's state reaches a
// result. A home, configuration and cache of its own (removed at the end), and no ATTNSCOPE_* variable
// from the environment (kernel rules, device specs, …) but those that steer the tests, so a user's settings
// or rule files cannot change what a test sees and the tests write nothing into the user's folders.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace attnscope::test {

class IsolatedEnvironment {
    // Variables that steer the tests themselves stay (ATTNSCOPE_TEST_*, e.g. the random-input seed).
    static constexpr const char* kTestVariables = "ATTNSCOPE_TEST_";

public:
    IsolatedEnvironment() {
        m_home = (std::filesystem::temp_directory_path() / "attnscope-test-XXXXXX").string();
        m_made = mkdtemp(m_home.data()) != nullptr;
        // No temporary folder: point them at nothing rather than at the user's folders.
        const std::string root = m_made ? m_home : std::string("/nonexistent/attnscope-tests");
        setenv("HOME", root.c_str(), 1);
        setenv("XDG_CONFIG_HOME", (root + "/config").c_str(), 1);
        setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1);
        setenv("XDG_DATA_HOME", (root + "/data").c_str(), 1);
        std::vector<std::string> ours;
        for (char** e = environ; e && *e; ++e)
            if (std::strncmp(*e, "ATTNSCOPE_", 10) == 0 && std::strncmp(*e, kTestVariables, 15) != 0)
                ours.emplace_back(*e, std::strcspn(*e, "="));
        for (const std::string& name : ours)
            unsetenv(name.c_str());
    }
    ~IsolatedEnvironment() {
        if (!m_made) return;
        std::error_code ignored;
        std::filesystem::remove_all(m_home, ignored);
    }
    IsolatedEnvironment(const IsolatedEnvironment&) = delete;
    IsolatedEnvironment& operator=(const IsolatedEnvironment&) = delete;

private:
    std::string m_home;
    bool m_made = false;
};

} // namespace attnscope::test
