// Lowering neighbour reads to index arithmetic; see lower_neighbour_reads.hpp. Offsets, grid
// width and boundary value stay kernel arguments, so one kernel serves every offset. Index
// arithmetic is 64-bit signed (i64), as offsets are.
#include "codegen/lower_neighbour_reads.hpp"

#include <numeric>
#include <tuple>
#include <utility>

namespace loom::codegen {
namespace {

using ir::no_node;

// Adds index arithmetic to a body; every value is an i64 unless its name says otherwise.
// Nodes are added in the order the statements below name them, never inside one call's
// argument list (whose order C++ leaves open), so the text is the same from any compiler.
class index_arithmetic {
public:
    explicit index_arithmetic(ir::node_list& body) : body_(body) {}

    std::uint32_t leaf(ir::index_value v, dtype t = dtype::i64) {
        ir::node n{opcode::index, t};
        n.slot = std::uint32_t(v);
        return body_.add(n);
    }
    std::uint32_t op(opcode o, dtype t, std::uint32_t a, std::uint32_t b = no_node, std::uint32_t c = no_node) {
        ir::node n{o, t};
        n.arg[0] = a;
        n.arg[1] = b;
        n.arg[2] = c;
        return body_.add(n);
    }
    // A zero offset is the literal 0 (ir::is_literal_zero): sums and products with it fold here,
    // so a read along the element's own row or plane costs no index arithmetic on that axis.
    bool zero(std::uint32_t a) const { return ir::is_literal_zero(body_[a]); }
    std::uint32_t add(std::uint32_t a, std::uint32_t b) {
        if (zero(b)) return a;
        return zero(a) ? b : op(opcode::add, dtype::i64, a, b);
    }
    std::uint32_t sub(std::uint32_t a, std::uint32_t b) { return op(opcode::sub, dtype::i64, a, b); }
    std::uint32_t mul(std::uint32_t a, std::uint32_t b) {
        if (zero(a)) return a;
        return zero(b) ? b : op(opcode::mul, dtype::i64, a, b);
    }
    std::uint32_t div(std::uint32_t a, std::uint32_t b) { return op(opcode::div, dtype::i64, a, b); }
    std::uint32_t mod(std::uint32_t a, std::uint32_t b) { return op(opcode::mod, dtype::i64, a, b); }
    std::uint32_t cast(dtype t, std::uint32_t a) { return op(opcode::cast, t, a); }

    // The element's index, and the element count, as i64.
    std::uint32_t element() { return cast(dtype::i64, leaf(ir::index_value::element, dtype::u64)); }
    std::uint32_t count() { return cast(dtype::i64, leaf(ir::index_value::count, dtype::u64)); }

    // j moved into [0, size): the nearest end (clamp), or modulo size (wrap).
    std::uint32_t clamped(std::uint32_t j, std::uint32_t size) {
        const std::uint32_t zero = leaf(ir::index_value::zero), one = leaf(ir::index_value::one);
        const std::uint32_t last = sub(size, one);
        return op(opcode::clamp, dtype::i64, j, zero, last);
    }
    // An extent index arithmetic divides by, written as at least 1 (as it is): the printer then
    // writes C's division, without the guards for 0 and -1 that an IR division otherwise has,
    // and the device compiler divides as it does in a handwritten stencil.
    std::uint32_t extent(std::uint32_t size) { return op(opcode::max, dtype::i64, size, leaf(ir::index_value::one)); }
    std::uint32_t wrapped(std::uint32_t j, std::uint32_t size) {
        const std::uint32_t s = extent(size);
        return mod(add(mod(j, s), s), s);
    }
    // at + offset wrapped into [0, size), for `at` in [0, size): the offset taken modulo size
    // once (the same for every element), then one conditional subtraction. A `%` per element
    // is a scalar division per vector lane (AVX-512 has no vector integer division).
    std::uint32_t wrapped_from(std::uint32_t at, std::uint32_t offset, std::uint32_t size) {
        if (zero(offset)) return at;
        const std::uint32_t j = add(at, wrapped(offset, size));
        const std::uint32_t past = op(opcode::greater_equal, dtype::boolean, j, size);
        const std::uint32_t back = sub(j, size);
        return op(opcode::select, dtype::i64, past, back, j);
    }
    std::uint32_t in_range(std::uint32_t j, std::uint32_t size) {
        const std::uint32_t zero = leaf(ir::index_value::zero);
        const std::uint32_t above = op(opcode::greater_equal, dtype::boolean, j, zero);
        const std::uint32_t below = op(opcode::less, dtype::boolean, j, size);
        return op(opcode::logical_and, dtype::boolean, above, below);
    }

    // Element `index` of the read's buffer; with a `bound`, only below it (0 at or past it).
    std::uint32_t load(const ir::node& read, std::uint32_t index, std::uint32_t bound = no_node) {
        ir::node n{opcode::load_at, read.type};
        n.slot = read.slot;
        n.arg[0] = index;
        n.arg[1] = bound;
        return body_.add(n);
    }

private:
    ir::node_list& body_;
};

// Where a read's coordinates come from, and the extents they must stay inside.
struct coordinates {
    std::uint32_t x, size_x;                     // along the vector, or along a grid row
    std::uint32_t y = no_node, size_y = no_node; // 2-D and 3-D: the row (in its plane), the rows
    std::uint32_t width = no_node;               // 2-D and 3-D: elements per row
    std::uint32_t z = no_node, size_z = no_node; // 3-D: the plane, and the planes
    std::uint32_t height = no_node;              // 3-D: rows per plane
    // The element's own column (or index), row and plane, inside the grid: a 3-D wrapped read
    // moves from them with one conditional subtraction per coordinate, and a coordinate equal
    // to its own (a zero offset) needs no clamp, wrap or test.
    std::uint32_t x0 = no_node, y0 = no_node, z0 = no_node;
};

// The element's column and row in a grid `w` wide, and the grid's rows, with no offset.
struct grid_position {
    std::uint32_t column, row, rows, width;
};

grid_position grid_position_of(index_arithmetic& a, std::uint32_t w, const ir::kernel& k) {
    // The launch gives the coordinates, and its width is w: every read then shares loom_w, where
    // each read's own width parameter (equal, but not to the compiler) kept its clamps and row
    // products apart.
    if (k.grid_width_param != no_node)
        return {a.leaf(ir::index_value::grid_column), a.leaf(ir::index_value::grid_row),
                a.leaf(ir::index_value::grid_height), a.leaf(ir::index_value::grid_width)};
    // Element i is (x, y) = (i % w, i / w) of a grid n / w rows high.
    const std::uint32_t element = a.element();
    if (k.double_grid_division) { // see ir::kernel::double_grid_division
        auto quotient = [&](std::uint32_t u64_value) {
            const std::uint32_t num = a.cast(dtype::f64, u64_value), den = a.cast(dtype::f64, w);
            return a.cast(dtype::i64, a.op(opcode::div, dtype::f64, num, den));
        };
        const std::uint32_t row = quotient(a.leaf(ir::index_value::element, dtype::u64));
        const std::uint32_t column = a.sub(element, a.mul(row, w));
        return {column, row, quotient(a.leaf(ir::index_value::count, dtype::u64)), w};
    }
    // The column from the row, as the double division's form has it: one division per element.
    const std::uint32_t width = a.extent(w);
    const std::uint32_t row = a.div(element, width);
    const std::uint32_t column = a.sub(element, a.mul(row, width));
    return {column, row, a.div(a.count(), width), width};
}

// The coordinates of a read (its operands renumbered into the lowered body).
coordinates read_coordinates(index_arithmetic& a, const ir::node& read, const ir::kernel& k) {
    const std::uint32_t di = read.arg[ir::offset_i];
    if (read.arg[ir::grid_width] == no_node) {
        coordinates c{a.add(a.element(), di), a.count()};
        c.x0 = a.element();
        return c;
    }
    const grid_position g = grid_position_of(a, read.arg[ir::grid_width], k);
    const std::uint32_t dj = read.arg[ir::offset_j];
    if (read.arg[ir::grid_height] == no_node) {
        coordinates c{a.add(g.column, di), g.width, a.add(g.row, dj), g.rows, g.width};
        c.x0 = g.column;
        c.y0 = g.row;
        return c;
    }
    // 3-D: row r of the grid is row r % h of plane r / h; the form has them where the launch's
    // 3-D reads share h.
    const bool form_planes = k.grid_height_param != no_node;
    const std::uint32_t h =
        form_planes ? a.leaf(ir::index_value::grid_plane_rows) : a.extent(read.arg[ir::grid_height]);
    const std::uint32_t plane = form_planes ? a.leaf(ir::index_value::grid_plane) : a.div(g.row, h);
    const std::uint32_t row = form_planes ? a.leaf(ir::index_value::grid_plane_row) : a.sub(g.row, a.mul(plane, h));
    coordinates c{a.add(g.column, di), g.width, a.add(row, dj), h, g.width};
    c.z = a.add(plane, read.arg[ir::offset_k]);
    c.size_z = form_planes ? a.leaf(ir::index_value::grid_planes) : a.div(g.rows, h);
    c.height = h;
    c.x0 = g.column;
    c.y0 = row;
    c.z0 = plane;
    return c;
}

// Coordinate j clamped into [0, size), or j itself where it is the element's own (`own`).
std::uint32_t clamped(index_arithmetic& a, std::uint32_t j, std::uint32_t own, std::uint32_t size) {
    return j == own ? j : a.clamped(j, size);
}

// Where a read lands when it stays inside: element i + offset (i + (dk * h + dj) * w + di on
// a grid).
std::uint32_t neighbour_index(index_arithmetic& a, const ir::node& read) {
    std::uint32_t index = a.element();
    if (read.arg[ir::grid_width] != no_node) {
        std::uint32_t rows = read.arg[ir::offset_j];
        if (read.arg[ir::grid_height] != no_node)
            rows = a.add(a.mul(read.arg[ir::offset_k], read.arg[ir::grid_height]), rows);
        index = a.add(index, a.mul(rows, read.arg[ir::grid_width]));
    }
    return a.add(index, read.arg[ir::offset_i]);
}

// A read the kernel form has ruled the border out for.
std::uint32_t interior_read(index_arithmetic& a, const ir::node& read) {
    return a.load(read, neighbour_index(a, read));
}

// A row-resolved read (see row_resolved): its neighbour row clamped or wrapped into the grid,
// the same for the whole row (the device compiler computes it once per row), and the column
// moved by di, which the form's interior keeps inside the row.
std::uint32_t row_resolved_read(index_arithmetic& a, const ir::node& read, const ir::kernel& k) {
    const coordinates c = read_coordinates(a, read, k);
    const bool clamp = boundary_policy(read.boundary) == boundary_policy::clamp;
    const std::uint32_t y = clamp ? clamped(a, c.y, c.y0, c.size_y) : a.wrapped_from(c.y0, read.arg[ir::offset_j], c.size_y);
    const std::uint32_t z = clamp ? clamped(a, c.z, c.z0, c.size_z) : a.wrapped_from(c.z0, read.arg[ir::offset_k], c.size_z);
    const std::uint32_t row = a.add(a.mul(z, c.height), y);
    return a.load(read, a.add(a.mul(row, c.width), c.x));
}

// A read whose every element tests its border.
std::uint32_t checked_read(index_arithmetic& a, const ir::node& read, const ir::kernel& k) {
    const coordinates c = read_coordinates(a, read, k);
    const bool two_d = c.y != no_node, three_d = c.z != no_node;
    auto element_at = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
        if (!two_d) return x;
        const std::uint32_t row = three_d ? a.add(a.mul(z, c.height), y) : y;
        return a.add(a.mul(row, c.width), x);
    };
    auto clamped_index = [&] {
        const std::uint32_t x = clamped(a, c.x, c.x0, c.size_x);
        const std::uint32_t y = two_d ? clamped(a, c.y, c.y0, c.size_y) : no_node;
        const std::uint32_t z = three_d ? clamped(a, c.z, c.z0, c.size_z) : no_node;
        return element_at(x, y, z);
    };
    switch (boundary_policy(read.boundary)) {
    case boundary_policy::clamp: return a.load(read, clamped_index());
    case boundary_policy::wrap: {
        if (three_d) { // each coordinate moves from the element's own, inside the grid
            const std::uint32_t x = a.wrapped_from(c.x0, read.arg[ir::offset_i], c.size_x);
            const std::uint32_t y = a.wrapped_from(c.y0, read.arg[ir::offset_j], c.size_y);
            const std::uint32_t z = a.wrapped_from(c.z0, read.arg[ir::offset_k], c.size_z);
            return a.load(read, element_at(x, y, z));
        }
        if (two_d && k.grid_width_param != no_node) { // the launch's coordinates lie inside the grid
            const std::uint32_t x =
                a.wrapped_from(a.leaf(ir::index_value::grid_column), read.arg[ir::offset_i], c.size_x);
            const std::uint32_t y = a.wrapped_from(a.leaf(ir::index_value::grid_row), read.arg[ir::offset_j], c.size_y);
            return a.load(read, element_at(x, y, no_node));
        }
        auto wrapped = [&](std::uint32_t j, std::uint32_t own, std::uint32_t size) {
            return j == own ? j : a.wrapped(j, size);
        };
        const std::uint32_t x = wrapped(c.x, c.x0, c.size_x);
        const std::uint32_t y = two_d ? wrapped(c.y, c.y0, c.size_y) : no_node;
        return a.load(read, element_at(x, y, no_node));
    }
    case boundary_policy::constant: {
        // The boundary value where the neighbour lies outside the vector or the grid, else the
        // neighbour: element i + offset, read only where that lies inside the vector (a read
        // with a bound, which the device compiler makes a masked load of consecutive elements).
        // A coordinate that is the element's own lies inside and is not tested.
        std::uint32_t inside = no_node;
        for (auto [at, own, size] : {std::tuple{c.x, c.x0, c.size_x}, std::tuple{c.y, c.y0, c.size_y},
                                     std::tuple{c.z, c.z0, c.size_z}}) {
            if (at == no_node || at == own) continue;
            const std::uint32_t also = a.in_range(at, size);
            inside = inside == no_node ? also : a.op(opcode::logical_and, dtype::boolean, inside, also);
        }
        const std::uint32_t at = a.cast(dtype::u64, neighbour_index(a, read)); // below 0: past any bound
        const std::uint32_t value = a.load(read, at, a.leaf(ir::index_value::count, dtype::u64));
        if (inside == no_node) return value;
        return a.op(opcode::select, read.type, inside, value, read.arg[ir::boundary_value]);
    }
    }
    return no_node;
}

// Whether a node `roots` reach reads a neighbour.
bool reaches_neighbour_read(const ir::kernel& k, const std::vector<std::uint32_t>& roots) {
    std::vector<bool> reached(k.body.size(), false);
    for (std::uint32_t r : roots) reached[r] = true;
    for (std::size_t j = k.body.size(); j-- > 0;) {
        if (!reached[j]) continue;
        if (k.body[j].op == opcode::load_neighbour) return true;
        for (std::uint32_t a : k.body[j].arg)
            if (a != no_node) reached[a] = true;
    }
    return false;
}

} // namespace

bool interior_testable(const ir::node& n, const ir::kernel& k) {
    if (n.op != opcode::load_neighbour) return false;
    if (n.arg[ir::grid_width] != no_node && k.grid_width_param == no_node) return false;
    // A 3-D read's row test needs the row's plane: the chunked grid form tests it per row; a
    // work-group of the 2-D launch may span planes, so there its reads are checked.
    if (n.arg[ir::grid_height] != no_node && k.form != ir::map_form::chunked) return false;
    for (unsigned o : {ir::offset_i, ir::offset_j, ir::offset_k, ir::grid_height})
        if (n.arg[o] != no_node && k.body[n.arg[o]].op != opcode::scalar && !ir::is_literal_zero(k.body[n.arg[o]]))
            return false;
    return true;
}

bool row_resolved(const ir::node& n, const ir::kernel& k) {
    return interior_testable(n, k) && n.arg[ir::grid_height] != no_node && k.grid_height_param != no_node &&
           boundary_policy(n.boundary) != boundary_policy::constant;
}

namespace {

// Adds k's nodes, each neighbour read lowered for `form`, to `a`'s body: node[j] is what k's
// node j became.
void lower_into(index_arithmetic& a, ir::node_list& body, const ir::kernel& k, neighbour_form form,
                std::vector<std::uint32_t>& node) {
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        ir::node n = k.body[j];
        for (std::uint32_t& arg : n.arg)
            if (arg != no_node) arg = node[arg];
        if (n.op != opcode::load_neighbour)
            node[j] = body.add(n);
        else if (form == neighbour_form::interior && row_resolved(k.body[j], k))
            node[j] = row_resolved_read(a, n, k);
        else if (form == neighbour_form::interior && interior_testable(k.body[j], k))
            node[j] = interior_read(a, n);
        else
            node[j] = checked_read(a, n, k);
    }
}

std::vector<ir::kernel_store> renumbered_stores(const ir::kernel& k, const std::vector<std::uint32_t>& node) {
    std::vector<ir::kernel_store> stores = k.stores;
    for (ir::kernel_store& st : stores)
        for (std::uint32_t* v : {&st.value, &st.index, &st.limit})
            if (*v != no_node) *v = node[*v];
    return stores;
}

} // namespace

lowered_kernel lower_neighbour_reads(const ir::kernel& k, const std::vector<std::uint32_t>& roots,
                                     neighbour_form form) {
    lowered_kernel out{k, std::vector<std::uint32_t>(k.body.size())};
    std::iota(out.node.begin(), out.node.end(), 0u);
    if (!reaches_neighbour_read(k, roots)) return out;
    ir::node_list body;
    index_arithmetic a(body);
    lower_into(a, body, k, form, out.node);
    out.kernel.body = body.nodes();
    out.kernel.stores = renumbered_stores(k, out.node);
    return out;
}

lowered_forms lower_neighbour_reads(const ir::kernel& k, const std::vector<neighbour_form>& forms) {
    lowered_forms out{k, std::vector<std::vector<ir::kernel_store>>(forms.size(), k.stores)};
    std::vector<std::uint32_t> roots;
    ir::append_store_nodes(k, roots);
    if (!reaches_neighbour_read(k, roots)) return out;
    ir::node_list body;
    index_arithmetic a(body);
    std::vector<std::uint32_t> node(k.body.size());
    for (std::size_t f = 0; f < forms.size(); ++f) {
        lower_into(a, body, k, forms[f], node);
        out.stores[f] = renumbered_stores(k, node);
    }
    out.kernel.body = body.nodes();
    out.kernel.stores = out.stores[0];
    return out;
}

} // namespace loom::codegen
