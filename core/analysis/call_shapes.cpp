// SPDX-License-Identifier: MIT
#include "core/analysis/call_shapes.h"

#include "core/analysis/resources.h"
#include "core/model/text_match.h"

#include <algorithm>
#include <charconv>

namespace attnscope {

namespace {

// "elementwise(mul){0,2}" → elementwise, "mul", 0, 2; false when it is not a slot.
bool parseSlot(std::string_view text, CallShape::Slot& slot) {
    std::uint32_t& lo = slot.min;
    std::uint32_t& hi = slot.max;
    lo = hi = 1;
    std::string_view name = text;
    if (const std::size_t brace = text.find('{'); brace != std::string_view::npos) {
        if (text.back() != '}') return false;
        const std::string_view counts = text.substr(brace + 1, text.size() - brace - 2);
        name = text.substr(0, brace);
        const std::size_t comma = counts.find(',');
        auto number = [](std::string_view s, std::uint32_t& out) {
            const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
            return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
        };
        if (comma == std::string_view::npos) {
            if (!number(counts, lo)) return false;
            hi = lo;
        } else {
            if (!number(counts.substr(0, comma), lo)) return false;
            const std::string_view upper = counts.substr(comma + 1);
            if (upper.empty())
                hi = CallShape::kAnyNumber;
            else if (!number(upper, hi) || hi < lo)
                return false;
        }
    } else if (!text.empty() && (text.back() == '?' || text.back() == '*' || text.back() == '+')) {
        const char mark = text.back();
        name = text.substr(0, text.size() - 1);
        lo = mark == '+' ? 1 : 0;
        hi = mark == '?' ? 1 : CallShape::kAnyNumber;
    }
    if (const std::size_t paren = name.find('('); paren != std::string_view::npos) {
        if (name.back() != ')' || paren + 2 >= name.size()) return false;
        slot.pattern = asciiLower(name.substr(paren + 1, name.size() - paren - 2));
        name = name.substr(0, paren);
    }
    const auto known = roleNamed(name);
    if (!known || hi == 0) return false;
    slot.role = *known;
    return true;
}

} // namespace

CallShapes CallShapes::parse(std::string_view text, std::vector<std::string>* problems) {
    CallShapes shapes;
    forEachDataLine(text, [&](std::size_t lineNumber, std::string_view line) {
        auto problem = [&](const std::string& why) {
            if (problems) problems->push_back("line " + std::to_string(lineNumber) + ": " + why);
        };
        const std::size_t eq = line.find(" = ");
        if (eq == std::string_view::npos) {
            problem("no ' = ' between the key and its kernels");
            return;
        }
        CallShape shape;
        shape.key = trimBlanks(line.substr(0, eq));
        shape.text = trimBlanks(line.substr(eq + 3));
        std::string_view rest = shape.text;
        bool ok = !shape.key.empty();
        if (!ok) problem("no key");
        while (ok && !rest.empty()) {
            const std::size_t gap = rest.find_first_of(" \t");
            const std::string_view slot = rest.substr(0, gap);
            rest = gap == std::string_view::npos ? std::string_view() : trimBlanks(rest.substr(gap));
            CallShape::Slot parsed;
            if (!parseSlot(slot, parsed)) {
                problem("cannot read '" + std::string(slot) +
                        "' (a role — qk_gemm, softmax, … — with an optional (pattern) and ?, *, +, {N} or "
                        "{A,B})");
                ok = false;
                break;
            }
            shape.slots.push_back(std::move(parsed));
        }
        // Slots with a pattern are filled first.
        std::stable_partition(shape.slots.begin(), shape.slots.end(),
                              [](const CallShape::Slot& x) { return !x.pattern.empty(); });
        if (ok && shape.text.empty()) {
            problem("no kernels");
            ok = false;
        }
        if (ok) shapes.m_shapes.push_back(std::move(shape));
    });
    return shapes;
}

const CallShapes& CallShapes::standard() {
    static const CallShapes shapes = [] {
        CallShapes all;
        if (const std::string path = userDataFile("ATTNSCOPE_CALL_SHAPES", "call_shapes.txt"); !path.empty())
            all = parse(readTextFile(path));
        const CallShapes builtin = parse(builtinCallShapes());
        all.m_shapes.insert(all.m_shapes.end(), builtin.m_shapes.begin(), builtin.m_shapes.end());
        return all;
    }();
    return shapes;
}

std::string CallShapes::userFile() {
    return userDataFileForPeople("ATTNSCOPE_CALL_SHAPES", "call_shapes.txt");
}

const CallShape* CallShapes::find(std::string_view scopeName, std::string_view impl, bool fused) const {
    for (const CallShape& s : m_shapes)
        if ((!scopeName.empty() && s.key == scopeName) || s.key == impl || (fused && s.key == "@fused"))
            return &s;
    // A case of a preset run ("naive prefill": the implementation, then the case) is its implementation's.
    if (const std::size_t space = impl.find(' '); space != std::string_view::npos)
        for (const CallShape& s : m_shapes)
            if (s.key == impl.substr(0, space)) return &s;
    return nullptr;
}

ShapeCheck checkShape(const CallShape& shape, const std::vector<ShapeKernel>& kernels) {
    ShapeCheck check;
    std::vector<std::uint32_t> filled(shape.slots.size(), 0);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        std::string lowName;
        bool placed = false;
        for (std::size_t s = 0; s < shape.slots.size() && !placed; ++s) {
            const CallShape::Slot& slot = shape.slots[s];
            if (slot.role != kernels[i].role || filled[s] >= slot.max) continue;
            if (!slot.pattern.empty()) {
                if (lowName.empty()) lowName = asciiLower(kernels[i].name);
                const bool named =
                    lowName.find(slot.pattern) != std::string::npos ||
                    std::any_of(kernels[i].ops.begin(), kernels[i].ops.end(), [&](std::string_view op) {
                        return asciiLower(op).find(slot.pattern) != std::string::npos;
                    });
                if (!named) continue;
            }
            ++filled[s];
            placed = true;
        }
        if (placed)
            ++check.expected;
        else
            check.unexpected.push_back(i);
    }
    for (std::size_t s = 0; s < shape.slots.size(); ++s)
        if (filled[s] < shape.slots[s].min) {
            check.missing.push_back({shape.slots[s].role, shape.slots[s].min - filled[s]});
            check.expected += shape.slots[s].min - filled[s];
        }
    return check;
}

} // namespace attnscope
