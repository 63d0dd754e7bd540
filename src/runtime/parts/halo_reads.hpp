// Stencil statements on a context of several devices (docs/multi-device.md, "Stencils"): a read
// of a neighbour that lies in another part is served from a halo, a copy of the cells on either
// side of the part that its reads reach, taken just before the statement runs.
//
// Each part runs the statement with each neighbour read rewritten (halo_shape): the read's
// element in the vector's own numbering, t (relative to the part's first element), comes from
// the part's own elements where 0 <= t < count, from the left halo where t < 0 and from the right
// halo where t >= count. A 1-D read's t is i + d; a 2-D read (a grid of rows w long) applies its
// boundary policy along the row in the kernel, and its t is (row + dy) * w + column' - first. The
// halos hold the cells of the vector's numbering before and after the part, and where those fall
// outside the vector, what the boundary policy makes of them (clamp, wrap or the constant), so a
// read of the vector's first or last rows needs no test either. A halo is H cells each side: the
// largest |d| (1-D) or (|dy| + 1) * w (2-D, a column' may lie a row away).
//
// The halos are copied through the host (every part's pending work runs first), so a statement
// with neighbour reads waits for the devices; reductions and scans of stencils still run on one
// device only.
#pragma once

#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

// Whether the exchange serves the neighbour reads of `s`: 1-D and 2-D reads, and no other read or
// store at other elements.
bool halo_servable(const shape& s);

// `target = written(slots)` on ctx (several()), each part's neighbour reads served from halos.
void commit_with_halos(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                       const buffer_ptr& target);

} // namespace loom::detail
