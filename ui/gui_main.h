// SPDX-License-Identifier: MIT
#pragma once

#include "gui_export.h"

// The symbols the executable looks up after loading libattnscope_ui.so: the window (argv: the
// trace files and the window's own options), and the picture exports that need Qt's painting but
// no display (exit 0, 1 when the trace cannot be read or drawn, 2 for a request it cannot draw).
extern "C" __attribute__((visibility("default"))) int attnscope_gui_main(int argc, char** argv);
extern "C" __attribute__((visibility("default"))) int
attnscope_gui_export(const attnscope::ui::ExportRequest* request);
