// What the suites share to check errors and messages: the message of the loom::error a call
// throws, a substring test, and the options of an OpenCL context.
#pragma once

#include <doctest/doctest.h>

#include <loom/context.hpp>
#include <loom/error.hpp>

#include <string>

namespace loom_test_errors {

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the loom::error f throws ("" and a failed check when it throws none).
template <class F> std::string error_of(F&& f) {
    try {
        f();
    } catch (const loom::error& e) {
        return e.what();
    }
    FAIL_CHECK("threw no loom::error");
    return "";
}

// An OpenCL context's options (fusion: 1 on, 0 off, -1 as LOOM_FUSION says).
inline loom::context_options on_opencl(int fusion = -1) {
    loom::context_options o;
    o.backend = "opencl";
    o.fusion = fusion;
    return o;
}

} // namespace loom_test_errors
