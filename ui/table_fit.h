// SPDX-License-Identifier: MIT
#pragma once

// Tables of figures with prose at their end (Compare Variants, the Attention dock): the figures'
// columns as wide as their content, the last columns of prose sharing the room left and wrapping
// their text in taller rows, so that no column lies off to the right of a 1366-pixel screen.

class QTableView;

namespace attnscope::ui {

// Fits `table`'s columns now: the last `proseColumns` share what the others leave.
void fitProseColumns(QTableView* table, int proseColumns);

// Fits them now and again whenever the table is resized (word wrap turned on).
void keepProseColumnsFitted(QTableView* table, int proseColumns);

} // namespace attnscope::ui
