// Halos kept with the vector they were cut from (buffer::halos), so that a stencil statement
// exchanges a halo only when the cells it holds were written since it was cut: a coefficient
// field that every step of a loop reads through neighbours is exchanged once (issue: "only when
// they were written since the last exchange"). A kept halo is never written again: a halo cut
// anew is a new buffer, so statements still queued that read the old one read what they should.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/detail/scalar_bits.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

// What a halo holds: `cells` cells of the vector from element `from` on (some maybe outside the
// vector: what the boundary policy, row or plane width and value make of them), for part `part`.
struct halo_key {
    std::uint8_t policy = 0;
    std::int64_t width = 0, cells = 0, from = 0;
    scalar_bits value;
    std::size_t part = 0;
};

// The halo kept for `key` from x (a vector of ctx, several()) that is still what x holds: no part
// of x written since it was cut (each the same buffer, its buffer::writes unchanged), x split as it
// was. Null
// otherwise, and always over MPI ranks (other ranks' writes are not seen here) or where the
// caller holds a handle of a part's memory.
buffer_ptr kept_halo(const context_impl& ctx, buffer& x, const halo_key& key);

// Keeps `halo`, just cut from x for `key`, in place of any kept for the same key.
void keep_halo(const context_impl& ctx, buffer& x, const halo_key& key, buffer_ptr halo);

} // namespace loom::detail
