// A host scalar's bytes as a kernel argument takes them. 32 bytes, the widest element type
// (loom::double4, loom::long4, loom::ulong4); a narrower value fills the first bytes and leaves
// the rest zero, so two equal values have equal bits.
#pragma once

#include <cstdint>
#include <cstring>

namespace loom::detail {

struct scalar_bits {
    std::uint64_t word[4] = {0, 0, 0, 0};

    template <class T> static scalar_bits of(const T& value) {
        static_assert(sizeof(T) <= sizeof(word), "a scalar wider than 32 bytes");
        scalar_bits b;
        std::memcpy(b.word, &value, sizeof value);
        return b;
    }
    friend bool operator==(const scalar_bits& a, const scalar_bits& b) {
        return a.word[0] == b.word[0] && a.word[1] == b.word[1] && a.word[2] == b.word[2] && a.word[3] == b.word[3];
    }
    friend bool operator!=(const scalar_bits& a, const scalar_bits& b) { return !(a == b); }
};

} // namespace loom::detail
