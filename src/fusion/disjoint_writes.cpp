// Disjoint view writes; see disjoint_writes.hpp.
#include "fusion/disjoint_writes.hpp"

#include <cstdint>
#include <numeric>

namespace loom::fusion {
namespace {

// The span's smallest and largest element.
struct extent {
    std::int64_t low, high;
};

extent extent_of(const detail::written_span& s) {
    if (s.block_cols) { // the block's last row, its last column
        const std::int64_t rows = std::int64_t(s.count / s.block_cols);
        return {s.start, s.start + (rows - 1) * s.stride + std::int64_t(s.block_cols) - 1};
    }
    const std::int64_t last = s.start + std::int64_t(s.count - 1) * s.stride; // inside the vector
    return s.stride >= 0 ? extent{s.start, last} : extent{last, s.start};
}

// Two blocks of one matrix (equal widths): disjoint when their rows or their columns are.
bool blocks_disjoint(const detail::written_span& a, const detail::written_span& b) {
    const std::int64_t w = a.stride;
    const std::int64_t ar = a.start / w, ac = a.start % w, br = b.start / w, bc = b.start % w;
    const std::int64_t arows = std::int64_t(a.count / a.block_cols), brows = std::int64_t(b.count / b.block_cols);
    const bool rows_apart = ar + arows <= br || br + brows <= ar;
    const bool cols_apart = ac + std::int64_t(a.block_cols) <= bc || bc + std::int64_t(b.block_cols) <= ac;
    return rows_apart || cols_apart;
}

// The distance between elements of the span (0 for a single element).
std::uint64_t step_of(const detail::written_span& s) {
    if (s.count < 2) return 0;
    return s.stride < 0 ? std::uint64_t(-(s.stride + 1)) + 1 : std::uint64_t(s.stride);
}

// Whether statement e of the queue reads or writes `target`, other than as the span write
// whose target is `target` (through its own target slot).
bool touches(const statement_queue& q, const pending_statement& e, const detail::buffer* target, bool span_write) {
    if (!span_write && e.target.get() == target) return true;
    for (std::size_t k = 0; k < e.shape->slots.size(); ++k)
        if (q.slots[e.first_slot + k].buffer.get() == target && !(span_write && k == e.shape->target_slot)) return true;
    return false;
}

} // namespace

bool spans_disjoint(const detail::written_span& a, const detail::written_span& b) {
    if (a.count == 0 || b.count == 0) return true;
    const extent x = extent_of(a), y = extent_of(b);
    if (x.high < y.low || y.high < x.low) return true;
    if (a.block_cols || b.block_cols) // a block beside a block of the same width; else overlapping ranges meet
        return a.block_cols && b.block_cols && a.stride == b.stride && a.stride > 0 && blocks_disjoint(a, b);
    // Every element of a span lies in one class modulo its step; two classes modulo steps p and
    // q meet only where their starts agree modulo gcd(p, q) (a single element: step 0).
    const std::uint64_t g = std::gcd(step_of(a), step_of(b));
    const std::uint64_t apart =
        a.start >= b.start ? std::uint64_t(a.start - b.start) : std::uint64_t(b.start - a.start);
    return g == 0 ? apart != 0 : apart % g != 0;
}

bool disjoint_span_write(const statement_queue& q, std::size_t s) {
    const pending_statement& st = q.statements[s];
    const detail::buffer* target = st.target.get();
    if (st.span.count == 0 || touches(q, st, target, true)) return false;
    for (std::size_t looked = 0; looked < disjoint_write_window; ++looked) {
        if (looked == s) return true; // the start of the queue
        const pending_statement& e = q.statements[s - 1 - looked];
        const bool span_write = e.span.count > 0 && e.target.get() == target;
        if (span_write && (!spans_disjoint(e.span, st.span) || touches(q, e, target, true))) return false;
        if (!span_write && touches(q, e, target, false)) return true;
    }
    return false;
}

} // namespace loom::fusion
