// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace attnscope::app {

// The GUI lives in a module loaded only when a window (or a picture) is wanted, so the headless
// verbs start without Qt (and without a display) on GPU servers. The entry point's address, or null
// with why in error.
void* guiEntry(const char* argv0, const char* entryName, std::string& error);

// Whether a window can open: a display, or a Qt platform the user chose.
bool haveDisplay();

} // namespace attnscope::app
