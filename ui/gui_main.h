// SPDX-License-Identifier: MIT
#pragma once

// The one symbol the executable looks up after loading libattnscope_ui.so.
extern "C" __attribute__((visibility("default"))) int attnscope_gui_main(int argc, char** argv);
