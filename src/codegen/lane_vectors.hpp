// An element's values for `lanes` adjacent columns at once, as vector values (OpenCL C's
// float16): the CPU lanes forms of a pass write them so that the device compiler keeps each
// value's lanes in one register of the machine's width. Left to find the lanes in sixteen
// scalar copies, PoCL's SLP vectorizer used two 256-bit halves on an AVX-512 CPU, and the
// N-Body pass was slower than the same body written with float16 (bench/results/history.csv).
//
// A node differs from lane to lane ("varies") when it is the element or its column, a load at
// them, or computed from a node that varies; the others are the same for every lane and are
// written as scalars, which the vector operations take as they are or broadcast. Only what
// keeps its meaning lane by lane is written as vectors; a kernel with anything else stays in
// the scalar form (lanes_vectorise).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// Where the lanes are: `lanes` adjacent elements whose first is element `first_element` (an
// expression of the index type) in column `first_column`.
struct lane_layout {
    unsigned lanes = 16;
    std::string first_element;
    std::string first_column;
};

// The nodes of k that vary across lanes: the seeds and whatever is computed from them.
std::vector<bool> lanes_varying(const ir::kernel& k, std::vector<bool> seeds);
// The seeds of a pass's element: the element index and the column (ir::index_value::element,
// ::column) and loads at the element.
std::vector<bool> element_lane_seeds(const ir::kernel& k);

// Whether the nodes `live` marks can be written by write_lane_values: the dialect has vector
// types, lanes is 2, 4, 8 or 16, and every live varying node is real (no bool, no complex) and
// one of: a load at the element or at the column; the element or column index; a scalar
// parameter (the lanes of a combine function's operand); a conversion; + - * and the bitwise
// operators on operands of its own type, / on floating point; a math built-in on operands of
// its own type; abs, min, max, clamp; a select whose condition is the same for every lane.
bool lanes_vectorise(const ir::kernel& k, const std::vector<bool>& live, const std::vector<bool>& varying,
                     const dialect& d, unsigned lanes);

// "float16", the dialect's vector of `lanes` values of type t.
std::string lane_type(const dialect& d, dtype t, unsigned lanes);
// How a vector operation names node n: vN where it varies, broadcast to the lanes where not.
std::string lane_operand(const ir::kernel& k, std::uint32_t n, const std::vector<bool>& varying, const dialect& d,
                         unsigned lanes);
// Lane l of vector value `v` ("v.s3", "v.sf").
std::string lane_of(const std::string& v, unsigned l);

// One "T vK = ...;" line per live node in body order: a vector of the lanes where the node
// varies, a scalar where it does not. `index` spells the element in the scalar lines (none
// names it: the element varies).
void write_lane_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& live,
                       const std::vector<bool>& varying, const lane_layout& at);

} // namespace loom::codegen
