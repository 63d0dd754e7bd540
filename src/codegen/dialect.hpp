// What differs between OpenCL C and CUDA C++: type names, qualifiers, the index and
// work-group built-ins and math function names. Each dialect is one table of this struct;
// the source builder and the emitters (maps, reduction and scan passes) write everything
// else once.
#pragma once

#include <string>

#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom::codegen {

enum class dialect_id { opencl, cuda };

struct dialect {
    const char* name;             // "opencl" or "cuda"
    const char* source_extension; // ".cl" or ".cu"
    const char* prologue;         // text before any kernel
    const char* prologue_fp64;    // added when the kernel uses double
    const char* kernel_prefix;    // e.g. "__kernel void" or extern "C" __global__ void
    const char* global_prefix;    // qualifier before a buffer parameter's element type
    const char* restrict_keyword; // spelled after the '*'
    // This work-item's index among all launched, and how many were launched, along
    // dimension 0, as expressions of index_type: the 1-D map forms (ir::map_form) are
    // written from them.
    const char* global_id;
    const char* global_size;
    // The same for a grid kernel on its 2-D launch: element i = loom_row * loom_w + loom_col,
    // for loom_col < loom_w and loom_row < loom_h (loom_w and loom_h are declared before it).
    // Several lines where the dialect walks the grid in loops; each line's own leading spaces
    // are its depth below the first's. grid_item_exists is nullptr when the item is such a
    // loop, which then ends with "{" and its block is the element's body.
    const char* grid_item;
    const char* grid_item_exists;
    // The grid item of a loop dialect again with int coordinates (loom_row, loom_col, and
    // loom_w and loom_h declared int), for the narrow grid kernel (ir::kernel::narrow_grid).
    // nullptr where the dialect keeps 64-bit coordinates throughout.
    const char* grid_item_narrow;
    // A work-item's position in its work-group and the group's size, along dimensions 0 and 1:
    // the emitter bounds the elements of a group with them (map_kernel.cpp, interior test). nullptr
    // where the map has no use for them (CUDA: see dialect_cuda.cpp).
    const char* local_id[2];
    const char* local_size[2];
    const char* index_type;        // the type of i and n
    const char* signed_index_type; // a 64-bit signed type, for stencil offsets
    // per dtype, in dtype order (complex types as float2, double2; short vectors as the dialect's own)
    const char* type_names[dtype_count];
    // What builds a complex value from its two components, before "(re, im)": for complex<float>,
    // then complex<double> (codegen/complex_helpers.hpp).
    const char* complex_make[2];
    // The function that computes op for operands of type t (t is f32 or f64); nullptr
    // where the emitter core spells the op itself (min, max, clamp, integer abs).
    const char* (*math_name)(opcode op, dtype t);
    // The classification (isnan isinf isfinite isnormal signbit) of value a of floating type t,
    // as a value that converts to bool; popcount or clz of value a of integer type t, counted in
    // t's own width, as an int; as_bits of value a of floating type t, as the unsigned integer of
    // its width. The dialects' built-ins take different widths and give different types; the
    // emitter core writes the rest (ctz, integer classification, an integer's as_bits) from these.
    std::string (*bit_builtin)(opcode op, dtype t, const std::string& a);
    // What the multi-pass kernels (reduction and scan passes) need beyond a map: work-group
    // memory, barriers and the group built-ins.
    struct work_group {
        const char* array_qualifier; // of a work-group array: "__local" or "__shared__"
        const char* barrier;         // a barrier over work-group memory, as a statement
        const char* global_barrier;  // ... over work-group and global memory (the group's global writes seen after it)
        const char* local_id;        // this work-item's index in its group (an unsigned int)
        const char* group_id;        // the group's index (an unsigned int)
        const char* group_count;     // the number of groups (an unsigned int)
        // The start of a call that hands value (the first argument) from the lane `delta` (the
        // second) below in a 32-lane warp, closed by the caller; nullptr where the dialect has no
        // warp of a fixed width (OpenCL C 1.2). Takes 32- and 64-bit arithmetic types.
        const char* shuffle_up;
        // What a single-pass scan's look-back needs (codegen/scan_pass.cpp): work-groups that
        // publish values to each other through global memory while all of them run.
        // The start of a call adding its second argument to the 32-bit unsigned the first
        // points at, returning the old value.
        const char* atomic_add;
        // A statement: this work-item's global writes before it are seen by every work-group
        // before its writes after it.
        const char* global_fence;
        // The qualifiers of a pointer whose loads and stores reach the device-wide level of
        // memory (no stale copy in a core's cache).
        const char* volatile_global;
        // Whether a short vector or complex value loads whole through such a pointer; where
        // not (CUDA's vector types are structs), it loads component by component.
        bool volatile_vectors;
    } group;
    const char* function_prefix; // before a device function called from a kernel
    // Whether the dialect has vector types named "<type>N" (OpenCL C's float16) that take
    // arithmetic and the math built-ins lane by lane, and vector literals "(float16)(a, b, ...)":
    // codegen/lane_vectors.hpp writes a CPU pass's lanes with them. CUDA's float4 has no operators.
    bool lane_vectors;
    // How a short vector (docs/vector-types.md) is built from its components: this prefix and the
    // type's name ("make_" "float4" in CUDA), or where nullptr, OpenCL C's literal "(float4)(...)".
    const char* vector_make_prefix;
};

const dialect& opencl_dialect();
const dialect& cuda_dialect();
const dialect& dialect_for(dialect_id id);

inline const char* type_name(const dialect& d, dtype t) { return d.type_names[std::size_t(t)]; }

} // namespace loom::codegen
