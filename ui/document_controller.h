// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <QByteArray>
#include <QEvent>
#include <QObject>
#include <QString>

#include <memory>

namespace attnscope {
struct Document;
struct DocumentSource;
} // namespace attnscope

namespace attnscope::ui {

class JobRunner;

// The window's document: the trace on show and the background work that makes it. Files, ranks and
// the embedded sample open through openDocument on a worker (one load at a time: a new one cancels
// the old, and the document on show stays until the new one is ready); a live run's snapshots are
// documents too. Each new document is shown as soon as its timeline and summary exist; its analysis
// (roles, calls, costs, roofline) completes after, on a worker, into a new document.
class DocumentController : public QObject {
    Q_OBJECT
public:
    explicit DocumentController(QObject* parent = nullptr);
    ~DocumentController() override;

    void openFile(const QString& path);
    void openRanks(const QStringList& paths);
    void openBytes(const QByteArray& bytes, const QString& name);
    // A document opened on a worker elsewhere (a live run's or a profiled program's snapshot); sameRun:
    // a later snapshot of the one on show.
    void showOpened(std::shared_ptr<const Document> document, const QString& name, bool sameRun);
    // Completes the analysis of the document on show, on a worker; analysed() follows.
    void analyse();
    void cancelLoad();

    bool loading() const;
    bool analysing() const;
    std::shared_ptr<const Document> document() const { return m_document; }
    QString name() const { return m_name; }
    // The file the document on show was opened from ("" for ranks, a run, a profile, the sample): where
    // its notes file goes.
    QString path() const { return m_path; }

Q_SIGNALS:
    // A load began; measurable: progress will follow (else the load reports none).
    void loadStarted(const QString& name, bool measurable);
    void loadProgress(double fraction);
    // A new document is on show (sameRun: a run's later snapshot, the views keep their state).
    void documentChanged(bool sameRun);
    // The document on show now has its analysis.
    void analysed();
    void loadFailed(const QString& name, const QString& message);
    void loadCancelled();
    // A load ended: shown, failed or cancelled (after the signal that says which).
    void loadEnded();

protected:
    bool event(QEvent* event) override; // lets a replaced document go (setDocument)

private:
    void start(DocumentSource source, const QString& name, const QByteArray& keepAlive,
               const QString& path = {});
    void setDocument(std::shared_ptr<const Document> doc, const QString& name, bool sameRun);

    // A document another replaced, on its way to a worker that frees it.
    struct Replaced : QEvent {
        explicit Replaced(std::shared_ptr<const Document> doc);
        static QEvent::Type kind();
        std::shared_ptr<const Document> document;
    };

    JobRunner* m_jobs = nullptr; // "load" and "analysis"
    std::shared_ptr<const Document> m_document;
    QString m_name;
    QString m_path, m_nextPath;
};

} // namespace attnscope::ui
