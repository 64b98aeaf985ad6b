// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <string_view>

namespace attnscope::ui {

// Text from the model (UTF-8: names, labels, formatted numbers) as a QString: the one conversion the
// UI uses. Names from files stay plain text wherever they are shown.
inline QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace attnscope::ui
