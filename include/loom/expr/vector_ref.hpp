// How an expression holds the device memory it reads (a vector's, a device scalar's): by a
// shared claim, counted as a vector.
// `auto e = x + y;` then stays valid after x is destroyed: e still names x's buffer, whose
// pending values are kept for it (a buffer no vector names would have its stores elided as a
// dead temporary's). The results of loom::sum along an axis and of loom::matmul are held the
// same way.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/expr/operands.hpp"
#include "loom/expr/value_type.hpp"

namespace loom::expr {

// A claim on a buffer's values: while it lives the buffer counts as a vector's
// (detail::attach_vector), so a statement that writes it keeps its store. One claim per vector
// (loom::vector makes it with its buffer) or per result; expressions share it by
// std::shared_ptr, one atomic count per copy (Proto copies each terminal about three times per
// operator; counting both the buffer and its name on every copy showed on the dispatch path).
class buffer_claim {
public:
    explicit buffer_claim(detail::buffer_ptr b) : buffer_(std::move(b)) { detail::attach_vector(*buffer_); }
    ~buffer_claim() { detail::detach_vector(*buffer_); }
    buffer_claim(const buffer_claim&) = delete;
    buffer_claim& operator=(const buffer_claim&) = delete;

    const detail::buffer_ptr& get() const { return buffer_; }

private:
    detail::buffer_ptr buffer_;
};
using shared_claim = std::shared_ptr<const buffer_claim>;
inline shared_claim claim(detail::buffer_ptr b) {
    return b ? std::make_shared<const buffer_claim>(std::move(b)) : nullptr;
}

// A buffer held through a shared claim (none for an empty vector).
class counted_buffer {
public:
    counted_buffer() = default;
    explicit counted_buffer(detail::buffer_ptr b) : claim_(claim(std::move(b))) {}
    explicit counted_buffer(shared_claim c) : claim_(std::move(c)) {}

    const detail::buffer_ptr& get() const {
        static const detail::buffer_ptr none;
        return claim_ ? claim_->get() : none;
    }
    // Whether this is the only holder of the buffer: no vector, expression or pending statement
    // names it (a reduction's result in the temporary that returned it). Stable when true: a
    // new holder could only be copied from this one.
    bool sole_holder() const { return claim_ && claim_.use_count() == 1 && claim_->get().use_count() == 1; }

private:
    shared_claim claim_;
};

// A 1-D operand over a buffer of `size` elements of T: a vector as an expression holds it, and
// the result of a reduction along an axis. A vector resized or moved from after the expression
// was built is not followed: the expression keeps the buffer it was built over.
// Not default-constructible, so neither is an expression over it (an expression names its
// vectors; std::is_default_constructible says so without a hard error).
template <class T> struct vector_ref {
    counted_buffer memory;
    std::uint64_t size;

    vector_ref(counted_buffer m, std::uint64_t n) : memory(std::move(m)), size(n) {}
    template <class V> static vector_ref of(const V& v) { return {counted_buffer(v.claim()), v.size()}; }

    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(memory.get()); }
    first_operand_t operand() const { return {memory.get() ? &memory.get() : nullptr, size}; }
    bool reads(const detail::buffer* b) const { return memory.get().get() == b; }
    // In a 2-D or 3-D statement (expr/extent_check.hpp): a vector operand of `size` elements.
    template <class Check> void extents(Check& c) const { c.elements(size, Check::operand::vector); }
};
template <class T> struct terminal_value_type<vector_ref<T>> { using type = T; };

// A loom::scalar as an expression holds it: its one-element buffer through the scalar's claim,
// read by every element (exempt from the equal-length rule, so it gives no statement length).
// The scalar's later assignments write that buffer, so the expression sees its current value;
// after the scalar is destroyed, the last one it held.
template <class T> struct scalar_ref {
    counted_buffer memory;

    explicit scalar_ref(counted_buffer m) : memory(std::move(m)) {}
    template <class S> static scalar_ref of(const S& s) { return scalar_ref(counted_buffer(s.claim())); }

    static detail::node_ref lower(detail::shape_builder& b) { return b.device_scalar_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.device_scalar_slot(memory.get()); }
};
template <class T> struct terminal_value_type<scalar_ref<T>> { using type = T; };

} // namespace loom::expr
