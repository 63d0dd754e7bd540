// The single-pass passes' folds as kernel text; see tile_fold.hpp.
#include "codegen/tile_fold.hpp"

#include <vector>

#include "codegen/complex_helpers.hpp"
#include "codegen/vector_types.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

// Tiles one look-back step reads: one a work-item of the first warp, or of a smaller group.
unsigned look_back_window(const tile_fold& f) { return f.group < 32 ? f.group : 32; }

// Element j of buffer `name`, loaded through a volatile pointer (the device-wide value, not a
// copy a core's cache kept from before it was published). A short vector or complex value loads
// component by component where the dialect's are structs.
std::string published(const dialect& d, const tile_fold& f, const std::string& name, const std::string& j) {
    const dtype t = f.type;
    auto load = [&](const std::string& type, const std::string& component) {
        return "((" + std::string(d.group.volatile_global) + " " + type + "*)(" + name + " + " + j + "))" + component;
    };
    if (d.group.volatile_vectors || (!ir::is_complex(t) && !is_short_vector(t))) return "*" + load(f.type_name, "");
    if (ir::is_complex(t)) {
        const std::string c = t == dtype::c64 ? "float" : "double";
        return complex_value(d, t, load(c, "[0]"), load(c, "[1]"));
    }
    std::vector<std::string> parts;
    for (unsigned l = 0; l < width_of(t); ++l)
        parts.push_back(load(type_name(d, component_dtype(t)), "[" + std::to_string(l) + "]"));
    return vector_value(d, t, parts);
}

} // namespace

void take_ticket(source_builder& b, const tile_fold& f) {
    const dialect& d = b.dialect();
    const std::string q = d.group.array_qualifier;
    const std::string window = std::to_string(look_back_window(f));
    b.line(q + " " + f.type_name + " window[" + window + "];");
    b.line(q + " unsigned int window_status[" + window + "];");
    b.line(q + " " + f.type_name + " carry_of_tile;");
    b.line(q + " unsigned int looked_back, ticket;");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const(std::string(d.index_type), "tiles", "(n + chunk - 1u) / chunk"); // the ticket counter follows them
    b.line("if (lid == 0u) ticket = " + std::string(d.group.atomic_add) + "status + tiles, 1u);");
    b.line(d.group.barrier);
    b.declare_const("unsigned int", "g", "ticket");
}

// Tile g publishes its total (status 1) at once, then looks back over the tiles before it, a
// window of look_back_window at a time, each work-item of the window waiting for its tile's
// status: the nearest tile whose status is 2 gives the fold up to its end, and the totals of the
// tiles after it are folded on, in order. Then g publishes its own fold (status 2). Tile 0
// publishes status 2 only, so every look-back ends. Values are written before their status, a
// global fence between; read after it, a fence between. A tile waits only for tiles whose
// tickets came before its own: their groups started first and wait for nothing later, so the
// waits end on any device that keeps a started work-group running.
void look_back(source_builder& b, const tile_fold& f, const std::string& complete) {
    const dialect& d = b.dialect();
    const std::string t = f.type_name, status = "((" + std::string(d.group.volatile_global) + " unsigned int*)status)";
    const std::string w = std::to_string(look_back_window(f)) + "u";
    // Tile `at`'s value into `buffer`, then its status: whoever sees the status reads the value.
    auto publish = [&](const std::string& buffer, const std::string& at, const std::string& value, const char* state) {
        b.line(buffer + "[" + at + "] = " + value + ";");
        b.line(d.group.global_fence);
        b.line(status + "[" + at + "] = " + state + ";");
    };
    b.open("if (lid == 0u)");
    if (!complete.empty()) { // its fold is its own: published at once, nothing after the look-back
        b.open("if (" + complete + ")");
        publish("offsets", "g", "total", "2u");
        b.next("else if (g == 0u)");
    } else {
        b.open("if (g == 0u)");
    }
    publish("offsets", "0", f.call(f.init, "total"), "2u");
    b.next("else");
    publish("totals", "g", "total", "1u");
    b.close();
    b.line("if (g == 0u) carry_of_tile = " + f.init + ";");
    b.close();
    b.open("if (g != 0u)");             // uniform: every work-item of the group has the same ticket
    b.declare(t, "folded", f.identity); // lid 0's: the fold of the tiles looked at, in order
    b.open_for("unsigned int end = g", "", "end = end > " + w + " ? end - " + w + " : 0u");
    b.open("if (lid < " + w + ")");
    b.declare("unsigned int", "state", "3u"); // 3: no tile here (past tile 0)
    b.open("if (end > lid)");
    b.open("do");
    b.line("state = " + status + "[end - 1u - lid];");
    b.close(" while (state == 0u);");
    b.line(d.group.global_fence);
    b.line("window[lid] = state == 2u ? " + published(d, f, "offsets", "(end - 1u - lid)") + " : " +
           published(d, f, "totals", "(end - 1u - lid)") + ";");
    b.close();
    b.line("window_status[lid] = state;");
    b.close();
    b.line(d.group.barrier);
    b.open("if (lid == 0u)");
    b.declare("unsigned int", "k", "0u"); // the nearest tile with its fold, or the window's end
    b.line("while (k < " + w + " && window_status[k] == 1u) ++k;");
    b.declare(t, "f", "k < " + w + " ? window[k] : window[" + w + " - 1u]");
    b.line("if (k == " + w + ") --k;");
    b.open_for("unsigned int l = k", "l > 0u", "--l");
    b.line("f = " + f.call("f", "window[l - 1u]") + ";");
    b.close();
    b.line("folded = end == g ? f : " + f.call("f", "folded") + ";");
    b.line("looked_back = window_status[k] == 2u;");
    b.close();
    b.line(d.group.barrier);
    b.line("if (looked_back) break;");
    b.close();
    b.open("if (lid == 0u)");
    if (!complete.empty()) b.open("if (!(" + complete + "))");
    publish("offsets", "g", f.call("folded", "total"), "2u");
    if (!complete.empty()) b.close();
    b.line("carry_of_tile = folded;");
    b.close();
    b.close();
    b.line(d.group.barrier);
    b.line("carry = carry_of_tile;");
}

std::string tile_slot(const std::string& q, const std::string& array) {
    return array + "[(" + q + ") + ((" + q + ") >> 5)]";
}

void group_exclusive_scan(source_builder& b, const tile_fold& f, const std::string& v) {
    const dialect& d = b.dialect();
    const std::string w = std::to_string(f.group) + "u";
    if (d.group.shuffle_up && f.group >= 32 && f.group % 32 == 0) {
        // Types under 32 bits travel through an int: the shuffles take 32- and 64-bit types only.
        // A complex value (float2, double2) travels as its two components, a short vector as its
        // two or four.
        const bool narrow = size_of(f.type) < 4;
        auto shuffle = [&](const std::string& x, const std::string& delta) {
            auto moved = [&](const std::string& value) {
                return std::string(d.group.shuffle_up) + value + ", " + delta + ")";
            };
            if (ir::is_complex(f.type)) return complex_value(d, f.type, moved(x + ".x"), moved(x + ".y"));
            if (is_short_vector(f.type)) { // component by component, a narrow one through an int
                const dtype c = component_dtype(f.type);
                const std::string ct = b.type(c);
                std::vector<std::string> parts;
                for (unsigned l = 0; l < width_of(f.type); ++l) {
                    const std::string part = x + "." + component_name(l);
                    parts.push_back(size_of(c) < 4 ? "(" + ct + ")" + moved("(int)" + part) : moved(part));
                }
                return vector_value(d, f.type, parts);
            }
            return narrow ? "(" + f.type_name + ")" + moved("(int)" + x) : moved(x);
        };
        const std::string warps = std::to_string(f.group / 32) + "u";
        b.declare(f.type_name, "x", v);
        b.open_for("unsigned int o = 1u", "o < 32u", "o <<= 1");
        b.declare_const(f.type_name, "y", shuffle("x", "o"));
        b.line("if ((lid & 31u) >= o) x = " + f.call("y", "x") + ";");
        b.close();
        b.line("if ((lid & 31u) == 31u) ts[lid >> 5] = x;");
        b.line(d.group.barrier);
        b.open("if (lid < 32u)");
        b.declare(f.type_name, "z", "lid < " + warps + " ? ts[lid] : " + f.identity);
        b.open_for("unsigned int o = 1u", "o < 32u", "o <<= 1");
        b.declare_const(f.type_name, "y", shuffle("z", "o"));
        b.line("if (lid >= o) z = " + f.call("y", "z") + ";");
        b.close();
        b.line("if (lid < " + warps + ") ts[lid] = z;");
        b.close();
        b.line(d.group.barrier);
        b.declare_const(f.type_name, "within", shuffle("x", "1u"));
        b.line("before = (lid & 31u) == 0u ? " + f.identity + " : within;");
        b.line("if (lid >= 32u) before = " + f.call("ts[(lid >> 5) - 1u]", "before") + ";");
        b.line("total = ts[" + std::to_string(f.group / 32 - 1) + "];");
        return;
    }
    b.line("ts[lid] = " + v + ";");
    b.line(d.group.barrier);
    b.open_for("unsigned int o = 1u", "o < " + w, "o <<= 1");
    b.declare_const(f.type_name, "left", "lid >= o ? ts[lid - o] : " + f.identity);
    b.line(d.group.barrier);
    b.line("if (lid >= o) ts[lid] = " + f.call("left", "ts[lid]") + ";");
    b.line(d.group.barrier);
    b.close();
    b.line("before = lid == 0u ? " + f.identity + " : ts[lid - 1u];");
    b.line("total = ts[" + std::to_string(f.group - 1) + "];");
}

} // namespace loom::codegen
