// loom::name(x, "pressure"): a name for the buffer a vector (or a device scalar) holds, which
// the fusion log (LOOM_LOG=fusion) and the comment headers of generated kernels print in place
// of b<class>. The name stays with the buffer: a moved or swapped vector takes it along, a copy
// is a buffer of its own. Names are read only when a line is logged or a kernel written, never
// on the dispatch path; a plan made once keeps, in its kernels' headers, the names of the flush
// that made it. docs/debugging.md.
#pragma once

#include <string>

#include "loom/error.hpp"
#include "loom/scalar.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace detail {
inline void name_held_buffer(const buffer_ptr& b, const std::string& name) {
    if (!b)
        throw error("loom::name: the vector or scalar is empty (default-constructed or moved from); construct it "
                    "with a context first");
    name_buffer(*b, name.c_str());
}
} // namespace detail

// Throws loom::error for an empty vector or scalar, an empty name, or one with control characters.
template <class T> void name(const vector<T>& v, const std::string& name) {
    detail::name_held_buffer(v.buffer(), name);
}
template <class T> void name(const scalar<T>& s, const std::string& name) {
    detail::name_held_buffer(s.buffer(), name);
}

} // namespace loom
