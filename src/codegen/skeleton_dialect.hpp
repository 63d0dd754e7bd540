// What the multi-pass skeletons (reduce, scan) need beyond the element-wise dialect:
// work-group memory, barriers and the group built-ins. One table per dialect, read by
// the skeleton emitters; nothing else in the skeleton layer knows which dialect it writes.
#pragma once

#include "codegen/dialect.hpp"

namespace loom::codegen {

struct skeleton_dialect {
    const char* local_array;     // qualifier of a work-group array: "__local" or "__shared__"
    const char* barrier;         // a work-group barrier over work-group memory, as a statement
    const char* global_barrier;  // ... over work-group and global memory (the group's global writes seen after it)
    const char* local_id;        // this work-item's index in its group (an unsigned int)
    const char* group_id;        // the group's index (an unsigned int)
    const char* group_count;     // the number of groups (an unsigned int)
    const char* function_prefix; // before a helper function called from a kernel
};

const skeleton_dialect& opencl_skeleton_dialect();
const skeleton_dialect& cuda_skeleton_dialect();
// The table that goes with an element-wise dialect (matched by its name).
const skeleton_dialect& skeleton_dialect_for(const dialect& d);

} // namespace loom::codegen
