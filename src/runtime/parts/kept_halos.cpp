// Halos kept with their vector; see kept_halos.hpp.
#include "runtime/parts/kept_halos.hpp"

#include <cstring>
#include <vector>

#include "runtime/context_impl.hpp"

namespace loom::detail {
namespace {

struct kept {
    halo_key key;
    std::vector<std::uint64_t> stamps; // each part's buffer::written when the halo was cut
    std::vector<part_range> split;     // the vector's split then
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

// x's parts' write stamps, or empty where halos of x may not be kept.
std::vector<std::uint64_t> stamps_of(const context_impl& ctx, const buffer& x) {
    std::vector<std::uint64_t> stamps;
    if (ctx.ranks()) return stamps;
    for (const buffer_ptr& part : x.parts) {
        if (part->pinned) return {};
        stamps.push_back(part->written.load(std::memory_order_relaxed));
    }
    return stamps;
}

} // namespace

buffer_ptr kept_halo(const context_impl& ctx, buffer& x, const halo_key& key) {
    auto* list = static_cast<kept_list*>(x.halos.get());
    if (!list) return nullptr;
    const std::vector<std::uint64_t> stamps = stamps_of(ctx, x);
    if (stamps.empty()) return nullptr;
    for (const kept& k : list->halos)
        if (same_key(k.key, key))
            return k.stamps == stamps && same_split(k.split, ctx.split(x.length)) ? k.halo : nullptr;
    return nullptr;
}

void keep_halo(const context_impl& ctx, buffer& x, const halo_key& key, buffer_ptr halo) {
    std::vector<std::uint64_t> stamps = stamps_of(ctx, x);
    if (stamps.empty()) return;
    if (!x.halos) x.halos = std::make_shared<kept_list>();
    auto& halos = static_cast<kept_list*>(x.halos.get())->halos;
    for (kept& k : halos)
        if (same_key(k.key, key)) {
            k = {key, std::move(stamps), ctx.split(x.length), std::move(halo)};
            return;
        }
    if (halos.size() >= most_kept) halos.clear();
    halos.push_back({key, std::move(stamps), ctx.split(x.length), std::move(halo)});
}

} // namespace loom::detail
