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
    const std::int64_t last = s.start + std::int64_t(s.count - 1) * s.stride; // inside the vector
    return s.stride >= 0 ? extent{s.start, last} : extent{last, s.start};
}

// The distance between elements of the span (0 for a single element).
std::uint64_t step_of(const detail::written_span& s) {
    if (s.count < 2) return 0;
    return s.stride < 0 ? std::uint64_t(-(s.stride + 1)) + 1 : std::uint64_t(s.stride);
}

// Whether statement e of the queue reads or writes `target`, other than as the span write
// whose target is `target`'s own slot (the last).
bool touches(const statement_queue& q, const pending_statement& e, const detail::buffer* target, bool span_write) {
    if (!span_write && e.target.get() == target) return true;
    const std::size_t slots = e.shape->slots.size() - (span_write ? 1 : 0);
    for (std::size_t k = 0; k < slots; ++k)
        if (q.slots[e.first_slot + k].buffer.get() == target) return true;
    return false;
}

} // namespace

bool spans_disjoint(const detail::written_span& a, const detail::written_span& b) {
    if (a.count == 0 || b.count == 0) return true;
    const extent x = extent_of(a), y = extent_of(b);
    if (x.high < y.low || y.high < x.low) return true;
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
