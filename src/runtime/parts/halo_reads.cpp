// Stencil statements across parts, their neighbour reads served from halos; see halo_reads.hpp.
#include "runtime/parts/halo_reads.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loom/error.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/kept_halos.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/ranks.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {
namespace {

using ir::no_node;

// The rewritten statement, and the original's neighbour reads (node indices) in the order their
// halo slots follow: after the shape's own slots come the part's first element and element count
// (u64), the constants 0 and 1 (i64), then per read its left and right halos and their length H.
// A border statement (halo_form::border) then has the first element of the span it writes (u64)
// and, last, its target (a view write's).
struct halo_statement {
    const shape* rewritten = nullptr;
    std::vector<std::uint32_t> reads;
};
constexpr std::uint32_t slots_before_reads = 4, slots_per_read = 3;

// What the rewritten statement computes: every element of the part, or the elements of a span of
// it (start + 0 .. start + length, a view write), each as an element of the whole part.
enum class halo_form { whole, border };

class rewriter {
public:
    rewriter(const shape& s, halo_form form) : s_(s), form_(form) {
        out_.slots = s.slots;
        base_ = std::uint32_t(s.slots.size());
        for (dtype t : {dtype::u64, dtype::u64, dtype::i64, dtype::i64}) operand_slot(t);
        std::uint32_t reads = 0;
        for (const ir::node& n : s.nodes) reads += n.op == opcode::load_neighbour ? 1 : 0;
        span_start_ = base_ + slots_before_reads + slots_per_read * reads;
    }

    halo_statement run() {
        halo_statement h;
        std::vector<std::uint32_t> moved(s_.nodes.size(), no_node);
        for (std::size_t j = 0; j < s_.nodes.size(); ++j) {
            ir::node n = s_.nodes[j];
            for (std::uint32_t& a : n.arg)
                if (a != no_node) a = moved[a];
            if (n.op == opcode::index && ir::index_value(n.slot) == ir::index_value::element) {
                moved[j] = add(opcode::add, dtype::u64, element(),
                               scalar(base_ + 0, dtype::u64)); // counted from the vector's start
            } else if (n.op == opcode::load_neighbour) {
                moved[j] = halo_read(n, std::uint32_t(h.reads.size()));
                h.reads.push_back(std::uint32_t(j));
            } else if (n.op == opcode::load && form_ == halo_form::border) {
                out_.slots[n.slot].any_length = true; // the part's, read at the span's elements
                moved[j] = load_at(n.slot, n.type, element(), no_node);
            } else {
                out_.nodes.push_back(n);
                moved[j] = last();
            }
        }
        rewritten_ends(s_, moved, out_);
        if (form_ == halo_form::border) { // a view write of the span's elements
            operand_slot(dtype::u64);
            out_.store_index = element();
            out_.target_slot = std::uint32_t(out_.slots.size());
            out_.slots.push_back({slot_kind::vector, s_.target_type, true, false, false, true});
        }
        h.rewritten = register_shape(std::move(out_));
        return h;
    }

private:
    std::uint32_t last() const { return std::uint32_t(out_.nodes.size() - 1); }
    std::uint32_t add(opcode op, dtype t, std::uint32_t a, std::uint32_t b = no_node, std::uint32_t c = no_node) {
        ir::node n{op, t};
        n.arg[0] = a;
        n.arg[1] = b;
        n.arg[2] = c;
        out_.nodes.push_back(n);
        return last();
    }
    std::uint32_t cast(dtype t, std::uint32_t a) { return add(opcode::cast, t, a); }
    std::uint32_t scalar(std::uint32_t slot, dtype t) {
        ir::node n{opcode::scalar, t};
        n.slot = slot;
        out_.nodes.push_back(n);
        return last();
    }
    std::uint32_t load_at(std::uint32_t slot, dtype t, std::uint32_t index, std::uint32_t limit) {
        ir::node n{opcode::load_at, t};
        n.slot = slot;
        n.arg[0] = index;
        n.arg[1] = limit;
        out_.nodes.push_back(n);
        return last();
    }
    // Plain scalars (not neighbour operands): equal values share one kernel parameter, so the
    // reads' arithmetic on them merges into one computation an element.
    void operand_slot(dtype t) { out_.slots.push_back(slot_info{slot_kind::scalar, t}); }
    // The element the statement computes, in the part's numbering (u64): the launch's, or its
    // place in the span.
    std::uint32_t element() {
        ir::node n{opcode::index, dtype::u64};
        n.slot = std::uint32_t(ir::index_value::element);
        out_.nodes.push_back(n);
        const std::uint32_t launch = last();
        if (form_ == halo_form::whole) return launch;
        const std::uint32_t start = scalar(span_start_, dtype::u64);
        return add(opcode::add, dtype::u64, launch, start);
    }

    // Coordinate c + d of an axis `size` long, moved into it by n's policy (clamped, wrapped); for
    // the constant policy, not moved, and `outside` (a boolean node, or no_node) or'd with whether
    // it lies outside.
    std::uint32_t moved(std::uint32_t c, std::uint32_t d, std::uint32_t size, const ir::node& n,
                        std::uint32_t& outside) {
        const std::uint32_t zero = scalar(base_ + 2, dtype::i64), one = scalar(base_ + 3, dtype::i64);
        const std::uint32_t at = add(opcode::add, dtype::i64, c, d);
        const std::uint32_t last_one = add(opcode::sub, dtype::i64, size, one);
        switch (boundary_policy(n.boundary)) {
        case boundary_policy::clamp: return add(opcode::clamp, dtype::i64, at, zero, last_one);
        case boundary_policy::wrap: {
            const std::uint32_t rest = add(opcode::mod, dtype::i64, at, size);
            return add(opcode::mod, dtype::i64, add(opcode::add, dtype::i64, rest, size), size);
        }
        case boundary_policy::constant: {
            const std::uint32_t out =
                add(opcode::logical_or, dtype::boolean, add(opcode::less, dtype::boolean, at, zero),
                    add(opcode::greater, dtype::boolean, at, last_one));
            outside = outside == no_node ? out : add(opcode::logical_or, dtype::boolean, outside, out);
            // In range where it counts: the read is replaced by the constant where it is not.
            return add(opcode::clamp, dtype::i64, at, zero, last_one);
        }
        }
        return at;
    }

    // Read r (node n, its operands already renumbered): its element t relative to the part's
    // first, then the part's element, or a halo's.
    std::uint32_t halo_read(const ir::node& n, std::uint32_t r) {
        const dtype type = n.type;
        const std::uint32_t zero = scalar(base_ + 2, dtype::i64);
        const std::uint32_t first = cast(dtype::i64, scalar(base_ + 0, dtype::u64));
        const std::uint32_t count = cast(dtype::i64, scalar(base_ + 1, dtype::u64));
        const std::uint32_t local = cast(dtype::i64, element());
        std::uint32_t t = no_node, outside = no_node;
        if (n.arg[ir::grid_width] == no_node) {
            t = add(opcode::add, dtype::i64, local, n.arg[ir::offset_i]);
        } else {
            // The element's column (and on a 3-D grid its row in its plane, and its plane), each
            // moved by its offset and the policy in the kernel; the row (plane) moved by its offset
            // alone: past the vector's ends, the halos hold what the policy makes of them.
            const std::uint32_t w = n.arg[ir::grid_width], h = n.arg[ir::grid_height];
            // Plain scalars now, as operand_slot's: reads of one width (and height) share their
            // coordinates (one division an element, not one a read).
            out_.slots[out_.nodes[w].slot].neighbour_operand = false;
            if (h != no_node) out_.slots[out_.nodes[h].slot].neighbour_operand = false;
            const std::uint32_t g = add(opcode::add, dtype::i64, local, first);
            const std::uint32_t rows = add(opcode::div, dtype::i64, g, w);
            const std::uint32_t col = add(opcode::sub, dtype::i64, g, add(opcode::mul, dtype::i64, rows, w));
            std::uint32_t v = no_node;
            if (h == no_node) {
                const std::uint32_t column = moved(col, n.arg[ir::offset_i], w, n, outside);
                v = add(opcode::add, dtype::i64,
                        add(opcode::mul, dtype::i64, add(opcode::add, dtype::i64, rows, n.arg[ir::offset_j]), w),
                        column);
            } else {
                const std::uint32_t plane = add(opcode::div, dtype::i64, rows, h);
                const std::uint32_t row = add(opcode::sub, dtype::i64, rows, add(opcode::mul, dtype::i64, plane, h));
                const std::uint32_t column = moved(col, n.arg[ir::offset_i], w, n, outside);
                const std::uint32_t in_plane = moved(row, n.arg[ir::offset_j], h, n, outside);
                const std::uint32_t to_plane = add(opcode::add, dtype::i64, plane, n.arg[ir::offset_k]);
                v = add(opcode::add, dtype::i64,
                        add(opcode::mul, dtype::i64,
                            add(opcode::add, dtype::i64, add(opcode::mul, dtype::i64, to_plane, h), in_plane), w),
                        column);
            }
            t = add(opcode::sub, dtype::i64, v, first);
        }
        const std::uint32_t slot = base_ + slots_before_reads + slots_per_read * r;
        out_.slots[n.slot].any_length = true; // the part's own, read at t
        for (int side = 0; side < 2; ++side) {
            slot_info halo{slot_kind::vector, type};
            halo.neighbour = true;
            halo.any_length = true;
            out_.slots.push_back(halo);
        }
        operand_slot(dtype::i64); // H
        const std::uint32_t h = scalar(slot + 2, dtype::i64);
        const std::uint32_t h_u = cast(dtype::u64, h);
        const std::uint32_t mid = load_at(n.slot, type, cast(dtype::u64, t), cast(dtype::u64, count));
        const std::uint32_t left = load_at(slot, type, cast(dtype::u64, add(opcode::add, dtype::i64, t, h)), h_u);
        const std::uint32_t right =
            load_at(slot + 1, type, cast(dtype::u64, add(opcode::sub, dtype::i64, t, count)), h_u);
        std::uint32_t value = add(opcode::select, type, add(opcode::less, dtype::boolean, t, zero), left,
                                  add(opcode::select, type, add(opcode::less, dtype::boolean, t, count), mid, right));
        if (outside != no_node) value = add(opcode::select, type, outside, n.arg[ir::boundary_value], value);
        return value;
    }

    const shape& s_;
    const halo_form form_;
    shape out_;
    std::uint32_t base_ = 0, span_start_ = 0;
};

const halo_statement& halo_statement_of(const shape* s, halo_form form) {
    using key = std::pair<const shape*, halo_form>;
    static std::mutex& lock = *new std::mutex; // never destroyed: contexts may record at exit
    static std::map<key, halo_statement>& made = *new std::map<key, halo_statement>;
    std::lock_guard<std::mutex> guard(lock);
    auto it = made.find({s, form});
    if (it == made.end()) it = made.emplace(key{s, form}, rewriter(*s, form).run()).first;
    return it->second;
}

std::int64_t int_of(const fusion::bound_slot& slot) {
    std::int64_t v = 0;
    std::memcpy(&v, slot.bits.word, sizeof v);
    return v;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// What neighbour reads' halos are cut from and how: reads of one vector with one policy, row width
// and boundary value share their halos, as long as the longest of them needs (H cells).
struct halo_source {
    const buffer* vector = nullptr;
    boundary_policy policy = boundary_policy::clamp;
    std::int64_t width = 0; // a row (2-D) or a plane (3-D) in cells; 0 for a 1-D read
    std::int64_t cells = 0; // H
    scalar_bits value;      // the constant policy's

    bool shares(const halo_source& o) const {
        return vector == o.vector && policy == o.policy && width == o.width &&
               std::memcmp(value.word, o.value.word, sizeof value.word) == 0;
    }
};

// Reads a vector's elements for its halos: from every part, without ranks. Over MPI ranks, from
// this rank's parts, and for the others' elements from every rank's first and last `edge`
// elements, gathered from every rank when the reader is made (collective; every rank makes the
// same readers in the same order). A halo of H <= edge cells, and the cells a boundary policy
// takes from the vector's ends, lie in those (every rank's range starts or ends within H of any
// of its cells that a halo of another rank reaches).
class cell_reader {
public:
    cell_reader(buffer& x, std::uint64_t edge) : x_(x) {
        const rank_group* ranks = x.ctx->ranks();
        if (!ranks) return;
        const std::size_t size = size_of(x.type);
        const std::vector<part_range> ranges = x.ctx->rank_split(x.length);
        std::vector<std::uint64_t> counts;
        std::vector<unsigned char> mine;
        for (std::size_t r = 0; r < ranges.size(); ++r) {
            const std::uint64_t f = ranges[r].first, c = ranges[r].count, head = std::min(edge, c);
            const std::uint64_t tail_first = std::max(f + c - std::min(edge, c), f + head);
            const part_range pieces[2] = {{f, head}, {tail_first, f + c - tail_first}};
            counts.push_back(head + pieces[1].count);
            for (const part_range& p : pieces) {
                segments_.push_back({p.first, p.count, at_});
                at_ += p.count;
                if (r != ranks->rank() || p.count == 0) continue;
                mine.resize(mine.size() + p.count * size);
                download_local(x, p.first, p.count, mine.data() + mine.size() - p.count * size);
            }
            if (r == ranks->rank()) mine_ = ranges[r];
        }
        edges_.resize(at_ * size);
        ranks->allgather(mine.data(), edges_.data(), size, counts);
        ranked_ = true;
    }

    void read(std::uint64_t first, std::uint64_t count, unsigned char* host) {
        if (!ranked_) return download_parts(x_, first, count, host);
        const std::size_t size = size_of(x_.type);
        const std::uint64_t lo = std::max(first, mine_.first), hi = std::min(first + count, mine_.first + mine_.count);
        if (lo < hi) download_local(x_, lo, hi - lo, host + (lo - first) * size);
        for (std::uint64_t i = first; i < first + count; ++i) {
            if (i >= lo && i < hi) continue;
            const auto s = std::find_if(segments_.begin(), segments_.end(),
                                        [&](const segment& g) { return i >= g.first && i < g.first + g.count; });
            if (s == segments_.end())
                throw error("loom: internal error: a halo cell lies in no rank's edge; please report it");
            std::memcpy(host + (i - first) * size, &edges_[(s->at + (i - s->first)) * size], size);
        }
    }

private:
    struct segment {
        std::uint64_t first, count, at;
    };
    buffer& x_;
    bool ranked_ = false;
    part_range mine_;
    std::vector<segment> segments_;
    std::uint64_t at_ = 0;
    std::vector<unsigned char> edges_;
};

// Cells v0 .. v0 + count of the vector's numbering, some before its start or past its end, into
// `host`: those inside read from the vector, the others what the boundary policy makes of them.
void fill_cells(buffer& x, cell_reader& reader, const halo_source& src, std::int64_t v0, std::int64_t count,
                unsigned char* host) {
    const std::int64_t n = std::int64_t(x.length);
    const std::size_t size = size_of(x.type);
    // Inside the vector: one read.
    const std::int64_t in_lo = std::max<std::int64_t>(v0, 0), in_hi = std::min(v0 + count, n);
    if (in_lo < in_hi) reader.read(std::uint64_t(in_lo), std::uint64_t(in_hi - in_lo), host + (in_lo - v0) * size);
    // Outside, on each side: each cell's source by the policy, read as one range per side.
    for (const auto& [lo, hi] :
         {std::pair{v0, std::min(v0 + count, std::int64_t(0))}, std::pair{std::max(v0, n), v0 + count}}) {
        if (lo >= hi) continue;
        if (src.policy == boundary_policy::constant) {
            for (std::int64_t v = lo; v < hi; ++v) std::memcpy(host + (v - v0) * size, src.value.word, size);
            continue;
        }
        std::vector<std::int64_t> from;
        for (std::int64_t v = lo; v < hi; ++v) {
            if (src.width == 0) {
                from.push_back(src.policy == boundary_policy::clamp ? std::clamp<std::int64_t>(v, 0, n - 1)
                                                                    : ((v % n) + n) % n);
            } else {
                const std::int64_t w = src.width, rows = n / w;
                const std::int64_t row = floor_div(v, w), col = v - row * w;
                const std::int64_t moved = src.policy == boundary_policy::clamp
                                               ? std::clamp<std::int64_t>(row, 0, rows - 1)
                                               : ((row % rows) + rows) % rows;
                from.push_back(moved * w + col);
            }
        }
        const auto [least, most] = std::minmax_element(from.begin(), from.end());
        std::vector<unsigned char> range(std::size_t(*most - *least + 1) * size);
        reader.read(std::uint64_t(*least), std::uint64_t(*most - *least + 1), range.data());
        for (std::int64_t v = lo; v < hi; ++v)
            std::memcpy(host + (v - v0) * size, &range[std::size_t(from[std::size_t(v - lo)] - *least) * size], size);
    }
}

// Cells from .. from + cells of x into `halo` (a buffer of part k), where they lie in one other
// part, as a copy between the parts (copy_between_parts: on the devices where they can). False,
// nothing done, otherwise.
bool copied_between_parts(context_impl& ctx, buffer& x, std::size_t k, std::int64_t from, std::int64_t cells,
                          buffer& halo) {
    if (ctx.ranks() || from < 0 || from + cells > std::int64_t(x.length)) return false;
    const std::vector<part_range> ranges = ctx.split(x.length);
    std::size_t j = 0;
    while (j < ranges.size() &&
           !(std::int64_t(ranges[j].first) <= from && from + cells <= std::int64_t(ranges[j].first + ranges[j].count)))
        ++j;
    if (j == ranges.size() || j == k) return false;
    copy_between_parts(ctx, j, *x.parts[j], std::uint64_t(from) - ranges[j].first, k, halo, 0, std::uint64_t(cells));
    return true;
}

} // namespace

bool halo_servable(const shape& s) {
    if (s.store_index != no_node) return false;
    bool reads = false;
    for (const ir::node& n : s.nodes) {
        if (n.op == opcode::load_at || n.op == opcode::row_sum) return false;
        if (n.op == opcode::load_neighbour) {
            reads = true;
        }
    }
    return reads;
}

void commit_with_halos(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                       const buffer_ptr& target) {
    const std::size_t count = ctx.parts().size();
    if (target->replicated) throw error(needs_one_device("a loom::scalar assigned from a stencil", count));
    const halo_statement& whole = halo_statement_of(written, halo_form::whole);
    // The halos' sources, each read's (source_of), and the border: how far from a part's ends an
    // element may read past them (along the vector, or whole rows).
    std::vector<halo_source> sources;
    std::vector<std::size_t> source_of;
    std::int64_t border = 0;
    bool wraps = false;
    for (std::uint32_t j : whole.reads) {
        const ir::node& n = written->nodes[j];
        const fusion::bound_slot& vector = slots[n.slot];
        const auto operand = [&](unsigned a) { return int_of(slots[written->nodes[n.arg[a]].slot]); };
        halo_source src;
        src.vector = vector.buffer.get();
        src.policy = boundary_policy(n.boundary);
        wraps |= src.policy == boundary_policy::wrap;
        if (n.arg[ir::grid_width] == no_node) {
            src.cells = std::max<std::int64_t>(std::abs(operand(ir::offset_i)), 1);
            border = std::max(border, std::abs(operand(ir::offset_i)));
        } else {
            // A 2-D read moves across rows through the halos, a 3-D read across planes: the halos
            // see the grid as rows of `width` cells (a 3-D grid's planes as rows).
            const bool planes = n.arg[ir::grid_height] != no_node;
            const unsigned across = planes ? ir::offset_k : ir::offset_j;
            src.width = operand(ir::grid_width) * (planes ? operand(ir::grid_height) : 1);
            if (src.width <= 0 || vector.buffer->length % std::uint64_t(src.width) != 0)
                throw error(needs_one_device(planes ? "a 3-D stencil whose planes do not tile its vector"
                                                    : "a 2-D stencil whose rows do not tile its vector",
                                             count));
            src.cells = (std::abs(operand(across)) + 1) * src.width;
            border = std::max(border, std::abs(operand(across)) * src.width);
        }
        if (src.policy == boundary_policy::constant)
            src.value = slots[written->nodes[n.arg[ir::boundary_value]].slot].bits;
        const auto shared =
            std::find_if(sources.begin(), sources.end(), [&](const halo_source& o) { return o.shares(src); });
        source_of.push_back(std::size_t(shared - sources.begin()));
        if (shared == sources.end())
            sources.push_back(src);
        else
            shared->cells = std::max(shared->cells, src.cells);
    }
    if (target->length == 0) return;
    const std::vector<part_range> ranges = ctx.split(target->length);
    // A part in whole rows of every grid read, whose target no operand reads, runs the statement as
    // it is, a stencil on its own elements (at a one-device stencil's speed): right but for the
    // elements within `border` of its ends, where a read meets the part's end and not the
    // vector's, and which a border statement (the statement rewritten to read the halos) then
    // writes again. At the vector's own ends the part's end is the vector's, but for a wrapped
    // read. Any other part runs the rewritten statement over every element.
    bool target_read = false;
    for (std::size_t j = 0; j < written->slots.size(); ++j) target_read |= slots[j].buffer == target;
    struct part_plan {
        bool in_place = false;
        bool top = false, bottom = false; // the border statements it runs: the halos it reads
    };
    std::vector<part_plan> plans(count);
    for (std::size_t k = 0; k < count; ++k) {
        const std::int64_t first = std::int64_t(ranges[k].first), elements = std::int64_t(ranges[k].count);
        part_plan& p = plans[k];
        p.in_place = !target_read && elements >= 2 * border;
        for (const halo_source& src : sources)
            p.in_place = p.in_place && (src.width == 0 || (first % src.width == 0 && elements % src.width == 0));
        p.top = !p.in_place || (border > 0 && (first != 0 || wraps));
        p.bottom = !p.in_place || (border > 0 && (ranges[k].first + ranges[k].count != target->length || wraps));
        if (elements == 0) p.top = p.bottom = false;
    }
    // Every rank makes the same readers in the same order (collective).
    std::vector<std::unique_ptr<cell_reader>> readers;
    readers.reserve(sources.size());
    for (const halo_source& src : sources)
        readers.push_back(std::make_unique<cell_reader>(*const_cast<buffer*>(src.vector), std::uint64_t(src.cells)));
    // Every part's halos cut before any part records the statement: a statement that writes the
    // vector it reads (x = x + shift(x, 1)) must read the values from before it, on every part.
    // A halo no statement of the part reads is left unwritten; one kept from an earlier statement
    // whose cells nothing wrote since is read again (kept_halos.hpp).
    std::vector<std::vector<buffer_ptr>> halos(count); // part k: per source, left then right
    for (std::size_t k = 0; k < count; ++k) {
        if (!plans[k].top && !plans[k].bottom) continue;
        const context_ptr part = ctx.parts()[k];
        for (std::size_t r = 0; r < sources.size(); ++r) {
            buffer& x = *const_cast<buffer*>(sources[r].vector);
            const std::int64_t cells = sources[r].cells, first = std::int64_t(ranges[k].first);
            std::vector<unsigned char> host(std::size_t(cells) * size_of(x.type));
            for (const bool left : {true, false}) {
                if (!(left ? plans[k].top : plans[k].bottom)) {
                    halos[k].push_back(new_buffer(part, std::uint64_t(cells), x.type)); // (never read)
                    continue;
                }
                const std::int64_t from = left ? first - cells : first + std::int64_t(ranges[k].count);
                const halo_key key{std::uint8_t(sources[r].policy), sources[r].width, cells, from, sources[r].value, k};
                if (buffer_ptr kept = kept_halo(ctx, x, key)) { // x not written since it was cut
                    halos[k].push_back(std::move(kept));
                    continue;
                }
                halos[k].push_back(new_buffer(part, std::uint64_t(cells), x.type));
                if (!copied_between_parts(ctx, x, k, from, cells, *halos[k].back())) {
                    fill_cells(x, *readers[r], sources[r], from, cells, host.data());
                    upload(*halos[k].back(), 0, std::uint64_t(cells), host.data());
                }
                keep_halo(ctx, x, key, halos[k].back());
            }
        }
    }
    const shape* counted = counted_from_part(written);
    const halo_statement* edges = border > 0 ? &halo_statement_of(written, halo_form::border) : nullptr;
    for (std::size_t k = 0; k < count; ++k) {
        if (ranges[k].count == 0) continue;
        const std::uint64_t first = ranges[k].first, elements = ranges[k].count;
        // The slots of a rewritten statement, after the shape's own.
        const auto record_halo_slots = [&](statement_recorder& r) {
            record_part_slots(r, *written, slots, k, false, 0);
            const std::int64_t zero = 0, one = 1;
            r.scalar_slot(&first, sizeof first);
            r.scalar_slot(&elements, sizeof elements);
            r.scalar_slot(&zero, sizeof zero);
            r.scalar_slot(&one, sizeof one);
            for (const std::size_t src : source_of) {
                r.vector_slot(halos[k][2 * src]);
                r.vector_slot(halos[k][2 * src + 1]);
                r.scalar_slot(&sources[src].cells, sizeof sources[src].cells);
            }
        };
        if (!plans[k].in_place) {
            statement_recorder r(*ctx.parts()[k]);
            record_halo_slots(r);
            r.commit_assignment(whole.rewritten, target->parts[k]);
            continue;
        }
        {
            statement_recorder r(*ctx.parts()[k]);
            record_part_slots(r, *written, slots, k, counted != written, first);
            r.commit_assignment(counted, target->parts[k]);
        }
        const std::uint64_t span = std::uint64_t(border);
        for (const std::uint64_t start : {std::uint64_t(0), elements - span}) {
            if (!edges || !(start == 0 ? plans[k].top : plans[k].bottom)) continue;
            statement_recorder r(*ctx.parts()[k]);
            record_halo_slots(r);
            r.scalar_slot(&start, sizeof start);
            r.vector_slot(target->parts[k]);
            const written_span at{std::int64_t(start), 1, span, 0};
            r.commit_view_assignment(edges->rewritten, target->parts[k], span, &at);
        }
    }
}

} // namespace loom::detail
