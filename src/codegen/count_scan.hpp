// Source text shared by passes that place what each chunk holds: one work-group's exclusive scan
// of counts (a radix sort's digit counts, reduce_by_key's segment starts).
#pragma once

#include <string>

#include "codegen/source_builder.hpp"

namespace loom::codegen {

// The body of a one-group pass over n counts in parameter p0 (of the dialect's index type): each
// work-item adds up its slice of `chunk` counts, the group scans the sums in work-group memory,
// and each work-item writes, for each count of its slice, the sum of the counts before it into
// `out` (which may be p0 itself: each count is read before its place is written). With `total`
// named, the group's last work-item writes the sum of all the counts into total[0]. `group`: the
// work-items, a power of two.
void write_count_scan(source_builder& b, unsigned group, const std::string& out, const std::string& total = "");

} // namespace loom::codegen
