// loom::sparse_matrix: a sparse matrix on the device, in CSR form, and its product with a vector
// as an operand of expressions (docs/sparse.md).
//
//   loom::sparse_matrix<double> A(ctx, n, n, row_ptr, col, val);               // host CSR arrays
//   auto B = loom::sparse_matrix<double>::from_triplets(ctx, n, n, i, j, v);  // coordinates, summed
//   y = a * (A * x) + b * y;   // the product's pass, then one fused kernel for the rest
//
// `A * x` runs when written, after the statements recorded before it, into new device memory,
// and returns a vector operand over it that later statements read like a vector (as the results
// of loom::matmul and loom::fft are). Not yet one kernel with the expression around it: the
// product is its own launch. Indices are held as 32-bit integers where the entries and columns
// fit, 64-bit otherwise.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/context.hpp"
#include "loom/detail/spmv_call.hpp"
#include "loom/error.hpp"
#include "loom/matrix/axis_reduce.hpp"
#include "loom/vector.hpp"

namespace loom {

template <class T> class sparse_matrix {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "loom::sparse_matrix<T> holds real or integer values (float, double, int32_t, ...)");

public:
    sparse_matrix() = default;

    // From host CSR arrays: row r's entries are col[k], val[k] for k in [row_ptr[r], row_ptr[r + 1]).
    // row_ptr has rows + 1 elements, starts at 0 and never decreases; its last element is the
    // number of entries, col's and val's length; each column is below `cols`. Anything else is a
    // loom::error (a loom::length_error for the lengths) naming what is wrong, with nothing made.
    // Columns within a row may come in any order and repeat (repeats add up in the product).
    template <class P, class C>
    sparse_matrix(const context& ctx, std::uint64_t rows, std::uint64_t cols, const std::vector<P>& row_ptr,
                  const std::vector<C>& col, const std::vector<T>& val)
        : rows_(rows), cols_(cols) {
        static_assert(std::is_integral_v<P> && std::is_integral_v<C>,
                      "loom::sparse_matrix: row_ptr and col are integer arrays");
        check_csr(rows, cols, row_ptr, col, val);
        upload(ctx, row_ptr, col, val);
    }

    // From coordinate triples (i[k], j[k], v[k]): entries at the same place are summed; sorted
    // into CSR on the host. i, j and v have one length; each i below rows and each j below cols.
    template <class I, class J> static sparse_matrix from_triplets(const context& ctx, std::uint64_t rows,
                                                                   std::uint64_t cols, const std::vector<I>& i,
                                                                   const std::vector<J>& j, const std::vector<T>& v) {
        static_assert(std::is_integral_v<I> && std::is_integral_v<J>,
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
        return sparse_matrix(ctx, rows, cols, row_ptr, col, val);
    }
    // The same from (row, column, value) triples.
    static sparse_matrix from_triplets(const context& ctx, std::uint64_t rows, std::uint64_t cols,
                                       const std::vector<std::tuple<std::uint64_t, std::uint64_t, T>>& entries) {
        std::vector<std::uint64_t> i, j;
        std::vector<T> v;
        for (const auto& [r, c, x] : entries) {
            i.push_back(r);
            j.push_back(c);
            v.push_back(x);
        }
        return from_triplets(ctx, rows, cols, i, j, v);
    }

    std::uint64_t rows() const { return rows_; }
    std::uint64_t cols() const { return cols_; }
    std::uint64_t nonzeros() const { return nonzeros_; } // the entries stored
    // The device arrays, for interop: row_ptr and col are 32-bit where they fit.
    bool wide_indices() const { return bool(row_ptr64_.buffer()); }
    const vector<T>& values() const { return val_; }

    // The product's memory and launch; see operator* below.
    detail::buffer_ptr multiply(const vector<T>& x) const {
        if (!context_) throw error("loom: A * x: A is an empty loom::sparse_matrix; construct it with a context first");
        if (x.size() != cols_)
            throw length_error("loom: A * x: A is a " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                               " sparse matrix and x has " + std::to_string(x.size()) + " elements; x needs " +
                               std::to_string(cols_));
        if (x.buffer() && detail::context_of(*x.buffer()) != context_.get())
            throw error("loom: A * x: A and x belong to two contexts; copy one into the other's context first");
        detail::buffer_ptr y = detail::new_buffer(context_, rows_, dtype_v<T>);
        if (rows_ == 0) return y;
        if (nonzeros_ == 0) {
            std::unique_lock<std::recursive_mutex> lock(detail::context_mutex(*context_));
            detail::fill(*context_, y, T(0));
            return y;
        }
        detail::spmv_call call;
        call.row_ptr = wide_indices() ? &row_ptr64_.buffer() : &row_ptr32_.buffer();
        call.col = wide_indices() ? &col64_.buffer() : &col32_.buffer();
        call.val = &val_.buffer();
        call.x = &x.buffer();
        call.rows = rows_;
        call.nonzeros = nonzeros_;
        detail::run_spmv(*context_, call, y);
        return y;
    }

private:
    template <class I> static bool in_range(I v, std::uint64_t limit) {
        if constexpr (std::is_signed_v<I>)
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

    template <class P, class C> void upload(const context& ctx, const std::vector<P>& row_ptr,
                                            const std::vector<C>& col, const std::vector<T>& val) {
        context_ = ctx.impl();
        nonzeros_ = val.size();
        if (nonzeros_ == 0) return;
        const bool narrow = nonzeros_ <= 0xFFFFFFFFull && cols_ <= 0xFFFFFFFFull;
        if (narrow) {
            row_ptr32_ = vector<std::uint32_t>(ctx, std::vector<std::uint32_t>(row_ptr.begin(), row_ptr.end()));
            col32_ = vector<std::uint32_t>(ctx, std::vector<std::uint32_t>(col.begin(), col.end()));
        } else {
            row_ptr64_ = vector<std::uint64_t>(ctx, std::vector<std::uint64_t>(row_ptr.begin(), row_ptr.end()));
            col64_ = vector<std::uint64_t>(ctx, std::vector<std::uint64_t>(col.begin(), col.end()));
        }
        val_ = vector<T>(ctx, val);
    }

    detail::context_ptr context_;
    std::uint64_t rows_ = 0, cols_ = 0, nonzeros_ = 0;
    vector<std::uint32_t> row_ptr32_, col32_;
    vector<std::uint64_t> row_ptr64_, col64_;
    vector<T> val_;
};

namespace detail {

template <class T, class X> inline constexpr bool sparse_operand_v =
    std::is_same_v<std::decay_t<X>, vector<T>> || expr::is_expression_v<std::decay_t<X>>;

template <class T, class X> auto sparse_product(const sparse_matrix<T>& a, const X& x) {
    const std::uint64_t rows = a.rows();
    if constexpr (std::is_same_v<X, vector<T>>) {
        return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
            expr::vector_ref<T>(expr::counted_buffer(a.multiply(x)), rows));
    } else {
        const vector<T> v(x); // an expression: into a vector first
        return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
            expr::vector_ref<T>(expr::counted_buffer(a.multiply(v)), rows));
    }
}

} // namespace detail

// A x: the product, computed now (after the statements recorded before it) into new device
// memory, as a vector operand of rows() elements. x is a loom::vector<T>, or an expression, which
// is computed into a vector first. x's length other than A.cols() is a loom::length_error.
// (Three overloads, one per kind of reference to A, so that each is more specialised than the
// expression operators' (L&&, R&&) for every kind of A and x.)
template <class T, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(const sparse_matrix<T>& a, X&& x) {
    return detail::sparse_product(a, x);
}
template <class T, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(sparse_matrix<T>& a, X&& x) {
    return detail::sparse_product(std::as_const(a), x);
}
template <class T, class X, std::enable_if_t<detail::sparse_operand_v<T, X>, int> = 0>
auto operator*(sparse_matrix<T>&& a, X&& x) {
    return detail::sparse_product(std::as_const(a), x);
}

} // namespace loom
