// Every user-facing failure is a loom::error thrown where the mistake is, with a message
// that names what is wrong; and a failed statement leaves every vector as it was.
#include "support.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"

using namespace loom_test;
using doctest::Contains;

namespace {

// The message of the loom::error that f throws ("" and a failed check when it throws none).
template <class F> std::string message_of(F&& f) {
    try {
        f();
    } catch (const loom::error& e) {
        return e.what();
    } catch (const std::exception& e) {
        FAIL_CHECK("threw a std::exception that is not a loom::error: ", std::string(e.what()));
        return e.what();
    }
    FAIL_CHECK("threw nothing");
    return "";
}

} // namespace

TEST_CASE("mismatched lengths throw at the assignment, name both lengths, and leave the target unchanged") {
    loom::vector<float> a(ctx(), 100, 1.0f), b(ctx(), 50, 2.0f), y(ctx(), 100, 3.0f);
    const std::string m = message_of([&] { y = a + b; });
    CHECK_MESSAGE(m.find("length mismatch") != std::string::npos, m);
    CHECK_MESSAGE(m.find("50") != std::string::npos, m);
    CHECK_MESSAGE(m.find("100") != std::string::npos, m);
    CHECK(y.to_host() == std::vector<float>(100, 3.0f));
    // Later statements work, and ones recorded before the failed one still run.
    y = a * 4.0f;
    CHECK(y.to_host() == std::vector<float>(100, 4.0f));
    y = y + 1.0f;
    CHECK_THROWS_AS(y = b - a, loom::error);
    CHECK(y.to_host() == std::vector<float>(100, 5.0f));
}

TEST_CASE("assigning a vector of another type and length throws a length mismatch") {
    loom::vector<float> f(ctx(), 10);
    loom::vector<double> d(ctx(), 20, 1.0);
    const std::string m = message_of([&] { d = f; });
    CHECK_MESSAGE(m.find("10") != std::string::npos, m);
    CHECK_MESSAGE(m.find("20") != std::string::npos, m);
    CHECK(d.to_host() == std::vector<double>(20, 1.0));
}

TEST_CASE("an expression mixing vectors of two contexts throws and says how to combine them") {
    loom::vector<float> p(other_ctx(), 10, 1.0f), q(ctx(), 10, 2.0f);
    CHECK_THROWS_WITH_AS(q = q + p, Contains("two contexts"), loom::error);
    CHECK_THROWS_WITH_AS(q = p * 2.0f, Contains("two contexts"), loom::error);
    CHECK(q.to_host() == std::vector<float>(10, 2.0f));
    CHECK(p.to_host() == std::vector<float>(10, 1.0f));
}

TEST_CASE("loom::copy from a host vector of another length names both lengths") {
    loom::vector<std::int32_t> v(ctx(), 10, 7);
    const std::string m = message_of([&] { loom::copy(std::vector<std::int32_t>(3), v); });
    CHECK_MESSAGE(m.find("loom::copy") != std::string::npos, m);
    CHECK_MESSAGE(m.find("3") != std::string::npos, m);
    CHECK_MESSAGE(m.find("10") != std::string::npos, m);
    CHECK(v.to_host() == std::vector<std::int32_t>(10, 7));
}

TEST_CASE("an element index out of range throws for reads and writes, naming the index and the length") {
    loom::vector<float> v(ctx(), 10, 1.0f);
    const std::string m = message_of([&] { return float(v[10]); });
    CHECK_MESSAGE(m.find("element 10") != std::string::npos, m);
    CHECK_MESSAGE(m.find("10 elements") != std::string::npos, m);
    CHECK_THROWS_WITH_AS(v[11] = 2.0f, Contains("out of range"), loom::error);
    const loom::vector<float>& cv = v;
    CHECK_THROWS_AS(cv[100], loom::error);
    loom::vector<float> none;
    CHECK_THROWS_AS(none[0] = 1.0f, loom::error);
}

TEST_CASE("assignment to an empty vector throws and says to construct it first") {
    loom::vector<float> x(ctx(), 4, 1.0f), e;
    CHECK_THROWS_WITH_AS(e = x + 1.0f, Contains("empty loom::vector"), loom::error);
    CHECK_THROWS_WITH_AS(e = 2.0f, Contains("construct it with a context and a size"), loom::error);
    CHECK_THROWS_AS(e += x, loom::error);
    CHECK(e.empty());
}

TEST_CASE("an empty vector as an operand throws at the assignment") {
    loom::vector<float> a(ctx(), 4, 1.0f), y(ctx(), 4, 0.0f);
    loom::vector<float> b(std::move(a));
    CHECK_THROWS_WITH_AS(y = a + 1.0f, Contains("empty"), loom::error);
    CHECK(y.to_host() == std::vector<float>(4, 0.0f));
}

TEST_CASE("a backend name that does not exist lists the backends") {
    const std::string m = message_of([] { loom::context c(loom::context_options{"bogus", "", -1}); });
    CHECK_MESSAGE(m.find("LOOM_BACKEND=bogus") != std::string::npos, m);
    CHECK_MESSAGE(m.find("opencl, cuda or auto") != std::string::npos, m);
}

TEST_CASE("a device filter that matches nothing lists the devices found") {
    const std::string m = message_of([] { loom::context c(loom::context_options{"opencl", "no-such-device", -1}); });
    CHECK_MESSAGE(m.find("no-such-device") != std::string::npos, m);
    CHECK_MESSAGE(m.find("Devices found") != std::string::npos, m);
    CHECK_MESSAGE(m.find(ctx().device_name()) != std::string::npos, m);
    const std::string by_index = message_of([] { loom::context c(loom::context_options{"opencl", "12345", -1}); });
    CHECK_MESSAGE(by_index.find(ctx().device_name()) != std::string::npos, by_index);
}

TEST_CASE("a device index too large for an integer is a loom::error listing the devices, not std::out_of_range") {
    const std::string m = message_of([] {
        loom::context c(loom::context_options{"opencl", "99999999999999999999999", -1});
    });
    CHECK_MESSAGE(m.find("Devices found") != std::string::npos, m);
}

TEST_CASE("% on floating-point operands is rejected by the IR builder with a loom::error") {
    // Loom's operators reject it at compile time (tests/compile_fail); the IR builder, which
    // traced lambdas and other front ends reach too, rejects it as well.
    auto reject = [](loom::dtype t, loom::opcode op) {
        loom::detail::shape_builder b;
        const loom::detail::node_ref a = b.vector_slot(t);
        return message_of([&] { op == loom::opcode::bit_not ? b.apply(op, a) : b.apply(op, a, b.scalar_slot(t)); });
    };
    const std::string m = reject(loom::dtype::f32, loom::opcode::mod);
    CHECK_MESSAGE(m.find("float") != std::string::npos, m);
    CHECK_MESSAGE(m.find("integer") != std::string::npos, m);
    CHECK(reject(loom::dtype::f64, loom::opcode::mod).find("double") != std::string::npos);
    CHECK(reject(loom::dtype::f64, loom::opcode::bit_not).find("double") != std::string::npos);
    CHECK(reject(loom::dtype::f32, loom::opcode::shift_left).find("float") != std::string::npos);
}

TEST_CASE("abs of an unsigned 32- or 64-bit vector is rejected, as std::abs is ill-formed for them") {
    loom::vector<std::uint32_t> u(ctx(), 4, 5u);
    loom::vector<std::uint64_t> u64(ctx(), 4);
    const std::string m = message_of([&] { u = loom::abs(u); });
    CHECK_MESSAGE(m.find("abs") != std::string::npos, m);
    CHECK_MESSAGE(m.find("uint32") != std::string::npos, m);
    CHECK_THROWS_WITH_AS(u64 = loom::abs(u64), Contains("uint64"), loom::error);
    CHECK(u.to_host() == std::vector<std::uint32_t>(4, 5u));
}

TEST_CASE("a build failure reports the compiler's log and the path of the saved source") {
    auto dev = loom::backend::open_device("opencl", "");
    loom::cache::program_cache cache(*dev);
    const std::string source = "this is not OpenCL";
    const std::string m = message_of([&] {
        cache.get(loom::codegen::kernel_source{"loom_broken", source, "", {}}, "test");
    });
    CHECK_MESSAGE(m.find("Build log:") != std::string::npos, m);
    CHECK_MESSAGE(m.find("error") != std::string::npos, m); // the compiler's own diagnostics
    const std::string marker = "saved in ";
    const std::size_t at = m.find(marker);
    REQUIRE_MESSAGE(at != std::string::npos, m);
    const std::size_t start = at + marker.size();
    const std::string path = m.substr(start, m.find(';', start) - start);
    REQUIRE_MESSAGE(std::filesystem::exists(path), path);
    std::ifstream in(path);
    const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(saved.find(source) != std::string::npos);
}

TEST_CASE("double works on this device (no device without fp64 is available to test the fp64 error)") {
    REQUIRE(ctx().has_fp64());
    loom::vector<double> d(ctx(), 3, 0.1);
    d = d * 3.0;
    CHECK(d.to_host() == std::vector<double>(3, 0.1 * 3.0));
}

TEST_CASE("a vector larger than the device allows fails with an out-of-memory message naming the size") {
    const std::size_t elements = std::size_t(1) << 40; // 4 TiB of floats
    const std::string m = message_of([&] { loom::vector<float> huge(ctx(), elements); });
    CHECK_MESSAGE(m.find("out of device memory") != std::string::npos, m);
    CHECK_MESSAGE(m.find(std::to_string(elements * sizeof(float))) != std::string::npos, m);
}

TEST_CASE("a statement that fails at its flush leaves the statements recorded before it in effect") {
    // DESIGN.md: "A failure leaves every vector as it was before the failed statement."
    loom::vector<float> z(ctx(), 4, 1.0f);
    z = z + 1.0f;
    CHECK_THROWS_AS(loom::vector<float>(ctx(), std::size_t(1) << 40), loom::error);
    CHECK(z.to_host() == std::vector<float>(4, 2.0f));
}
