// Which view writes of one vector may share a kernel. All work-items of a kernel run at once,
// so two statements of a kernel that both write a vector at other indices than the element's
// own must not write one element twice: then no order between them is needed. A strided span
// (a slice) or a matrix block says exactly which elements it writes, so two spans of one
// vector that share no element may be fused; a scatter's writes are not compared.
#pragma once

#include <cstddef>

#include "fusion/statement_queue.hpp"

namespace loom::fusion {

// Whether spans a and b of one vector share no element.
bool spans_disjoint(const detail::written_span& a, const detail::written_span& b);

// How far back disjoint_span_write looks, in statements: it bounds the work on the dispatch
// path; a write whose earlier writes lie further back is not fused with them.
constexpr std::size_t disjoint_write_window = 64;

// Whether statement s of the queue writes its target at a span disjoint from every earlier
// span write of that target, back to the target's last access of another kind (there the
// grouping splits anyway) or the start of the queue, and whose value reads no other part of
// the target. Part of the plan key: the grouping puts such writes in one kernel.
bool disjoint_span_write(const statement_queue& q, std::size_t s);

} // namespace loom::fusion
