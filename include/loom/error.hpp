// loom::error: the one exception type Loom throws. Every message says what went
// wrong and what the user can do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace loom {

class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(what) {}
};

} // namespace loom
