// 3-D arrays: loom::array3<T>, d0 x d1 x d2 elements in row-major order on a device (element
// (i, j, k) at (i * d1 + j) * d2 + k), and element-wise 3-D expressions over them.
//
//   loom::array3<float> u(ctx, nz, ny, nx, host), v(ctx, nz, ny, nx);
//   v = u * 2.0f + 1.0f;                                                 // fused like vectors
//   v = loom::cast<float>(loom::index<0>() * 100 + loom::index<1>() * 10 + loom::index<2>());
//   auto g = loom::grid(u);                                              // the 7-point stencil
//   v = u + 0.1f * (loom::at(g, -1, 0, 0) + loom::at(g, 1, 0, 0) + ... - 6.0f * u);
//
// An array3 statement is a vector statement of d0 * d1 * d2 elements: it fuses with the vector
// statements around it, and loom::index<D>() costs 64-bit divisions by the last two extents
// per element there. docs/matrices.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/matrix.hpp"
#include "loom/stencil.hpp"

namespace loom {

template <class T> class array3;

namespace expr {

template <class T> struct is_device_object<loom::array3<T>> : std::true_type {};
template <class T> struct terminal_value_type<loom::array3<T>> { using type = T; };
template <class T> struct array3_ref;
template <class T> struct holder_of<loom::array3<T>> { using type = array3_ref<T>; };

// A 3-D array as an expression holds it: its buffer through the array's claim, and its extents.
// In a 2-D statement it is an error that says so.
template <class T> struct array3_ref {
    counted_buffer memory;
    extent_check3::extents_type shape;

    static array3_ref of(const loom::array3<T>& a) {
        return {counted_buffer(a.claim()), {a.extent(0), a.extent(1), a.extent(2)}};
    }

    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(memory.get()); }
    first_operand_t operand() const { return {memory.get() ? &memory.get() : nullptr, shape[0] * shape[1] * shape[2]}; }
    bool reads(const detail::buffer* b) const { return memory.get().get() == b; }
    void extents(extent_check3& c) const { c.term(shape); }
    [[noreturn]] void extents(extent_check&) const {
        throw error("loom: a loom::array3 (" + extent_check3::describe_extents(shape) +
                    ") in a 2-D expression; a matrix statement or a reduction along an axis takes 2-D operands "
                    "(loom::reshape the array's elements into a matrix)");
    }
};
template <class T> struct terminal_value_type<array3_ref<T>> { using type = T; };
template <class T> struct terminal_is_3d<array3_ref<T>> : std::true_type {};
template <class T> struct terminal_is_3d<loom::array3<T>> : std::true_type {};

// The input of a reduction along axis 0 or 2 of 3-D expressions, lowered once per list of
// expression types, and whether it binds an extent after its slots.
struct axis3_input {
    const detail::shape* shape = nullptr;
    unsigned extents = 0; // extents bound after the slots (shape_builder::finish_axis_input3)
};
template <unsigned Folded, class... E> const axis3_input& axis3_input_of(const E&... e) {
    return lowered_once(
        [&] {
            detail::shape_builder b;
            const detail::node_ref roots[] = {lower(b, e)...};
            axis3_input in;
            in.shape = b.finish_axis_input3(roots, unsigned(sizeof...(E)), Folded, in.extents);
            return in;
        },
        e...);
}

} // namespace expr

// d0 x d1 x d2 elements on a device, row-major: element (i, j, k) is element (i * d1 + j) * d2 + k
// of its storage, a loom::vector of d0 * d1 * d2 elements. For a field on a grid, d0 is the
// slowest axis (z), d2 the fastest (x): loom::grid(a) reads it as nx = d2, ny = d1, nz = d0.
template <class T> class array3 {
    static_assert(is_element_type_v<T>, "loom::array3<T>: T must be an element type (see loom::vector)");

public:
    using value_type = T;
    using shape_type = std::array<std::size_t, 3>;

    // An empty array with no device; assign another array to give it one.
    array3() = default;

    // d0 x d1 x d2 elements, zero-initialised (the fill is a statement, fused into what follows).
    array3(const context& ctx, std::size_t d0, std::size_t d1, std::size_t d2) : array3(ctx, d0, d1, d2, T(0)) {}
    array3(const context& ctx, std::size_t d0, std::size_t d1, std::size_t d2, T value)
        : storage_(ctx, elements({d0, d1, d2}), value), extents_{d0, d1, d2} {}
    // Row-major host data: element (i, j, k) is host[(i * d1 + j) * d2 + k].
    array3(const context& ctx, std::size_t d0, std::size_t d1, std::size_t d2, const std::vector<T>& host)
        : storage_(ctx, checked_host({d0, d1, d2}, host.size()), host.data()), extents_{d0, d1, d2} {}
    template <class P, std::enable_if_t<std::is_same_v<P, const T*> || std::is_same_v<P, T*>, int> = 0>
    array3(const context& ctx, std::size_t d0, std::size_t d1, std::size_t d2, P host)
        : storage_(ctx, elements({d0, d1, d2}), host), extents_{d0, d1, d2} {}

    // The value of a 3-D expression: its context and extents from its arrays.
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> array3(const E& e) {
        expr::extent_check3 c("a loom::array3 built from an expression");
        expr::collect_extents(e, c);
        c.finish();
        const expr::first_operand_t first = expr::first_operand(e);
        if (!first.buffer)
            throw error("loom: a loom::array3 built from an expression takes its context from the expression's "
                        "arrays and vectors, and these are empty (no context)");
        const expr::extent_check3::extents_type d = c.extents();
        storage_ = vector<T>(context(detail::shared_context_of(**first.buffer)), d[0] * d[1] * d[2]);
        extents_ = {d[0], d[1], d[2]};
        assign(e);
    }

    // A device copy (a statement, so it fuses); a move is cheap.
    array3(const array3& other) = default;
    array3(array3&& other) noexcept : storage_(std::move(other.storage_)), extents_(other.extents_) {
        other.extents_ = {0, 0, 0};
    }
    // Takes the other's shape, as std::vector takes its length.
    array3& operator=(const array3& other) {
        if (this != &other) {
            storage_ = other.storage_;
            extents_ = other.extents_;
        }
        return *this;
    }
    array3& operator=(array3&& other) noexcept {
        if (this != &other) {
            storage_ = std::move(other.storage_);
            extents_ = other.extents_;
            other.extents_ = {0, 0, 0};
        }
        return *this;
    }

    // Exchanges the two arrays' memory, no copy (ping-pong buffers; inside loom::loop too, as
    // vectors swap). The extents must be equal: a loop replays the exchange of memory only.
    void swap(array3& other) {
        if (extents_ != other.extents_)
            throw error("loom: swap of a " + describe(extents_) + " and a " + describe(other.extents_) +
                        " loom::array3; arrays that swap need equal extents (assign one to the other to reshape)");
        storage_.swap(other.storage_);
    }

    // A = 3-D expression; A = another array of another type (same shape); A = host scalar or
    // loom::scalar (every element). The shapes are checked now (loom::length_error).
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> array3& operator=(const E& e) {
        return assign(e);
    }
    template <class U> array3& operator=(const array3<U>& other) { return assign(other); }
    template <class U> array3& operator=(const scalar<U>& s) { return assign(s); }
    template <class S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0> array3& operator=(S value) {
        return assign(value);
    }

    // A += e, A -= e, ...: the statement A = A op e.
    LOOM_COMPOUND_ASSIGNMENTS(array3)

    // The extent along axis d (0, 1 or 2); all three.
    std::size_t extent(unsigned d) const { return extents_.at(d); }
    const shape_type& extents() const { return extents_; }
    std::size_t size() const { return storage_.size(); } // d0 * d1 * d2
    bool empty() const { return storage_.empty(); }

    std::vector<T> to_host() const { return storage_.to_host(); }
    // The elements as a vector of d0 * d1 * d2 (the same device memory, no copy), for 1-D
    // operations: loom::sum(A.elements()).
    const vector<T>& elements() const { return storage_; }

    // One element through the host (flushes and moves one element: slow, for a few elements).
    typename vector<T>::element_proxy operator()(std::size_t i, std::size_t j, std::size_t k) {
        return storage_[at(i, j, k)];
    }
    T operator()(std::size_t i, std::size_t j, std::size_t k) const { return storage_[at(i, j, k)]; }

    // ---- as an expression terminal (see expr/lower.hpp) ----
    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(storage_.buffer()); }
    expr::first_operand_t operand() const { return {storage_.buffer() ? &storage_.buffer() : nullptr, size()}; }
    bool reads(const detail::buffer* b) const { return storage_.buffer().get() == b; }
    void extents(expr::extent_check3& c) const { c.term({extents_[0], extents_[1], extents_[2]}); }
    [[noreturn]] void extents(expr::extent_check& c) const { expr::array3_ref<T>::of(*this).extents(c); }
    const detail::buffer_ptr& buffer() const { return storage_.buffer(); }
    const expr::shared_claim& claim() const { return storage_.claim(); } // how expressions hold it

    // Host to device (loom::copy): host.size() must be d0 * d1 * d2.
    void upload(const std::vector<T>& host) {
        checked_host(extents_, host.size());
        copy(host, storage_);
    }

    // loom::reshape, loom::flatten: an array over a vector's buffer and back, no copy.
    static array3 over(const vector<T>& elements, const shape_type& d) {
        if (elements.size() != array3::elements(d))
            throw length_error("loom::reshape: a vector of " + std::to_string(elements.size()) + " elements is not a " +
                               describe(d) + " array (" + std::to_string(d[0] * d[1] * d[2]) +
                               " elements); the element counts must match");
        array3 a;
        a.storage_ = elements.share();
        a.extents_ = d;
        return a;
    }
    vector<T> shared_elements() const { return storage_.share(); }

private:
    static std::string describe(const shape_type& d) {
        return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
    }
    static std::size_t elements(const shape_type& d) {
        const std::size_t plane = d[1] * d[2];
        if ((d[1] != 0 && d[2] > ~std::size_t(0) / d[1]) || (plane != 0 && d[0] > ~std::size_t(0) / plane))
            throw error("loom: a loom::array3 of " + describe(d) + " elements does not fit in memory's index range");
        return d[0] * plane;
    }
    static std::size_t checked_host(const shape_type& d, std::size_t n) {
        if (n != elements(d))
            throw length_error("loom: a " + describe(d) + " loom::array3 takes " + std::to_string(elements(d)) +
                               " elements, and the host vector has " + std::to_string(n));
        return n;
    }
    std::size_t at(std::size_t i, std::size_t j, std::size_t k) const {
        if (i >= extents_[0] || j >= extents_[1] || k >= extents_[2])
            throw error("loom: element (" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) +
                        ") is out of range for a " + describe(extents_) + " loom::array3");
        return (i * extents_[1] + j) * extents_[2] + k;
    }

    template <class E> array3& assign(const E& e) {
        if (!storage_.buffer())
            throw error("loom: assignment to an empty loom::array3; construct it with a context and three extents "
                        "first");
        expr::extent_check3 c("a loom::array3 assignment");
        c.target({extents_[0], extents_[1], extents_[2]});
        expr::collect_extents(e, c);
        c.finish();
        // Lowered once per (expression type, element type): later statements reuse the shape.
        const expr::matrix_statement& statement =
            expr::lowered_once([&] { return expr::array_statement_of<T>(e, 3); }, e);
        detail::statement_recorder recorder(*detail::context_of(*storage_.buffer()));
        expr::bind(recorder, e);
        if (statement.takes_columns) { // the second and third extents (ir/lower_positions.hpp)
            const std::uint64_t d1 = extents_[1], d2 = extents_[2];
            recorder.scalar_slot(&d1, sizeof d1);
            recorder.scalar_slot(&d2, sizeof d2);
        }
        recorder.commit_assignment(statement.shape, storage_.buffer());
        return *this;
    }

    vector<T> storage_;
    shape_type extents_{0, 0, 0};
};

// loom::swap(a, b) of two arrays of equal extents: their memory exchanged (see array3::swap).
template <class T> void swap(array3<T>& a, array3<T>& b) { a.swap(b); }

namespace detail {

// Along axis 2 (a value per (i, j): a d0 x d1 matrix), axis 0 (per (j, k): d1 x d2) or axis 1
// (per (i, k): d0 x d2) of 3-D expressions, in one 2-D axis pass: axis 2 folds the columns of the
// elements seen as a (d0 d1) x d2 matrix, axis 0 the rows of d0 x (d1 d2), axis 1 the rows of
// d1 x (d0 d2) (read at computed indices). Each result is a 2-D operand over new device memory.
template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along3(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                        const char* what, std::index_sequence<K...>) {
    constexpr std::size_t count = sizeof...(E);
    expr::extent_check3 c(what);
    (expr::collect_extents(std::get<K>(inputs), c), ...);
    c.finish();
    const expr::extent_check3::extents_type d = c.extents();
    const std::uint64_t rows = Axis == 2 ? d[0] * d[1] : Axis == 1 ? d[1] : d[0];
    const std::uint64_t cols = Axis == 2 ? d[2] : Axis == 1 ? d[0] * d[2] : d[1] * d[2];
    const std::uint64_t out_rows = Axis == 0 ? d[1] : d[0], out_cols = Axis == 2 ? d[1] : d[2];
    const buffer_ptr* first = nullptr;
    ((first = first ? first : expr::first_buffer(std::get<K>(inputs))), ...);
    if (!first)
        throw error(std::string("loom: ") + what + " needs at least one loom::array3 or vector (with a context)");
    context_impl& ctx = *context_of(**first);
    const std::uint64_t size = out_rows * out_cols;
    std::tuple<expr::matrix_ref<R>...> results{expr::matrix_ref<R>(
        expr::counted_buffer(new_buffer(shared_context_of(**first), size, dtype_v<R>)), out_rows, out_cols)...};
    if (rows == 0 || cols == 0) {
        if (size) (fill(ctx, std::get<K>(results).memory.get(), std::get<K>(identities)), ...);
    } else {
        const skeleton_operation ops[count] = {expr::operation<R>(op, std::get<K>(identities))...};
        const buffer_ptr outputs[count] = {std::get<K>(results).memory.get()...};
        const expr::axis3_input& input = expr::axis3_input_of<unsigned(Axis)>(std::get<K>(inputs)...);
        std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
        run_pending(ctx);
        statement_recorder recorder(ctx);
        (expr::bind(recorder, std::get<K>(inputs)), ...); // in axis3_input_of's order
        const std::uint64_t d1 = d[1], d2 = d[2];         // the extents the shape's last slots take
        if (input.extents == 2 || (input.extents == 1 && Axis == 2)) recorder.scalar_slot(&d1, sizeof d1);
        if (input.extents == 2 || (input.extents == 1 && Axis == 0)) recorder.scalar_slot(&d2, sizeof d2);
        run_axis_reduce(ctx, {input.shape, Axis == 2 ? 1u : 0u, rows, cols, ops, outputs, count});
    }
    return std::make_tuple(expr::make_terminal(std::move(std::get<K>(results)))...);
}

} // namespace detail

// x's elements as a d0 x d1 x d2 array (row-major), without a copy: the two name one device
// buffer. d0 * d1 * d2 must be x.size() (loom::length_error otherwise).
template <class T> array3<T> reshape(const vector<T>& x, std::size_t d0, std::size_t d1, std::size_t d2) {
    return array3<T>::over(x, {d0, d1, d2});
}
// A 3-D array's elements, row-major, as a vector over the same device buffer (no copy).
template <class T> vector<T> flatten(const array3<T>& a) { return a.shared_elements(); }

// Device to host, row-major; host to device (host.size() must be d0 * d1 * d2).
template <class T> void copy(const array3<T>& a, std::vector<T>& host) { copy(a.elements(), host); }
template <class T> void copy(const std::vector<T>& host, array3<T>& a) { a.upload(host); }

// The array as a 3-D grid for stencil reads: loom::at(g, di, dj, dk) reads element
// (i + dk, j + dj, k + di), x = k the fastest axis (loom/stencil.hpp).
template <class T> auto grid(const array3<T>& a) { return grid(a.elements(), a.extent(2), a.extent(1), a.extent(0)); }

} // namespace loom
