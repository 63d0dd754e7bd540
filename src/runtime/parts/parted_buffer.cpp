// Vectors split over devices; see parted_buffer.hpp.
#include "runtime/parts/parted_buffer.hpp"

#include <algorithm>
#include <vector>

#include "runtime/context_impl.hpp"
#include "runtime/parts/ranks.hpp"

namespace loom::detail {

buffer_ptr new_parted_buffer(const context_ptr& ctx, std::uint64_t length, dtype type) {
    const std::vector<part_range> ranges = ctx->split(length);
    auto b = std::make_shared<buffer>();
    b->ctx = ctx.get();
    b->length = length;
    b->type = type;
    for (std::size_t k = 0; k < ranges.size(); ++k)
        b->parts.push_back(new_buffer(ctx->parts()[k], ranges[k].count, type));
    std::lock_guard<std::recursive_mutex> guard(ctx->mutex());
    // Kept so that a new split can move it; the dead ones are dropped as the list doubles.
    std::vector<std::weak_ptr<buffer>>& live = ctx->parted_buffers();
    if (live.size() >= 64 && (live.size() & (live.size() - 1)) == 0) ctx->forget_dead_buffers();
    live.push_back(b);
    return b;
}

buffer_ptr new_replicated_buffer(const context_ptr& ctx, dtype type) {
    auto b = std::make_shared<buffer>();
    b->ctx = ctx.get();
    b->length = 1;
    b->type = type;
    b->replicated = true;
    for (const context_ptr& part : ctx->parts()) b->parts.push_back(new_buffer(part, 1, type));
    return b;
}

void copy_between_parts(context_impl& ctx, std::size_t j, buffer& from, std::uint64_t from_first, std::size_t k,
                        buffer& into, std::uint64_t into_first, std::uint64_t count) {
    if (count == 0) return;
    context_impl &source = *ctx.parts()[j], &target = *ctx.parts()[k];
    const std::size_t size = size_of(from.type);
    if (!target.device().copies_from(source.device())) {
        std::vector<unsigned char> host(count * size);
        download(from, from_first, count, host.data());
        upload(into, into_first, count, host.data());
        return;
    }
    std::lock_guard<std::recursive_mutex> source_lock(source.mutex()), target_lock(target.mutex());
    // The statements that write the elements enqueued; and part k's own before its queue waits, or
    // they would wait for part j's too.
    source.flush(flush_cause::part_copy);
    target.flush(flush_cause::part_copy);
    source.execution().allocate(from);
    target.execution().allocate(into);
    if (j != k) target.device().wait_for(*source.device().mark());
    target.device().copy_between(*from.memory, std::size_t(from_first) * size, *into.memory,
                                 std::size_t(into_first) * size, std::size_t(count) * size);
    note_write(into);
    if (j != k) source.device().wait_for(*target.device().mark());
}

void copy_from_parts(context_impl& ctx, buffer& b, const std::vector<part_range>& ranges, std::uint64_t first,
                     std::uint64_t count, std::size_t k, buffer& into, std::uint64_t into_first) {
    for (std::size_t q = 0; q < ranges.size() && count > 0; ++q) {
        const std::uint64_t lo = std::max(first, ranges[q].first);
        const std::uint64_t hi = std::min(first + count, ranges[q].first + ranges[q].count);
        if (lo < hi && b.parts[q]->memory)
            copy_between_parts(ctx, q, *b.parts[q], lo - ranges[q].first, k, into, into_first + (lo - first), hi - lo);
    }
}

namespace {

// Calls f(part k, its first element to move, how many, where they start in the host range) for
// each part holding some of elements first .. first + count.
template <class F> void each_part(buffer& b, std::uint64_t first, std::uint64_t count, F f) {
    if (b.replicated) { // every copy holds the element
        for (std::size_t k = 0; k < b.parts.size(); ++k) f(k, first, count, 0);
        return;
    }
    const std::vector<part_range> ranges = b.ctx->split(b.length);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        const std::uint64_t begin = std::max(first, ranges[k].first);
        const std::uint64_t end = std::min(first + count, ranges[k].first + ranges[k].count);
        if (begin < end) f(k, begin - ranges[k].first, end - begin, begin - first);
    }
}

} // namespace

void upload_parts(buffer& b, std::uint64_t first, std::uint64_t count, const void* host) {
    const auto* bytes = static_cast<const unsigned char*>(host);
    const std::size_t size = size_of(b.type);
    each_part(b, first, count, [&](std::size_t k, std::uint64_t at, std::uint64_t n, std::uint64_t from) {
        upload(*b.parts[k], at, n, bytes + from * size);
    });
}

namespace {

// Each rank's share of elements first .. first + count, in rank order, and where this rank's starts.
std::vector<std::uint64_t> rank_counts(const buffer& b, std::uint64_t first, std::uint64_t count,
                                       std::uint64_t& mine_first) {
    std::vector<std::uint64_t> counts;
    const std::vector<part_range> ranges = b.ctx->rank_split(b.length);
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        const std::uint64_t begin = std::max(first, ranges[r].first);
        const std::uint64_t end = std::min(first + count, ranges[r].first + ranges[r].count);
        counts.push_back(begin < end ? end - begin : 0);
        if (r == b.ctx->ranks()->rank()) mine_first = begin < end ? begin : first;
    }
    return counts;
}

} // namespace

void download_parts(buffer& b, std::uint64_t first, std::uint64_t count, void* host) {
    if (b.replicated) return download(*b.parts[0], first, count, host); // the copies are equal
    const rank_group* ranks = b.ctx->ranks();
    if (!ranks) return download_local(b, first, count, host);
    // This rank's elements of the range, then every rank's into `host` (collective).
    std::uint64_t mine_first = 0;
    const std::vector<std::uint64_t> counts = rank_counts(b, first, count, mine_first);
    const std::size_t size = size_of(b.type);
    std::vector<unsigned char> mine(counts[ranks->rank()] * size);
    download_local(b, mine_first, counts[ranks->rank()], mine.data());
    ranks->allgather(mine.data(), host, size, counts);
}

void gather_parts_to_root(buffer& b, void* host, std::size_t root) {
    const rank_group& ranks = *b.ctx->ranks();
    std::uint64_t mine_first = 0;
    const std::vector<std::uint64_t> counts = rank_counts(b, 0, b.length, mine_first);
    std::vector<unsigned char> mine(counts[ranks.rank()] * size_of(b.type));
    download_local(b, mine_first, counts[ranks.rank()], mine.data());
    ranks.gather(mine.data(), host, size_of(b.type), counts, root);
}

void scatter_parts_from_root(buffer& b, const void* host, std::size_t root) {
    const rank_group& ranks = *b.ctx->ranks();
    std::uint64_t mine_first = 0;
    const std::vector<std::uint64_t> counts = rank_counts(b, 0, b.length, mine_first);
    std::vector<unsigned char> mine(counts[ranks.rank()] * size_of(b.type));
    ranks.scatter(host, mine.data(), size_of(b.type), counts, root);
    upload_parts(b, mine_first, counts[ranks.rank()], mine.data());
}

void download_local(buffer& b, std::uint64_t first, std::uint64_t count, void* host) {
    auto* bytes = static_cast<unsigned char*>(host);
    const std::size_t size = size_of(b.type);
    // Every part's pending work enqueued first: the reads below then wait for devices that all
    // started together, not one after another.
    each_part(b, first, count, [&](std::size_t k, std::uint64_t, std::uint64_t, std::uint64_t) {
        context_impl& part = *b.parts[k]->ctx;
        std::lock_guard<std::recursive_mutex> guard(part.mutex());
        part.flush(flush_cause::host_read);
    });
    each_part(b, first, count, [&](std::size_t k, std::uint64_t at, std::uint64_t n, std::uint64_t from) {
        download(*b.parts[k], at, n, bytes + from * size);
    });
}

} // namespace loom::detail
