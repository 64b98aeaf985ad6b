// SPDX-License-Identifier: MIT
// Widget tests run offscreen: the platform is chosen before QApplication exists (gtest's test
// discovery runs this binary without the test's environment).
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    // The user's own kernel rules and cached CPU roofs stay out of the tests, and the tests write
    // none of theirs into the user's folders: a configuration and a cache of this run's own.
    const QTemporaryDir home;
    setenv("XDG_CONFIG_HOME", QDir(home.path()).filePath("config").toLocal8Bit().constData(), 1);
    setenv("XDG_CACHE_HOME", QDir(home.path()).filePath("cache").toLocal8Bit().constData(), 1);
    unsetenv("ATTNSCOPE_KERNEL_ROLES");
    unsetenv("ATTNSCOPE_DEVICE_SPECS");
    QStandardPaths::setTestModeEnabled(true); // settings and recent files go to a test location
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScopeTests");
    // Settings of this process alone: ctest runs tests in parallel processes, and each starts from
    // the defaults whatever another saved.
    QApplication::setApplicationName(
        QStringLiteral("AttnScopeTests-%1").arg(QCoreApplication::applicationPid()));
    QSettings().clear();
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
    return rc;
}
