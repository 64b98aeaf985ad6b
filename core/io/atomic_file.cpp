// SPDX-License-Identifier: MIT
#include "core/io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace attnscope {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct AtomicFile::Impl {
    std::string path;
    std::string tempPath;
    int fd = -1;
    bool gzip = false;
    bool committed = false;
    z_stream z{};
    std::vector<char> out = std::vector<char>(1u << 20);

    void raw(const char* data, std::size_t n) {
        while (n > 0) {
            const ssize_t k = ::write(fd, data, n);
            if (k < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
            }
            data += k;
            n -= std::size_t(k);
        }
    }

    void deflateSome(const char* data, std::size_t n, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
        z.avail_in = static_cast<uInt>(n);
        do {
            z.next_out = reinterpret_cast<Bytef*>(out.data());
            z.avail_out = static_cast<uInt>(out.size());
            const int rc = deflate(&z, flush);
            if (rc == Z_STREAM_ERROR) throw std::runtime_error("gzip compression failed for " + path);
            raw(out.data(), out.size() - z.avail_out);
        } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in > 0));
    }
};

AtomicFile::AtomicFile(const std::string& path, bool gzip) : m(std::make_unique<Impl>()) {
    m->path = path;
    m->gzip = gzip;
    m->tempPath = path + ".tmp-XXXXXX";
    m->fd = ::mkstemp(m->tempPath.data());
    if (m->fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    if (gzip && deflateInit2(&m->z, 3, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        ::close(m->fd);
        ::unlink(m->tempPath.c_str());
        throw std::runtime_error("cannot start gzip compression");
    }
}

AtomicFile::~AtomicFile() {
    if (m->gzip) deflateEnd(&m->z);
    if (m->fd >= 0) ::close(m->fd);
    if (!m->committed) ::unlink(m->tempPath.c_str());
}

void AtomicFile::write(std::string_view bytes) {
    if (bytes.empty()) return;
    // zlib counts input in 32-bit units.
    while (bytes.size() > (1u << 30)) {
        write(bytes.substr(0, 1u << 30));
        bytes.remove_prefix(1u << 30);
    }
    if (m->gzip)
        m->deflateSome(bytes.data(), bytes.size(), Z_NO_FLUSH);
    else
        m->raw(bytes.data(), bytes.size());
}

void AtomicFile::commit() {
    if (m->gzip) m->deflateSome(nullptr, 0, Z_FINISH);
    // mkstemp makes the file private; a saved trace gets the usual permissions.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(m->fd, 0666 & ~mask);
    if (::fsync(m->fd) != 0 || ::close(m->fd) != 0) {
        m->fd = -1;
        throw std::runtime_error("cannot write " + m->path + ": " + std::strerror(errno));
    }
    m->fd = -1;
    if (::rename(m->tempPath.c_str(), m->path.c_str()) != 0)
        throw std::runtime_error("cannot rename into " + m->path + ": " + std::strerror(errno));
    m->committed = true;
}

} // namespace attnscope
