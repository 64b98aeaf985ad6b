// SPDX-License-Identifier: MIT
#include "core/io/nsys_reader.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"

#include "core/io/json_escape.h"
#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"

#include <sqlite3.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

namespace attnscope {

namespace {

// A read-only connection and its statements, closed on every path out.
class Database {
public:
    explicit Database(const std::string& path) {
        // immutable: nsys exports are never written while read; no journal or lock files are made.
        const std::string uri = "file:" + encodeUri(path) + "?mode=ro&immutable=1";
        if (sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
            SQLITE_OK) {
            const std::string why = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            m_db = nullptr;
            throw LoadError("cannot open the SQLite file: " + why);
        }
    }
    ~Database() { sqlite3_close(m_db); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    bool hasTable(const std::string& name) {
        bool found = false;
        each("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", {name},
             [&](sqlite3_stmt*) { found = true; });
        return found;
    }
    bool hasTableLike(const std::string& pattern) {
        bool found = false;
        each("SELECT 1 FROM sqlite_master WHERE type='table' AND name LIKE ?1 ESCAPE '\\'", {pattern},
             [&](sqlite3_stmt*) { found = true; });
        return found;
    }
    std::set<std::string> columns(const std::string& table) {
        std::set<std::string> out;
        each("PRAGMA table_info(" + table + ")", {}, [&](sqlite3_stmt* s) { out.insert(text(s, 1)); });
        return out;
    }
    // Runs sql with text parameters, calling row for each result row.
    template <class Row> void each(const std::string& sql, const std::vector<std::string>& params, Row row) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw LoadError(std::string("the nsys export could not be read: ") + sqlite3_errmsg(m_db));
        for (std::size_t i = 0; i < params.size(); ++i)
            sqlite3_bind_text(s, int(i + 1), params[i].c_str(), -1, SQLITE_TRANSIENT);
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
            row(s);
        const std::string why = sqlite3_errmsg(m_db);
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE) throw LoadError("the nsys export could not be read: " + why);
    }
    static std::string text(sqlite3_stmt* s, int column) {
        const unsigned char* t = sqlite3_column_text(s, column);
        return t ? reinterpret_cast<const char*>(t) : std::string();
    }

private:
    static std::string encodeUri(const std::string& path) {
        std::string out;
        for (unsigned char c : path) {
            if (c == '%' || c == '?' || c == '#' || c < 0x20) {
                char hex[4];
                std::snprintf(hex, sizeof hex, "%%%02X", c);
                out += hex;
            } else {
                out += char(c);
            }
        }
        return out;
    }
    sqlite3* m_db = nullptr;
};

std::int64_t pidOf(std::int64_t globalId) {
    return (globalId >> 24) & 0xFFFFFF;
}
std::int64_t tidOf(std::int64_t globalTid) {
    return globalTid & 0xFFFFFF;
}

const char* copyKindName(std::int64_t kind) {
    switch (kind) {
    case 1:
        return "HtoD";
    case 2:
        return "DtoH";
    case 3:
        return "HtoA";
    case 4:
        return "AtoH";
    case 5:
        return "AtoA";
    case 6:
        return "AtoD";
    case 7:
        return "DtoA";
    case 8:
        return "DtoD";
    case 9:
        return "HtoH";
    case 10:
        return "PtoP";
    default:
        return "Unknown";
    }
}

const char* memoryKindName(std::int64_t kind) {
    switch (kind) {
    case 0:
        return "Pageable";
    case 1:
        return "Pinned";
    case 2:
    case 5:
        return "Device";
    case 3:
        return "Array";
    case 4:
    case 6:
        return "Managed";
    default:
        return "Unknown";
    }
}

} // namespace

namespace {

// One export read into a builder, table by table: each read* reads one kind of row if the export has
// its table, choosing its columns by name (exports differ by version).
class NsysImport {
public:
    NsysImport(const std::string& path, const LoadOptions& options)
        : db(path), options(options), pool(b.strings()) {
        b.info().path = path;
        b.info().format = kNsysSqliteFormat;
    }

    std::shared_ptr<const Trace> read() {
        checkExport();
        readStrings();
        readProcessesAndThreads();
        readGpus();
        readKernels();
        readMemcpys();
        readMemsets();
        readApiCalls();
        readNvtx();
        b.info().eventsRead = events;
        for (std::string& w : warnings)
            b.info().warnings.push_back(std::move(w));
        if (options.progress) options.progress(1, 1);
        return b.finish();
    }

private:
    void cancelled() const {
        if (options.cancel && options.cancel->load()) throw LoadCancelled();
    }

    void checkExport() {
        // An export is known by what it holds, not by its version: the string table and the tables of
        // the target or of CUPTI's activity. Nsight Systems up to 2023.2 named the metadata table
        // EXPORT_META_DATA and 2022.1–2022.2 wrote schema 2.9; every column read below is checked by
        // name, so any schema that has them is read.
        if (!db.hasTable("StringIds") ||
            !(db.hasTableLike("TARGET\\_INFO\\_%") || db.hasTableLike("CUPTI\\_ACTIVITY\\_%")))
            throw LoadError("a SQLite file, but not an Nsight Systems export (no StringIds table beside "
                            "TARGET_INFO_* or CUPTI_ACTIVITY_* tables): export a report with `nsys export "
                            "--type sqlite`");
        // The columns of a table the reader uses, to choose what to select; an essential one missing is
        // an error that names it.
    }

    // The columns of a table the reader uses, to choose what to select; an essential one missing is
    // an error that names it.
    std::set<std::string> columnsOf(const std::string& table, std::initializer_list<const char*> essential) {
        const std::set<std::string> cols = db.columns(table);
        for (const char* c : essential)
            if (!cols.count(c))
                throw LoadError("an Nsight Systems export whose " + table + " table has no " + c +
                                " column, which AttnScope needs");
        return cols;
    }
    static std::string orZero(const std::set<std::string>& cols, const char* column) {
        return cols.count(column) ? std::string(column) : std::string("0");
    }

    void readStrings() {
        columnsOf("StringIds", {"id", "value"});
        db.each("SELECT id, value FROM StringIds", {},
                [&](sqlite3_stmt* s) { strings[sqlite3_column_int64(s, 0)] = Database::text(s, 1); });
    }
    std::string stringOf(std::int64_t id) const {
        auto it = strings.find(id);
        return it == strings.end() ? std::string() : it->second;
    }

    // Host processes and threads by their global ids; GPUs by device.
    StringId hostPid(std::int64_t globalPid) { return pool.intern(std::to_string(pidOf(globalPid))); }
    TrackId hostTrack(std::int64_t globalTid) {
        return b.track(hostPid(globalTid), pool.intern(std::to_string(tidOf(globalTid))));
    }
    StringId gpuPid(std::int64_t device) {
        // Keyed "GPU N", which no host pid can be, and which the summary shows as the device.
        const std::string key = gpuName(device);
        const StringId pid = pool.intern(key);
        b.setProcessLabels(pid, key);
        return pid;
    }
    TrackId streamTrack(std::int64_t device, std::int64_t stream) {
        const StringId pid = gpuPid(device);
        const StringId tid = pool.intern("stream " + std::to_string(stream));
        b.setThreadName(pid, tid, "stream " + std::to_string(stream));
        b.setThreadSortIndex(pid, tid, stream);
        return b.track(pid, tid);
    }

    void readProcessesAndThreads() {
        if (db.hasTable("PROCESSES") && db.columns("PROCESSES").count("globalPid") &&
            db.columns("PROCESSES").count("name"))
            db.each("SELECT globalPid, name FROM PROCESSES", {}, [&](sqlite3_stmt* s) {
                const std::string name = Database::text(s, 1);
                if (!name.empty()) b.setProcessName(hostPid(sqlite3_column_int64(s, 0)), name);
            });
        if (db.hasTable("ThreadNames") && db.columns("ThreadNames").count("globalTid") &&
            db.columns("ThreadNames").count("nameId"))
            db.each("SELECT globalTid, nameId FROM ThreadNames", {}, [&](sqlite3_stmt* s) {
                const std::int64_t g = sqlite3_column_int64(s, 0);
                b.setThreadName(hostPid(g), pool.intern(std::to_string(tidOf(g))),
                                stringOf(sqlite3_column_int64(s, 1)));
            });
    }

    void readGpus() {
        if (db.hasTable("TARGET_INFO_GPU")) {
            const std::set<std::string> cols = columnsOf("TARGET_INFO_GPU", {"id", "name"});
            // CUPTI's deviceId is the CUDA device ordinal, which TARGET_INFO_GPU calls cuDevice; its id
            // is nsys's own numbering (they differ on multi-GPU nodes).
            const std::string device = cols.count("cuDevice") ? "cuDevice" : "id";
            db.each("SELECT " + device + ", name, " + orZero(cols, "smCount") + ", " +
                        orZero(cols, "totalMemory") + ", " + orZero(cols, "computeMajor") + ", " +
                        orZero(cols, "computeMinor") + " FROM TARGET_INFO_GPU",
                    {}, [&](sqlite3_stmt* s) {
                        DeviceInfo d;
                        d.id = sqlite3_column_int64(s, 0);
                        d.name = Database::text(s, 1);
                        d.numSms = sqlite3_column_int(s, 2);
                        d.totalGlobalMem = std::uint64_t(sqlite3_column_int64(s, 3));
                        d.computeMajor = sqlite3_column_int(s, 4);
                        d.computeMinor = sqlite3_column_int(s, 5);
                        d.json = "{\"id\":" + std::to_string(d.id) + ",\"name\":" + jsonQuoted(d.name) + "}";
                        b.addDevice(d);
                        b.setProcessName(gpuPid(d.id), gpuName(d.id));
                    });
        }
    }

    // A row of a GPU activity table selected as start, end, deviceId, streamId, correlationId, …: a
    // slice on its stream, with those as its first args and the table's own after them.
    void addGpuSlice(sqlite3_stmt* s, const std::string& name, StringId category,
                     std::vector<std::pair<std::string, std::string>> own) {
        const std::int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
        const std::int64_t device = sqlite3_column_int64(s, 2), stream = sqlite3_column_int64(s, 3);
        const std::int64_t correlation = sqlite3_column_int64(s, 4);
        own.insert(own.begin(), {{kineto::kDevice, std::to_string(device)},
                                 {kineto::kStream, std::to_string(stream)},
                                 {kineto::kCorrelation, std::to_string(correlation)}});
        b.addSlice(streamTrack(device, stream), start, std::max<std::int64_t>(0, end - start),
                   pool.intern(name), category, std::uint64_t(correlation), encode(own));
    }

    std::string_view encode(const std::vector<std::pair<std::string, std::string>>& args) {
        encoder.clear();
        for (const auto& [key, value] : args)
            encoder.addCopy(key, value);
        encoded.clear();
        encoder.encode(pool, encoded);
        return std::string_view(encoded);
    }
    static std::string triple(sqlite3_stmt* s, int at) {
        return "[" + std::to_string(sqlite3_column_int64(s, at)) + "," +
               std::to_string(sqlite3_column_int64(s, at + 1)) + "," +
               std::to_string(sqlite3_column_int64(s, at + 2)) + "]";
    }

    void readKernels() {
        if (db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
            cancelled();
            const std::set<std::string> cols = columnsOf(
                "CUPTI_ACTIVITY_KIND_KERNEL", {"start", "end", "deviceId", "streamId", "correlationId"});
            // The kernel's name: demangled, else short, else mangled — the first that resolves to a real
            // name (some exports' shortName is only "Kernel"). DLProf's exports add text columns of their
            // own.
            std::vector<std::string> nameColumns;
            for (const char* c : {"demangledName", "shortName", "mangledName"})
                if (cols.count(c)) nameColumns.push_back(c);
            if (nameColumns.empty())
                throw LoadError("an Nsight Systems export whose CUPTI_ACTIVITY_KIND_KERNEL table has no "
                                "demangledName, shortName or mangledName column, which AttnScope needs");
            while (nameColumns.size() < 3)
                nameColumns.push_back("NULL");
            std::uint64_t rows = 0;
            db.each("SELECT start, end, deviceId, streamId, correlationId, " + nameColumns[0] + ", " +
                        nameColumns[1] + ", " + nameColumns[2] + ", " + orZero(cols, "gridX") + ", " +
                        orZero(cols, "gridY") + ", " + orZero(cols, "gridZ") + ", " + orZero(cols, "blockX") +
                        ", " + orZero(cols, "blockY") + ", " + orZero(cols, "blockZ") + ", " +
                        orZero(cols, "registersPerThread") + ", " + orZero(cols, "staticSharedMemory") +
                        ", " + orZero(cols, "dynamicSharedMemory") + ", " + orZero(cols, "contextId") +
                        " FROM CUPTI_ACTIVITY_KIND_KERNEL",
                    {}, [&](sqlite3_stmt* s) {
                        std::string name;
                        for (int c = 5; c < 8; ++c) {
                            if (sqlite3_column_type(s, c) == SQLITE_NULL) continue;
                            std::string candidate = stringOf(sqlite3_column_int64(s, c));
                            if (candidate.empty()) continue;
                            const bool placeholder = candidate == "Kernel" || candidate == "kernel";
                            if (name.empty() || !placeholder) name = std::move(candidate);
                            if (!placeholder) break;
                        }
                        if (name.empty()) name = "(unnamed kernel)";
                        addGpuSlice(
                            s, name, kernelCat,
                            {{"context", std::to_string(sqlite3_column_int64(s, 17))},
                             {kineto::kGrid, triple(s, 8)},
                             {kineto::kBlock, triple(s, 11)},
                             {kineto::kRegistersPerThread, std::to_string(sqlite3_column_int64(s, 14))},
                             {kineto::kSharedMemory,
                              std::to_string(sqlite3_column_int64(s, 15) + sqlite3_column_int64(s, 16))}});
                        ++events;
                        ++rows;
                    });
            if (rows == 0)
                warnings.push_back("the export's kernel table is empty: no GPU kernel ran while nsys traced");
        } else {
            warnings.push_back(db.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME")
                                   ? "the export has no kernel table (CUPTI_ACTIVITY_KIND_KERNEL): no GPU "
                                     "kernel ran while nsys "
                                     "traced"
                                   : "the export has no CUDA tables: the report was taken with CUDA tracing "
                                     "off (nsys profile "
                                     "--trace=cuda,… records kernels)");
        }
    }

    void readMemcpys() {
        if (db.hasTable("CUPTI_ACTIVITY_KIND_MEMCPY")) {
            cancelled();
            const std::set<std::string> cols = columnsOf(
                "CUPTI_ACTIVITY_KIND_MEMCPY", {"start", "end", "deviceId", "streamId", "correlationId"});
            db.each("SELECT start, end, deviceId, streamId, correlationId, " + orZero(cols, "bytes") + ", " +
                        orZero(cols, "copyKind") + ", " + orZero(cols, "srcKind") + ", " +
                        orZero(cols, "dstKind") + " FROM CUPTI_ACTIVITY_KIND_MEMCPY",
                    {}, [&](sqlite3_stmt* s) {
                        const std::string name = std::string("Memcpy ") +
                                                 copyKindName(sqlite3_column_int64(s, 6)) + " (" +
                                                 memoryKindName(sqlite3_column_int64(s, 7)) + " -> " +
                                                 memoryKindName(sqlite3_column_int64(s, 8)) + ")";
                        addGpuSlice(s, name, memcpyCat,
                                    {{"bytes", std::to_string(sqlite3_column_int64(s, 5))},
                                     {"kind", jsonQuoted(copyKindName(sqlite3_column_int64(s, 6)))}});
                        ++events;
                    });
        }
    }

    void readMemsets() {
        if (db.hasTable("CUPTI_ACTIVITY_KIND_MEMSET")) {
            cancelled();
            const std::set<std::string> cols = columnsOf(
                "CUPTI_ACTIVITY_KIND_MEMSET", {"start", "end", "deviceId", "streamId", "correlationId"});
            const char* kindColumn = cols.count("memKind")      ? "memKind"
                                     : cols.count("memoryKind") ? "memoryKind"
                                                                : "0";
            db.each("SELECT start, end, deviceId, streamId, correlationId, " + orZero(cols, "bytes") + ", " +
                        orZero(cols, "value") + ", " + kindColumn + " FROM CUPTI_ACTIVITY_KIND_MEMSET",
                    {}, [&](sqlite3_stmt* s) {
                        addGpuSlice(
                            s, std::string("Memset (") + memoryKindName(sqlite3_column_int64(s, 7)) + ")",
                            memsetCat,
                            {{"bytes", std::to_string(sqlite3_column_int64(s, 5))},
                             {"value", std::to_string(sqlite3_column_int64(s, 6))}});
                        ++events;
                    });
        }
    }

    // CUDA runtime and driver calls, on their host threads.
    void readApiCalls() {
        for (const auto& [table, category] : {std::pair{"CUPTI_ACTIVITY_KIND_RUNTIME", runtimeCat},
                                              std::pair{"CUPTI_ACTIVITY_KIND_DRIVER", driverCat}}) {
            if (!db.hasTable(table)) continue;
            cancelled();
            const std::set<std::string> cols =
                columnsOf(table, {"start", "end", "globalTid", "correlationId", "nameId"});
            db.each("SELECT start, end, globalTid, correlationId, nameId, " + orZero(cols, "returnValue") +
                        " FROM " + table,
                    {}, [&, category = category](sqlite3_stmt* s) {
                        const std::int64_t start = sqlite3_column_int64(s, 0),
                                           end = sqlite3_column_int64(s, 1);
                        const std::int64_t correlation = sqlite3_column_int64(s, 3);
                        std::vector<std::pair<std::string, std::string>> args = {
                            {kineto::kCorrelation, std::to_string(correlation)}};
                        if (const std::int64_t rv = sqlite3_column_int64(s, 5))
                            args.emplace_back("return", std::to_string(rv));
                        b.addSlice(hostTrack(sqlite3_column_int64(s, 2)), start,
                                   std::max<std::int64_t>(0, end - start),
                                   pool.intern(stringOf(sqlite3_column_int64(s, 4))), category,
                                   std::uint64_t(correlation), encode(args));
                        ++events;
                    });
        }
    }

    void readNvtx() {
        if (db.hasTable("NVTX_EVENTS")) {
            cancelled();
            const std::set<std::string> cols = columnsOf("NVTX_EVENTS", {"start", "end", "globalTid"});
            const bool hasText = cols.count("text") > 0;
            const bool textId = cols.count("textId") > 0;
            // Only marks and ranges are events (NvtxMark 34, NvtxPushPopRange 59, NvtxStartEndRange 60
            // and their NVTXT forms 65, 70, 71); the table also holds registrations — categories,
            // thread and domain names — which are not.
            const char* markOrRange =
                cols.count("eventType") ? " AND eventType IN (34, 59, 60, 65, 70, 71)" : "";
            db.each(std::string("SELECT start, end, globalTid, ") + (hasText ? "text" : "NULL") + ", " +
                        (textId ? "textId" : "NULL") + " FROM NVTX_EVENTS WHERE globalTid IS NOT NULL" +
                        markOrRange,
                    {}, [&](sqlite3_stmt* s) {
                        const std::int64_t start = sqlite3_column_int64(s, 0);
                        std::string text = Database::text(s, 3);
                        if (text.empty() && sqlite3_column_type(s, 4) != SQLITE_NULL)
                            text = stringOf(sqlite3_column_int64(s, 4));
                        if (text.empty()) text = "(NVTX)";
                        const TrackId track = hostTrack(sqlite3_column_int64(s, 2));
                        if (sqlite3_column_type(s, 1) == SQLITE_NULL)
                            b.addInstant(track, start, pool.intern(text), nvtxCat, {});
                        else
                            b.addSlice(track, start,
                                       std::max<std::int64_t>(0, sqlite3_column_int64(s, 1) - start),
                                       pool.intern(text), nvtxCat, 0, {});
                        ++events;
                    });
        }
    }

    Database db;
    const LoadOptions& options;
    TraceBuilder b;
    StringPool& pool;
    std::unordered_map<std::int64_t, std::string> strings;
    ArgsEncoder encoder;
    std::string encoded;
    std::uint64_t events = 0;
    std::vector<std::string> warnings;
    const StringId kernelCat = pool.intern(category::kKernel), memcpyCat = pool.intern(category::kMemcpy),
                   memsetCat = pool.intern(category::kMemset), runtimeCat = pool.intern(category::kRuntime),
                   driverCat = pool.intern(category::kDriver),
                   nvtxCat = pool.intern(category::kUserAnnotation);
};

} // namespace

std::shared_ptr<const Trace> readNsysSqlite(const std::string& path, const LoadOptions& options) {
    return NsysImport(path, options).read();
}

} // namespace attnscope
