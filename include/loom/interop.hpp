// loom::backend_handle: an object of the backend's own API (a cl_mem, a cl_command_queue, a
// CUdeviceptr, a CUstream...) as Loom hands it out, without this header seeing OpenCL or CUDA.
// The caller names the type it expects: `x.native_handle().opencl<cl_mem>()`. docs/interop.md.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/error.hpp"

namespace loom {

// The API a context's device runs on (context::backend_name() spells it).
enum class backend_kind : std::uint8_t { opencl, cuda };

inline const char* name_of(backend_kind b) { return b == backend_kind::opencl ? "OpenCL" : "CUDA"; }

class backend_handle {
public:
    // `what` names the object for messages ("the memory of a loom::vector"); a string literal.
    backend_handle(backend_kind backend, std::uint64_t value, const char* what) noexcept
        : backend_(backend), value_(value), what_(what) {}

    backend_kind backend() const noexcept { return backend_; }
    // The handle's bits: a pointer (cl_mem, CUstream) as an integer, or the integer itself
    // (CUdeviceptr, CUdevice).
    std::uint64_t value() const noexcept { return value_; }

    // The handle as the OpenCL type H (cl_mem, cl_command_queue, cl_context, cl_device_id).
    // Throws loom::error when it is a CUDA handle.
    template <class H> H opencl() const {
        if (backend_ != backend_kind::opencl) wrong_backend(backend_kind::opencl);
        return as<H>();
    }
    // The handle as the CUDA type H (CUdeviceptr, CUstream, CUcontext, CUdevice). Throws
    // loom::error when it is an OpenCL handle.
    template <class H> H cuda() const {
        if (backend_ != backend_kind::cuda) wrong_backend(backend_kind::cuda);
        return as<H>();
    }

private:
    template <class H> H as() const {
        static_assert(std::is_pointer_v<H> || std::is_integral_v<H>,
                      "loom::backend_handle: ask for the backend's handle type itself (cl_mem, CUdeviceptr, ...)");
        static_assert(sizeof(H) <= sizeof(std::uint64_t), "loom::backend_handle: a handle is at most 64 bits");
        if constexpr (std::is_pointer_v<H>)
            return reinterpret_cast<H>(static_cast<std::uintptr_t>(value_));
        else
            return static_cast<H>(value_);
    }

    [[noreturn]] void wrong_backend(backend_kind asked) const {
        throw error(std::string("loom: ") + what_ + " is " + name_of(backend_) + "'s (its context runs on " +
                    name_of(backend_) + "), and it was asked for as " + name_of(asked) + "'s; use ." +
                    (backend_ == backend_kind::opencl ? "opencl" : "cuda") +
                    "<...>() with that backend's type, or make the context on " + name_of(asked) +
                    " (context_options::backend)");
    }

    backend_kind backend_;
    std::uint64_t value_;
    const char* what_;
};

} // namespace loom
