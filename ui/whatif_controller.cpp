// SPDX-License-Identifier: MIT
#include "whatif_controller.h"

#include "job_runner.h"
#include "qt_text.h"

#include "core/analysis/call_inputs.h"
#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "kernels/whatif.h"

#include <QDir>
#include <QFileInfo>
#include <QProgressDialog>
#include <QTemporaryDir>
#include <QWidget>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace attnscope::ui {

WhatIfController::WhatIfController(QWidget* window)
    : QObject(window), m_window(window), m_jobs(new JobRunner(this)) {}

WhatIfController::~WhatIfController() = default;

bool WhatIfController::running() const {
    return m_jobs->running("whatif");
}

void WhatIfController::cancel() {
    m_jobs->cancel("whatif");
}

QString WhatIfController::start(std::shared_ptr<const Document> doc, const QString& impl) {
    if (running()) return tr("the alternatives of another call are being tried");
    if (!doc || !doc->analysis) return tr("no trace is analysed yet");
    const AttentionCall* call = nullptr;
    for (const AttentionCall& c : doc->analysis->calls)
        if (qs(c.impl) == impl) {
            call = &c;
            break;
        }
    if (!call) return tr("no call of %1 in this trace").arg(impl);
    const auto inputs = callInputs(*doc->trace, *doc->analysis, *call);
    if (!inputs)
        return tr("%1's calls have no recorded inputs (a trace saved without record_shapes), so what they "
                  "compute is unknown; nothing was run")
            .arg(impl);
    kernels::WhatIfPlan plan = kernels::whatIfPlan(*inputs, {}, 5, {});
    std::string notice;
    if (const std::string problem =
            kernels::chooseBackend(plan.config, kernels::BackendChoice::Torch, notice);
        !problem.empty())
        return qs(problem) + tr("; nothing was run");
    if (!m_dir) {
        m_dir = std::make_unique<QTemporaryDir>();
        if (!m_dir->isValid()) {
            m_dir.reset();
            return tr("no folder for the run's trace: %1").arg(QDir::tempPath());
        }
    }
    // Named after the trace, so that Compare Variants' rows say what each is ("qwen as recorded",
    // "qwen measured here"); a second what-if of the session numbered.
    ++m_count;
    QString name = QFileInfo(QString::fromStdString(doc->name)).completeBaseName();
    if (name.endsWith(QStringLiteral(".json"))) name.chop(5); // "x.json.gz"
    const QString suffix = m_count > 1 ? QStringLiteral(" (%1)").arg(m_count) : QString();
    const QString recorded = m_dir->filePath(QStringLiteral("%1 as recorded%2.json").arg(name, suffix));
    const QString measured = m_dir->filePath(QStringLiteral("%1 measured here%2.json").arg(name, suffix));
    QString notes;
    for (const std::string& n : plan.notes)
        notes += (notes.isEmpty() ? QString() : QStringLiteral("; ")) + qs(n);

    m_progress =
        new QProgressDialog(tr("Trying the alternatives on %1's shape: %2…").arg(impl, qs(inputs->text())),
                            tr("Cancel"), 0, 0, m_window);
    m_progress->setWindowTitle(tr("Try the Alternatives"));
    m_progress->setWindowModality(Qt::NonModal);
    m_progress->setMinimumDuration(0);
    m_progress->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_progress, &QProgressDialog::canceled, this, &WhatIfController::cancel);
    m_progress->show();
    auto closeProgress = [this] {
        if (m_progress) m_progress->close();
        m_progress = nullptr;
    };

    JobRunner::Callbacks<QStringList> callbacks;
    callbacks.done = [this, closeProgress, notes](QStringList paths) {
        closeProgress();
        Q_EMIT finished(paths, notes);
    };
    callbacks.failed = [this, closeProgress](QString why) {
        closeProgress();
        Q_EMIT failed(why);
    };
    callbacks.cancelled = [this, closeProgress] {
        closeProgress();
        Q_EMIT cancelled();
    };
    m_jobs->start<QStringList>(
        "whatif",
        [trace = doc->trace, config = plan.config, recorded, measured](JobControl& control) {
            writeChromeTrace(*trace, recorded.toStdString());
            kernels::RunSession session(config);
            session.start();
            while (!session.finished()) {
                if (control.cancelled()) session.stop();
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
            }
            session.wait();
            if (const std::string error = session.error(); !error.empty()) throw std::runtime_error(error);
            if (control.cancelled()) return QStringList();
            writeChromeTrace(
                *kernels::buildRunTrace(session.takeEvents(), config.backend, session.deviceName()),
                measured.toStdString());
            return QStringList{recorded, measured};
        },
        std::move(callbacks));
    return {};
}

} // namespace attnscope::ui
