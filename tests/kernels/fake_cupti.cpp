// SPDX-License-Identifier: MIT
// A fake of the CUPTI entry points AttnScope's collector loads (ATTNSCOPE_CUPTI_LIBRARY points it
// here), for testing the collector without a GPU: it logs the calls made to it, hands out records
// through the buffer callbacks as CUPTI does, and can hold records back until the activity is
// disabled — as work still running on the device would complete late.
#include <cupti_activity.h>
#include <cupti_callbacks.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::vector<std::string> g_calls;
std::set<int> g_enabled;
struct Buffer {
    std::uint8_t* data;
    std::size_t size, valid;
};
std::vector<Buffer> g_open; // handed out, holding records, not yet completed
int g_late = 0;
std::uint64_t g_next = 2000;

void write(int count) {
    for (int i = 0; i < count; ++i) {
        if (g_open.empty() || g_open.back().valid + sizeof(CUpti_ActivityOverhead3) > g_open.back().size) {
            Buffer b{nullptr, 0, 0};
            std::size_t maxRecords = 0;
            g_request(&b.data, &b.size, &maxRecords);
            g_open.push_back(b);
        }
        CUpti_ActivityOverhead3 r{};
        r.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        r.start = g_next;
        r.end = g_next + 10;
        g_next += 20;
        Buffer& b = g_open.back();
        std::memcpy(b.data + b.valid, &r, sizeof r);
        b.valid += sizeof r;
    }
}

} // namespace

extern "C" {

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
    g_request = request;
    g_complete = complete;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
    g_calls.push_back("enable");
    g_enabled.insert(int(kind));
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
    g_calls.push_back("disable");
    g_enabled.erase(int(kind));
    if (g_enabled.empty() && g_late) { // the device's last work completes
        write(g_late);
        g_late = 0;
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
    g_calls.push_back(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED ? "flush forced" : "flush");
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) {
        std::vector<Buffer> done;
        done.swap(g_open);
        for (const Buffer& b : done)
            g_complete(nullptr, 0, b.data, b.size, b.valid);
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
    std::uint8_t* next =
        *record ? reinterpret_cast<std::uint8_t*>(*record) + sizeof(CUpti_ActivityOverhead3) : buffer;
    if (next + sizeof(CUpti_ActivityOverhead3) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<CUpti_Activity*>(next);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
    *dropped = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t) {
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t* last) {
    *last = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
    *timestamp = 1000;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult, const char** text) {
    *text = "fake CUPTI error";
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
    *name = "fakeCall";
    return CUPTI_SUCCESS;
}

// The test's controls (a test may run several times in one process: it starts from a reset).
void fakeCuptiReset() {
    g_calls.clear();
    g_enabled.clear();
    g_open.clear();
    g_late = 0;
    g_next = 2000;
}
void fakeCuptiEmit(int count) {
    write(count);
}
void fakeCuptiHoldUntilDisabled(int count) {
    g_late += count;
}
const char* fakeCuptiCalls() {
    static std::string joined;
    joined.clear();
    for (const std::string& c : g_calls)
        joined += c + ";";
    return joined.c_str();
}
}
