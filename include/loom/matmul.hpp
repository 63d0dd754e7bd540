// loom::matmul: the dense product of two loom::matrix<float> (or <double>) matrices, computed by
// the field's BLAS library: CLBlast on OpenCL devices, cuBLAS on CUDA devices, both loaded at
// run time (a missing one is a loom::error saying what to install). docs/matmul.md.
//
//   loom::matrix<float> C = loom::matmul(A, B);    // A: m x k, B: k x n; C: m x n
//   C = 2.0f * loom::matmul(A, B) + D;             // an operand like a matrix, fused like one
//
// Like a reduction along an axis, the product runs when called, after the statements recorded
// before it, into device memory of its own, and the call returns a 2-D expression over it.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "loom/matrix.hpp"

namespace loom {
namespace expr {

// The result of loom::matmul: a rows x cols operand over the memory the product was written to,
// which it owns (copies share it). `C = loom::matmul(A, B)` is then an ordinary matrix
// statement (a copy into C's own memory, fused with what follows).
template <class T> struct product_result {
    counted_buffer memory;
    std::uint64_t rows = 0, cols = 0;

    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(memory.get()); }
    first_operand_t operand() const { return {&memory.get(), rows * cols}; }
    bool reads(const detail::buffer* b) const { return memory.get().get() == b; }
    void extents(extent_check& c) const { c.term({rows, cols}); }
};
template <class T> struct terminal_value_type<product_result<T>> { using type = T; };

} // namespace expr

namespace detail {

// What the front end asks of the library; defined in src/blas/matmul.cpp. Opens the device's
// BLAS library first (a loom::error, with nothing run, when it is missing), then runs the
// pending statements and enqueues product = a b. a: m x k, b: k x n, all of m, n, k > 0.
struct matmul_call {
    const buffer_ptr* a = nullptr;
    const buffer_ptr* b = nullptr;
    std::uint64_t m = 0, n = 0, k = 0;
};
void run_matmul(context_impl& ctx, const matmul_call& call, const buffer_ptr& product);

} // namespace detail

// The product A B of an m x k and a k x n matrix, m x n. Computed when called: the statements
// recorded before it run first, then the library's GEMM is enqueued on the context's queue
// (nothing waits). A.cols() != B.rows() is a loom::length_error naming both shapes. An empty
// product (m or n 0) calls nothing; k == 0 gives m x n zeros without the library.
template <class TA, class TB> auto matmul(const matrix<TA>& a, const matrix<TB>& b) {
    static_assert(std::is_same_v<TA, TB>, "loom::matmul(A, B): A and B must hold the same element type; convert "
                                          "one first: loom::matrix<double> B2 = loom::cast<double>(B)");
    static_assert(std::is_same_v<TA, float> || std::is_same_v<TA, double>,
                  "loom::matmul(A, B) multiplies float or double matrices (CLBlast and cuBLAS have no integer "
                  "GEMM); convert integer matrices first: loom::matrix<float> Af = loom::cast<float>(A)");
    using T = TA;
    for (const auto* m : {&a.buffer(), &b.buffer()})
        if (!*m)
            throw error(std::string("loom::matmul(A, B): ") + (m == &a.buffer() ? "A" : "B") +
                        " is an empty loom::matrix (default-constructed or moved from) with no context; construct "
                        "it with a context, rows and columns first");
    if (a.cols() != b.rows())
        throw length_error("loom::matmul(A, B): shape mismatch: A is a " + std::to_string(a.rows()) + " x " +
                           std::to_string(a.cols()) + " matrix and B a " + std::to_string(b.rows()) + " x " +
                           std::to_string(b.cols()) + " matrix; A's columns (" + std::to_string(a.cols()) +
                           ") must equal B's rows (" + std::to_string(b.rows()) + ")");
    detail::context_impl* ctx = detail::context_of(*a.buffer());
    if (ctx != detail::context_of(*b.buffer()))
        throw error("loom::matmul(A, B): A and B belong to two contexts; copy one into the other's context first");
    const std::uint64_t m = a.rows(), k = a.cols(), n = b.cols();
    if (m != 0 && n > ~std::uint64_t(0) / m)
        throw error("loom::matmul(A, B): the product of a " + std::to_string(m) + " x " + std::to_string(k) +
                    " and a " + std::to_string(k) + " x " + std::to_string(n) +
                    " matrix has more elements than 64 bits count");
    expr::product_result<T> result;
    result.rows = m;
    result.cols = n;
    result.memory = expr::counted_buffer(detail::new_buffer(detail::shared_context_of(*a.buffer()), m * n, dtype_v<T>));
    if (m * n != 0) {
        if (k == 0)
            detail::fill(*ctx, result.memory.get(), T(0));
        else
            detail::run_matmul(*ctx, {&a.buffer(), &b.buffer(), m, n, k}, result.memory.get());
    }
    return expr::make_terminal(std::move(result));
}

} // namespace loom
