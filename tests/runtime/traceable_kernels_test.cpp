// Traceable kernels on a real device: each kernel is named loom_<hash> after its text (the name
// the OpenCL program declares, the same in another context and another process), LOOM_DUMP_SOURCE
// writes exactly the kernels the device compiler builds, and loom::name names buffers in the
// fusion log.
#include <CL/cl.h>

#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "backend/device.hpp"
#include "cache/cache_test_support.hpp"
#include "codegen/emit.hpp"
#include "error_support.hpp"
#include "support/log.hpp"
#include "tool_runner.hpp"

using loom::cache::test::captured_stderr;
using loom::cache::test::names_in;
using loom::cache::test::read_text;
using loom::cache::test::scoped_env;
using loom::cache::test::scratch_dir;
using loom::cache::test::write_text;
namespace fs = std::filesystem;

using namespace loom_test_errors;

namespace {

std::size_t count_of(const std::string& text, const std::string& part) {
    return loom::cache::test::count_of(text, part);
}

bool is_kernel_name(const std::string& name) {
    if (name.size() != 21 || name.compare(0, 5, "loom_") != 0) return false;
    for (std::size_t i = 5; i < name.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(name[i])) || std::isupper(static_cast<unsigned char>(name[i])))
            return false;
    return true;
}

// The kernel names of the files a dump directory holds, checking each file is <name>.cl.
std::vector<std::string> dumped_names(const fs::path& dir) {
    std::vector<std::string> names;
    for (const std::string& file : names_in(dir)) {
        CHECK_MESSAGE(fs::path(file).extension() == ".cl", file);
        const std::string name = fs::path(file).stem().string();
        CHECK_MESSAGE(is_kernel_name(name), file);
        names.push_back(name);
    }
    return names;
}

std::vector<float> iota_floats(std::size_t n) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 1.0f);
    return v;
}

// y = 2x + 1 over 1000 elements, checked; the program every case below runs at least once.
void saxpy(loom::context& ctx) {
    const std::vector<float> host = iota_floats(1000);
    loom::vector<float> x(ctx, host);
    loom::vector<float> y(ctx, host.size());
    y = 2.0f * x + 1.0f;
    const std::vector<float> out = y.to_host();
    for (std::size_t i = 0; i < host.size(); ++i) REQUIRE(out[i] == 2.0f * host[i] + 1.0f);
}

// The kernels an OpenCL program built from `source` declares (CL_PROGRAM_KERNEL_NAMES).
std::string kernel_names_of(const loom::context& ctx, const std::string& source) {
    const auto context = ctx.native_context().opencl<cl_context>();
    cl_device_id device = ctx.native_device().opencl<cl_device_id>();
    const char* text = source.c_str();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    REQUIRE(clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) == CL_SUCCESS);
    std::size_t size = 0;
    REQUIRE(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) == CL_SUCCESS);
    std::string names(size, '\0');
    REQUIRE(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) == CL_SUCCESS);
    clReleaseProgram(program);
    if (!names.empty() && names.back() == '\0') names.pop_back();
    return names;
}

// Log lines (warnings and LOOM_LOG channels) while it lives, with LOOM_LOG set as given.
class captured_log {
public:
    explicit captured_log(const char* channels) {
        log_.emplace("LOOM_LOG", std::string(channels));
        loom::logging::reload_from_environment();
        loom::set_log_handler([this](const std::string& line) {
            std::lock_guard<std::mutex> guard(lock_);
            text_ += line + "\n";
        });
    }
    ~captured_log() {
        loom::set_log_handler(nullptr);
        log_.reset(); // LOOM_LOG as it was
        loom::logging::reload_from_environment();
    }
    std::string text() {
        std::lock_guard<std::mutex> guard(lock_);
        return text_;
    }

private:
    std::optional<scoped_env> log_;
    std::mutex lock_;
    std::string text_;
};

std::string self_path() {
    std::vector<char> path(4096);
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
    REQUIRE(n > 0);
    return std::string(path.data(), std::size_t(n));
}

} // namespace

TEST_CASE("traceable: each new kernel is named loom_<hash>, the name its OpenCL program declares") {
    scratch_dir dump;
    scoped_env to("LOOM_DUMP_SOURCE", dump.path().string()), cache("LOOM_CACHE", std::string("off"));
    captured_log log("fusion");
    loom::context ctx(on_opencl());
    saxpy(ctx);
    const std::vector<std::string> names = dumped_names(dump.path());
    REQUIRE(names.size() == 1);
    CHECK(ctx.statistics().kernels_compiled == 1);
    const std::string source = read_text(dump.path() / (names[0] + ".cl"));
    CHECK(has(source, "__kernel void " + names[0] + "("));
    CHECK(kernel_names_of(ctx, source) == names[0]);
    // The fusion log names the kernel each group runs as.
    CHECK(has(log.text(), "kernel 0 " + names[0] + ": statements 0-1"));
}

TEST_CASE("traceable: different kernels get different names, and one kernel one name in every context") {
    scratch_dir first, second;
    std::vector<std::string> names_a;
    {
        scoped_env to("LOOM_DUMP_SOURCE", first.path().string()), cache("LOOM_CACHE", std::string("off"));
        loom::context ctx(on_opencl());
        saxpy(ctx);
        names_a = dumped_names(first.path());
        REQUIRE(names_a.size() == 1);
        loom::vector<float> x(ctx, iota_floats(100));
        loom::vector<float> z = x * x - 3.0f;
        CHECK(z.to_host()[2] == 6.0f);
        CHECK(dumped_names(first.path()).size() == 2); // a kernel of its own, with a name of its own
    }
    scoped_env to("LOOM_DUMP_SOURCE", second.path().string()), cache("LOOM_CACHE", std::string("off"));
    loom::context other(on_opencl());
    saxpy(other);
    CHECK(dumped_names(second.path()) == names_a); // compiled again, named alike
}

// Run by the next case in a process of its own (LOOM_TRACE_CHILD set); nothing otherwise.
TEST_CASE("traceable: child process of the next case") {
    if (!std::getenv("LOOM_TRACE_CHILD")) return;
    loom::context ctx(on_opencl());
    saxpy(ctx);
}

TEST_CASE("traceable: one kernel has one name in every process") {
    scratch_dir here, there;
    {
        scoped_env to("LOOM_DUMP_SOURCE", here.path().string()), cache("LOOM_CACHE", std::string("off"));
        loom::context ctx(on_opencl());
        saxpy(ctx);
    }
    const loom_test::tool_result child =
        loom_test::run_command("LOOM_TRACE_CHILD=1 LOOM_CACHE=off LOOM_DUMP_SOURCE='" + there.path().string() + "' '" +
                               self_path() + "' --test-case='traceable: child process of the next case' 2>&1");
    INFO(child.output);
    REQUIRE(child.status == 0);
    const std::vector<std::string> names = dumped_names(here.path());
    REQUIRE(names.size() == 1);
    CHECK(dumped_names(there.path()) == names);
    CHECK(read_text(here.path() / (names[0] + ".cl")) == read_text(there.path() / (names[0] + ".cl")));
}

TEST_CASE("traceable: LOOM_DUMP_SOURCE writes exactly the kernels the device compiler builds") {
    scratch_dir disk, dump_first, dump_second;
    scoped_env cache_dir("LOOM_CACHE_DIR", disk.path().string()), cache("LOOM_CACHE", std::string("readwrite"));
    auto program = [](loom::context& ctx) { // a map, and a reduction's passes
        saxpy(ctx);
        std::vector<int> host(5000);
        std::iota(host.begin(), host.end(), 1);
        loom::vector<int> x(ctx, host);
        CHECK(loom::sum(x * 2) == 5000 * 5001);
    };
    std::vector<std::string> compiled;
    {
        scoped_env to("LOOM_DUMP_SOURCE", dump_first.path().string());
        loom::context ctx(on_opencl());
        program(ctx);
        compiled = dumped_names(dump_first.path());
        CHECK(compiled.size() == ctx.statistics().kernels_compiled);
        CHECK(compiled.size() >= 2); // the map and the reduction's passes
        program(ctx);                // every plan cached: nothing new
        CHECK(dumped_names(dump_first.path()) == compiled);
        CHECK(compiled.size() == ctx.statistics().kernels_compiled);
    }
    // A second context finds every kernel in the disk cache: none is new, none is written.
    scoped_env to("LOOM_DUMP_SOURCE", dump_second.path().string());
    loom::context ctx(on_opencl());
    program(ctx);
    CHECK(ctx.statistics().kernels_compiled == 0);
    CHECK(ctx.statistics().disk_hits == compiled.size());
    CHECK(names_in(dump_second.path()).empty());
    // ... until one is.
    loom::vector<float> x(ctx, iota_floats(10));
    loom::vector<float> y = x / 4.0f + x;
    CHECK(y.to_host()[3] == 5.0f);
    CHECK(dumped_names(dump_second.path()).size() == 1);
    CHECK(ctx.statistics().kernels_compiled == 1);
}

TEST_CASE("traceable: LOOM_DUMP_SOURCE=stderr writes each new kernel once, after a line naming it") {
    scratch_dir tmp;
    scoped_env to("LOOM_DUMP_SOURCE", std::string("stderr")), cache("LOOM_CACHE", std::string("off"));
    std::string text;
    std::uint64_t compiled = 0;
    {
        captured_stderr err(tmp.path() / "stderr.txt");
        loom::context ctx(on_opencl());
        saxpy(ctx);
        saxpy(ctx);
        compiled = ctx.statistics().kernels_compiled;
        text = err.text();
    }
    INFO(text);
    CHECK(compiled == 1);
    CHECK(count_of(text, "loom source: loom_") == 1);
    const std::size_t at = text.find("loom source: loom_");
    REQUIRE(at != std::string::npos);
    const std::string name = text.substr(at + 13, 21);
    CHECK(is_kernel_name(name));
    CHECK(has(text, "loom source: " + name + ".cl\n// Loom: statements 0-1 of a flush\n"));
    CHECK(has(text, "__kernel void " + name + "("));
}

TEST_CASE("traceable: a LOOM_DUMP_SOURCE directory that cannot be written gives one warning, not a failure") {
    scratch_dir tmp;
    write_text(tmp.path() / "a-file", "not a directory");
    scoped_env to("LOOM_DUMP_SOURCE", (tmp.path() / "a-file" / "dumps").string()),
        cache("LOOM_CACHE", std::string("off"));
    captured_log log("");
    loom::context ctx(on_opencl());
    saxpy(ctx);
    loom::vector<float> x(ctx, iota_floats(100));
    loom::vector<float> z = x * x - 3.0f;
    CHECK(z.to_host()[2] == 6.0f);
    CHECK(ctx.statistics().kernels_compiled == 2);
    const std::string text = log.text();
    INFO(text);
    CHECK(count_of(text, "LOOM_DUMP_SOURCE") == 1);
    CHECK(has(text, "loom warning"));
    CHECK(has(text, (tmp.path() / "a-file" / "dumps").string()));
}

TEST_CASE("traceable: LOOM_DUMP_SOURCE=stdout is refused, and off writes nothing") {
    {
        scoped_env to("LOOM_DUMP_SOURCE", std::string("stdout"));
        try {
            loom::context ctx(on_opencl());
            FAIL("a context was made with LOOM_DUMP_SOURCE=stdout");
        } catch (const loom::error& e) {
            CHECK(has(e.what(), "LOOM_DUMP_SOURCE='stdout'"));
            CHECK(has(e.what(), "stderr, a directory"));
        }
    }
    scoped_env to("LOOM_DUMP_SOURCE", std::string("off")), cache("LOOM_CACHE", std::string("off"));
    const bool there_before = fs::exists("off");
    captured_stderr err(fs::temp_directory_path() / ("loom-trace-off-" + std::to_string(::getpid()) + ".txt"));
    loom::context ctx(on_opencl());
    saxpy(ctx);
    CHECK_FALSE(has(err.text(), "loom source:"));
    CHECK(fs::exists("off") == there_before); // "off" names no directory
}

TEST_CASE("traceable: the dumped source's comment header lists the statements the kernel holds") {
    scratch_dir dump;
    scoped_env to("LOOM_DUMP_SOURCE", dump.path().string()), cache("LOOM_CACHE", std::string("off"));
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, iota_floats(64)), s(ctx, 64);
    loom::vector<float> t = x * 2.0f;
    s = loom::sin(t) + x; // t stays in a register
    CHECK(s.to_host()[0] == doctest::Approx(std::sin(2.0f) + 1.0f));
    const std::vector<std::string> names = dumped_names(dump.path());
    REQUIRE(names.size() == 1);
    const std::string source = read_text(dump.path() / (names[0] + ".cl"));
    INFO(source);
    // Statement 0: s's zero-fill; 1: t = x * 2; 2: s = sin(t) + x. Buffers by class (first
    // appearance: s, t, x), host scalars by the kernel parameter that holds them.
    CHECK(source.rfind("// Loom: statements 0-2 of a flush\n//   0: b0 = p0\n", 0) == 0);
    CHECK(has(source, "//   1: b1 = b2 * p2\n"));
    CHECK(has(source, "//   2: b0 = sin(b1) + b2\n"));
    CHECK(has(source, "float p2")); // the parameter the header names
}

TEST_CASE("traceable: loom::name names a vector's buffer in the fusion log") {
    captured_log log("fusion");
    loom::context ctx(on_opencl());
    loom::vector<float> velocity(ctx, iota_floats(256)), pressure(ctx, 256);
    loom::name(velocity, "velocity");
    loom::name(pressure, "pressure");
    pressure = velocity * 0.5f;
    CHECK(pressure.to_host()[1] == 1.0f);
    const std::string text = log.text();
    INFO(text);
    CHECK(has(text, "loads velocity; stores pressure;"));
    CHECK_FALSE(has(text, "stores b0"));
    // A buffer without a name keeps its class.
    loom::vector<float> other = velocity + 1.0f;
    CHECK(other.to_host()[0] == 2.0f);
    CHECK(has(log.text(), "loads velocity; stores b"));
}

TEST_CASE("traceable: loom::name refuses an empty vector, an empty name and control characters") {
    loom::context ctx(on_opencl());
    loom::vector<float> v(ctx, 4), empty;
    CHECK_THROWS_AS(loom::name(empty, "x"), loom::error);
    CHECK_THROWS_AS(loom::name(v, ""), loom::error);
    CHECK_THROWS_AS(loom::name(v, "two\nlines"), loom::error);
    loom::name(v, "fine name");
    loom::scalar<float> s(ctx);
    loom::name(s, "total");
}

TEST_CASE("traceable: a backend finds a kernel by its name, in a build and in a stored binary") {
    auto dev = loom::backend::open_device("opencl", "");
    loom::ir::kernel k; // p1[i] = p0[i] * p0[i]
    k.params = {{loom::ir::param_kind::buffer, loom::dtype::f32, false},
                {loom::ir::param_kind::buffer, loom::dtype::f32, true}};
    loom::ir::node load{loom::opcode::load, loom::dtype::f32};
    loom::ir::node square{loom::opcode::mul, loom::dtype::f32};
    square.arg[0] = square.arg[1] = 0;
    k.body = {load, square};
    k.stores = {{1, 1}};
    const loom::codegen::kernel_source source = loom::codegen::emit(k, dev->dialect());
    loom::backend::build_result built = dev->build(source.text(), source.name);
    REQUIRE(built.compiled);
    REQUIRE_FALSE(built.binary.empty());
    CHECK(dev->load(built.binary, built.binary_kind, source.name));
    CHECK_FALSE(dev->load(built.binary, built.binary_kind, "loom_0000000000000000")); // no such kernel in it
    CHECK_THROWS(dev->build(source.text(), "loom_kernel"));                           // nor under the old fixed name
}
