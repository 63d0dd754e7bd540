// Sparse matrix products across parts; see sparse_across_parts.hpp.
#include "runtime/parts/sparse_across_parts.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {
namespace {

using ir::no_node;

// One sparse product's slots in a shape: expr::sparse_product::lower makes them in this order
// (starts, lengths, columns, values, x), then its shift and mask operands.
struct product_slots {
    std::uint32_t starts, lengths, columns, values, x, shift;
    bool holds(std::uint32_t s) const { return s >= starts && s <= x; }
};

// The products of s: each read of x is a load_at whose index is (but for a cast) a load_at of the
// columns, two slots before x's.
std::vector<product_slots> products_of(const shape& s) {
    std::vector<product_slots> found;
    for (const ir::node& n : s.nodes) {
        if (n.op != opcode::load_at || n.arg[0] == no_node) continue;
        std::uint32_t c = n.arg[0];
        if (s.nodes[c].op == opcode::cast) c = s.nodes[c].arg[0];
        if (s.nodes[c].op != opcode::load_at) continue;
        const std::uint32_t cs = s.nodes[c].slot;
        if (cs < 2 || n.slot != cs + 2 || cs + 3 >= s.slots.size()) continue;
        const product_slots p{cs - 2, cs - 1, cs, cs + 1, cs + 2, cs + 3};
        bool arrays = s.slots[p.shift].kind == slot_kind::scalar;
        for (std::uint32_t a = p.starts; a <= p.x; ++a) arrays = arrays && s.slots[a].kind == slot_kind::vector;
        const bool known = std::any_of(found.begin(), found.end(), [&](const product_slots& f) { return f.x == p.x; });
        if (arrays && !known) found.push_back(p);
    }
    return found;
}

std::uint64_t unsigned_of(const fusion::bound_slot& slot, dtype t) {
    std::uint64_t v = 0;
    std::memcpy(&v, slot.bits.word, std::min<std::size_t>(size_of(t), sizeof v)); // little-endian: the low bytes
    return v;
}

// A vector's elements of an unsigned index type as u64, and back.
// (An index type is at most 8 bytes; the bound also tells the compiler so.)
std::vector<std::uint64_t> indices_of(buffer& b) {
    const std::size_t size = std::min<std::size_t>(size_of(b.type), sizeof(std::uint64_t));
    std::vector<unsigned char> bytes(b.length * size);
    download(b, 0, b.length, bytes.data());
    std::vector<std::uint64_t> out(b.length, 0);
    for (std::uint64_t i = 0; i < b.length; ++i) std::memcpy(&out[i], &bytes[i * size], size);
    return out;
}
buffer_ptr indices_on(const context_ptr& part, const std::vector<std::uint64_t>& values, dtype t) {
    const std::size_t size = std::min<std::size_t>(size_of(t), sizeof(std::uint64_t)),
                      n = std::max<std::size_t>(values.size(), 1);
    std::vector<unsigned char> bytes(n * size, 0);
    for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(&bytes[i * size], &values[i], size);
    buffer_ptr b = new_buffer(part, n, t);
    upload(*b, 0, n, bytes.data());
    return b;
}

// A part's copy of its rows of A, its columns renumbered (see sparse_across_parts.hpp).
struct part_rows {
    buffer_ptr starts, lengths, columns, values;
    std::uint64_t first_slice = 0;
    std::uint64_t halo = 0; // elements of x from other parts
    struct source {
        std::size_t part;   // which part gathers them
        buffer_ptr indices; // u64, that part's elements of x, on that part
        std::uint64_t count, at;
    };
    std::vector<source> sources;
};

// A matrix laid out over one split of its rows and of x.
struct matrix_parts {
    std::vector<part_range> rows, cols;
    std::vector<part_rows> parts;
};

std::shared_ptr<const matrix_parts> lay_out(context_impl& ctx, const fusion::bound_slot* slots, const product_slots& p,
                                            const std::vector<part_range>& rows, const std::vector<part_range>& cols) {
    buffer& values_of_a = *slots[p.values].buffer;
    const dtype ix = slots[p.columns].buffer->type, t = values_of_a.type;
    const std::size_t value_size = size_of(t);
    const std::uint64_t shift = unsigned_of(slots[p.shift], ix), slice = std::uint64_t(1) << shift;
    const std::vector<std::uint64_t> starts = indices_of(*slots[p.starts].buffer);
    const std::vector<std::uint64_t> lengths = indices_of(*slots[p.lengths].buffer);
    const std::vector<std::uint64_t> columns = indices_of(*slots[p.columns].buffer);
    std::vector<unsigned char> values(values_of_a.length * value_size);
    download(values_of_a, 0, values_of_a.length, values.data());
    auto m = std::make_shared<matrix_parts>();
    m->rows = rows;
    m->cols = cols;
    m->parts.resize(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const part_range r = rows[k], c = cols[k];
        if (r.count == 0) continue;
        const auto entry = [&](std::uint64_t row, std::uint64_t e) {
            return starts[row >> shift] + (row & (slice - 1)) + (e << shift);
        };
        const auto own = [&](std::uint64_t col) { return col >= c.first && col < c.first + c.count; };
        // The columns of other parts its rows reach, in order: the halo.
        std::vector<std::uint64_t> outside;
        for (std::uint64_t row = r.first; row < r.first + r.count; ++row)
            for (std::uint64_t e = 0; e < lengths[row]; ++e)
                if (!own(columns[entry(row, e)])) outside.push_back(columns[entry(row, e)]);
        std::sort(outside.begin(), outside.end());
        outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
        // Its rows in the layout's slices, aligned on the whole matrix's.
        const std::uint64_t s0 = r.first >> shift, s1 = (r.first + r.count - 1) >> shift;
        std::vector<std::uint64_t> local_starts(s1 - s0 + 1), local_lengths(r.count), local_columns;
        std::vector<unsigned char> local_values;
        std::uint64_t at = 0;
        for (std::uint64_t s = s0; s <= s1; ++s) {
            local_starts[s - s0] = at;
            std::uint64_t longest = 0;
            const std::uint64_t lo = std::max(s * slice, r.first), hi = std::min((s + 1) * slice, r.first + r.count);
            for (std::uint64_t row = lo; row < hi; ++row) longest = std::max(longest, lengths[row]);
            local_columns.resize(at + longest * slice, 0);
            local_values.resize((at + longest * slice) * value_size, 0);
            for (std::uint64_t row = lo; row < hi; ++row) {
                local_lengths[row - r.first] = lengths[row];
                for (std::uint64_t e = 0; e < lengths[row]; ++e) {
                    const std::uint64_t from = entry(row, e), to = at + (row & (slice - 1)) + (e << shift);
                    const std::uint64_t col = columns[from];
                    local_columns[to] =
                        own(col) ? col - c.first
                                 : c.count + std::uint64_t(std::lower_bound(outside.begin(), outside.end(), col) -
                                                           outside.begin());
                    std::memcpy(&local_values[to * value_size], &values[from * value_size], value_size);
                }
            }
            at += longest * slice;
        }
        const context_ptr part = ctx.parts()[k];
        part_rows& pr = m->parts[k];
        pr.first_slice = s0;
        pr.halo = outside.size();
        pr.starts = indices_on(part, local_starts, ix);
        pr.lengths = indices_on(part, local_lengths, ix);
        pr.columns = indices_on(part, local_columns, ix);
        const std::uint64_t stored = std::max<std::uint64_t>(local_columns.size(), 1);
        local_values.resize(stored * value_size, 0);
        pr.values = new_buffer(part, stored, t);
        upload(*pr.values, 0, stored, local_values.data());
        // Which part holds each halo element of x (the halo is in column order, so each part's
        // share is one run of it).
        for (std::size_t j = 0; j < cols.size(); ++j) {
            if (j == k || cols[j].count == 0) continue;
            const auto lo = std::lower_bound(outside.begin(), outside.end(), cols[j].first);
            const auto hi = std::lower_bound(outside.begin(), outside.end(), cols[j].first + cols[j].count);
            if (lo == hi) continue;
            std::vector<std::uint64_t> wanted;
            for (auto it = lo; it != hi; ++it) wanted.push_back(*it - cols[j].first);
            pr.sources.push_back({j, indices_on(ctx.parts()[j], wanted, dtype::u64), std::uint64_t(hi - lo),
                                  std::uint64_t(lo - outside.begin())});
        }
    }
    return m;
}

// The layout of the matrix whose columns array is `columns`, for these splits: made once a split
// (a matrix's arrays never change), kept while the matrix lives; a matrix's layout (its rows'
// copies on the parts) is let go at the first product after it is gone.
std::shared_ptr<const matrix_parts> layout_of(context_impl& ctx, const fusion::bound_slot* slots,
                                              const product_slots& p, const std::vector<part_range>& rows,
                                              const std::vector<part_range>& cols) {
    using key = std::weak_ptr<buffer>;
    static std::mutex& lock = *new std::mutex; // never destroyed: contexts may record at exit
    static auto& made = *new std::map<key, std::shared_ptr<const matrix_parts>, std::owner_less<key>>;
    const auto same = [](const std::vector<part_range>& a, const std::vector<part_range>& b) {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(), [](const part_range& x, const part_range& y) {
                   return x.first == y.first && x.count == y.count;
               });
    };
    const auto forget_gone = [&] { // the layouts of matrices gone, and their memory on the parts
        for (auto it = made.begin(); it != made.end();) it = it->first.expired() ? made.erase(it) : std::next(it);
    };
    {
        std::lock_guard<std::mutex> guard(lock);
        forget_gone();
        const auto it = made.find(slots[p.columns].buffer);
        if (it != made.end() && same(it->second->rows, rows) && same(it->second->cols, cols)) return it->second;
    }
    std::shared_ptr<const matrix_parts> m = lay_out(ctx, slots, p, rows, cols);
    std::lock_guard<std::mutex> guard(lock);
    forget_gone();
    made[slots[p.columns].buffer] = m;
    return m;
}

// The statement each part runs (see sparse_across_parts.hpp): after the shape's own slots, per
// product the part's first slice and first row (u64), which its reads of the slices' starts and
// the rows' lengths subtract.
constexpr std::uint32_t slots_per_product = 2;

const shape* part_statement(const shape* s, const std::vector<product_slots>& products) {
    return derived_shape(s, [&] { // the products are s's, found the same way every time
        shape out;
        out.slots = s->slots;
        const std::uint32_t base = std::uint32_t(s->slots.size());
        for (std::size_t g = 0; g < products.size() * slots_per_product; ++g)
            out.slots.push_back({slot_kind::scalar, dtype::u64});
        std::vector<std::uint32_t> moved(s->nodes.size(), no_node);
        for (std::size_t j = 0; j < s->nodes.size(); ++j) {
            ir::node n = s->nodes[j];
            for (std::uint32_t& a : n.arg)
                if (a != no_node) a = moved[a];
            for (std::size_t g = 0; g < products.size() && n.op == opcode::load_at; ++g) {
                if (n.slot != products[g].starts && n.slot != products[g].lengths) continue;
                ir::node first{opcode::scalar, dtype::u64};
                first.slot = base + slots_per_product * std::uint32_t(g) + (n.slot == products[g].starts ? 0 : 1);
                out.nodes.push_back(first);
                ir::node less{opcode::sub, dtype::u64};
                less.arg[0] = n.arg[0];
                less.arg[1] = std::uint32_t(out.nodes.size() - 1);
                out.nodes.push_back(less);
                n.arg[0] = std::uint32_t(out.nodes.size() - 1);
            }
            out.nodes.push_back(n);
            moved[j] = std::uint32_t(out.nodes.size() - 1);
        }
        rewritten_ends(*s, moved, out);
        return register_shape(std::move(out));
    });
}

// The statement x_part[indices] into a vector of its length (a halo's share, on the part that
// holds it).
const shape* gather_shape(dtype t) {
    return derived_shape(t, [&] {
        shape_builder b;
        const std::uint32_t x = b.gather_source(t);
        const node_ref at = b.vector_slot(dtype::u64);
        return b.finish_assignment(b.gather(x, at, false), t);
    });
}

} // namespace

bool sparse_servable(const shape& s) {
    if (s.store_index != no_node) return false;
    const std::vector<product_slots> products = products_of(s);
    if (products.empty()) return false;
    for (const ir::node& n : s.nodes) {
        if (n.op == opcode::load_neighbour) return false;
        if (n.op == opcode::load_at &&
            std::none_of(products.begin(), products.end(), [&](const product_slots& p) { return p.holds(n.slot); }))
            return false;
    }
    return true;
}

void commit_sparse_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                                const buffer_ptr& target) {
    const std::size_t count = ctx.parts().size();
    if (ctx.ranks()) throw error(needs_one_device("a sparse matrix product over MPI ranks", count));
    if (target->replicated) throw error(needs_one_device("a loom::scalar assigned from a sparse product", count));
    const std::vector<product_slots> products = products_of(*written);
    if (target->length == 0) return;
    const std::vector<part_range> rows = ctx.split(target->length);
    std::vector<std::shared_ptr<const matrix_parts>> layouts;
    for (const product_slots& p : products)
        layouts.push_back(layout_of(ctx, slots, p, rows, ctx.split(slots[p.x].buffer->length)));
    // Every part's x: its own elements, then its halo, each share of the halo gathered on the part
    // that holds it and copied in; all before any part records its product (the product may write
    // x).
    std::vector<std::vector<buffer_ptr>> extended(count);
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t g = 0; g < products.size(); ++g) {
            if (rows[k].count == 0) continue;
            buffer& x = *slots[products[g].x].buffer;
            const part_rows& pr = layouts[g]->parts[k];
            const std::uint64_t own = layouts[g]->cols[k].count;
            extended[k].push_back(new_buffer(ctx.parts()[k], std::max<std::uint64_t>(own + pr.halo, 1), x.type));
            copy_between_parts(ctx, k, *x.parts[k], 0, k, *extended[k].back(), 0, own);
            for (const part_rows::source& src : pr.sources) {
                const buffer_ptr share = new_buffer(ctx.parts()[src.part], src.count, x.type);
                // Held as a vector while its statement runs: a copy, which the fusion pass does not
                // see, reads it.
                attach_vector(*share);
                try {
                    statement_recorder r(*ctx.parts()[src.part]);
                    r.vector_slot(x.parts[src.part]);
                    r.vector_slot(src.indices);
                    r.commit_assignment(gather_shape(x.type), share);
                    copy_between_parts(ctx, src.part, *share, 0, k, *extended[k].back(), own + src.at, src.count);
                } catch (...) {
                    detach_vector(*share);
                    throw;
                }
                detach_vector(*share);
            }
        }
    const shape* counted = counted_from_part(written);
    const shape* statement = part_statement(counted, products);
    for (std::size_t k = 0; k < count; ++k) {
        if (rows[k].count == 0) continue;
        statement_recorder r(*ctx.parts()[k]);
        for (std::uint32_t j = 0; j < written->slots.size(); ++j) {
            std::size_t g = 0;
            while (g < products.size() && !(products[g].holds(j) && j != products[g].x)) ++g;
            std::size_t reads_x = 0;
            while (reads_x < products.size() && products[reads_x].x != j) ++reads_x;
            if (g < products.size()) { // an array of A: the part's copy of its rows
                const part_rows& pr = layouts[g]->parts[k];
                const product_slots& p = products[g];
                r.vector_slot(j == p.starts    ? pr.starts
                              : j == p.lengths ? pr.lengths
                              : j == p.columns ? pr.columns
                                               : pr.values);
            } else if (reads_x < products.size()) { // x of a product: its own elements and its halo
                r.vector_slot(extended[k][reads_x]);
            } else if (slots[j].buffer) {
                r.vector_slot(slots[j].buffer->parts[k]);
            } else {
                r.scalar_slot(slots[j].bits.word, sizeof slots[j].bits.word);
            }
        }
        if (counted != written) r.scalar_slot(&rows[k].first, sizeof rows[k].first);
        for (std::size_t g = 0; g < products.size(); ++g) {
            r.scalar_slot(&layouts[g]->parts[k].first_slice, sizeof layouts[g]->parts[k].first_slice);
            r.scalar_slot(&rows[k].first, sizeof rows[k].first);
        }
        r.commit_assignment(statement, target->parts[k]);
    }
}

} // namespace loom::detail
