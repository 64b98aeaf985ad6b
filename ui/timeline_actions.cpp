// SPDX-License-Identifier: MIT
#include "timeline_actions.h"

#include "navigation_keys.h"
#include "timeline_view.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QSettings>

#include <algorithm>

namespace attnscope::ui {

TimelineActions addTimelineActions(QMenu* view, TimelineView* timeline) {
    auto add = [&](const QString& text, const QString& keyHint, auto fn) {
        return view->addAction(text + '\t' + keyHint, timeline, fn);
    };
    TimelineActions actions;
    for (const NavigationKey& k : navigationKeys()) {
        QAction* a = add(QMenu::tr(k.command), QString::fromLatin1(k.hint),
                         [timeline, action = k.action] { timeline->navigate(action); });
        if (k.action == NavigationAction::FitAll) actions.fitAll = a;
    }
    view->addSeparator();
    actions.back = view->addAction(QMenu::tr("Back"), timeline, [timeline] { timeline->back(); });
    actions.back->setShortcut(QKeySequence::Back);
    actions.forward = view->addAction(QMenu::tr("Forward"), timeline, [timeline] { timeline->forward(); });
    actions.forward->setShortcut(QKeySequence::Forward);
    add(QMenu::tr("Clear Range"), "Esc", [timeline] { timeline->setRange(std::nullopt); });
    view->addSeparator();
    QAction* legend = view->addAction(QMenu::tr("Legend"));
    legend->setCheckable(true);
    legend->setChecked(QSettings().value("view/legend", true).toBool());
    timeline->setLegendVisible(legend->isChecked());
    QObject::connect(legend, &QAction::toggled, timeline, [timeline](bool on) {
        timeline->setLegendVisible(on);
        QSettings().setValue("view/legend", on);
    });
    QAction* fold = view->addAction(QMenu::tr("Fold Attention Calls"));
    fold->setCheckable(true);
    fold->setToolTip(QMenu::tr("Each attention call as one block labelled with its implementation and time"));
    QObject::connect(fold, &QAction::toggled, timeline, [timeline](bool on) { timeline->setFoldCalls(on); });
    QMenu* colours = view->addMenu(QMenu::tr("Colour Kernels By"));
    auto* colourGroup = new QActionGroup(colours);
    const int savedMode = QSettings().value("view/colorMode", 0).toInt();
    for (const auto& [label, mode] : {std::pair{QMenu::tr("Role"), ColorMode::Role},
                                      std::pair{QMenu::tr("Roofline Verdict"), ColorMode::Verdict},
                                      std::pair{QMenu::tr("Name"), ColorMode::Name}}) {
        QAction* a = colours->addAction(label, timeline, [timeline, mode = mode] {
            timeline->setColorMode(mode);
            QSettings().setValue("view/colorMode", int(mode));
        });
        a->setCheckable(true);
        a->setChecked(int(mode) == savedMode);
        colourGroup->addAction(a);
    }
    timeline->setColorMode(ColorMode(std::clamp(savedMode, 0, 2)));
    return actions;
}

} // namespace attnscope::ui
