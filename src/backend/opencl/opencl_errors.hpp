// OpenCL status codes as names, and the check that turns a failed call into loom::error.
#pragma once

#include <CL/opencl.hpp>

#include <string>

namespace loom::backend {

const char* error_name(cl_int status);

// Throws loom::error("loom: OpenCL error CL_... while <doing>; ...") unless status is CL_SUCCESS:
// loom::out_of_memory for the codes that say memory ran out.
void check(cl_int status, const std::string& doing);

} // namespace loom::backend
