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

    const std::uint64_t calls =
        kernels::sameShapeCalls(*doc->trace, *doc->analysis, *call, *inputs).calls.size();
    JobRunner::Callbacks<Learned> callbacks;
    callbacks.done = [this, closeProgress, notes, recorded, measured](Learned learned) {
        closeProgress();
        if (learned.impl.empty()) return; // cancelled as it ended
        m_learned = std::move(learned);
        Q_EMIT finished({recorded, measured}, notes);
    };
    callbacks.failed = [this, closeProgress](QString why) {
        closeProgress();
        Q_EMIT failed(why);
    };
    callbacks.cancelled = [this, closeProgress] {
        closeProgress();
        Q_EMIT cancelled();
    };
    m_jobs->start<Learned>(
        "whatif",
        [trace = doc->trace, config = plan.config, recorded, measured, impl = call->impl, in = *inputs,
         calls](JobControl& control) {
            writeChromeTrace(*trace, recorded.toStdString());
            kernels::RunSession session(config);
            session.start();
            while (!session.finished()) {
                if (control.cancelled()) session.stop();
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
            }
            session.wait();
            if (const std::string error = session.error(); !error.empty()) throw std::runtime_error(error);
            if (control.cancelled()) return Learned();
            const std::shared_ptr<const Trace> ran =
                kernels::buildRunTrace(session.takeEvents(), config.backend, session.deviceName());
            writeChromeTrace(*ran, measured.toStdString());
            // Each alternative's saving against the call as it was, both run here (as whatif prints them).
            Learned learned{recorded, measured, impl, {}, calls};
            const auto run = openDocument(DocumentSource::built(ran, measured.toStdString()));
            const ComparedTrace rows = compareEntry(*run, measured.toStdString());
            const CompareRow* asItWas = nullptr;
            std::vector<const CompareRow*> alternatives;
            for (const CompareRow& row : rows.rows)
                if (row.impl == impl)
                    asItWas = &row;
                else if (!row.impl.empty())
                    alternatives.push_back(&row);
            if (asItWas) learned.savings = kernels::whatIfSavings(*run, *asItWas, alternatives, in);
            return learned;
        },
        std::move(callbacks));
    return {};
}

} // namespace attnscope::ui
