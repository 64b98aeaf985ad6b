// SPDX-License-Identifier: MIT
#include "details_panel.h"
#include "core/report/format.h"
#include "core/report/kernel_explanation.h"

#include "qt_text.h"

#include "core/io/timestamp.h"
#include "core/model/demangle.h"
#include "core/report/findings.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attnscope::ui {

namespace {

QLabel* plainLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

// A JSON string shown without its quotes when it holds no escapes; anything else as JSON.
QString jsonForPeople(std::string_view json) {
    if (json.size() >= 2 && json.front() == '"' && json.back() == '"' &&
        json.find('\\') == std::string_view::npos)
        return qs(json.substr(1, json.size() - 2));
    return qs(json);
}

} // namespace

std::optional<EventRef> enclosingOp(const Trace& trace, EventRef event) {
    const std::vector<EventRef> around = enclosingEvents(trace, event);
    for (const EventRef& e : around)
        if (trace.categoryKind(e) == CategoryKind::CpuOp) return e;
    if (around.empty()) return std::nullopt;
    return around.front();
}

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
    // Everything scrolls: long names, costs and verdicts wrap inside the dock's width, and the dock
    // never asks the window to grow for its content (a kernel of a graph once listed 1,565 links).
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    outer->addWidget(m_scroll);
    auto* content = new QWidget(m_scroll);
    auto* contentLayout = new QVBoxLayout(content);
    m_scroll->setWidget(content);
    m_placeholder = new QLabel(tr("Click an event on the timeline to see its details."), content);
    m_placeholder->setWordWrap(true);
    m_placeholder->setTextFormat(Qt::PlainText);
    contentLayout->addWidget(m_placeholder);
    m_body = new QWidget(content);
    contentLayout->addWidget(m_body);
    contentLayout->addStretch(1);
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);
    m_name = new QLineEdit(m_body);
    m_name->setReadOnly(true);
    m_name->setObjectName("detailsName");
    layout->addWidget(m_name);
    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    m_category = plainLabel(m_body);
    m_start = plainLabel(m_body);
    m_duration = plainLabel(m_body);
    m_track = plainLabel(m_body);
    m_correlation = plainLabel(m_body);
    form->addRow(tr("Category"), m_category);
    form->addRow(tr("Start"), m_start);
    form->addRow(tr("Duration"), m_duration);
    form->addRow(tr("Track"), m_track);
    form->addRow(tr("Correlation"), m_correlation);
    layout->addLayout(form);
    // Role, cost and roofline are shown for analysed kernels only. They live in a form of their own
    // that is hidden as one widget: hiding a word-wrapped row's label and field one by one made Qt
    // 6.4's QFormLayout::heightForWidth write past its buffers (valgrind: invalid writes, then crashes).
    m_why = new QWidget(m_body);
    auto* whyForm = new QFormLayout(m_why);
    whyForm->setContentsMargins(0, 0, 0, 0);
    m_role = plainLabel(m_why);
    m_cost = plainLabel(m_why);
    m_roofline = plainLabel(m_why);
    m_occupancy = plainLabel(m_why);
    for (auto [label, name] : {std::pair{m_role, "details_role"},
                               {m_cost, "details_cost"},
                               {m_roofline, "details_roofline"},
                               {m_occupancy, "details_occupancy"}})
        label->setObjectName(name);
    whyForm->addRow(tr("Role"), m_role);
    whyForm->addRow(tr("Cost"), m_cost);
    whyForm->addRow(tr("Roofline"), m_roofline);
    whyForm->addRow(tr("Occupancy"), m_occupancy);
    layout->addWidget(m_why);
    m_linksTitle = new QLabel(tr("Linked events"), m_body);
    QFont bold = m_linksTitle->font();
    bold.setBold(true);
    m_linksTitle->setFont(bold);
    layout->addWidget(m_linksTitle);
    m_links = new QVBoxLayout;
    layout->addLayout(m_links);
    auto* argsTitle = new QLabel(tr("Args"), m_body);
    argsTitle->setFont(bold);
    layout->addWidget(argsTitle);
    m_args = new QTableWidget(0, 2, m_body);
    m_args->setHorizontalHeaderLabels({tr("Arg"), tr("Value")});
    m_args->horizontalHeader()->setStretchLastSection(true);
    m_args->verticalHeader()->hide();
    m_args->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_args->setWordWrap(false);
    // As tall as its rows: the panel scrolls, not a table inside it.
    m_args->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_args->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    layout->addWidget(m_args);
    m_body->hide();
}

void DetailsPanel::setTrace(std::shared_ptr<const Trace> trace) {
    m_trace = std::move(trace);
    showEvent(std::nullopt);
}

void DetailsPanel::updateTrace(std::shared_ptr<const Trace> trace, std::optional<EventRef> event) {
    m_trace = std::move(trace);
    showEvent(event);
}

void DetailsPanel::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
    m_analysis = std::move(analysis);
    showEvent(m_shown);
}

void DetailsPanel::addLink(const QString& relation, EventRef event, const QString& note) {
    const Track& t = m_trace->track(event.track);
    const QString name = qs(m_trace->str(t.events.name[event.index]));
    const QString track = QString::fromStdString(m_trace->trackLabel(event.track));
    const QString duration = qs(formatDuration(t.events.duration[event.index]));
    auto* button = new QPushButton(m_body);
    button->setProperty("linkText", QStringLiteral("%1: %2 (%3, %4)").arg(relation, name, duration, track));
    // Kernel names run to hundreds of characters: the name is elided so the panel never widens and
    // shifts the timeline; the whole name and track are in the tooltip, and in the panel once clicked.
    button->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    button->setMinimumWidth(0);
    const QFontMetrics fm = button->fontMetrics();
    const QString frame = QStringLiteral("%1: %2 (%3)");
    const int room = std::max(80, m_scroll->viewport()->width() - 30 -
                                      fm.horizontalAdvance(frame.arg(relation, QString(), duration)));
    QString text = frame.arg(relation, fm.elidedText(name, Qt::ElideRight, room), duration);
    if (!note.isEmpty()) {
        button->setProperty("linkText",
                            button->property("linkText").toString() + QStringLiteral(", ") + note);
        text += QStringLiteral("\n") + note;
    }
    text.replace('&', QStringLiteral("&&")); // a button's '&' marks a shortcut; names are plain text
    button->setText(text);
    button->setFlat(true);
    button->setCursor(Qt::PointingHandCursor);
    button->setStyleSheet(QStringLiteral("text-align: left"));
    button->setToolTip(plainTip(QStringLiteral("%1\n%2, %3").arg(name, duration, track) +
                                (note.isEmpty() ? QString() : QStringLiteral("\n") + note)));
    connect(button, &QPushButton::clicked, this, [this, event] { Q_EMIT linkActivated(event); });
    m_links->addWidget(button);
}

// The panel's rows in the order it shows them: the event's facts, why it took its time, its links,
// its args.
void DetailsPanel::showEvent(std::optional<EventRef> event) {
    // Later, not now: this may run inside a link button's own clicked() (a link followed).
    while (QLayoutItem* item = m_links->takeAt(0)) {
        if (QWidget* w = item->widget()) { // link buttons and the "and N more" line
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_args->setRowCount(0);
    // Another event starts at its top: a long event's args left scrolled down showed the next one's middle.
    // The same event again (its analysis arrived, the trace grew) keeps where the reader is.
    if (event != m_shown) m_scroll->verticalScrollBar()->setValue(0);
    m_shown = event;
    if (!m_trace || !event) {
        m_body->hide();
        m_placeholder->show();
        return;
    }
    m_placeholder->hide();
    m_body->show();
    showFacts(*event);
    showWhy(*event);
    showLinks(*event);
    showArgs(*event);
}

void DetailsPanel::showFacts(EventRef e) {
    const Trace& trace = *m_trace;
    const Track& t = trace.track(e.track);
    const EventColumns& c = t.events;
    m_name->setText(QString::fromStdString(demangle(trace.str(c.name[e.index]))));
    m_name->setCursorPosition(0);
    m_category->setText(qs(trace.str(c.category[e.index])));
    const TimeNs start = c.start[e.index];
    m_start->setText(tr("+%1 from the trace's start (%2 µs)")
                         .arg(qs(formatDuration(start - trace.startNs())), qs(formatNsAsMicros(start))));
    m_duration->setText((c.flags[e.index] & kInstant) ? tr("instant")
                                                      : qs(formatDuration(c.duration[e.index])));
    m_track->setText(QString::fromStdString(trace.trackLabel(e.track)));
    m_correlation->setText(c.correlation[e.index] ? QString::number(c.correlation[e.index]) : tr("none"));
}

// What launched it and what it launched, flows, and the op around it.
void DetailsPanel::showLinks(EventRef e) {
    const Trace& trace = *m_trace;
    const auto launch = trace.launchOf(e);
    if (launch) {
        // A graph launch (cudaGraphLaunch, hipGraphLaunch) shares one correlation id among all the
        // kernels of the graph: one link to it, with how many kernels it launched.
        const std::size_t siblings = trace.gpuWorkOf(*launch).size();
        const bool graph = trace.str(trace.track(launch->track).events.name[launch->index]).find("Graph") !=
                           std::string_view::npos;
        const QString note = siblings <= 1 ? QString()
                             : graph       ? tr("one of %L1 kernels of this graph").arg(siblings)
                                           : tr("one of %L1 GPU events it launched").arg(siblings);
        addLink(tr("Launched by"), *launch, note);
        if (auto op = enclosingOp(trace, *launch)) addLink(tr("Inside CPU op"), *op);
    }
    const std::vector<EventRef> work = trace.gpuWorkOf(e);
    int shown = 0, more = 0;
    auto addCapped = [&](const QString& relation, EventRef other) {
        if (shown < kMaxLinksPerKind) {
            addLink(relation, other);
            ++shown;
        } else {
            ++more;
        }
    };
    for (const EventRef& w : work)
        addCapped(tr("Launches"), w);
    for (const Flow& f : trace.flowsOf(e)) {
        // Kineto's launch → kernel flows repeat the correlation links shown above.
        const EventRef other = f.from == e ? f.to : f.from;
        if (other == launch || std::find(work.begin(), work.end(), other) != work.end()) continue;
        addCapped(f.from == e ? tr("Flow to") : tr("Flow from"), other);
    }
    if (more > 0) {
        auto* label = new QLabel(tr("and %L1 more").arg(more), m_body);
        label->setObjectName("moreLinks");
        m_links->addWidget(label);
    }
    if (work.empty() && !launch)
        if (auto op = enclosingOp(trace, e)) addLink(tr("Inside"), *op);
    m_linksTitle->setVisible(m_links->count() > 0);
}

void DetailsPanel::showArgs(EventRef e) {
    const Trace& trace = *m_trace;
    trace.forEachArg(e, [&](std::string_view key, std::string_view value) {
        const int row = m_args->rowCount();
        m_args->insertRow(row);
        m_args->setItem(row, 0, new QTableWidgetItem(jsonForPeople("\"" + std::string(key) + "\"")));
        m_args->setItem(row, 1, new QTableWidgetItem(jsonForPeople(value)));
    });
    m_args->resizeColumnToContents(0);
}

void DetailsPanel::showWhy(EventRef e) {
    const KernelAnalysis* k = m_analysis ? m_analysis->find(e) : nullptr;
    m_why->setVisible(k != nullptr);
    if (!k) {
        showCallRange(e);
        return;
    }
    QString role = qs(roleLabel(k->role));
    if (k->call >= 0) {
        const AttentionCall& call = m_analysis->calls[std::size_t(k->call)];
        const QString kernels = qs(formatCount(call.kernels.size(), "kernel", "kernels"));
        role += tr(" · attention call %1 (%2, %3, %4)")
                    .arg(k->call + 1)
                    .arg(QString::fromStdString(call.impl), kernels, qs(formatDuration(call.duration())));
        if (call.scope)
            role +=
                tr(" · host %1 in %2")
                    .arg(qs(formatDuration(
                             m_trace->track(call.scope->track).events.duration[call.scope->index])),
                         qs(m_trace->str(m_trace->track(call.scope->track).events.name[call.scope->index])));
    }
    m_role->setText(unbroken(role));
    showOccupancy(e);
    if (k->cost == CostSource::Unknown) {
        m_cost->setText(tr("unknown: no op with input shapes that AttnScope models launched it"));
    } else {
        m_cost->setText(unbroken(tr("%1, %2, %3 — %4: %5")
                                     .arg(qs(formatRate(k->flops, "FLOP")), qs(formatRate(k->bytes, "B")),
                                          qs(precisionName(k->precision)), qs(costSourceLabel(k->cost)),
                                          QString::fromStdString(costBasis(*m_trace, *k)))));
    }
    m_roofline->setText(unbroken(QString::fromStdString(rooflineExplanation(*m_trace, *m_analysis, *k))));
}

void DetailsPanel::showCallRange(EventRef e) {
    // An attention call's own host range (its attention op or record_function range): the call it holds.
    if (!m_analysis) return;
    const auto& calls = m_analysis->calls;
    const auto it = std::find_if(calls.begin(), calls.end(),
                                 [&](const AttentionCall& c) { return c.scope && *c.scope == e; });
    if (it == calls.end()) return;
    TimeNs kernelNs = 0;
    for (std::uint32_t k : it->kernels) {
        const EventRef ke = m_analysis->kernels[k].event;
        kernelNs += m_trace->track(ke.track).events.duration[ke.index];
    }
    m_why->setVisible(true);
    m_role->setText(unbroken(tr("the host range of attention call %1 (%2, %3, %4 of kernels; host %5)")
                                 .arg(int(it - calls.begin()) + 1)
                                 .arg(QString::fromStdString(it->impl),
                                      qs(formatCount(it->kernels.size(), "kernel", "kernels")),
                                      qs(formatDuration(kernelNs)),
                                      qs(formatDuration(m_trace->track(e.track).events.duration[e.index])))));
    m_cost->setText(QStringLiteral("—"));
    m_roofline->setText(QStringLiteral("—"));
    m_occupancy->setText(QStringLiteral("—"));
}

void DetailsPanel::showOccupancy(EventRef e) {
    m_occupancy->setText(
        unbroken(QString::fromStdString(occupancyExplanation(*m_trace, m_analysis.get(), e))));
}

QString DetailsPanel::field(const QString& key) const {
    // As read: the spaces that keep a number beside its unit are spaces.
    return fieldText(key).replace(QChar(0x00A0), QLatin1Char(' '));
}

QString DetailsPanel::fieldText(const QString& key) const {
    if (key == "name") return m_name->text();
    if (key == "category") return m_category->text();
    if (key == "start") return m_start->text();
    if (key == "duration") return m_duration->text();
    if (key == "track") return m_track->text();
    if (key == "role") return m_why->isHidden() ? QString() : m_role->text();
    if (key == "cost") return m_why->isHidden() ? QString() : m_cost->text();
    if (key == "roofline") return m_why->isHidden() ? QString() : m_roofline->text();
    if (key == "occupancy") return m_why->isHidden() ? QString() : m_occupancy->text();
    if (key == "links") {
        QString out;
        for (int i = 0; i < m_links->count(); ++i)
            if (auto* b = qobject_cast<QPushButton*>(m_links->itemAt(i)->widget()))
                out += b->property("linkText").toString() + '\n';
        return out;
    }
    return {};
}

QString DetailsPanel::arg(const QString& key) const {
    for (int r = 0; r < m_args->rowCount(); ++r)
        if (m_args->item(r, 0)->text() == key) return m_args->item(r, 1)->text();
    return {};
}

} // namespace attnscope::ui
