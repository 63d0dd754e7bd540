// Emitter core shared by both dialects. Each IR node becomes one typed local
// (`float v3 = ...;`), so the text mirrors the IR, operand conversions are already
// explicit in the IR, and the device compiler does the register allocation.
#include "codegen/emit.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

std::string value(std::uint32_t n) { return "v" + std::to_string(n); }

// Nodes reachable from the roots: only those are emitted (dead code never reaches the text).
std::vector<bool> live_nodes(const ir::kernel& k, const std::vector<std::uint32_t>& roots) {
    std::vector<bool> live(k.body.size(), false);
    for (std::uint32_t r : roots) live[r] = true;
    for (std::size_t i = k.body.size(); i-- > 0;) {
        if (!live[i]) continue;
        for (std::uint32_t a : k.body[i].arg)
            if (a != ir::no_node) live[a] = true;
    }
    return live;
}

// How the body being emitted writes a neighbour read.
enum class neighbour_form {
    checked,  // each element tests its own neighbour against the border
    interior, // the work-group's interior test passed: the read is element i + offset
};

// A read whose border the interior test can rule out for a whole work-group: a 1-D read, or
// a 2-D read in a kernel launched on the 2-D range (whose coordinates are the launch's),
// with offsets that are kernel arguments the test can name.
bool group_testable(const ir::node& n, const ir::kernel& k) {
    if (n.op != opcode::load_neighbour) return false;
    if (n.arg[ir::grid_width] != ir::no_node && k.grid_width_param == ir::no_node) return false;
    for (unsigned o : {ir::offset_i, ir::offset_j})
        if (n.arg[o] != ir::no_node && k.body[n.arg[o]].op != opcode::scalar) return false;
    return true;
}

// A stencil read. Offsets, grid width and boundary value are kernel arguments, so one
// kernel serves every offset; the boundary policy is part of the source.
std::string neighbour_read(const ir::node& n, const dialect& d, const std::string& index, const ir::kernel& k,
                           neighbour_form form) {
    const std::string s = d.signed_index_type;
    const std::string p = "p" + std::to_string(n.slot);
    const std::string element = "(" + s + ")" + index;
    const auto policy = boundary_policy(n.boundary);
    auto inside = [&](const std::string& j, const std::string& size) { // j clamped or wrapped into [0, size)
        if (policy == boundary_policy::clamp)
            return "(" + j + " < 0 ? 0 : (" + j + " >= " + size + " ? " + size + " - 1 : " + j + "))";
        if (policy == boundary_policy::wrap) return "(((" + j + ") % " + size + " + " + size + ") % " + size + ")";
        return j;
    };
    auto in_range = [](const std::string& j, const std::string& size) {
        return "(" + j + " >= 0 && " + j + " < " + size + ")";
    };
    const std::string fallback =
        n.arg[ir::boundary_value] != ir::no_node ? value(n.arg[ir::boundary_value]) : std::string();
    const std::string di = value(n.arg[ir::offset_i]);
    if (form == neighbour_form::interior && group_testable(n, k)) {
        if (n.arg[ir::grid_width] == ir::no_node) return p + "[" + element + " + " + di + "]";
        return p + "[" + element + " + " + value(n.arg[ir::offset_j]) + " * " + value(n.arg[ir::grid_width]) + " + " +
               di + "]";
    }
    if (n.arg[ir::grid_width] == ir::no_node) { // 1-D
        const std::string j = "(" + element + " + " + di + ")", size = "((" + s + ")n)";
        if (policy == boundary_policy::constant) return "(" + in_range(j, size) + " ? " + p + "[" + j + "] : " + fallback + ")";
        return p + "[" + inside(j, size) + "]";
    }
    // 2-D: element i is (x, y) = (i % width, i / width) of a grid n / width rows high.
    const std::string w = value(n.arg[ir::grid_width]), dj = value(n.arg[ir::offset_j]);
    if (k.grid_width_param != ir::no_node) { // the launch gives the coordinates (its width is w)
        const std::string x = "(loom_col + " + di + ")", y = "(loom_row + " + dj + ")";
        // Here each element maps its own neighbour's coordinates. This form runs at the
        // border of an interior-tested map (the interior takes the form above) and in
        // CUDA's single body. One load at the mapped index: a select between the in-grid
        // element i + dj * w + di and the mapped one becomes a masked load plus a masked
        // gather per read on a vectorising CPU compiler, which was slower.
        // A wrapped coordinate takes the offset modulo the size once (the same for every
        // element) and then one conditional subtraction: a `%` per element is a scalar
        // division per lane, as AVX-512 has no vector integer division.
        auto wrapped = [&](const std::string& at, const std::string& offset, const std::string& size) {
            const std::string j = "(" + at + " + ((" + offset + ") % " + size + " + " + size + ") % " + size + ")";
            return "(" + j + " >= " + size + " ? " + j + " - " + size + " : " + j + ")";
        };
        if (policy == boundary_policy::clamp) return p + "[" + inside(y, "loom_h") + " * " + w + " + " + inside(x, w) + "]";
        if (policy == boundary_policy::wrap)
            return p + "[" + wrapped("loom_row", dj, "loom_h") + " * " + w + " + " + wrapped("loom_col", di, w) + "]";
        return "(" + in_range(x, w) + " && " + in_range(y, "loom_h") + " ? " + p + "[" + element + " + " + dj + " * " + w +
               " + " + di + "] : " + fallback + ")";
    }
    std::string h = "((" + s + ")n / " + w + ")";
    std::string x = "((" + s + ")" + index + " % " + w + " + " + di + ")";
    std::string y = "((" + s + ")" + index + " / " + w + " + " + dj + ")";
    if (k.double_grid_division) { // see ir::kernel::double_grid_division
        const std::string row = "((" + s + ")((double)" + index + " / (double)" + w + "))";
        h = "((" + s + ")((double)n / (double)" + w + "))";
        x = "((" + s + ")" + index + " - " + row + " * " + w + " + " + di + ")";
        y = "(" + row + " + " + dj + ")";
    }
    if (policy == boundary_policy::constant)
        return "(" + in_range(x, w) + " && " + in_range(y, h) + " ? " + p + "[" + y + " * " + w + " + " + x + "] : " +
               fallback + ")";
    return p + "[" + inside(y, h) + " * " + w + " + " + inside(x, w) + "]";
}

std::string expression(const ir::node& n, const dialect& d, const std::string& index, const ir::kernel& k,
                       neighbour_form form) {
    const ir::op_info& op = ir::info(n.op);
    const std::string a = n.arg[0] != ir::no_node ? value(n.arg[0]) : std::string();
    const std::string b = n.arg[1] != ir::no_node ? value(n.arg[1]) : std::string();
    const std::string c = n.arg[2] != ir::no_node ? value(n.arg[2]) : std::string();
    const std::string t = type_name(d, n.type);
    if (n.op == opcode::load_neighbour) return neighbour_read(n, d, index, k, form);
    switch (n.op) {
    case opcode::load: return "p" + std::to_string(n.slot) + "[" + index + "]";
    case opcode::load_first: return "p" + std::to_string(n.slot) + "[0]";
    case opcode::scalar: return "p" + std::to_string(n.slot);
    case opcode::index: return index;
    case opcode::cast:
        // C's conversion to bool is "!= 0"; spelled out because OpenCL C has no bool cast rule for vectors.
        if (n.type == dtype::boolean) return "(" + a + " != 0)";
        return "(" + t + ")" + a;
    case opcode::select: return "(" + a + " ? " + b + " : " + c + ")";
    // std::min/max/clamp semantics, NaN behaviour included: written out rather than
    // mapped to fmin/fmax, which treat NaN differently.
    case opcode::min: return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
    case opcode::max: return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
    case opcode::clamp: return "(" + a + " < " + b + " ? " + b + " : (" + c + " < " + a + " ? " + c + " : " + a + "))";
    case opcode::abs:
        if (!ir::is_float(n.type)) return "(" + a + " < 0 ? -" + a + " : " + a + ")";
        break;
    // Integer division is defined where C leaves it undefined, the same in both dialects
    // (docs/type-promotion.md): x / 0 == 0 and x % 0 == x; for signed types MIN / -1 == MIN
    // (the negation wraps, done in the unsigned type) and MIN % -1 == 0.
    case opcode::div:
    case opcode::mod: {
        if (ir::is_float(n.type) || n.type == dtype::boolean) break;
        const bool div = n.op == opcode::div;
        std::string s = "(" + b + " == 0 ? " + (div ? "(" + t + ")0" : a) + " : ";
        if (ir::is_signed_integer(n.type)) {
            const std::string u = type_name(d, dtype(std::uint8_t(n.type) + 4)); // i8..i64 -> u8..u64
            s += "(" + b + " == -1 ? " + (div ? "(" + t + ")((" + u + ")0 - (" + u + ")" + a + ")" : "(" + t + ")0") +
                 " : ";
            return s + "(" + a + (div ? " / " : " % ") + b + ")))";
        }
        return s + "(" + a + (div ? " / " : " % ") + b + "))";
    }
    default: break;
    }
    if (op.infix) {
        if (op.arity == 1) return "(" + std::string(op.infix) + a + ")";
        return "(" + a + " " + op.infix + " " + b + ")";
    }
    std::string call = std::string(d.math_name(n.op, n.type)) + "(" + a;
    if (op.arity > 1) call += ", " + b;
    if (op.arity > 2) call += ", " + c;
    return call + ")";
}

std::string values(const ir::kernel& k, const dialect& d, const std::vector<bool>& live, const std::string& indent,
                   const std::string& index, neighbour_form form) {
    std::string s;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        if (!live[i]) continue;
        const ir::node& n = k.body[i];
        s += indent + type_name(d, n.type) + " " + value(i) + " = " + expression(n, d, index, k, form) + ";\n";
    }
    return s;
}

// The offset parameters (along `axis`) of the neighbour reads whose border an interior test
// can rule out, each once, in body order: the 1-D reads, or (`two_d`) the 2-D ones.
std::vector<std::string> testable_offsets(const ir::kernel& k, const std::vector<bool>& live, bool two_d = false,
                                          unsigned axis = ir::offset_i) {
    std::vector<std::string> out;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        const ir::node& n = k.body[i];
        if (!live[i] || !group_testable(n, k) || (n.arg[ir::grid_width] != ir::no_node) != two_d) continue;
        const std::string p = "p" + std::to_string(k.body[n.arg[axis]].slot);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
}

// The interior test of a grid kernel: true when this work-group lies wholly inside the
// grid and every testable neighbour read of each of its elements lands inside the vector
// (or the grid), so that the group may read element i + offset with no border select and
// no per-element bounds test. The offsets are kernel arguments, the same for the whole
// group, so the test is uniform: a CPU device branches once per group and vectorises the
// interior body with contiguous loads, where the select costs every element a masked
// gather. `bounds` receives the declarations the test reads (the group's first and last
// column and row). "" when no read can be tested or the dialect has no groups.
std::string grid_interior_test(const ir::kernel& k, const dialect& d, const std::vector<bool>& live,
                               std::string& bounds) {
    if (!d.local_id[0]) return "";
    const std::string s = d.signed_index_type;
    std::string test;
    bool reads_1d = false;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        const ir::node& n = k.body[i];
        if (!live[i] || !group_testable(n, k)) continue;
        const std::string di = "p" + std::to_string(k.body[n.arg[ir::offset_i]].slot);
        if (n.arg[ir::grid_width] == ir::no_node) {
            reads_1d = true;
            test += " & (loom_i0 + " + di + " >= 0) & (loom_i1 + " + di + " < (" + s + ")n)";
            continue;
        }
        const std::string dj = "p" + std::to_string(k.body[n.arg[ir::offset_j]].slot);
        test += " & (loom_c0 + " + di + " >= 0) & (loom_c1 + " + di + " < loom_w) & (loom_r0 + " + dj +
                " >= 0) & (loom_r1 + " + dj + " < loom_h)";
    }
    if (test.empty()) return "";
    const std::string in = "    const " + s + " ";
    auto last = [&](const std::string& first, const char* size) { return first + " + (" + s + ")" + size + " - 1"; };
    bounds = in + "loom_c0 = loom_col - (" + s + ")" + d.local_id[0] + ", loom_r0 = loom_row - (" + s + ")" +
             d.local_id[1] + ";\n";
    bounds += in + "loom_c1 = " + last("loom_c0", d.local_size[0]) + ", loom_r1 = " + last("loom_r0", d.local_size[1]) +
              ";\n";
    if (reads_1d) bounds += in + "loom_i0 = loom_r0 * loom_w + loom_c0, loom_i1 = loom_r1 * loom_w + loom_c1;\n";
    return "(loom_c1 < loom_w) & (loom_r1 < loom_h)" + test;
}

// A grid kernel: the dialect's 2-D item, and two bodies where an interior test applies, as
// a handwritten stencil takes its border apart.
std::string grid_map(const ir::kernel& k, const dialect& d, const std::vector<bool>& live, const std::string& body) {
    const std::string sl = d.signed_index_type;
    std::string s = "    const " + sl + " loom_w = p" + std::to_string(k.grid_width_param) + ";\n";
    s += "    const " + sl + " loom_h = (" + sl + ")n / loom_w;\n";
    s += "    " + std::string(d.grid_item) + "\n";
    std::string bounds;
    const std::string test = d.grid_item_exists ? grid_interior_test(k, d, live, bounds) : "";
    if (!d.grid_item_exists) return s + body + "    }\n"; // the item is a loop over the elements
    if (test.empty()) return s + "    if (" + d.grid_item_exists + ") {\n" + body + "    }\n";
    s += bounds + "    if (" + test + ") {\n";
    s += values(k, d, live, "        ", "i", neighbour_form::interior) + emit_stores(k, "        ");
    return s + "    } else if (" + d.grid_item_exists + ") {\n" + body + "    }\n";
}

// A chunked grid kernel (CPU devices): each work-item walks a band of whole rows, and each row
// splits into the columns where every testable read lands inside the grid (and the vector),
// read at i + offset with no test in a loop the device compiler vectorises, and the columns on
// either side, which take the checked body. A row some read leaves vertically is checked whole.
std::string grid_chunked_map(const ir::kernel& k, const dialect& d, const std::vector<bool>& live) {
    const std::string u = d.index_type, sl = d.signed_index_type;
    std::string s = "    const " + sl + " loom_w = p" + std::to_string(k.grid_width_param) + ";\n";
    s += "    const " + sl + " loom_h = (" + sl + ")n / loom_w;\n";
    s += "    const " + sl + " loom_items = (" + sl + ")" + d.global_size + ";\n";
    s += "    const " + sl + " loom_band = (loom_h + loom_items - 1) / loom_items;\n";
    s += "    const " + sl + " loom_r0 = (" + sl + ")" + d.global_id + " * loom_band;\n";
    s += "    const " + sl + " loom_r1 = loom_h - loom_r0 < loom_band ? loom_h : loom_r0 + loom_band;\n";
    s += "    for (" + sl + " loom_row = loom_r0; loom_row < loom_r1; ++loom_row) {\n";
    s += "        const " + sl + " loom_base = loom_row * loom_w;\n";
    s += "        " + sl + " loom_lo = 0, loom_hi = loom_w;\n";
    auto narrow = [&](const std::string& low, const std::string& high) { // columns in [low, high)
        s += "        if (loom_lo < " + low + ") loom_lo = " + low + ";\n";
        s += "        if (loom_hi > " + high + ") loom_hi = " + high + ";\n";
    };
    for (const std::string& p : testable_offsets(k, live, true)) narrow("-" + p, "loom_w - " + p);
    for (const std::string& p : testable_offsets(k, live, true, ir::offset_j))
        s += "        if ((loom_row + " + p + " < 0) | (loom_row + " + p + " >= loom_h)) loom_hi = 0;\n";
    for (const std::string& p : testable_offsets(k, live)) narrow("-" + p + " - loom_base", "(" + sl + ")n - " + p + " - loom_base");
    s += "        if (loom_lo > loom_w) loom_lo = loom_w;\n";
    s += "        if (loom_hi < loom_lo) loom_hi = loom_lo;\n";
    const std::string in = "            ";
    const std::string checked = values(k, d, live, in, "i", neighbour_form::checked) + emit_stores(k, in);
    const std::string interior = values(k, d, live, in, "i", neighbour_form::interior) + emit_stores(k, in);
    auto loop = [&](const std::string& from, const std::string& to, const std::string& inner) {
        return "        for (" + sl + " loom_col = " + from + "; loom_col < " + to + "; ++loom_col) {\n" + in + "const " +
               u + " i = (" + u + ")(loom_base + loom_col);\n" + inner + "        }\n";
    };
    s += loop("0", "loom_lo", checked) + loop("loom_lo", "loom_hi", interior) + loop("loom_hi", "loom_w", checked);
    return s + "    }\n";
}

// A chunked map: this work-item's elements are [loom_begin, loom_end), a multiple of 64
// elements long but for the last. With testable neighbour reads the chunk splits in three:
// its interior [loom_lo, loom_hi), where every such read lands inside the vector and the
// body reads element i + offset with no test (a loop the device compiler vectorises with
// contiguous loads), and the ends on either side, which take the checked body. Only the
// first and last chunks of the vector have ends.
std::string chunked_map(const ir::kernel& k, const dialect& d, const std::vector<bool>& live, const std::string& body) {
    const std::string u = d.index_type, sl = d.signed_index_type;
    std::string s = "    const " + u + " loom_items = " + d.global_size + ";\n";
    s += "    const " + u + " loom_chunk = ((n + loom_items - 1) / loom_items + 63) & ~(" + u + ")63;\n";
    s += "    const " + u + " loom_first = " + d.global_id + " * loom_chunk;\n";
    s += "    const " + u + " loom_begin = loom_first < n ? loom_first : n;\n";
    s += "    const " + u + " loom_end = n - loom_begin < loom_chunk ? n : loom_begin + loom_chunk;\n";
    auto loop = [&](const std::string& from, const std::string& to, const std::string& inner) {
        return "    for (" + u + " i = " + from + "; i < " + to + "; ++i) {\n" + inner + "    }\n";
    };
    const std::vector<std::string> offsets = testable_offsets(k, live);
    if (offsets.empty()) return s + loop("loom_begin", "loom_end", body);
    s += "    " + sl + " loom_lo = (" + sl + ")loom_begin, loom_hi = (" + sl + ")loom_end;\n";
    for (const std::string& p : offsets) { // i + p must lie in [0, n)
        s += "    if (loom_lo < -" + p + ") loom_lo = -" + p + ";\n";
        s += "    if (loom_hi > (" + sl + ")n - " + p + ") loom_hi = (" + sl + ")n - " + p + ";\n";
    }
    s += "    if (loom_lo > (" + sl + ")loom_end) loom_lo = (" + sl + ")loom_end;\n";
    s += "    if (loom_hi < loom_lo) loom_hi = loom_lo;\n";
    const std::string interior = values(k, d, live, "        ", "i", neighbour_form::interior) + emit_stores(k, "        ");
    s += loop("loom_begin", "(" + u + ")loom_lo", body);
    s += loop("(" + u + ")loom_lo", "(" + u + ")loom_hi", interior);
    return s + loop("(" + u + ")loom_hi", "loom_end", body);
}

} // namespace

std::string value_name(std::uint32_t n) { return value(n); }

bool uses_f64(const ir::kernel& k) {
    for (const ir::node& n : k.body) {
        if (n.type == dtype::f64) return true;
        if (k.double_grid_division && n.op == opcode::load_neighbour && n.arg[ir::grid_width] != ir::no_node) return true;
    }
    for (const ir::kernel_param& p : k.params)
        if (p.type == dtype::f64) return true;
    return false;
}

std::string emit_prologue(const ir::kernel& k, const dialect& d) {
    std::string s = d.prologue;
    if (uses_f64(k)) s += d.prologue_fp64;
    return s;
}

std::string emit_parameters(const ir::kernel& k, const dialect& d, bool rebindable) {
    std::string s;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const ir::kernel_param& param = k.params[p];
        if (param.packed) continue; // declared from loom_scalars (emit_guard)
        if (param.kind == ir::param_kind::buffer) {
            s += d.global_prefix;
            if (!param.written && !rebindable) s += "const ";
            s += type_name(d, param.type);
            s += " *";
            if (!rebindable) s += d.restrict_keyword;
        } else {
            s += type_name(d, param.type);
            s += " ";
        }
        s += "p" + std::to_string(p) + ", ";
    }
    if (ir::packs_scalars(k))
        s += std::string(d.global_prefix) + "const " + type_name(d, dtype::u64) + " *" + d.restrict_keyword +
             "loom_scalars, ";
    if (k.guarded) // may alias a written buffer: no restrict
        s += std::string(d.global_prefix) + (rebindable ? "int *loom_guard, " : "const int *loom_guard, ");
    return s;
}

std::string emit_guard(const ir::kernel& k, const dialect& d) {
    // The same value for every work-item, so a kernel with barriers returns as a whole.
    std::string s = k.guarded ? "    if (loom_guard[0] == 0) return;\n" : "";
    // Packed scalars: 8 bytes each in parameter order, the value in the first bytes.
    std::size_t slot = 0;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        if (!k.params[p].packed) continue;
        const std::string t = type_name(d, k.params[p].type);
        s += "    const " + t + " p" + std::to_string(p) + " = *(" + d.global_prefix + "const " + t + " *)(loom_scalars + " +
             std::to_string(slot++) + ");\n";
    }
    return s;
}

std::string emit_values(const ir::kernel& k, const dialect& d, const std::vector<std::uint32_t>& roots,
                        const std::string& indent, const std::string& index) {
    return values(k, d, live_nodes(k, roots), indent, index, neighbour_form::checked);
}

std::string emit(const ir::kernel& k, const dialect& d) {
    std::vector<std::uint32_t> roots;
    for (const ir::kernel_store& st : k.stores) roots.push_back(st.value);
    std::string s = emit_prologue(k, d);
    s += d.kernel_prefix;
    s += " ";
    s += kernel_name;
    s += "(" + emit_parameters(k, d) + d.index_type + " n) {\n" + emit_guard(k, d);
    const std::vector<bool> live = live_nodes(k, roots);
    const std::string body = values(k, d, live, "        ", "i", neighbour_form::checked) + emit_stores(k, "        ");
    if (k.grid_width_param != ir::no_node && k.form == ir::map_form::chunked) {
        s += grid_chunked_map(k, d, live);
    } else if (k.grid_width_param != ir::no_node) {
        s += grid_map(k, d, live, body);
    } else if (k.form == ir::map_form::chunked) {
        s += chunked_map(k, d, live, body);
    } else {
        s += "    for (" + std::string(d.index_type) + " i = " + d.global_id + "; i < n; i += " + d.global_size + ") {\n";
        s += body + "    }\n";
    }
    return s + "}\n";
}

std::string emit_stores(const ir::kernel& k, const std::string& indent, const std::string& index) {
    std::string s;
    for (const ir::kernel_store& st : k.stores)
        s += indent + "p" + std::to_string(st.param) + "[" + index + "] = " + value(st.value) + ";\n";
    return s;
}

} // namespace loom::codegen
