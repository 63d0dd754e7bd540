// How an expression holds the device memory it reads: by shared ownership, counted as a vector.
// `auto e = x + y;` then stays valid after x is destroyed: e still names x's buffer, whose
// pending values are kept for it (a buffer no vector names would have its stores elided as a
// dead temporary's). The results of loom::sum along an axis and of loom::matmul are held the
// same way.
#pragma once

#include <cstdint>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/expr/operands.hpp"
#include "loom/expr/value_type.hpp"

namespace loom::expr {

// A buffer, counted as a vector's while any copy of this object lives (detail::attach_vector).
class counted_buffer {
public:
    counted_buffer() = default;
    explicit counted_buffer(detail::buffer_ptr b) : buffer_(std::move(b)) {
        if (buffer_) detail::attach_vector(*buffer_);
    }
    counted_buffer(const counted_buffer& other) : buffer_(other.buffer_) {
        if (buffer_) detail::attach_vector(*buffer_);
    }
    counted_buffer(counted_buffer&& other) noexcept : buffer_(std::move(other.buffer_)) {}
    counted_buffer& operator=(counted_buffer other) noexcept {
        std::swap(buffer_, other.buffer_);
        return *this;
    }
    ~counted_buffer() {
        if (buffer_) detail::detach_vector(*buffer_);
    }

    const detail::buffer_ptr& get() const { return buffer_; }

private:
    detail::buffer_ptr buffer_;
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
    template <class V> static vector_ref of(const V& v) { return {counted_buffer(v.buffer()), v.size()}; }

    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(memory.get()); }
    first_operand_t operand() const { return {memory.get() ? &memory.get() : nullptr, size}; }
    bool reads(const detail::buffer* b) const { return memory.get().get() == b; }
    // In a matrix statement (loom/matrix.hpp's extent_check): a vector operand of `size` elements.
    template <class Check> void extents(Check& c) const { c.elements(size, Check::operand::vector); }
};
template <class T> struct terminal_value_type<vector_ref<T>> { using type = T; };

} // namespace loom::expr
