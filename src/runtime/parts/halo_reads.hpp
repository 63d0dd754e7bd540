// Stencil statements on a context of several devices (docs/multi-device.md, "Stencils"): a read
// of a neighbour that lies in another part is served from a halo, a copy of the cells on either
// side of the part that its reads reach, taken just before the statement runs.
//
// A part that holds whole rows of every grid read (any part, for 1-D reads), and whose target no
// operand reads, runs the statement as it is: a stencil over its own elements, in the kernel forms
// of one device. Only its elements within reach of its ends (the border: the largest |d| of a 1-D
// read, |dy| rows of a 2-D one) read past them; a border statement, the statement rewritten to
// read the halos, writes those again (a view write of the part's first and last `border`
// elements), where the part's end is not the vector's (or a read wraps). Any other part runs the
// rewritten statement over all its elements.
//
// The rewritten statement (halo_shape): each neighbour read's element in the vector's own
// numbering, t (relative to the part's first element), comes from the part's own elements where
// 0 <= t < count, from the left halo where t < 0 and from the right halo where t >= count. A 1-D
// read's t is i + d; a 2-D read (a grid of rows w long) applies its boundary policy along the row
// in the kernel, and its t is (row + dy) * w + column' - first. The halos hold the cells of the
// vector's numbering before and after the part, and where those fall outside the vector, what the
// boundary policy makes of them (clamp, wrap or the constant), so a read of the vector's first or
// last rows needs no test either. A halo is H cells each side: the largest |d| (1-D) or
// (|dy| + 1) * w (2-D, a column' may lie a row away) of the reads that share it (one vector, one
// policy, one width).
//
// A halo whose cells lie in one other part, on a device that the part's can copy from (OpenCL
// sub-devices of one device share a cl_context), is copied between the devices: the copy waits in
// the part's queue for the other part's work so far, and the other part's next work waits for the
// copy; nothing waits on the host. Other halos (a vector's ends, cells over several parts, devices
// of two backend contexts, MPI ranks) go through the host. A halo is cut only where its cells may
// have changed: halos are kept with their vector and read again while no part of it was written
// since (kept_halos.hpp).
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
