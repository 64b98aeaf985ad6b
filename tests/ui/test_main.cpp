// SPDX-License-Identifier: MIT
// Widget tests run offscreen: the platform is chosen before QApplication exists (gtest's test
// discovery runs this binary without the test's environment).
#include "support/test_isolation.h"

#include <QApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cstdlib>

namespace {
// Each test starts from the default settings, as it does when CTest runs it in a process of its own:
// a backend or colour mode one test saved must not change the next (under --gtest_repeat or
// --gtest_shuffle they share this process).
class FreshSettings : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo&) override { QSettings().clear(); }
};
} // namespace

int main(int argc, char** argv) {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    // The user's own kernel rules, settings and cached CPU roofs stay out of the tests, and the tests
    // write none of theirs into the user's folders.
    const attnscope::test::IsolatedEnvironment isolated;
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
    return rc;
}
