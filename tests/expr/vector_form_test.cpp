// Element-wise statements at every remainder of n by 4 and 2, of element types of every size and
// mixed sizes, equal the host, fused and unfused. On a GPU (and in the expr_grid_stride run) they
// take the map's vector form (codegen/vector_map.hpp): four or two elements a work-item through
// float4 / double2 loads and stores, then a scalar tail; elsewhere the chunked form.
#include "support.hpp"

#include <cstdint>

using namespace loom_test;

namespace {

const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1023, 4097, 65538};

template <class T> std::vector<T> small_integers(std::size_t n, std::uint64_t salt) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = T(std::int64_t((i * 7 + salt) % 23) - 11);
    return v;
}

} // namespace

TEST_CASE("statements of one element type in the vector form: every tail length, in place and not") {
    for (loom::context* c : {&ctx(), &unfused_ctx()})
        for (std::size_t n : lengths) {
            CAPTURE(n);
            const std::vector<float> hx = small_integers<float>(n, 1), hy = small_integers<float>(n, 5);
            loom::vector<float> x(*c, hx), y(*c, hy), z(*c, n);
            y = 2.0f * x + y; // reads and writes y
            z = x * y - 1.0f;
            std::vector<float> wy(n), wz(n);
            for (std::size_t i = 0; i < n; ++i) {
                wy[i] = 2.0f * hx[i] + hy[i];
                wz[i] = hx[i] * wy[i] - 1.0f;
            }
            CHECK(y.to_host() == wy);
            CHECK(z.to_host() == wz);

            const std::vector<double> hd = small_integers<double>(n, 3);
            loom::vector<double> d(*c, hd), e(*c, n);
            e = d * d + loom::cast<double>(loom::index());
            std::vector<double> we(n);
            for (std::size_t i = 0; i < n; ++i) we[i] = hd[i] * hd[i] + double(i);
            CHECK(e.to_host() == we);
        }
}

TEST_CASE("statements mixing element sizes in the vector form: 1, 2, 4 and 8-byte buffers in one kernel") {
    for (loom::context* c : {&ctx(), &unfused_ctx()})
        for (std::size_t n : lengths) {
            CAPTURE(n);
            const std::vector<std::int8_t> h8 = small_integers<std::int8_t>(n, 2);
            const std::vector<std::uint16_t> h16 = small_integers<std::uint16_t>(n, 4); // wraps below 0
            const std::vector<float> hf = small_integers<float>(n, 6);
            loom::vector<std::int8_t> a(*c, h8);
            loom::vector<std::uint16_t> b(*c, h16);
            loom::vector<float> f(*c, hf);
            loom::vector<std::int32_t> i32(*c, n);
            loom::vector<std::int64_t> i64(*c, n);
            loom::vector<double> d(*c, n);
            i32 = loom::cast<std::int32_t>(a) * loom::cast<std::int32_t>(b);   // 4 lanes
            i64 = loom::cast<std::int64_t>(a) + loom::cast<std::int64_t>(i32); // 2 lanes
            d = loom::cast<double>(f) * 0.5;                                   // float2 loads, double2 stores
            std::vector<std::int32_t> w32(n);
            std::vector<std::int64_t> w64(n);
            std::vector<double> wd(n);
            for (std::size_t i = 0; i < n; ++i) {
                w32[i] = std::int32_t(h8[i]) * std::int32_t(h16[i]);
                w64[i] = std::int64_t(h8[i]) + std::int64_t(w32[i]);
                wd[i] = double(hf[i]) * 0.5;
            }
            CHECK(i32.to_host() == w32);
            CHECK(i64.to_host() == w64);
            CHECK(d.to_host() == wd);
        }
}
