// NVRTC (opened at run time: nvrtc_api.hpp): one program per call, compiled for one
// architecture, destroyed on every path.
#include "backend/cuda/nvrtc_compile.hpp"

#include <algorithm>

#include "backend/cuda/nvrtc_api.hpp"
#include "backend/device.hpp"

namespace loom::backend::cuda {
namespace {

// Destroys the program however the compile ends.
class program {
public:
    program(const std::string& source, const std::string& file_name) {
        const nvrtc_api& nv = nvrtc();
        const nvrtcResult r = nv.nvrtcCreateProgram(&prog_, source.c_str(), file_name.c_str(), 0, nullptr, nullptr);
        if (r != NVRTC_SUCCESS)
            throw error(std::string("loom: NVRTC could not create a program (") + nv.nvrtcGetErrorString(r) + ")");
    }
    ~program() { nvrtc().nvrtcDestroyProgram(&prog_); }
    program(const program&) = delete;
    program& operator=(const program&) = delete;
    nvrtcProgram get() const { return prog_; }

    std::string log() const {
        std::size_t size = 0;
        if (nvrtc().nvrtcGetProgramLogSize(prog_, &size) != NVRTC_SUCCESS || size <= 1) return {};
        std::string text(size, '\0');
        if (nvrtc().nvrtcGetProgramLog(prog_, text.data()) != NVRTC_SUCCESS) return {};
        text.resize(size - 1); // the count includes the terminating '\0'
        return text;
    }

private:
    nvrtcProgram prog_ = nullptr;
};

void check(nvrtcResult r, const char* doing) {
    if (r != NVRTC_SUCCESS)
        throw error(std::string("loom: NVRTC failed while ") + doing + " (" + nvrtc().nvrtcGetErrorString(r) + ")");
}

std::string arch_list() {
    std::string s;
    for (int a : nvrtc_architectures()) s += (s.empty() ? "sm_" : ", sm_") + std::to_string(a);
    return s;
}

} // namespace

const std::vector<std::string>& nvrtc_common_options() {
    static const std::vector<std::string> options = {"--std=c++17", "--fmad=false", "-default-device"};
    return options;
}

std::string nvrtc_version() {
    int major = 0, minor = 0;
    check(nvrtc().nvrtcVersion(&major, &minor), "reporting its version");
    return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<int>& nvrtc_architectures() {
    static const std::vector<int> archs = [] {
        int count = 0;
        check(nvrtc().nvrtcGetNumSupportedArchs(&count), "listing its architectures");
        std::vector<int> a(std::size_t(std::max(count, 0)));
        if (count > 0) check(nvrtc().nvrtcGetSupportedArchs(a.data()), "listing its architectures");
        std::sort(a.begin(), a.end());
        return a;
    }();
    return archs;
}

std::string nvrtc_target(int compute_capability, bool want_cubin) {
    const std::vector<int>& archs = nvrtc_architectures();
    // The newest architecture NVRTC knows that the device can run: PTX for it is JIT-compiled
    // upward by the driver, while a cubin runs only on its own architecture.
    const auto usable = std::upper_bound(archs.begin(), archs.end(), compute_capability);
    if (usable == archs.begin()) return {};
    const int arch = *std::prev(usable);
    const bool cubin = want_cubin && arch == compute_capability;
    return (cubin ? "sm_" : "compute_") + std::to_string(arch);
}

nvrtc_output nvrtc_compile(const std::string& source, int compute_capability, bool want_cubin,
                           const std::string& file_name) {
    nvrtc_output out;
    out.target = nvrtc_target(compute_capability, want_cubin);
    if (out.target.empty())
        throw build_failure("loom: " + nvrtc_version() + " cannot compile for compute capability " +
                                std::to_string(compute_capability / 10) + "." +
                                std::to_string(compute_capability % 10) + ": it supports " + arch_list() +
                                ". Use an older CUDA toolkit for this GPU, or LOOM_BACKEND=opencl",
                            "");
    const bool cubin = out.target.compare(0, 3, "sm_") == 0;
    out.kind = cubin ? "cubin" : "ptx";
    std::vector<std::string> options = {"--gpu-architecture=" + out.target};
    options.insert(options.end(), nvrtc_common_options().begin(), nvrtc_common_options().end());
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());

    program prog(source, file_name);
    const nvrtcResult compiled = nvrtc().nvrtcCompileProgram(prog.get(), int(argv.size()), argv.data());
    out.log = prog.log();
    if (compiled != NVRTC_SUCCESS)
        throw build_failure("loom: NVRTC (" + nvrtc_version() + ", " + out.target + ") rejected a generated kernel (" +
                                nvrtc().nvrtcGetErrorString(compiled) + ")",
                            out.log);

    std::size_t size = 0;
    if (cubin) {
        check(nvrtc().nvrtcGetCUBINSize(prog.get(), &size), "sizing the cubin");
        out.binary.resize(size);
        check(nvrtc().nvrtcGetCUBIN(prog.get(), reinterpret_cast<char*>(out.binary.data())), "copying the cubin");
    } else {
        check(nvrtc().nvrtcGetPTXSize(prog.get(), &size), "sizing the PTX"); // includes the '\0'
        out.binary.resize(size);
        check(nvrtc().nvrtcGetPTX(prog.get(), reinterpret_cast<char*>(out.binary.data())), "copying the PTX");
    }
    return out;
}

} // namespace loom::backend::cuda
