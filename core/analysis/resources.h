// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace attnscope {

// resources/kernel_roles.txt, device_specs.txt, findings.txt and call_shapes.txt as built in.
std::string_view builtinKernelRoles();
std::string_view builtinDeviceSpecs();
std::string_view builtinFindings();
std::string_view builtinCallShapes();

// A user's file that extends a built-in one: the file named by the environment variable, else
// ~/.config/attnscope/NAME ($XDG_CONFIG_HOME honoured). "" when there is none.
std::string userDataFile(const char* environmentVariable, const char* name);
// The same path as a person reads it: the home folder as "~" ("~/.config/attnscope/device_specs.txt").
std::string userDataFileForPeople(const char* environmentVariable, const char* name);
// A text file's contents, "" when it cannot be read (a user's data file that is not there).
std::string readTextFile(const std::string& path);

} // namespace attnscope
