// Who fills each scalar slot of a traced reduction or scan operation (a lambda of two operands).
#pragma once

#include <cstdint>

namespace loom::detail {

enum class operand_role : std::uint8_t {
    left,         // the operation's first operand
    right,        // its second operand
    capture,      // a host scalar the lambda captured, passed as a kernel argument
    device_object // a vector or device scalar: rejected when the pass kernel is written
};

} // namespace loom::detail
