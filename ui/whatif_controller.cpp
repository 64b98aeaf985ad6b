// SPDX-License-Identifier: MIT
#include "whatif_controller.h"

#include "job_runner.h"
#include "qt_text.h"

#include "core/analysis/call_inputs.h"
#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/report/rank_record.h"
#include "kernels/whatif.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressDialog>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QVBoxLayout>
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

QString WhatIfController::askAndStart(std::shared_ptr<const Document> doc, const QString& impl) {
    if (running()) return tr("the alternatives of another call are being tried");
    QDialog dialog(m_window);
    dialog.setWindowTitle(tr("Try the Alternatives on %1's Shape").arg(impl));
    auto* layout = new QVBoxLayout(&dialog);
    auto* said = new QLabel(tr("Run %1's call again on this machine with PyTorch, side by side as each "
                               "implementation checked below. The savings are against the call as it was "
                               "(%1), measured here: leave it checked.")
                                .arg(impl),
                            &dialog);
    said->setWordWrap(true);
    layout->addWidget(said);
    auto* list = new QListWidget(&dialog);
    for (const std::string& name : kernels::torchImpls()) {
        auto* item = new QListWidgetItem(qs(name + " — " + kernels::torchImplText(name)), list);
        item->setData(Qt::UserRole, qs(name));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(item->text());
    }
    layout->addWidget(list);
    auto* form = new QFormLayout;
    auto* repeat = new QSpinBox(&dialog);
    repeat->setRange(1, 1000);
    repeat->setValue(5);
    repeat->setToolTip(tr("Each alternative's calls, after a warm-up; one of each runs a round, so the "
                          "saving's spread is over the rounds"));
    form->addRow(tr("Calls measured of each:"), repeat);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    // Each alternative's line read whole.
    dialog.resize(std::max(dialog.sizeHint().width(), list->sizeHintForColumn(0) + 60),
                  dialog.sizeHint().height());
    if (dialog.exec() != QDialog::Accepted) return {};
    std::vector<std::string> tries;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->checkState() == Qt::Checked)
            tries.push_back(list->item(i)->data(Qt::UserRole).toString().toStdString());
    if (tries.empty()) return tr("no alternative was checked; nothing was run");
    return start(std::move(doc), impl, std::move(tries), repeat->value());
}

QString WhatIfController::start(std::shared_ptr<const Document> doc, const QString& impl,
                                std::vector<std::string> tries, int repeat) {
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
    kernels::WhatIfPlan plan = kernels::whatIfPlan(*inputs, std::move(tries), repeat, {});
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
    const std::size_t steps = profilerSteps(*doc->trace).size();
    m_askedNow = doc;
    m_inputsNow = inputs;
    JobRunner::Callbacks<Learned> callbacks;
    callbacks.done = [this, closeProgress, notes, recorded, measured](Learned learned) {
        closeProgress();
        if (learned.impl.empty()) return; // cancelled as it ended
        m_learned = std::move(learned);
        m_asked = m_askedNow;
        m_inputs = m_inputsNow;
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
         calls, steps](JobControl& control) {
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
            Learned learned;
            learned.recordedPath = recorded.toStdString();
            learned.measuredPath = measured.toStdString();
            learned.impl = impl;
            learned.calls = calls;
            learned.steps = steps;
            learned.device =
                session.deviceName().empty() ? std::string("this machine's CPU") : session.deviceName();
            for (const auto& [name, why] : session.unavailable())
                learned.unavailable.push_back(name + ": " + why);
            const auto run = openDocument(DocumentSource::built(ran, measured.toStdString()));
            const ComparedTrace rows = compareEntry(*run, measured.toStdString());
            const CompareRow* asItWas = nullptr;
            std::vector<const CompareRow*> alternatives;
            for (const CompareRow& row : rows.rows)
                if (row.impl == impl)
                    asItWas = &row;
                else if (!row.impl.empty())
                    alternatives.push_back(&row);
            if (asItWas) {
                learned.asItWasNsPerCall = asItWas->calls.kernelNsPerCall();
                learned.savings = kernels::whatIfSavings(*run, *asItWas, alternatives, in);
            }
            return learned;
        },
        std::move(callbacks));
    return {};
}

std::shared_ptr<const Document> WhatIfController::taught(const std::shared_ptr<const Document>& shown) const {
    const kernels::WhatIfSaving* fused = kernels::fusedSaving(m_learned.savings);
    if (!fused || !m_inputs || !shown || m_asked.lock() != shown) return nullptr;
    return learnedDocument(*shown, {m_learned.impl, *m_inputs, fused->impl, fused->perCall, m_learned.device});
}

} // namespace attnscope::ui
