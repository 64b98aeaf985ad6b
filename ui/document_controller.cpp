// SPDX-License-Identifier: MIT
#include "document_controller.h"

#include "core/document/document.h"

#include "job_runner.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QStringList>
#include <QThreadPool>

#include <utility>

namespace attnscope::ui {

DocumentController::DocumentController(QObject* parent) : QObject(parent), m_jobs(new JobRunner(this)) {}

DocumentController::~DocumentController() = default; // the job runner waits for the jobs under way

void DocumentController::openFile(const QString& path) {
    start(DocumentSource::file(path.toStdString()), QFileInfo(path).fileName(), {}, path);
}

void DocumentController::openRanks(const QStringList& paths) {
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    start(DocumentSource::ranks(std::move(files)),
          tr("%1 ranks: %2").arg(paths.size()).arg(QFileInfo(paths.front()).fileName() + ", …"), {});
}

void DocumentController::openBytes(const QByteArray& bytes, const QString& name) {
    start(DocumentSource::memory(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                 name.toStdString()),
          name, bytes);
}

void DocumentController::start(DocumentSource source, const QString& name, const QByteArray& keepAlive,
                               const QString& path) {
    m_jobs->cancel("load"); // one load at a time; the document on show stays
    Q_EMIT loadStarted(name, !source.asRanks);
    JobRunner::Callbacks<std::shared_ptr<const Document>> callbacks;
    callbacks.done = [this, name, path](std::shared_ptr<const Document> doc) {
        m_nextPath = path;
        setDocument(std::move(doc), name, false);
        Q_EMIT loadEnded();
    };
    callbacks.failed = [this, name](const QString& message) {
        Q_EMIT loadFailed(name, message);
        Q_EMIT loadEnded();
    };
    callbacks.cancelled = [this] {
        Q_EMIT loadCancelled();
        Q_EMIT loadEnded();
    };
    callbacks.progress = [this](double f) { Q_EMIT loadProgress(f); };
    m_jobs->start<std::shared_ptr<const Document>>(
        "load",
        [source = std::move(source), keepAlive](JobControl& control) {
            DocumentOptions options;
            options.load.cancel = control.cancelFlag();
            options.load.progress = [&](std::uint64_t done, std::uint64_t total) {
                if (total) control.progress(double(done) / double(total));
            };
            options.parts = TimelinePart | SummaryPart; // the analysis follows the first paint
            return openDocument(source, options);
        },
        std::move(callbacks));
}

void DocumentController::showOpened(std::shared_ptr<const Document> document, const QString& name,
                                    bool sameRun) {
    if (!sameRun) m_jobs->cancel("load"); // a profile's first snapshot takes the view
    setDocument(std::move(document), name, sameRun);
}

void DocumentController::setDocument(std::shared_ptr<const Document> doc, const QString& name, bool sameRun) {
    m_jobs->invalidate("analysis"); // the analysis of the document it replaces is not wanted
    std::shared_ptr<const Document> replaced = std::exchange(m_document, std::move(doc));
    m_name = name;
    if (!sameRun) m_path = std::exchange(m_nextPath, QString());
    Q_EMIT documentChanged(sameRun);
    // The views have let the one it replaces go: it is freed on a worker, not here (a live profile's
    // previous snapshot holds an analysis of hundreds of thousands of calls and kernels), and after the
    // window has painted the new one — a paint is requested by a low-priority event, posted now if the
    // views changed, and this one comes after it — so that large blocks given back to the system do not
    // stall that paint.
    if (replaced && replaced.use_count() == 1)
        QCoreApplication::postEvent(this, new Replaced(std::move(replaced)), Qt::LowEventPriority);
}

DocumentController::Replaced::Replaced(std::shared_ptr<const Document> doc)
    : QEvent(kind()), document(std::move(doc)) {}

QEvent::Type DocumentController::Replaced::kind() {
    static const auto type = QEvent::Type(QEvent::registerEventType());
    return type;
}

bool DocumentController::event(QEvent* event) {
    if (event->type() != Replaced::kind()) return QObject::event(event);
    QThreadPool::globalInstance()->start(
        [replaced = std::move(static_cast<Replaced*>(event)->document)]() mutable { replaced.reset(); });
    return true;
}

void DocumentController::analyse() {
    if (!m_document || m_document->analysis) return;
    const auto doc = m_document;
    m_jobs->start<std::shared_ptr<const Document>>(
        "analysis", [doc] { return completeDocument(doc, AllParts); },
        [this, doc](std::shared_ptr<const Document> complete) {
            if (m_document != doc) return; // replaced meanwhile: its own analysis follows
            m_document = std::move(complete);
            Q_EMIT analysed();
        });
}

void DocumentController::cancelLoad() {
    m_jobs->cancel("load");
}

bool DocumentController::loading() const {
    return m_jobs->running("load");
}

bool DocumentController::analysing() const {
    return m_jobs->running("analysis");
}

} // namespace attnscope::ui
