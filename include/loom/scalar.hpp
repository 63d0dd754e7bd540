// loom::scalar<T>: one value that lives on the device. A reduction can leave its result
// in one, and later expressions read it there, with no round trip through the host:
//
//   loom::scalar<float> norm2 = loom::sum(x * x, loom::on_device); // enqueued, nothing waits
//   y = x / loom::sqrt(norm2);                                      // every element reads norm2
//   float host = norm2.value();                                     // the one wait
//
// In a vector expression a scalar is broadcast: every element reads the same value.
// Assigning to a scalar records a one-element statement (fused like any other), so
// `s = s * 0.5f + t` or `done = residual < tol` stay on the device too. Reading a
// scalar is a sync; loom::loop_while uses a scalar as its device-side condition.
#pragma once

#include <memory>
#include <string>

#include "loom/context.hpp"
#include "loom/error.hpp"
#include "loom/expr/functions.hpp"
#include "loom/expr/lower.hpp"
#include "loom/expr/vector_ref.hpp"

namespace loom {

namespace detail {
// A reduction whose result goes to a device scalar; defined in loom/reduce.hpp.
template <class R, class E, class Op> struct device_reduction;
} // namespace detail

template <class T> class scalar {
    static_assert(
        is_element_type_v<T>,
        "loom::scalar<T>: T must be float, double, std::complex<float or double> or an integer type of 8 to 64 bits "
        "(keep a condition in a loom::scalar<int>)");

public:
    using value_type = T;

    // An empty scalar with no device; assign a scalar to give it one.
    scalar() = default;

    explicit scalar(const context& ctx, T value = T(0)) : ctx_(ctx.impl()) {
        adopt(make(ctx_));
        *this = value;
    }

    // The result of a device reduction: `loom::scalar<float> s = loom::sum(x, loom::on_device);`
    template <class R, class E, class Op> scalar(const detail::device_reduction<R, E, Op>& reduction)
        : ctx_(reduction.context()) {
        adopt(make(ctx_));
        *this = reduction;
    }

    // A device copy, recorded as the statement `*this = other`.
    scalar(const scalar& other) : ctx_(other.ctx_) {
        if (!other.buf_) return;
        adopt(make(ctx_));
        assign(other);
    }
    scalar(scalar&& other) noexcept = default;
    ~scalar() = default;

    // Assignment always writes this scalar's own device value (a statement, or the
    // reduction's last pass), never rebinds it to another buffer: an expression or a
    // loop condition that refers to this scalar keeps seeing its current value. There is
    // no move assignment for that reason; a moved-from scalar stays as it was.
    scalar& operator=(const scalar& other) {
        if (this == &other) return *this;
        if (!other.buf_) throw error("loom: assignment from an empty loom::scalar; construct it with a context first");
        if (!buf_ || ctx_ != other.ctx_) {
            release();
            ctx_ = other.ctx_;
            adopt(make(ctx_));
        }
        return assign(other);
    }
    template <class U> scalar& operator=(const scalar<U>& other) { return assign(other); }
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> scalar& operator=(const E& e) {
        return assign(e);
    }
    template <class S, std::enable_if_t<is_host_number_v<S>, int> = 0> scalar& operator=(S value) {
        return assign(value);
    }
    template <class R, class E, class Op> scalar& operator=(const detail::device_reduction<R, E, Op>& reduction) {
        static_assert(std::is_same_v<T, R>,
                      "loom::scalar<T> = reduction(e, loom::on_device): T must be the reduction's own type (float for "
                      "loom::sum of floats, std::uint64_t for loom::count, std::int32_t for loom::any and loom::all); "
                      "convert afterwards with another scalar assignment");
        if (!buf_) throw error("loom: reduction into an empty loom::scalar; construct it with a context first");
        reduction.run_into(buf_);
        return *this;
    }

    // s += e, s -= e, ...: the statement s = s op e.
    LOOM_COMPOUND_ASSIGNMENTS(scalar)

    // The value on the host: runs the pending statements and waits for the device.
    T value() const {
        if (!buf_) throw error("loom: value() of an empty loom::scalar; construct it with a context first");
        T v;
        detail::download(*buf_, 0, 1, &v);
        return v;
    }

    bool empty() const { return !buf_; }

    // For the runtime: the one-element buffer holding the value.
    const detail::buffer_ptr& buffer() const { return buf_; }
    // For expressions over it: the scalar's claim on that buffer (expr/vector_ref.hpp).
    const expr::shared_claim& claim() const { return claim_; }

private:
    static detail::buffer_ptr make(const detail::context_ptr& ctx) {
        return detail::new_scalar_buffer(ctx, dtype_v<T>);
    }
    // A live object names b: its claim counts it as a vector's (fused kernels must store it).
    void adopt(detail::buffer_ptr b) {
        claim_ = expr::claim(b);
        buf_ = std::move(b);
    }

    void release() {
        claim_.reset();
        buf_.reset();
    }

    template <class E> scalar& assign(const E& e) {
        if (!buf_) throw error("loom: assignment to an empty loom::scalar; construct it with a context first");
        // Lowered once per expression type as a one-element statement: scalars on the right
        // are plain loads of element 0, and any vector in it must have one element.
        const detail::shape* const shape =
            expr::lowered_once([&] { return expr::assignment_shape<T>(e, detail::statement_target::scalar); }, e);
        detail::statement_recorder recorder(*detail::context_of(*buf_));
        expr::bind(recorder, e);
        recorder.commit_assignment(shape, buf_);
        return *this;
    }

    detail::context_ptr ctx_;
    detail::buffer_ptr buf_;
    expr::shared_claim claim_; // of buf_, shared with the expressions over this scalar
};

} // namespace loom
