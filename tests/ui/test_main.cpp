// SPDX-License-Identifier: MIT
// Widget tests run offscreen: the platform is chosen before QApplication exists (gtest's test
// discovery runs this binary without the test's environment).
#include <QApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QStandardPaths::setTestModeEnabled(true); // settings and recent files go to a test location
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScopeTests");
    // Settings of this process alone: ctest runs tests in parallel processes, and each starts from
    // the defaults whatever another saved.
    QApplication::setApplicationName(QStringLiteral("AttnScopeTests-%1").arg(QCoreApplication::applicationPid()));
    QSettings().clear();
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
    return rc;
}
