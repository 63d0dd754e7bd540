// Integer division where C leaves it undefined, defined the same in both dialects (the
// emitter writes the rule; the NVRTC pass of this suite compiles it as CUDA): x / 0 == 0,
// x % 0 == x, and for signed types MIN / -1 == MIN, MIN % -1 == 0. Every element is checked
// against a host model of the rule, for every integer type, fused and unfused.
#include "support.hpp"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

using loom_test::ctx;

namespace {

// The rule, on the host, in the type the division has after the usual conversions.
template <class R> R host_div(R a, R b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<R>)
        if (b == R(-1)) return R(std::make_unsigned_t<R>(0) - std::make_unsigned_t<R>(a)); // -MIN wraps to MIN
    return R(a / b);
}
template <class R> R host_mod(R a, R b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<R>)
        if (b == R(-1)) return 0;
    return R(a % b);
}

template <class T> void check_division(loom::context& c) {
    using R = decltype(T() / T());
    const T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
    std::vector<T> a{lo, lo, T(7), T(-7 + (std::is_signed_v<T> ? 0 : 7)), hi, T(0), T(5), lo, hi, T(1)};
    std::vector<T> b{T(-1 + (std::is_signed_v<T> ? 0 : 1)), T(0), T(0), T(2), T(0), T(0), T(3), T(1), hi, lo};
    loom::vector<T> x(c, a), y(c, b);
    loom::vector<R> q(c, a.size()), r(c, a.size());
    q = x / y;
    r = x % y;
    const auto hq = q.to_host(), hr = r.to_host();
    for (std::size_t i = 0; i < a.size(); ++i) {
        CAPTURE(i);
        CHECK(hq[i] == host_div<R>(R(a[i]), R(b[i])));
        CHECK(hr[i] == host_mod<R>(R(a[i]), R(b[i])));
    }
}

template <class T> void check_both(const char* name) {
    CAPTURE(name);
    check_division<T>(ctx());
    loom::context unfused(loom::context_options{"opencl", "", 0});
    check_division<T>(unfused);
}

} // namespace

TEST_CASE("integer division by zero and MIN / -1 follow Loom's rule for every integer type") {
    check_both<std::int8_t>("int8");
    check_both<std::int16_t>("int16");
    check_both<std::int32_t>("int32");
    check_both<std::int64_t>("int64");
    check_both<std::uint8_t>("uint8");
    check_both<std::uint16_t>("uint16");
    check_both<std::uint32_t>("uint32");
    check_both<std::uint64_t>("uint64");
}
