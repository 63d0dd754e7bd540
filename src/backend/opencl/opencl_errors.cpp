// Names for OpenCL status codes, so that messages say CL_OUT_OF_RESOURCES, not -5.
#include "backend/opencl/opencl_errors.hpp"

#include "loom/error.hpp"

namespace loom::backend {

const char* error_name(cl_int status) {
    switch (status) {
#define LOOM_CL_CASE(code)                                                                                             \
    case code: return #code;
        LOOM_CL_CASE(CL_SUCCESS)
        LOOM_CL_CASE(CL_DEVICE_NOT_FOUND)
        LOOM_CL_CASE(CL_DEVICE_NOT_AVAILABLE)
        LOOM_CL_CASE(CL_COMPILER_NOT_AVAILABLE)
        LOOM_CL_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        LOOM_CL_CASE(CL_OUT_OF_RESOURCES)
        LOOM_CL_CASE(CL_OUT_OF_HOST_MEMORY)
        LOOM_CL_CASE(CL_BUILD_PROGRAM_FAILURE)
        LOOM_CL_CASE(CL_INVALID_VALUE)
        LOOM_CL_CASE(CL_INVALID_BUFFER_SIZE)
        LOOM_CL_CASE(CL_INVALID_BINARY)
        LOOM_CL_CASE(CL_INVALID_BUILD_OPTIONS)
        LOOM_CL_CASE(CL_INVALID_PROGRAM)
        LOOM_CL_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        LOOM_CL_CASE(CL_INVALID_KERNEL_NAME)
        LOOM_CL_CASE(CL_INVALID_KERNEL)
        LOOM_CL_CASE(CL_INVALID_ARG_INDEX)
        LOOM_CL_CASE(CL_INVALID_ARG_VALUE)
        LOOM_CL_CASE(CL_INVALID_ARG_SIZE)
        LOOM_CL_CASE(CL_INVALID_KERNEL_ARGS)
        LOOM_CL_CASE(CL_INVALID_WORK_DIMENSION)
        LOOM_CL_CASE(CL_INVALID_WORK_GROUP_SIZE)
        LOOM_CL_CASE(CL_INVALID_WORK_ITEM_SIZE)
        LOOM_CL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        LOOM_CL_CASE(CL_INVALID_MEM_OBJECT)
        LOOM_CL_CASE(CL_INVALID_COMMAND_QUEUE)
        LOOM_CL_CASE(CL_INVALID_CONTEXT)
        LOOM_CL_CASE(CL_INVALID_OPERATION)
        LOOM_CL_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#undef LOOM_CL_CASE
    default: return "CL_UNKNOWN_ERROR";
    }
}

void check(cl_int status, const std::string& doing) {
    if (status == CL_SUCCESS) return;
    const std::string what =
        "loom: OpenCL error " + std::string(error_name(status)) + " (" + std::to_string(status) + ") while " + doing;
    // A launch's CL_OUT_OF_RESOURCES is as often registers as memory: NVIDIA's driver answers so
    // when a work-group is larger than the kernel's registers allow.
    if (status == CL_OUT_OF_RESOURCES)
        throw out_of_memory(what + "; the device lacks the resources: memory (free vectors or use smaller ones) or, "
                                   "for a launch, registers for work-groups of this size");
    if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_HOST_MEMORY)
        throw out_of_memory(what + "; the device is out of memory: free vectors or use smaller ones");
    throw error(what);
}

} // namespace loom::backend
