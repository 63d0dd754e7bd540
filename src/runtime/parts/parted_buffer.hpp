// Vectors of a context over several devices (docs/multi-device.md): a buffer per part, and
// host transfers that cross the parts.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/parts/partition.hpp"

namespace loom::detail {

// A buffer of `length` elements on `ctx` (several()), with a buffer of each part's share.
buffer_ptr new_parted_buffer(const context_ptr& ctx, std::uint64_t length, dtype type);

// A loom::scalar's buffer on `ctx` (several()): a one-element buffer on every part (replicated).
buffer_ptr new_replicated_buffer(const context_ptr& ctx, dtype type);

// Elements first .. first + count of a parted buffer to or from the host, part by part. The parts'
// pending statements are all enqueued before the first transfer waits, so the devices work at once.
// Over MPI ranks (context_impl::ranks): an upload writes this rank's elements of the range from
// this rank's `host` (every rank gives the same data), and a download is collective, every rank
// receiving every rank's elements of the range.
void upload_parts(buffer& b, std::uint64_t first, std::uint64_t count, const void* host);
void download_parts(buffer& b, std::uint64_t first, std::uint64_t count, void* host);

// `count` elements of `from` (a buffer of ctx's part j) at from_first into `into` (a buffer of part
// k) at into_first. On the devices where part k's device can copy from part j's (sub-devices of one
// OpenCL device): the copy waits in part k's queue for part j's work so far, and part j's next work
// waits for the copy (it may write the elements), with no wait on the host. Through the host
// otherwise. Both parts' pending statements run first.
void copy_between_parts(context_impl& ctx, std::size_t j, buffer& from, std::uint64_t from_first, std::size_t k,
                        buffer& into, std::uint64_t into_first, std::uint64_t count);

// Elements first .. first + count of the parted buffer `b` (split as `ranges`) into `into` (a buffer
// of part k) from into_first on: each part's share by copy_between_parts. A part no kernel or
// transfer touched (no memory) holds nothing to keep, and is skipped.
void copy_from_parts(context_impl& ctx, buffer& b, const std::vector<part_range>& ranges, std::uint64_t first,
                     std::uint64_t count, std::size_t k, buffer& into, std::uint64_t into_first);

// This process's parts' elements of first .. first + count, which lie in this rank's range (all of
// them without ranks). Not collective.
void download_local(buffer& b, std::uint64_t first, std::uint64_t count, void* host);

// Over MPI ranks, collective: the whole vector into `host` on rank `root` (elsewhere untouched),
// and each rank's elements from `host` on rank `root` (elsewhere not read).
void gather_parts_to_root(buffer& b, void* host, std::size_t root);
void scatter_parts_from_root(buffer& b, const void* host, std::size_t root);

} // namespace loom::detail
