// SPDX-License-Identifier: MIT
#pragma once

#include "gui_requests.h"

// The symbols the executable looks up after loading libattnscope_ui.so: the window, and the picture
// exports that need Qt's painting but no display (exit 0, 1 when the trace cannot be read or drawn,
// 2 for a request it cannot draw). argv0: the program, for Qt.
extern "C" __attribute__((visibility("default"))) int
attnscope_gui_main(const char* argv0, const attnscope::ui::WindowRequest* request);
extern "C" __attribute__((visibility("default"))) int
attnscope_gui_export(const attnscope::ui::ExportRequest* request);
extern "C" __attribute__((visibility("default"))) int
attnscope_gui_report(const attnscope::ui::ReportRequest* request);
