// SPDX-License-Identifier: MIT
#pragma once

// "Try the Alternatives…": an attention call of the trace on show run again on this machine with PyTorch,
// as it was and as each of SDPA's backends and attention by hand (kernels/whatif.h), on a worker; the
// trace and the run are then compared side by side (Compare Variants), the run measured here.
#include "kernels/whatif.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

class QProgressDialog;
class QTemporaryDir;
class QWidget;

namespace attnscope {
struct Document;
}

namespace attnscope::ui {

class JobRunner;

class WhatIfController : public QObject {
    Q_OBJECT
public:
    explicit WhatIfController(QWidget* window);
    ~WhatIfController() override;
    // Starts the what-if of the first call of impl in doc: "" when it started, else why nothing runs
    // (no such call, its inputs not recorded, no PyTorch to run them).
    QString start(std::shared_ptr<const Document> doc, const QString& impl);
    bool running() const;
    void cancel();
    // What the last what-if that finished measured: the saving of each alternative against the call as it
    // was, both run here, for the recorded trace's row of the call (Compare Variants learns it).
    struct Learned {
        QString recordedPath, measuredPath;
        std::string impl;
        std::vector<kernels::WhatIfSaving> savings;
        std::uint64_t calls = 0; // the recorded trace's calls of its implementation and shape
    };
    const Learned& learned() const { return m_learned; }

Q_SIGNALS:
    // The trace as recorded and the run, saved for Compare Variants; what the run could not re-create.
    void finished(const QStringList& paths, const QString& notes);
    void failed(const QString& why);
    void cancelled();

private:
    QWidget* m_window;
    JobRunner* m_jobs;
    std::unique_ptr<QTemporaryDir> m_dir; // the traces compared: kept while the window is open
    QProgressDialog* m_progress = nullptr;
    int m_count = 0;
    Learned m_learned;
};

} // namespace attnscope::ui
