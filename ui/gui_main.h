// SPDX-License-Identifier: MIT
#pragma once

// The symbols the executable looks up after loading libattnscope_ui.so: the window, and the
// picture exports that need Qt's painting but no display.
extern "C" __attribute__((visibility("default"))) int attnscope_gui_main(int argc, char** argv);
extern "C" __attribute__((visibility("default"))) int attnscope_gui_export(int argc, char** argv);
