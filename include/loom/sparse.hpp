// loom::sparse_matrix: a sparse matrix on the device, and its product with a vector as an operand
// of expressions, computed inside the kernel that reads it (docs/sparse.md).
//
//   loom::sparse_matrix<double> A(ctx, n, n, row_ptr, col, val);               // host CSR arrays
//   auto B = loom::sparse_matrix<double>::from_triplets(ctx, n, n, i, j, v);  // coordinates, summed
//   y = a * (A * x) + b * y;   // one kernel over the rows: each row's sum, then the rest
//
// `A * x` is an expression: element r is row r's sum of A(r, c) * x[c], computed by a loop over
// the row's entries in the kernel of the statement that reads it, fused with the statements
// around it like any operand read at other indices (a gather of x). x is a loom::vector<T>, or an
// expression, which is computed into a vector first.
//
// The layout (loom::sparse_layout): CSR, or sliced ELL (slices of rows stored column by column,
// so that neighbouring rows' k-th entries are neighbours in memory, as a GPU's threads read them).
// By default CSR where the device runs maps in chunks (CPUs), sliced ELL of 32-row slices where
// it runs them grid-stride (GPUs), unless that layout would more than double the stored entries.
// Both visit a row's entries in the order given, so the product is the same in every layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/context.hpp"
#include "loom/detail/sparse_layout.hpp"
#include "loom/error.hpp"
#include "loom/expr/vector_ref.hpp"
#include "loom/vector.hpp"

namespace loom {

// How a sparse matrix's entries are stored on the device.
class sparse_layout {
public:
    // CSR where the device runs maps in chunks, sliced ELL of 32-row slices where it runs them
    // grid-stride, unless the padding would more than double the entries stored (then CSR).
    static sparse_layout automatic() { return sparse_layout(0); }
    // Compressed sparse rows: each row's entries one after another.
    static sparse_layout csr() { return sparse_layout(1); }
    // Sliced ELL: rows in slices of `rows_per_slice` (a power of two, 2 to 1024), each slice
    // stored as its longest row's count of columns of rows_per_slice entries, shorter rows
    // padded (the padding is stored, never read).
    static sparse_layout sliced_ell(std::uint32_t rows_per_slice = 32) {
        if (rows_per_slice < 2 || rows_per_slice > 1024 || (rows_per_slice & (rows_per_slice - 1)))
            throw error("loom::sparse_layout::sliced_ell(" + std::to_string(rows_per_slice) +
                        "): a slice holds a power of two of rows, 2 to 1024");
        return sparse_layout(rows_per_slice);
    }

    bool is_automatic() const { return slice_ == 0; }
    // The rows a slice holds: 1 for CSR (a row is its own slice), 0 while automatic.
    std::uint32_t rows_per_slice() const { return slice_; }

private:
    explicit sparse_layout(std::uint32_t slice) : slice_(slice) {}
    std::uint32_t slice_;
};

namespace expr {

// The terminal of A * x: element r of the statement is row r of A times x. Holds A's device
// arrays and x by claim, so the expression outlives both. A's layout is sliced ELL in general
// (CSR is one row a slice): row r is in slice r >> shift, at lane r & mask, and its k-th entry
// at starts[slice] + lane + (k << shift), for k below lengths[r]. The shift and mask are 0 for
// CSR, compiled into its kernel as literals (shape_builder::zero_folded_slot): the loop then
// steps by a constant 1.
template <class T, class I> struct sparse_product {
    vector_ref<I> starts, lengths, columns;
    vector_ref<T> values, x;
    I shift, mask;

    // Nodes are made in the order of the statements, never within one call's arguments (whose
    // order C++ leaves open), so that the kernel text is the same from every compiler.
    static detail::node_ref lower(detail::shape_builder& b) {
        const dtype ix = dtype_v<I>;
        const std::uint32_t starts_slot = b.gather_source(ix);
        const std::uint32_t lengths_slot = b.gather_source(ix);
        const std::uint32_t columns_slot = b.gather_source(ix);
        const std::uint32_t values_slot = b.gather_source(dtype_v<T>);
        const std::uint32_t x_slot = b.gather_source(dtype_v<T>);
        const detail::node_ref shift_of = b.zero_folded_slot(ix);
        const detail::node_ref mask_of = b.zero_folded_slot(ix);
        const detail::node_ref row = b.cast(ix, b.index());
        const detail::node_ref slice = b.apply(opcode::shift_right, row, shift_of);
        const detail::node_ref lane = b.apply(opcode::bit_and, row, mask_of);
        const detail::node_ref start = b.gather(starts_slot, slice, false);
        const detail::node_ref first = b.apply(opcode::add, start, lane);
        const detail::node_ref length = b.gather(lengths_slot, b.index(), false);
        const detail::node_ref span = b.apply(opcode::shift_left, length, shift_of);
        const detail::node_ref end = b.apply(opcode::add, first, span);
        const detail::node_ref j = b.entry(ix);
        const detail::node_ref column = b.gather(columns_slot, j, false);
        const detail::node_ref value = b.gather(values_slot, j, false);
        const detail::node_ref x_value = b.gather(x_slot, column, false);
        const detail::node_ref term = b.cast(dtype_v<T>, b.apply(opcode::mul, value, x_value));
        return b.row_sum(first, end, shift_of, term);
    }
    void bind(detail::statement_recorder& r) const {
        // The product has A's rows: a statement, reduction or scan of it has that many elements
        // (its reads of the lengths array are at the element, unchecked).
        r.view_extent(lengths.size);
        r.vector_slot(starts.memory.get());
        r.vector_slot(lengths.memory.get());
        r.vector_slot(columns.memory.get());
        r.vector_slot(values.memory.get());
        r.vector_slot(x.memory.get());
        r.scalar_slot(&shift, sizeof shift);
        r.scalar_slot(&mask, sizeof mask);
    }
    // The statement's length is A's rows (the lengths array's elements).
    first_operand_t operand() const { return {&lengths.memory.get(), lengths.size}; }
    bool reads(const detail::buffer* b) const {
        return starts.reads(b) || lengths.reads(b) || columns.reads(b) || values.reads(b) || x.reads(b);
    }
};
template <class T, class I> struct terminal_value_type<sparse_product<T, I>> { using type = T; };

} // namespace expr

// A rows x cols sparse matrix of T on one context, its indices of the unsigned type I: uint32_t
// (the default) holds up to 2^32 - 1 stored entries, columns and rows; std::uint64_t any count.
template <class T, class I = std::uint32_t> class sparse_matrix {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "loom::sparse_matrix<T> holds real or integer values (float, double, int32_t, ...)");
    static_assert(std::is_same_v<I, std::uint32_t> || std::is_same_v<I, std::uint64_t>,
                  "loom::sparse_matrix<T, I>: the index type I is std::uint32_t or std::uint64_t");

public:
    sparse_matrix() = default;

    // From host CSR arrays: row r's entries are col[k], val[k] for k in [row_ptr[r], row_ptr[r + 1]).
    // row_ptr has rows + 1 elements, starts at 0 and never decreases; its last element is the
    // number of entries, col's and val's length; each column is below `cols`. Anything else is a
    // loom::error (a loom::length_error for the lengths) naming what is wrong, with nothing made.
    // Columns within a row may come in any order and repeat (repeats add up in the product, in
    // the order given).
    template <class P, class C>
    sparse_matrix(const context& ctx, std::uint64_t rows, std::uint64_t cols, const std::vector<P>& row_ptr,
                  const std::vector<C>& col, const std::vector<T>& val,
                  sparse_layout layout = sparse_layout::automatic())
        : rows_(rows), cols_(cols) {
        static_assert(std::is_integral_v<P> && std::is_integral_v<C>,
                      "loom::sparse_matrix: row_ptr and col are integer arrays");
        check_csr(rows, cols, row_ptr, col, val);
        upload(ctx, row_ptr, col, val, layout);
    }

    // From coordinate triples (i[k], j[k], v[k]): entries at the same place are summed; sorted
    // into CSR on the host. i, j and v have one length; each i below rows and each j below cols.
    template <class P, class Q> static sparse_matrix from_triplets(const context& ctx, std::uint64_t rows,
                                                                   std::uint64_t cols, const std::vector<P>& i,
                                                                   const std::vector<Q>& j, const std::vector<T>& v,
                                                                   sparse_layout layout = sparse_layout::automatic()) {
        static_assert(std::is_integral_v<P> && std::is_integral_v<Q>,
                      "loom::sparse_matrix::from_triplets: the row and column indices are integers");
        if (i.size() != j.size() || i.size() != v.size())
            throw length_error("loom::sparse_matrix::from_triplets: " + std::to_string(i.size()) + " row indices, " +
                               std::to_string(j.size()) + " column indices and " + std::to_string(v.size()) +
                               " values; give one of each per entry");
        for (std::size_t k = 0; k < i.size(); ++k) {
            if (!in_range(i[k], rows))
                throw error("loom::sparse_matrix::from_triplets: entry " + std::to_string(k) + " is in row " +
                            std::to_string(i[k]) + " of a matrix of " + std::to_string(rows) + " rows");
            if (!in_range(j[k], cols))
                throw error("loom::sparse_matrix::from_triplets: entry " + std::to_string(k) + " is in column " +
                            std::to_string(j[k]) + " of a matrix of " + std::to_string(cols) + " columns");
        }
        std::vector<std::size_t> order(i.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::make_pair(std::uint64_t(i[a]), std::uint64_t(j[a])) <
                   std::make_pair(std::uint64_t(i[b]), std::uint64_t(j[b]));
        });
        std::vector<std::uint64_t> row_ptr(rows + 1, 0), col;
        std::vector<T> val;
        col.reserve(order.size());
        val.reserve(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) {
            const std::uint64_t r = std::uint64_t(i[order[k]]), c = std::uint64_t(j[order[k]]);
            if (k > 0 && r == std::uint64_t(i[order[k - 1]]) && c == std::uint64_t(j[order[k - 1]])) {
                val.back() += v[order[k]];
                continue;
            }
            col.push_back(c);
            val.push_back(v[order[k]]);
            ++row_ptr[r + 1];
        }
        std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
        return sparse_matrix(ctx, rows, cols, row_ptr, col, val, layout);
    }
    // The same from (row, column, value) triples.
    static sparse_matrix from_triplets(const context& ctx, std::uint64_t rows, std::uint64_t cols,
                                       const std::vector<std::tuple<std::uint64_t, std::uint64_t, T>>& entries,
                                       sparse_layout layout = sparse_layout::automatic()) {
        std::vector<std::uint64_t> i, j;
        std::vector<T> v;
        for (const auto& [r, c, x] : entries) {
            i.push_back(r);
            j.push_back(c);
            v.push_back(x);
        }
        return from_triplets(ctx, rows, cols, i, j, v, layout);
    }

    std::uint64_t rows() const { return rows_; }
    std::uint64_t cols() const { return cols_; }
    std::uint64_t nonzeros() const { return nonzeros_; } // the entries given (repeats each counted)
    // The entries the layout stores: nonzeros() and the padding of sliced ELL.
    std::uint64_t stored_entries() const { return stored_; }
    // The layout chosen: csr() or sliced_ell(n), never automatic().
    sparse_layout layout() const {
        return slice_ <= 1 ? sparse_layout::csr() : sparse_layout::sliced_ell(std::uint32_t(slice_));
    }

    // The operand `A * x` is; see operator* below.
    expr::sparse_product<T, I> times(const vector<T>& x) const {
        if (!context_) throw error("loom: A * x: A is an empty loom::sparse_matrix; construct it with a context first");
        if (x.size() != cols_)
            throw length_error("loom: A * x: A is a " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                               " sparse matrix and x has " + std::to_string(x.size()) + " elements; x needs " +
                               std::to_string(cols_));
        if (x.buffer() && detail::context_of(*x.buffer()) != context_.get())
            throw error("loom: A * x: A and x belong to two contexts; copy one into the other's context first");
        unsigned shift = 0;
        while ((std::uint64_t(1) << shift) < slice_) ++shift;
        // x of no columns is never read: A's values stand in for its buffer.
        const expr::vector_ref<T> xs = x.buffer() ? expr::vector_ref<T>::of(x) : expr::vector_ref<T>::of(values_);
        return {expr::vector_ref<I>::of(starts_),
                {expr::counted_buffer(lengths_.claim()), rows_},
                expr::vector_ref<I>::of(columns_),
                expr::vector_ref<T>::of(values_),
                xs,
                I(shift),
                I(slice_ - 1)};
    }

private:
    template <class V> static bool in_range(V v, std::uint64_t limit) {
        if constexpr (std::is_signed_v<V>)
            if (v < 0) return false;
        return std::uint64_t(v) < limit;
    }

    template <class P, class C> static void check_csr(std::uint64_t rows, std::uint64_t cols,
                                                      const std::vector<P>& row_ptr, const std::vector<C>& col,
                                                      const std::vector<T>& val) {
        const std::string what = "loom::sparse_matrix(ctx, rows, cols, row_ptr, col, val): ";
        if (row_ptr.size() != rows + 1)
            throw length_error(what + "row_ptr has " + std::to_string(row_ptr.size()) + " elements for " +
                               std::to_string(rows) + " rows; it needs rows + 1 = " + std::to_string(rows + 1));
        if (row_ptr[0] != 0)
            throw error(what + "row_ptr[0] is " + std::to_string(row_ptr[0]) + "; the first row starts at entry 0");
        for (std::uint64_t r = 0; r < rows; ++r)
            if (row_ptr[r + 1] < row_ptr[r])
                throw error(what + "row_ptr decreases at row " + std::to_string(r) + " (row_ptr[" + std::to_string(r) +
                            "] = " + std::to_string(row_ptr[r]) + ", row_ptr[" + std::to_string(r + 1) +
                            "] = " + std::to_string(row_ptr[r + 1]) +
                            "); each row's entries start where the previous row's end");
        const std::uint64_t n = std::uint64_t(row_ptr[rows]);
        if (col.size() != n || val.size() != n)
            throw length_error(what + "row_ptr[rows] says " + std::to_string(n) + " entries, but col has " +
                               std::to_string(col.size()) + " and val " + std::to_string(val.size()) +
                               "; all three must agree");
        for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t k = std::uint64_t(row_ptr[r]); k < std::uint64_t(row_ptr[r + 1]); ++k)
                if (!in_range(col[k], cols))
                    throw error(what + "entry " + std::to_string(k) + " (row " + std::to_string(r) + ") is in column " +
                                std::to_string(col[k]) + " of a matrix of " + std::to_string(cols) + " columns");
    }

    // The entries sliced ELL of `slice` rows a slice stores (the padded ones included).
    template <class P>
    static std::uint64_t sliced_entries(const std::vector<P>& row_ptr, std::uint64_t rows, std::uint64_t slice) {
        std::uint64_t stored = 0;
        for (std::uint64_t first = 0; first < rows; first += slice) {
            std::uint64_t longest = 0;
            for (std::uint64_t r = first; r < std::min(rows, first + slice); ++r)
                longest = std::max<std::uint64_t>(longest, std::uint64_t(row_ptr[r + 1] - row_ptr[r]));
            stored += longest * slice;
        }
        return stored;
    }

    template <class P>
    std::uint64_t slice_for(const context& ctx, const std::vector<P>& row_ptr, sparse_layout layout) const {
        if (!layout.is_automatic()) return layout.rows_per_slice();
        const std::uint64_t slice = detail::default_slice_height(*ctx.impl());
        if (slice <= 1) return 1;
        return sliced_entries(row_ptr, rows_, slice) <= 2 * nonzeros_ ? slice : 1;
    }

    template <class P, class C> void upload(const context& ctx, const std::vector<P>& row_ptr,
                                            const std::vector<C>& col, const std::vector<T>& val,
                                            sparse_layout layout) {
        nonzeros_ = val.size();
        slice_ = slice_for(ctx, row_ptr, layout);
        stored_ = slice_ == 1 ? nonzeros_ : sliced_entries(row_ptr, rows_, slice_);
        const std::uint64_t limit = std::numeric_limits<I>::max();
        if (stored_ > limit || cols_ > limit || rows_ > limit)
            throw error("loom::sparse_matrix: " + std::to_string(rows_) + " rows, " + std::to_string(cols_) +
                        " columns and " + std::to_string(stored_) + " stored entries do not fit " +
                        std::to_string(sizeof(I) * 8) + "-bit indices; use loom::sparse_matrix<T, std::uint64_t>");
        const std::uint64_t slices = (rows_ + slice_ - 1) / slice_;
        // Every array has at least one element, so that each has a buffer to bind.
        std::vector<I> starts(std::max<std::uint64_t>(slices, 1), 0), lengths(std::max<std::uint64_t>(rows_, 1), 0);
        std::vector<I> columns(std::max<std::uint64_t>(stored_, 1), 0);
        std::vector<T> values(std::max<std::uint64_t>(stored_, 1), T(0));
        std::uint64_t at = 0;
        for (std::uint64_t s = 0; s < slices; ++s) {
            starts[s] = I(at);
            std::uint64_t longest = 0;
            for (std::uint64_t lane = 0; lane < slice_ && s * slice_ + lane < rows_; ++lane) {
                const std::uint64_t r = s * slice_ + lane, first = std::uint64_t(row_ptr[r]);
                const std::uint64_t length = std::uint64_t(row_ptr[r + 1]) - first;
                lengths[r] = I(length);
                longest = std::max(longest, length);
                for (std::uint64_t k = 0; k < length; ++k) {
                    columns[at + lane + k * slice_] = I(col[first + k]);
                    values[at + lane + k * slice_] = val[first + k];
                }
            }
            at += longest * slice_;
        }
        starts_ = vector<I>(ctx, starts);
        lengths_ = vector<I>(ctx, lengths);
        columns_ = vector<I>(ctx, columns);
        values_ = vector<T>(ctx, values);
        context_ = ctx.impl();
    }

    detail::context_ptr context_;
    std::uint64_t rows_ = 0, cols_ = 0, nonzeros_ = 0, stored_ = 0, slice_ = 1;
    vector<I> starts_, lengths_, columns_;
    vector<T> values_;
};

namespace detail {

template <class T, class X> inline constexpr bool sparse_operand_v =
    std::is_same_v<std::decay_t<X>, vector<T>> || expr::is_expression_v<std::decay_t<X>>;

template <class T, class I, class X> auto sparse_product(const sparse_matrix<T, I>& a, const X& x) {
    if constexpr (std::is_same_v<X, vector<T>>) {
        return expr::make_terminal(a.times(x));
    } else {
        const vector<T> v(x); // an expression: into a vector first (the product reads it at other indices)
        return expr::make_terminal(a.times(v));
    }
}

} // namespace detail

// A x: an expression of rows() elements, element r the sum over row r's entries of A(r, c) * x[c]
// in T, in the order the entries were given, computed in the kernel of the statement that reads
// it. x is a loom::vector<T>, or an expression, which is computed into a vector first. x's length
// other than A.cols() is a loom::length_error.
// (Three overloads, one per kind of reference to A, so that each is more specialised than the
// expression operators' (L&&, R&&) for every kind of A and x.)
template <class T, class I, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(const sparse_matrix<T, I>& a, X&& x) {
    return detail::sparse_product(a, x);
}
template <class T, class I, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(sparse_matrix<T, I>& a, X&& x) {
    return detail::sparse_product(std::as_const(a), x);
}
template <class T, class I, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(sparse_matrix<T, I>&& a, X&& x) {
    return detail::sparse_product(std::as_const(a), x);
}

} // namespace loom
