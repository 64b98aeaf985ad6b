// SPDX-License-Identifier: MIT
#pragma once

// "Try the Alternatives…": an attention call of the trace on show run again on this machine with PyTorch,
// as it was and as each of SDPA's backends and attention by hand (kernels/whatif.h), on a worker; the
// trace and the run are then compared side by side (Compare Variants), the run measured here.
#include "core/analysis/call_inputs.h"
#include "kernels/whatif.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

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
    // Starts the what-if of the first call of impl in doc, running tries (empty: every alternative) with
    // repeat measured calls of each: "" when it started, else why nothing runs (no such call, its inputs not
    // recorded, no PyTorch to run them).
    QString start(std::shared_ptr<const Document> doc, const QString& impl,
                  std::vector<std::string> tries = {}, int repeat = 5);
    // Asks what to run (the alternatives, each with what it is, and the calls measured of each), then
    // starts: "" when it started or the user cancelled, else why nothing runs.
    QString askAndStart(std::shared_ptr<const Document> doc, const QString& impl);
    bool running() const;
    void cancel();
    // What the last what-if that finished measured: the saving of each alternative against the call as it
    // was, both run here, for the recorded trace's row of the call (Compare Variants learns it).
    using Learned = kernels::WhatIfAnswer;
    const Learned& learned() const { return m_learned; }
    // The document the last what-if that finished was asked of, its findings taught by the answer
    // (learnedDocument: attention by hand's time at stake, measured here), when `shown` is still that
    // document; else null.
    std::shared_ptr<const Document> taught(const std::shared_ptr<const Document>& shown) const;

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
    std::weak_ptr<const Document> m_asked, m_askedNow; // the document the what-if ran a call of
    std::optional<CallInputs> m_inputs, m_inputsNow;  // and what the call computes
};

} // namespace attnscope::ui
