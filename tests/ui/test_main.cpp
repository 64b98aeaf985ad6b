// SPDX-License-Identifier: MIT
// Widget tests run offscreen: the platform is chosen before QApplication exists (gtest's test
// discovery runs this binary without the test's environment).
#include "support/test_isolation.h"
#include "support/test_support.h"

#include <QApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {
// Each test starts from the default settings, as it does when CTest runs it in a process of its own:
// a backend or colour mode one test saved must not change the next (under --gtest_repeat or
// --gtest_shuffle they share this process).
class FreshSettings : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo&) override { QSettings().clear(); }
    // The shared fixtures are read-only: a test that writes notes beside a trace copies it first. One that
    // did not is named, and the run fails.
    void OnTestEnd(const ::testing::TestInfo& test) override {
        const std::string fixtures = attnscope::test::fixture("");
        if (fixtures.empty()) return;
        for (const auto& entry : std::filesystem::directory_iterator(fixtures))
            if (entry.path().string().find(".attnscope-notes.json") != std::string::npos) {
                std::fprintf(stderr, "%s.%s wrote beside a shared fixture: %s\n", test.test_suite_name(),
                             test.name(), entry.path().c_str());
                wroteIntoShared = true;
            }
    }

public:
    static inline bool wroteIntoShared = false;
};

// The offscreen platform's screen is 800×800 unless told otherwise: the tests run on a desktop's
// 1920×1080 (what "fits the screen" is held against), with a 1366×768 laptop screen to its right.
void offscreenOnADesktopScreen() {
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    if (platform && std::string(platform) != "offscreen") return; // xcb under Xvfb: its own screen
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    const std::string config = std::string(std::getenv("HOME")) + "/offscreen-screens.json";
    std::ofstream out(config);
    out << R"({"screens": [
        {"name": "desktop", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96, "dpr": 1},
        {"name": "laptop", "x": 1920, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96, "dpr": 1}]})";
    if (out.flush()) setenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).c_str(), 1);
}
} // namespace

int main(int argc, char** argv) {
    // The user's own kernel rules, settings and cached CPU roofs stay out of the tests, and the tests
    // write none of theirs into the user's folders.
    const attnscope::test::IsolatedEnvironment isolated;
    offscreenOnADesktopScreen();
    QStandardPaths::setTestModeEnabled(true); // settings and recent files go to a test location
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScopeTests");
    // Settings of this process alone: ctest runs tests in parallel processes, and each starts from
    // the defaults whatever another saved.
    QApplication::setApplicationName(
        QStringLiteral("AttnScopeTests-%1").arg(QCoreApplication::applicationPid()));
    QSettings().clear();
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSettings);
    const int rc = RUN_ALL_TESTS();
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
    return FreshSettings::wroteIntoShared ? 1 : rc;
}
