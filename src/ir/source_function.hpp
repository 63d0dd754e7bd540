// Device functions written by the user as source text (loom::function<R(A...)>, see
// loom/source_function.hpp): one registry for the process, read by the shape builder (a call's
// types) and the emitters (the definitions a kernel needs). A call node's slot is the id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/dtype.hpp"

namespace loom::ir {

struct source_function {
    std::string name;    // as the user gave it: logs, kernel headers and messages
    std::string emitted; // the name in generated source: name_<8 hex digits of the definition's hash>
    dtype result;
    std::vector<dtype> params;
    std::vector<std::string> param_names;
    std::string body;
};

// The function with this id; ids come from detail::source_function_id (shape_builder.hpp) and
// stay valid for the whole program.
const source_function& source_function_of(std::uint32_t id);

} // namespace loom::ir
