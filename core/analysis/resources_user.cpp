// SPDX-License-Identifier: MIT
#include "core/analysis/resources.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace attnscope {

std::string userDataFile(const char* environmentVariable, const char* name) {
    if (const char* path = std::getenv(environmentVariable); path && *path) return path;
    if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
        return std::string(config) + "/attnscope/" + name;
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.config/attnscope/" + name;
    return {};
}

std::string userDataFileForPeople(const char* environmentVariable, const char* name) {
    std::string path = userDataFile(environmentVariable, name);
    if (path.empty()) return name;
    if (const char* home = std::getenv("HOME"); home && *home && std::string_view(home) != "/") {
        const std::string prefix = std::string(home) + "/";
        if (path.starts_with(prefix)) path = "~/" + path.substr(prefix.size());
    }
    return path;
}

std::string readTextFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace attnscope
