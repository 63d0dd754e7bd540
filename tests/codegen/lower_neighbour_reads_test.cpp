// Lowering neighbour reads to index arithmetic (codegen/lower_neighbour_reads.hpp), checked on
// values: the lowered IR is evaluated on the host, element by element, and every read must
// give what its boundary policy says, for offsets inside and far outside the vector or grid,
// in each way a kernel gets its coordinates.
#include "codegen_support.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "codegen/lower_neighbour_reads.hpp"
#include "ir/promotion.hpp"
#include "loom/error.hpp"

using namespace loom_codegen_test;
using loom::boundary_policy;
using loom::codegen::lower_neighbour_reads;
using loom::codegen::neighbour_form;
using loom::ir::no_node;

namespace {

// Where the element is, as each kernel form names it.
struct position {
    std::uint64_t i = 0, n = 0;
    std::int64_t column = 0, row = 0, height = 0, width = 0; // a grid kernel's launch
    // A grid kernel's plane coordinates, where its 3-D reads share rows per plane.
    std::int64_t plane = 0, plane_row = 0, plane_rows = 0, planes = 0;
};

// One IR value: integers (bool, signed and unsigned) as 64-bit two's complement, floats as double.
struct value {
    std::int64_t i = 0;
    double f = 0;
};

// Evaluates node `root` of a lowered kernel at one element. Scalars take `scalars[param]`,
// buffers `buffers[param]` (floats).
class evaluator {
public:
    evaluator(const loom::ir::kernel& k, std::vector<value> scalars, std::vector<std::vector<float>> buffers)
        : k_(k), scalars_(std::move(scalars)), buffers_(std::move(buffers)) {}

    value at(std::uint32_t root, const position& p) {
        std::vector<value> v(k_.body.size());
        for (std::uint32_t j = 0; j <= root; ++j) v[j] = node(k_.body[j], v, p);
        return v[root];
    }

private:
    value node(const loom::ir::node& n, const std::vector<value>& v, const position& p) const {
        const bool f = loom::ir::is_float(n.type);
        auto arg = [&](int a) { return v[n.arg[a]]; };
        value r;
        switch (n.op) {
        case opcode::scalar: return scalars_[n.slot];
        case opcode::load: r.f = buffers_[n.slot][p.i]; return r;
        case opcode::load_at: { // element a; with a bound b, 0 at or past it (unsigned)
            const std::uint64_t at = std::uint64_t(arg(0).i);
            if (n.arg[1] != no_node && at >= std::uint64_t(arg(1).i)) return r;
            REQUIRE(at < buffers_[n.slot].size()); // a lowered read stays inside its buffer
            r.f = buffers_[n.slot][std::size_t(at)];
            return r;
        }
        case opcode::index:
            switch (loom::ir::index_value(n.slot)) {
            case loom::ir::index_value::element: r.i = std::int64_t(p.i); break;
            case loom::ir::index_value::count: r.i = std::int64_t(p.n); break;
            case loom::ir::index_value::grid_column: r.i = p.column; break;
            case loom::ir::index_value::grid_row: r.i = p.row; break;
            case loom::ir::index_value::grid_height: r.i = p.height; break;
            case loom::ir::index_value::grid_width: r.i = p.width; break;
            case loom::ir::index_value::grid_plane: r.i = p.plane; break;
            case loom::ir::index_value::grid_plane_row: r.i = p.plane_row; break;
            case loom::ir::index_value::grid_plane_rows: r.i = p.plane_rows; break;
            case loom::ir::index_value::grid_planes: r.i = p.planes; break;
            case loom::ir::index_value::zero: r.i = 0; break;
            case loom::ir::index_value::one: r.i = 1; break;
            case loom::ir::index_value::row: // a matrix's positions: never in a lowered neighbour read
            case loom::ir::index_value::column:
            case loom::ir::index_value::axis2: FAIL("a matrix or 3-D array position in a stencil kernel"); break;
            case loom::ir::index_value::entry: FAIL("a row sum's entry in a stencil kernel"); break;
            }
            return r;
        case opcode::cast: {
            const value a = arg(0);
            const bool from_float = loom::ir::is_float(k_.body[n.arg[0]].type);
            if (f)
                r.f = from_float ? a.f
                                 : (k_.body[n.arg[0]].type == dtype::u64 ? double(std::uint64_t(a.i)) : double(a.i));
            else
                r.i = from_float ? std::int64_t(a.f) : a.i;
            return r;
        }
        case opcode::select: return arg(0).i ? arg(1) : arg(2);
        case opcode::logical_and: r.i = arg(0).i && arg(1).i; return r;
        case opcode::less: r.i = arg(0).i < arg(1).i; return r;
        case opcode::greater_equal: r.i = arg(0).i >= arg(1).i; return r;
        case opcode::max: r.i = arg(0).i < arg(1).i ? arg(1).i : arg(0).i; return r;
        case opcode::clamp: { // std::clamp(a, lo, hi) as the emitter writes it
            const std::int64_t a = arg(0).i, lo = arg(1).i, hi = arg(2).i;
            r.i = a < lo ? lo : (hi < a ? hi : a);
            return r;
        }
        case opcode::add:
            if (f)
                r.f = arg(0).f + arg(1).f;
            else
                r.i = arg(0).i + arg(1).i;
            return r;
        case opcode::sub: r.i = arg(0).i - arg(1).i; return r;
        case opcode::mul: r.i = arg(0).i * arg(1).i; return r;
        case opcode::div: // Loom's integer division: x / 0 == 0
            if (f)
                r.f = arg(0).f / arg(1).f;
            else
                r.i = arg(1).i == 0 ? 0 : arg(0).i / arg(1).i;
            return r;
        case opcode::mod: r.i = arg(1).i == 0 ? arg(0).i : arg(0).i % arg(1).i; return r;
        default: FAIL("the lowering wrote an op the evaluator does not know: ", int(n.op));
        }
        return r;
    }

    const loom::ir::kernel& k_;
    std::vector<value> scalars_;
    std::vector<std::vector<float>> buffers_;
};

std::int64_t clamped(std::int64_t j, std::int64_t size) { return j < 0 ? 0 : (j >= size ? size - 1 : j); }
std::int64_t wrapped(std::int64_t j, std::int64_t size) { return (j % size + size) % size; }

const float outside = -7.0f; // the constant policy's value

// What a read at (x, y) of a grid w wide and h high gives (h == 1: a 1-D read at x).
float expected(const std::vector<float>& data, boundary_policy policy, std::int64_t x, std::int64_t y, std::int64_t w,
               std::int64_t h) {
    if (policy == boundary_policy::clamp) return data[std::size_t(clamped(y, h) * w + clamped(x, w))];
    if (policy == boundary_policy::wrap) return data[std::size_t(wrapped(y, h) * w + wrapped(x, w))];
    return x >= 0 && x < w && y >= 0 && y < h ? data[std::size_t(y * w + x)] : outside;
}

std::vector<float> numbered(std::size_t n) {
    std::vector<float> data(n);
    for (std::size_t k = 0; k < n; ++k) data[k] = 100.0f + float(k);
    return data;
}

bool reads_neighbours(const loom::ir::kernel& k) {
    for (const loom::ir::node& n : k.body)
        if (n.op == opcode::load_neighbour) return true;
    return false;
}

const boundary_policy policies[] = {boundary_policy::clamp, boundary_policy::wrap, boundary_policy::constant};

} // namespace

TEST_CASE("a lowered 1-D neighbour read gives its policy's element for offsets inside and far outside") {
    const std::uint64_t n = 10;
    const std::vector<float> x = numbered(n);
    for (bool literal : {false, true}) // a zero offset as a parameter, or compiled in
        for (boundary_policy policy : policies)
            for (std::int64_t d : {-23, -10, -3, -1, 0, 1, 4, 9, 10, 31}) {
                if (literal && d != 0) continue;
                CAPTURE(literal);
                CAPTURE(int(policy));
                CAPTURE(d);
                kernel_builder b; // y = x[i + d]
                const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32), offset = b.scalar_param(dtype::i64),
                           fallback = b.scalar_param(dtype::f32);
                const auto value_node = policy == boundary_policy::constant ? b.scalar(fallback) : no_node;
                b.store(out,
                        b.neighbour(in, policy, literal ? b.zero() : b.scalar(offset), no_node, no_node, value_node));
                const loom::ir::kernel k = b.kernel();
                const loom::codegen::lowered_kernel l =
                    lower_neighbour_reads(k, {k.stores[0].value}, neighbour_form::checked);
                CHECK_FALSE(reads_neighbours(l.kernel));
                evaluator e(l.kernel, {{}, {}, {d, 0}, {0, outside}}, {x, {}});
                for (std::uint64_t i = 0; i < n; ++i) {
                    CAPTURE(i);
                    CHECK(e.at(l.kernel.stores[0].value, {i, n}).f ==
                          expected(x, policy, std::int64_t(i) + d, 0, std::int64_t(n), 1));
                }
            }
}

TEST_CASE("a lowered 2-D neighbour read gives its policy's element, from the index or from the launch") {
    const std::int64_t w = 4, h = 3;
    const std::uint64_t n = std::uint64_t(w * h);
    const std::vector<float> u = numbered(n);
    enum class coordinates { integer_division, double_division, launch };
    for (bool literal : {false, true}) // zero offsets as parameters, or compiled in
        for (coordinates from : {coordinates::integer_division, coordinates::double_division, coordinates::launch})
            for (boundary_policy policy : policies)
                for (std::int64_t di : {-9, -1, 0, 2, 5})
                    for (std::int64_t dj : {-4, -1, 0, 1, 7}) {
                        if (literal && di != 0 && dj != 0) continue;
                        CAPTURE(literal);
                        CAPTURE(int(from));
                        CAPTURE(int(policy));
                        CAPTURE(di);
                        CAPTURE(dj);
                        kernel_builder b; // v = u(x + di, y + dj)
                        const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32);
                        const auto pi = b.scalar_param(dtype::i64), pj = b.scalar_param(dtype::i64),
                                   pw = b.scalar_param(dtype::i64), pc = b.scalar_param(dtype::f32);
                        const auto value_node = policy == boundary_policy::constant ? b.scalar(pc) : no_node;
                        auto offset = [&](std::uint32_t param, std::int64_t at) {
                            return literal && at == 0 ? b.zero() : b.scalar(param);
                        };
                        b.store(out, b.neighbour(in, policy, offset(pi, di), offset(pj, dj), b.scalar(pw), value_node));
                        if (from == coordinates::launch) b.grid_launch(pw);
                        loom::ir::kernel k = b.kernel();
                        k.double_grid_division = from == coordinates::double_division;
                        const loom::codegen::lowered_kernel l =
                            lower_neighbour_reads(k, {k.stores[0].value}, neighbour_form::checked);
                        CHECK_FALSE(reads_neighbours(l.kernel));
                        evaluator e(l.kernel, {{}, {}, {di, 0}, {dj, 0}, {w, 0}, {0, outside}}, {u, {}});
                        for (std::uint64_t i = 0; i < n; ++i) {
                            CAPTURE(i);
                            const std::int64_t col = std::int64_t(i) % w, row = std::int64_t(i) / w;
                            CHECK(e.at(l.kernel.stores[0].value, {i, n, col, row, h, w}).f ==
                                  expected(u, policy, col + di, row + dj, w, h));
                        }
                    }
}

TEST_CASE("a lowered 3-D neighbour read gives its policy's element, dividing per read or from the form's planes") {
    const std::int64_t w = 4, h = 3, d = 2; // columns, rows per plane, planes
    const std::uint64_t n = std::uint64_t(w * h * d);
    const std::vector<float> u = numbered(n);
    auto expected3 = [&](boundary_policy policy, std::int64_t x, std::int64_t y, std::int64_t z) {
        if (policy == boundary_policy::clamp)
            return u[std::size_t((clamped(z, d) * h + clamped(y, h)) * w + clamped(x, w))];
        if (policy == boundary_policy::wrap)
            return u[std::size_t((wrapped(z, d) * h + wrapped(y, h)) * w + wrapped(x, w))];
        const bool inside = x >= 0 && x < w && y >= 0 && y < h && z >= 0 && z < d;
        return inside ? u[std::size_t((z * h + y) * w + x)] : outside;
    };
    // Per read: each divides the row by its own height. Planes, checked: the form's plane and row
    // in it, every element tested. Planes, interior: the chunked form's interior, where a clamped
    // or wrapped read takes its neighbour row (row_resolved) and the column stays inside the row.
    enum class coordinates { per_read, planes_checked, planes_interior };
    for (bool literal : {false, true}) // zero offsets as parameters, or compiled in
        for (coordinates from : {coordinates::per_read, coordinates::planes_checked, coordinates::planes_interior})
            for (boundary_policy policy : policies)
                for (std::int64_t di : {-5, -1, 0, 1, 4})
                    for (std::int64_t dj : {-4, -1, 0, 2})
                        for (std::int64_t dk : {-3, -1, 0, 1, 2}) {
                            if (literal && di != 0 && dj != 0 && dk != 0) continue;
                            const bool interior = from == coordinates::planes_interior;
                            CAPTURE(literal);
                            CAPTURE(int(from));
                            CAPTURE(int(policy));
                            CAPTURE(di);
                            CAPTURE(dj);
                            CAPTURE(dk);
                            kernel_builder b; // v = u(x + di, y + dj, z + dk)
                            const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32);
                            const auto pi = b.scalar_param(dtype::i64), pj = b.scalar_param(dtype::i64),
                                       pk = b.scalar_param(dtype::i64), pw = b.scalar_param(dtype::i64),
                                       ph = b.scalar_param(dtype::i64), pc = b.scalar_param(dtype::f32);
                            const auto value_node = policy == boundary_policy::constant ? b.scalar(pc) : no_node;
                            auto offset = [&](std::uint32_t param, std::int64_t at) {
                                return literal && at == 0 ? b.zero() : b.scalar(param);
                            };
                            const auto read = b.neighbour3(in, policy, offset(pi, di), offset(pj, dj), offset(pk, dk),
                                                           b.scalar(pw), b.scalar(ph), value_node);
                            b.store(out, read);
                            b.grid_launch(pw);
                            if (from != coordinates::per_read) b.plane_launch(ph);
                            b.form(loom::ir::map_form::chunked);
                            const loom::ir::kernel k = b.kernel();
                            const bool resolved = loom::codegen::row_resolved(k.body[read], k);
                            CHECK(resolved == (from != coordinates::per_read && policy != boundary_policy::constant));
                            if (interior && !resolved) continue; // the form tests such a read's row
                            const loom::codegen::lowered_kernel l = lower_neighbour_reads(
                                k, {k.stores[0].value}, interior ? neighbour_form::interior : neighbour_form::checked);
                            CHECK_FALSE(reads_neighbours(l.kernel));
                            evaluator e(l.kernel, {{}, {}, {di, 0}, {dj, 0}, {dk, 0}, {w, 0}, {h, 0}, {0, outside}},
                                        {u, {}});
                            for (std::uint64_t i = 0; i < n; ++i) {
                                const std::int64_t col = std::int64_t(i) % w, row = std::int64_t(i) / w;
                                if (interior && (col + di < 0 || col + di >= w)) continue; // the form's edge columns
                                CAPTURE(i);
                                position p{i, n, col, row, h * d, w};
                                p.plane = row / h;
                                p.plane_row = row % h;
                                p.plane_rows = h;
                                p.planes = d;
                                CHECK(e.at(l.kernel.stores[0].value, p).f ==
                                      expected3(policy, col + di, row % h + dj, row / h + dk));
                            }
                        }
}

TEST_CASE("an interior read is element i + offset with no policy; a read the form cannot test stays checked") {
    const std::uint64_t n = 16;
    const std::vector<float> x = numbered(n);
    kernel_builder b; // y = x[i + d] (testable) + x[i + (d + d)] (an offset the form cannot name)
    const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32), offset = b.scalar_param(dtype::i64);
    const auto d = b.scalar(offset);
    const auto testable = b.neighbour(in, d);
    const auto computed = b.neighbour(in, b.op(opcode::add, dtype::i64, d, d));
    b.store(out, b.op(opcode::add, dtype::f32, testable, computed));
    const loom::ir::kernel k = b.kernel();
    const loom::codegen::lowered_kernel l = lower_neighbour_reads(k, {k.stores[0].value}, neighbour_form::interior);
    CHECK(loom::codegen::interior_testable(k.body[testable], k));
    CHECK_FALSE(loom::codegen::interior_testable(k.body[computed], k));
    // The testable read's index is (long)i + d: no clamp, select or modulo on its way.
    const std::uint32_t read = l.node[testable];
    REQUIRE(l.kernel.body[read].op == opcode::load_at);
    const loom::ir::node& index = l.kernel.body[l.kernel.body[read].arg[0]];
    CHECK(index.op == opcode::add);
    CHECK(l.kernel.body[index.arg[0]].op == opcode::cast);
    CHECK(l.kernel.body[index.arg[1]].op == opcode::scalar);
    // The other read is still clamped at the ends.
    CHECK(l.kernel.body[l.kernel.body[l.node[computed]].arg[0]].op == opcode::clamp);
    evaluator e(l.kernel, {{}, {}, {3, 0}}, {x, {}});
    for (std::uint64_t i = 0; i + 3 < n; ++i) {
        CAPTURE(i);
        CHECK(e.at(l.kernel.stores[0].value, {i, n}).f == x[i + 3] + x[std::size_t(clamped(std::int64_t(i) + 6, 16))]);
    }
}

TEST_CASE("a zero offset compiled in leaves that coordinate the element's own: no clamp, wrap or test") {
    const std::int64_t w = 8, h = 4;
    const std::uint64_t n = std::uint64_t(w * h);
    const std::vector<float> u = numbered(n);
    for (boundary_policy policy : policies) {
        CAPTURE(int(policy));
        kernel_builder b; // v = u(x + di, y): its row is the element's own
        const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32);
        const auto pi = b.scalar_param(dtype::i64), pw = b.scalar_param(dtype::i64), pc = b.scalar_param(dtype::f32);
        const auto value_node = policy == boundary_policy::constant ? b.scalar(pc) : no_node;
        b.store(out, b.neighbour(in, policy, b.scalar(pi), b.zero(), b.scalar(pw), value_node));
        b.grid_launch(pw);
        const loom::ir::kernel k = b.kernel();
        const loom::codegen::lowered_kernel l = lower_neighbour_reads(k, {k.stores[0].value}, neighbour_form::checked);
        // One coordinate moves: one clamp, one wrap (a select), or one range test (two comparisons).
        auto count = [&](opcode o) {
            return std::count_if(l.kernel.body.begin(), l.kernel.body.end(), [&](const auto& m) { return m.op == o; });
        };
        CHECK(count(opcode::clamp) == (policy == boundary_policy::clamp ? 1 : 0));
        CHECK(count(opcode::greater_equal) == (policy == boundary_policy::clamp ? 0 : 1));
        evaluator e(l.kernel, {{}, {}, {-3, 0}, {w, 0}, {0, outside}}, {u, {}});
        for (std::uint64_t i = 0; i < n; ++i) {
            CAPTURE(i);
            const std::int64_t col = std::int64_t(i) % w, row = std::int64_t(i) / w;
            CHECK(e.at(l.kernel.stores[0].value, {i, n, col, row, h, w}).f == expected(u, policy, col - 3, row, w, h));
        }
    }
}

TEST_CASE("a kernel whose roots reach no neighbour read comes back unchanged; the printer refuses an unlowered read") {
    const loom::ir::kernel k = saxpy_sin();
    const loom::codegen::lowered_kernel l = lower_neighbour_reads(k, {k.stores[0].value}, neighbour_form::checked);
    CHECK(l.kernel.body == k.body);
    for (std::uint32_t j = 0; j < l.node.size(); ++j) CHECK(l.node[j] == j);
    { // a neighbour read no root reaches (a dead statement of a fused group) changes nothing either
        kernel_builder b;
        const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32), offset = b.scalar_param(dtype::i64);
        b.neighbour(in, b.scalar(offset));
        b.store(out, b.op(opcode::add, dtype::f32, b.load(in), b.load(in)));
        const loom::ir::kernel dead = b.kernel();
        CHECK(lower_neighbour_reads(dead, {dead.stores[0].value}, neighbour_form::checked).kernel.body == dead.body);
    }
    kernel_builder b;
    const auto in = b.buffer(dtype::f32), out = b.buffer(dtype::f32), offset = b.scalar_param(dtype::i64);
    b.store(out, b.neighbour(in, b.scalar(offset)));
    loom::codegen::source_builder text(loom::codegen::opencl_dialect());
    CHECK_THROWS_AS(loom::codegen::write_body(text, b.kernel()), loom::error);
}
