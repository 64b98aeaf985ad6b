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

// An entry of the GUI module that draws with no display (export, report): Qt's offscreen platform chosen
// when there is no display; null, with "VERB: the Qt part of AttnScope cannot load: why" said, when the
// module cannot load.
void* headlessEntry(const char* argv0, const char* entryName, const char* verb);
// Runs it on the request: its exit status, or 1 when it cannot load.
template <class Request>
int runHeadless(const char* argv0, const char* entryName, const char* verb, const Request& r) {
    void* entry = headlessEntry(argv0, entryName, verb);
    return entry ? reinterpret_cast<int (*)(const Request*)>(entry)(&r) : 1;
}

} // namespace attnscope::app
