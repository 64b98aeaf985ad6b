// SPDX-License-Identifier: MIT
// Widget tests run offscreen: the platform is chosen before QApplication exists (gtest's test
// discovery runs this binary without the test's environment).
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QStandardPaths::setTestModeEnabled(true); // settings and recent files go to a test location
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScopeTests");
    QApplication::setApplicationName("AttnScopeTests");
    QSettings().clear(); // each run starts from the defaults, whatever the last one saved
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
