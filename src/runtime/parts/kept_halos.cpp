// Halos kept with their vector; see kept_halos.hpp.
#include "runtime/parts/kept_halos.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "runtime/context_impl.hpp"

namespace loom::detail {
namespace {

// The state of the vector's parts when a halo was cut: each part's buffer (held weakly: a part
// replaced by a new split is another buffer, whatever its address) and its write count.
struct part_state {
    std::weak_ptr<buffer> part;
    std::uint64_t writes = 0;
};

struct kept {
    halo_key key;
    std::vector<part_state> parts;
    std::vector<part_range> split; // the vector's split then
    buffer_ptr halo;
};

struct kept_list {
    std::vector<kept> halos;
};

// More kept halos than any stencil of a vector needs (sources x parts x sides) means keys that
// change call by call (a boundary value that moves every step): then the list starts again.
constexpr std::size_t most_kept = 64;

bool same_key(const halo_key& a, const halo_key& b) {
    return a.policy == b.policy && a.width == b.width && a.cells == b.cells && a.from == b.from && a.part == b.part &&
           std::memcmp(a.value.word, b.value.word, sizeof a.value.word) == 0;
}

bool same_split(const std::vector<part_range>& a, const std::vector<part_range>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].first != b[k].first || a[k].count != b[k].count) return false;
    return true;
}

// Whether halos of x may be kept: not over MPI ranks, nor where the caller holds a handle of a
// part's memory.
bool keepable(const context_impl& ctx, const buffer& x) {
    if (ctx.ranks()) return false;
    for (const buffer_ptr& part : x.parts)
        if (part->pinned) return false;
    return true;
}

std::vector<part_state> state_of(const buffer& x) {
    std::vector<part_state> parts;
    for (const buffer_ptr& part : x.parts) parts.push_back({part, part->writes.load(std::memory_order_relaxed)});
    return parts;
}

// Whether x's parts are the buffers `parts` names, none written since.
bool unchanged(const std::vector<part_state>& parts, const buffer& x) {
    if (parts.size() != x.parts.size()) return false;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::weak_ptr<buffer>& was = parts[k].part;
        const buffer_ptr& is = x.parts[k];
        if (was.owner_before(is) || is.owner_before(was)) return false; // another buffer
        if (parts[k].writes != is->writes.load(std::memory_order_relaxed)) return false;
    }
    return true;
}

} // namespace

buffer_ptr kept_halo(const context_impl& ctx, buffer& x, const halo_key& key) {
    auto* list = static_cast<kept_list*>(x.halos.get());
    if (!list || !keepable(ctx, x)) return nullptr;
    for (const kept& k : list->halos)
        if (same_key(k.key, key))
            return unchanged(k.parts, x) && same_split(k.split, ctx.split(x.length)) ? k.halo : nullptr;
    return nullptr;
}

void keep_halo(const context_impl& ctx, buffer& x, const halo_key& key, buffer_ptr halo) {
    if (!keepable(ctx, x)) return;
    if (!x.halos) x.halos = std::make_shared<kept_list>();
    auto& halos = static_cast<kept_list*>(x.halos.get())->halos;
    for (kept& k : halos)
        if (same_key(k.key, key)) {
            k = {key, state_of(x), ctx.split(x.length), std::move(halo)};
            return;
        }
    if (halos.size() >= most_kept) halos.clear();
    halos.push_back({key, state_of(x), ctx.split(x.length), std::move(halo)});
}

} // namespace loom::detail
