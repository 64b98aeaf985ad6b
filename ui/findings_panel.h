// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/findings.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QLabel;
class QListWidget;
class QTableWidget;
class QTextEdit;

namespace attnscope::ui {

// The Findings dock: one row per finding, most time at stake first (severity, title, time at stake,
// share, places); the selected finding's explanation and suggestion below, and its evidence, each
// place one click from the timeline.
class FindingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit FindingsPanel(QWidget* parent = nullptr);
    // A trace is on show whose analysis is still running (or none: nothing to say yet).
    void showPending(bool analysing);
    // The findings of the trace on show; startNs is where its times count from.
    // note: said after the count (a growing profile's findings made on fewer steps than it has).
    void showFindings(std::shared_ptr<const std::vector<Finding>> findings, TimeNs startNs,
                      const QString& note = {});
    QTableWidget* table() const { return m_table; }
    QListWidget* evidence() const { return m_evidence; }
    QTextEdit* explanation() const { return m_explanation; }
    // The implementation of the attention call a finding's places are in ("" none): a row whose finding is
    // about a call offers to try its alternatives.
    void setCallImplOf(std::function<QString(const QString& findingId)> implOf) {
        m_implOf = std::move(implOf);
    }

Q_SIGNALS:
    // A piece of evidence was clicked: select it on the timeline and zoom to it.
    // A place clicked: its event, and the stretch of time that shows it (from == to: the event's own).
    void evidenceActivated(attnscope::EventRef event, qint64 showFromNs, qint64 showToNs);
    // "Add Note on This Finding…" on a row: a note pinned to the finding (its rule's id).
    void noteRequested(const QString& findingId);
    // "Try the Alternatives on NAME's Shape…" on a row about an attention call: its implementation.
    void alternativesRequested(const QString& impl);

private:
    // Each row as tall as its title wrapped in the title column.
    void fitRows();
    void showDetails(int row);
    // The explanation of the finding with this id (none: empty), edited in place where it is the same one's.
    void showExplanation(const std::string& id, const QString& said);

    std::shared_ptr<const std::vector<Finding>> m_findings;
    std::function<QString(const QString&)> m_implOf;
    TimeNs m_startNs = 0;
    int m_rowsFitTo = -1;     // the title column's width the rows' heights are fitted to
    bool m_refilling = false; // showFindings is filling the list: showDetails waits for its selection
    std::string m_explained;  // the id of the finding the explanation is of
    QString m_explanationText; // what it says (its document's plain text turns no-break spaces to spaces)
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
    QTextEdit* m_explanation = nullptr;
    QListWidget* m_evidence = nullptr;
};

} // namespace attnscope::ui
