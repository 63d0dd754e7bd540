// Loom's IR: a small typed DAG. A statement's shape and a kernel body are both lists of
// nodes in topological order; children are indices into the same list, and terminals
// name a slot (in a shape) or a kernel parameter (in a kernel body).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom::ir {

constexpr std::uint32_t no_node = 0xFFFFFFFFu;

struct node {
    opcode op;
    dtype type;
    std::uint32_t arg[3] = {no_node, no_node, no_node};
    std::uint32_t slot = 0; // load/scalar: slot (shape) or parameter (kernel) number

    friend bool operator==(const node& a, const node& b) {
        return a.op == b.op && a.type == b.type && a.arg[0] == b.arg[0] && a.arg[1] == b.arg[1] &&
               a.arg[2] == b.arg[2] && a.slot == b.slot;
    }
};

// Hash-consing table shared by every builder of node lists: adding a node equal to an
// existing one returns the existing index, which is how common sub-expressions merge.
class node_list {
public:
    std::uint32_t add(const node& n);
    const std::vector<node>& nodes() const { return nodes_; }
    const node& operator[](std::uint32_t i) const { return nodes_[i]; }
    std::size_t size() const { return nodes_.size(); }
    void clear();

private:
    std::vector<node> nodes_;
    std::vector<std::uint32_t> buckets_; // open addressing over node indices; 0 = empty, else index + 1
};

} // namespace loom::ir
