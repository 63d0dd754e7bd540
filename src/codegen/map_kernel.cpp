// The map kernel in each of its forms (ir::map_form, and the grid form on a 2-D launch):
// how work-items walk the elements, and where a stencil's reads need no border test. The
// element's body is the emitter core's, over the kernel with its neighbour reads lowered
// for each part: checked where elements test their border, interior where the form has
// ruled it out.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "codegen/emit.hpp"
#include "codegen/kernel_header.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/rows_from_launch.hpp"
#include "codegen/vector_map.hpp"
#include "loom/error.hpp"

namespace loom::codegen {
namespace {

std::vector<std::uint32_t> stored_nodes(const ir::kernel& k) {
    std::vector<std::uint32_t> roots;
    ir::append_store_nodes(k, roots);
    return roots;
}

// The kernel, and the element's body in each of the two ways a form reads neighbours.
struct map_kernel {
    const ir::kernel& k;
    ir::kernel checked = lower_neighbour_reads(k, stored_nodes(k), neighbour_form::checked).kernel;
    ir::kernel interior = lower_neighbour_reads(k, stored_nodes(k), neighbour_form::interior).kernel;

    void body(source_builder& b, neighbour_form form = neighbour_form::checked) const {
        write_body(b, form == neighbour_form::checked ? checked : interior);
    }
};

// 1, 2 or 3: the dimensions of a neighbour read's grid.
unsigned dimensions(const ir::node& n) {
    if (n.arg[ir::grid_width] == ir::no_node) return 1;
    return n.arg[ir::grid_height] == ir::no_node ? 2 : 3;
}

// A neighbour operand's parameter, or 0 for an offset compiled in as zero.
std::string param(const ir::kernel& k, std::uint32_t node) {
    return ir::is_literal_zero(k.body[node]) ? "0" : "p" + std::to_string(k.body[node].slot);
}

// The parameters of the operands `axes` of the neighbour reads of `dims` dimensions whose
// border an interior test can rule out, one list per read with equal lists once, in body order.
// A read whose offsets among `axes` are all zero never leaves the element's own row (or column)
// there: it has no list.
using parameter_list = std::vector<std::string>;
// With `row_tested`, only the reads whose rows a row test must rule out (not row_resolved).
std::vector<parameter_list> testable_operands(const ir::kernel& k, const std::vector<bool>& live, unsigned dims,
                                              std::initializer_list<unsigned> axes, bool row_tested = false) {
    std::vector<parameter_list> out;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        const ir::node& n = k.body[i];
        if (!live[i] || !interior_testable(n, k) || dimensions(n) != dims) continue;
        if (row_tested && row_resolved(n, k)) continue;
        const bool moves = std::any_of(axes.begin(), axes.end(), [&](unsigned axis) {
            return axis != ir::grid_height && !ir::is_literal_zero(k.body[n.arg[axis]]);
        });
        if (!moves) continue;
        parameter_list p;
        for (unsigned axis : axes) p.push_back(param(k, n.arg[axis]));
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
}

// The same for one operand.
parameter_list testable_offsets(const ir::kernel& k, const std::vector<bool>& live, unsigned dims,
                                unsigned axis = ir::offset_i) {
    parameter_list out;
    for (const parameter_list& p : testable_operands(k, live, dims, {axis})) out.push_back(p[0]);
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
std::string grid_interior_test(const ir::kernel& k, const dialect& d, std::vector<std::string>& bounds) {
    if (!d.local_id[0]) return "";
    const std::string s = d.signed_index_type;
    const std::vector<bool> live = live_nodes(k);
    std::string test;
    bool reads_1d = false;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        const ir::node& n = k.body[i];
        if (!live[i] || !interior_testable(n, k)) continue;
        const std::string di = param(k, n.arg[ir::offset_i]);
        if (n.arg[ir::grid_width] == ir::no_node) {
            if (di == "0") continue;
            reads_1d = true;
            test += " & (loom_i0 + " + di + " >= 0) & (loom_i1 + " + di + " < (" + s + ")n)";
            continue;
        }
        const std::string dj = param(k, n.arg[ir::offset_j]);
        if (di != "0") test += " & (loom_c0 + " + di + " >= 0) & (loom_c1 + " + di + " < loom_w)";
        if (dj != "0") test += " & (loom_r0 + " + dj + " >= 0) & (loom_r1 + " + dj + " < loom_h)";
    }
    if (test.empty()) return "";
    auto last = [&](const std::string& first, const char* size) { return first + " + (" + s + ")" + size + " - 1"; };
    bounds.push_back("const " + s + " loom_c0 = loom_col - (" + s + ")" + d.local_id[0] + ", loom_r0 = loom_row - (" +
                     s + ")" + d.local_id[1] + ";");
    bounds.push_back("const " + s + " loom_c1 = " + last("loom_c0", d.local_size[0]) +
                     ", loom_r1 = " + last("loom_r0", d.local_size[1]) + ";");
    if (reads_1d)
        bounds.push_back("const " + s + " loom_i0 = loom_r0 * loom_w + loom_c0, loom_i1 = loom_r1 * loom_w + loom_c1;");
    return "(loom_c1 < loom_w) & (loom_r1 < loom_h)" + test;
}

// Where the kernel's 3-D reads share one plane height (ir::kernel::grid_height_param): the rows
// per plane and the planes, declared once after loom_h, in the form's coordinate type.
void declare_planes(source_builder& b, const ir::kernel& k, const std::string& type) {
    if (k.grid_height_param == ir::no_node) return;
    const std::string h = "(" + type + ")p" + std::to_string(k.grid_height_param);
    b.declare_const(type, "loom_plane_rows", h + " < 1 ? 1 : " + h);
    b.declare_const(type, "loom_planes", "loom_h / loom_plane_rows");
}

// The element's plane and its row in that plane, from loom_row: once per row (or per item),
// where each 3-D read would otherwise divide for itself.
void declare_plane_position(source_builder& b, const ir::kernel& k, const std::string& type) {
    if (k.grid_height_param == ir::no_node) return;
    b.declare_const(type, "loom_plane", "loom_row / loom_plane_rows");
    b.declare_const(type, "loom_y", "loom_row - loom_plane * loom_plane_rows");
}

// Whether every 64-bit signed integer of the kernel is a neighbour read's offset or extent (or,
// once lowered, arithmetic on them): then on a grid of fewer than 2^30 elements each fits an
// int, since stencil.hpp bounds every offset by its extent. A user's own 64-bit values (an
// int64 vector, a cast) keep the kernel in 64 bits.
bool coordinates_narrowable(const ir::kernel& k) {
    std::vector<bool> coordinate(k.body.size(), false);
    for (const ir::node& n : k.body)
        if (n.op == opcode::load_neighbour)
            for (unsigned a : {ir::offset_i, ir::offset_j, ir::grid_width, ir::offset_k, ir::grid_height})
                if (n.arg[a] != ir::no_node) coordinate[n.arg[a]] = true;
    for (std::uint32_t i = 0; i < k.body.size(); ++i) // index leaves: the launch's coordinates, 0 and 1
        if (k.body[i].type == dtype::i64 && !coordinate[i] && k.body[i].op != opcode::index) return false;
    for (const ir::kernel_param& p : k.params)
        if (p.kind == ir::param_kind::buffer && p.type == dtype::i64) return false;
    return true;
}

// The element's body where the dialect's narrow grid item holds it: the same kernel with its
// 64-bit signed integers (only coordinates, coordinates_narrowable) spelled int.
void narrow_body(source_builder& b, const map_kernel& m) {
    dialect narrow = b.dialect();
    narrow.type_names[std::size_t(dtype::i64)] = "int";
    narrow.signed_index_type = "int";
    source_builder body(narrow, b.depth());
    m.body(body);
    b.append(body.text());
}

// A grid kernel: the dialect's 2-D item, and two bodies where an interior test applies, as
// a handwritten stencil takes its border apart. A narrow grid kernel (ir::kernel::narrow_grid)
// takes the dialect's int-coordinate item instead.
void grid_map(source_builder& b, const map_kernel& m) {
    const ir::kernel& k = m.k;
    const dialect& d = b.dialect();
    const std::string sl = d.signed_index_type, width = "p" + std::to_string(k.grid_width_param);
    if (k.narrow_grid) {
        if (!grid_narrowable(k, d))
            throw error("loom: internal error: a narrow grid kernel in a dialect or with values that have no int form");
        b.declare_const("int", "loom_w", "(int)" + width);
        b.declare_const("int", "loom_h", "(int)((unsigned int)n / (unsigned int)loom_w)");
        declare_planes(b, k, "int");
        b.lines(d.grid_item_narrow);
        b.enter();
        declare_plane_position(b, k, "int");
        narrow_body(b, m);
        b.close();
        return;
    }
    b.declare_const(sl, "loom_w", width);
    b.declare_const(sl, "loom_h", "(" + sl + ")n / loom_w");
    declare_planes(b, k, sl);
    b.lines(d.grid_item);
    if (!d.grid_item_exists) { // the item is a loop over the elements
        b.enter();
        declare_plane_position(b, k, sl);
        m.body(b);
        b.close();
        return;
    }
    declare_plane_position(b, k, sl);
    std::vector<std::string> bounds;
    const std::string test = grid_interior_test(k, d, bounds);
    if (test.empty()) {
        b.open("if (" + std::string(d.grid_item_exists) + ")");
        m.body(b);
        b.close();
        return;
    }
    for (const std::string& line : bounds) b.line(line);
    b.open("if (" + test + ")");
    m.body(b, neighbour_form::interior);
    b.next("else if (" + std::string(d.grid_item_exists) + ")");
    m.body(b);
    b.close();
}

// Whether each node of lowered kernel k is the same for every element of a grid row: scalars,
// the row's coordinates and the grid's extents, and arithmetic on them (no load, no call).
std::vector<bool> row_invariant(const ir::kernel& k) {
    std::vector<bool> same(k.body.size(), false);
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        const ir::node& n = k.body[j];
        switch (n.op) {
        case opcode::scalar: same[j] = true; break;
        case opcode::index:
            switch (ir::index_value(n.slot)) {
            case ir::index_value::element:
            case ir::index_value::entry:
            case ir::index_value::grid_column:
            case ir::index_value::row:
            case ir::index_value::column:
            case ir::index_value::axis2: break;
            default: same[j] = true; // the row's own, or the grid's
            }
            break;
        case opcode::load:
        case opcode::load_neighbour:
        case opcode::load_first:
        case opcode::load_at:
        case opcode::call: break;
        default:
            same[j] = true;
            for (std::uint32_t a : n.arg)
                if (a != ir::no_node && !same[a]) same[j] = false;
        }
    }
    return same;
}

// A chunked grid kernel (CPU devices): each work-item walks a band of whole rows, and each row
// splits into the columns where every testable read lands inside the grid (and the vector),
// read at i + offset with no test in a loop the device compiler vectorises, and the columns on
// either side, which take the checked body. A row some read leaves vertically is checked whole.
// What the three loops share and is the same for the whole row (a 3-D read's neighbour row,
// clamped) is declared once per row, before them: the device compiler would compute it before
// each loop, three times a row, which on rows of 64 cost a third of the kernel's time.
void grid_chunked_map(source_builder& b, const map_kernel& m) {
    const ir::kernel& k = m.k;
    const dialect& d = b.dialect();
    const std::string u = d.index_type, sl = d.signed_index_type;
    b.declare_const(sl, "loom_w", "p" + std::to_string(k.grid_width_param));
    b.declare_const(sl, "loom_h", "(" + sl + ")n / loom_w");
    declare_planes(b, k, sl);
    b.declare_const(sl, "loom_items", "(" + sl + ")" + d.global_size);
    b.declare_const(sl, "loom_band", "(loom_h + loom_items - 1) / loom_items");
    b.declare_const(sl, "loom_r0", "(" + sl + ")" + d.global_id + " * loom_band");
    b.declare_const(sl, "loom_r1", "loom_h - loom_r0 < loom_band ? loom_h : loom_r0 + loom_band");
    b.open_for(sl + " loom_row = loom_r0", "loom_row < loom_r1", "++loom_row");
    b.declare_const(sl, "loom_base", "loom_row * loom_w");
    declare_plane_position(b, k, sl);
    std::vector<std::string> bounds; // the lines that narrow [loom_lo, loom_hi), the untested columns
    auto narrow = [&](const std::string& low, const std::string& high) { // columns in [low, high)
        bounds.push_back("if (loom_lo < " + low + ") loom_lo = " + low + ";");
        bounds.push_back("if (loom_hi > " + high + ") loom_hi = " + high + ";");
    };
    const std::vector<bool> live = live_nodes(k);
    for (unsigned dims : {2u, 3u})
        for (const std::string& p : testable_offsets(k, live, dims)) narrow("-" + p, "loom_w - " + p);
    for (const std::string& p : testable_offsets(k, live, 2, ir::offset_j))
        bounds.push_back("if ((loom_row + " + p + " < 0) | (loom_row + " + p + " >= loom_h)) loom_hi = 0;");
    // A 3-D read not row_resolved: the row's own row and plane, r % h and r / h (loom_y and
    // loom_plane where the reads share h), moved by dj and dk, must stay inside the plane and
    // the planes.
    const bool planes = k.grid_height_param != ir::no_node;
    for (const parameter_list& p : testable_operands(k, live, 3, {ir::offset_j, ir::offset_k, ir::grid_height}, true)) {
        const std::string &dj = p[0], &dk = p[1], h = planes ? "loom_plane_rows" : p[2];
        const std::string y = (planes ? "loom_y" : "loom_row % " + h) + " + " + dj;
        const std::string z = (planes ? "loom_plane" : "loom_row / " + h) + " + " + dk;
        const std::string depth = planes ? "loom_planes" : "loom_h / " + h;
        bounds.push_back("if ((" + y + " < 0) | (" + y + " >= " + h + ") | (" + z + " < 0) | (" + z + " >= " +
                         depth + ")) loom_hi = 0;");
    }
    for (const std::string& p : testable_offsets(k, live, 1))
        narrow("-" + p + " - loom_base", "(" + sl + ")n - " + p + " - loom_base");
    if (!bounds.empty()) {
        b.line(sl + " loom_lo = 0, loom_hi = loom_w;");
        for (const std::string& line : bounds) b.line(line);
        b.line("if (loom_lo > loom_w) loom_lo = loom_w;");
        b.line("if (loom_hi < loom_lo) loom_hi = loom_lo;");
    }
    lowered_forms forms = lower_neighbour_reads(k, {neighbour_form::checked, neighbour_form::interior});
    const std::vector<bool> same = row_invariant(forms.kernel);
    std::vector<bool> row_values(forms.kernel.body.size(), false);
    for (const std::vector<ir::kernel_store>& stores : forms.stores) {
        forms.kernel.stores = stores;
        const std::vector<bool> reached = live_nodes(forms.kernel);
        for (std::size_t j = 0; j < reached.size(); ++j) row_values[j] = row_values[j] || (reached[j] && same[j]);
    }
    write_marked_values(b, forms.kernel, row_values);
    auto element = [&](bool interior) { // the body, at loom_col
        b.declare_const(u, "i", "(" + u + ")(loom_base + loom_col)");
        forms.kernel.stores = forms.stores[interior ? 1 : 0];
        std::vector<bool> element_values = live_nodes(forms.kernel);
        for (std::size_t j = 0; j < element_values.size(); ++j) element_values[j] = element_values[j] && !row_values[j];
        write_marked_values(b, forms.kernel, element_values);
        write_stores(b, forms.kernel);
    };
    auto columns = [&](const std::string& from, const std::string& to, bool interior) {
        b.open_for(sl + " loom_col = " + from, "loom_col < " + to, "++loom_col");
        element(interior);
        b.close();
    };
    // An edge of one column (offsets of at most 1, the usual stencil) is straight-line code: as
    // a loop the device compiler vectorises it, with gathers and a remainder loop whose setup
    // costs a narrow row more than its two edge cells (docs/skeleton-stencil.md).
    auto edge = [&](const std::string& from, const std::string& to) {
        b.open("if (" + (from == "0" ? to : to + " - " + from) + " == 1)");
        b.declare_const(sl, "loom_col", from);
        element(false);
        b.next("else");
        columns(from, to, false);
        b.close();
    };
    if (bounds.empty()) { // no read leaves the row: every column untested (a matrix statement's positions)
        columns("0", "loom_w", true);
    } else {
        edge("0", "loom_lo");
        columns("loom_lo", "loom_hi", true);
        edge("loom_hi", "loom_w");
    }
    b.close();
}

// A chunked map: this work-item's elements are [loom_begin, loom_end), a multiple of 64
// elements long but for the last. With testable neighbour reads the chunk splits in three:
// its interior [loom_lo, loom_hi), where every such read lands inside the vector and the
// body reads element i + offset with no test (a loop the device compiler vectorises with
// contiguous loads), and the ends on either side, which take the checked body. Only the
// first and last chunks of the vector have ends.
void chunked_map(source_builder& b, const map_kernel& m) {
    const ir::kernel& k = m.k;
    const dialect& d = b.dialect();
    const std::string u = d.index_type, sl = d.signed_index_type;
    b.declare_const(u, "loom_items", d.global_size);
    b.declare_const(u, "loom_chunk", "((n + loom_items - 1) / loom_items + 63) & ~(" + u + ")63");
    b.declare_const(u, "loom_first", std::string(d.global_id) + " * loom_chunk");
    b.declare_const(u, "loom_begin", "loom_first < n ? loom_first : n");
    b.declare_const(u, "loom_end", "n - loom_begin < loom_chunk ? n : loom_begin + loom_chunk");
    auto elements = [&](const std::string& from, const std::string& to, bool interior) {
        b.open_for(u + " i = " + from, "i < " + to, "++i");
        m.body(b, interior ? neighbour_form::interior : neighbour_form::checked);
        b.close();
    };
    const std::vector<std::string> offsets = testable_offsets(k, live_nodes(k), 1);
    if (offsets.empty()) return elements("loom_begin", "loom_end", false);
    b.line(sl + " loom_lo = (" + sl + ")loom_begin, loom_hi = (" + sl + ")loom_end;");
    for (const std::string& p : offsets) { // i + p must lie in [0, n)
        b.line("if (loom_lo < -" + p + ") loom_lo = -" + p + ";");
        b.line("if (loom_hi > (" + sl + ")n - " + p + ") loom_hi = (" + sl + ")n - " + p + ";");
    }
    b.line("if (loom_lo > (" + sl + ")loom_end) loom_lo = (" + sl + ")loom_end;");
    b.line("if (loom_hi < loom_lo) loom_hi = loom_lo;");
    elements("loom_begin", "(" + u + ")loom_lo", false);
    elements("(" + u + ")loom_lo", "(" + u + ")loom_hi", true);
    elements("(" + u + ")loom_hi", "loom_end", false);
}

} // namespace

bool grid_narrowable(const ir::kernel& k, const dialect& d) {
    return k.grid_width_param != ir::no_node && d.grid_item_narrow && !d.grid_item_exists && coordinates_narrowable(k);
}

kernel_source emit(const ir::kernel& k, const dialect& d) {
    source_builder b(d);
    b.append(emit_prologue(k, d));
    b.open(std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(k, d) + d.index_type + " n)");
    write_guard(b, k);
    const ir::kernel launched = rows_from_launch(k); // k where it is no grid kernel
    const map_kernel m{launched};
    if (k.grid_width_param != ir::no_node && k.form == ir::map_form::chunked) {
        grid_chunked_map(b, m);
    } else if (k.grid_width_param != ir::no_node) {
        grid_map(b, m);
    } else if (k.form == ir::map_form::chunked) {
        chunked_map(b, m);
    } else if (const unsigned lanes = vector_map_lanes(launched)) {
        write_vector_map(b, launched, lanes);
    } else {
        b.open_for(std::string(d.index_type) + " i = " + d.global_id, "i < n", "i += " + std::string(d.global_size));
        m.body(b);
        b.close();
    }
    b.close();
    return name_kernel(b.text(), d, kernel_header(k));
}

} // namespace loom::codegen
