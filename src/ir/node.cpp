// Hash-consed node list (the CSE mechanism of every IR builder).
#include "ir/node.hpp"

#include <xxhash.h>

namespace loom::ir {
namespace {

std::uint64_t hash_node(const node& n) {
    const std::uint32_t words[8] = {
        std::uint32_t(n.op) | (std::uint32_t(n.type) << 8) | (std::uint32_t(n.boundary) << 16),
        n.arg[0],
        n.arg[1],
        n.arg[2],
        n.arg[3],
        n.arg[4],
        n.arg[5],
        n.slot};
    return XXH3_64bits(words, sizeof words);
}

} // namespace

void node_list::clear() {
    nodes_.clear();
    buckets_.clear();
}

std::uint32_t node_list::add(const node& n) {
    if ((nodes_.size() + 1) * 2 > buckets_.size()) {
        // Grow and rehash: keeps the load factor under one half.
        std::vector<std::uint32_t> bigger(buckets_.empty() ? 64 : buckets_.size() * 2, 0);
        const std::size_t mask = bigger.size() - 1;
        for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
            std::size_t b = hash_node(nodes_[i]) & mask;
            while (bigger[b] != 0) b = (b + 1) & mask;
            bigger[b] = i + 1;
        }
        buckets_.swap(bigger);
    }
    const std::size_t mask = buckets_.size() - 1;
    std::size_t b = hash_node(n) & mask;
    while (buckets_[b] != 0) {
        if (nodes_[buckets_[b] - 1] == n) return buckets_[b] - 1;
        b = (b + 1) & mask;
    }
    nodes_.push_back(n);
    buckets_[b] = std::uint32_t(nodes_.size());
    return std::uint32_t(nodes_.size() - 1);
}

} // namespace loom::ir
