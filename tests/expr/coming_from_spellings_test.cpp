// Every Loom spelling of docs/coming-from.md, compiled and run against host values, so the page
// cannot drift from the code. Sections follow the page's; a row changed there changes here.
#include "support.hpp"

#include <cstdint>
#include <numeric>

using namespace loom_test;

TEST_CASE("coming-from.md: setup and containers") {
    loom::context& c = ctx();
    const std::size_t n = 6;
    const std::vector<float> host = {1, 2, 3, 4, 5, 6};
    loom::vector<float> zeros(c, n);
    CHECK(zeros.to_host() == std::vector<float>(n, 0.0f));
    loom::vector<float> x(c, host), p(c, n, host.data());
    std::vector<float> out;
    loom::copy(x, out);
    CHECK(out == host);
    CHECK(p.to_host() == host);
    std::vector<float> out2(n);
    loom::copy(x.begin(), x.end(), out2.begin());
    CHECK(out2 == host);
    CHECK(x[2] == 3.0f);

    loom::vector<float> r(c, 2);
    r.resize(4);
    CHECK(r.size() == 4);
    loom::vector<float> fresh;
    fresh.resize(c, 3);
    fresh.resize(x); // a copy of x
    CHECK(fresh.to_host() == host);
    fresh.resize(std::vector<float>{9, 8});
    CHECK(fresh.to_host() == std::vector<float>{9, 8});
    fresh.push_back(7);
    fresh.pop_back();
    CHECK(fresh.front() == 9.0f);
    CHECK(fresh.back() == 8.0f);
    fresh.assign(3, 1.5f);
    CHECK(fresh.to_host() == std::vector<float>(3, 1.5f));
    fresh.clear();
    CHECK(fresh.empty());

    loom::vector<float> a(c, 2, 1.0f), b(c, 3, 2.0f);
    loom::swap(a, b);
    CHECK(a.size() == 3);
    CHECK(b.to_host() == std::vector<float>(2, 1.0f));

    // Views, gathers and scatters.
    loom::vector<float> y(c, 3), s(c, 4), rev(c, n), g(c, n), sc(c, n);
    y = x.slice(1, 3, 2);
    CHECK(y.to_host() == std::vector<float>{2, 4, 6});
    s = loom::strided(x, 0, 2, 2, 3, 1);
    CHECK(s.to_host() == std::vector<float>{1, 2, 4, 5});
    rev = loom::reversed(x);
    CHECK(rev.to_host() == std::vector<float>{6, 5, 4, 3, 2, 1});
    loom::vector<std::int32_t> idx(c, std::vector<std::int32_t>{5, 4, 3, 2, 1, 0});
    g = loom::gather(x, idx);
    loom::scatter(sc, idx) = x;
    CHECK(g.to_host() == rev.to_host());
    CHECK(sc.to_host() == rev.to_host());
}

TEST_CASE("coming-from.md: element-wise work") {
    loom::context& c = ctx();
    const std::vector<float> hx = {0.5f, 1.0f, 1.5f, 2.0f}, hz = {0.1f, 0.2f, 0.3f, 0.4f};
    loom::vector<float> x(c, hx), z(c, hz), y(c, 4), a(c, 4), b(c, 4);
    y = 2 * x + sin(z);
    const std::vector<float> got = y.to_host();
    for (std::size_t i = 0; i < 4; ++i) CHECK(got[i] == doctest::Approx(2 * hx[i] + std::sin(hz[i])).epsilon(1e-6));
    y = 2 * x + loom::sin(z);
    loom::tie(a, b) = std::make_tuple(x + z, x - z);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(a.to_host()[i] == hx[i] + hz[i]);
        CHECK(b.to_host()[i] == hx[i] - hz[i]);
    }
    loom::vector<std::uint64_t> i(c, 4);
    i = loom::index();
    CHECK(i.to_host() == std::vector<std::uint64_t>{0, 1, 2, 3});

    loom::function f = [](auto p, auto q) { return p * q; };
    loom::function<float(float, float)> g("f", "return a * b;");
    y = f(x, z) - g(x, z);
    CHECK(y.to_host() == std::vector<float>(4, 0.0f));
    y = loom::where(x > 1.0f, x, z);
    CHECK(y.to_host() == std::vector<float>{0.1f, 0.2f, 1.5f, 2.0f});
    loom::vector<int> k(c, 4);
    k = loom::cast<int>(x * 2.0f);
    CHECK(k.to_host() == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("coming-from.md: reductions, scans, stencils") {
    loom::context& c = ctx();
    const std::vector<float> hx = {1, 2, 3, 4}, hy = {4, 3, 2, 1};
    loom::vector<float> x(c, hx), y(c, hy), out(c, 4);
    CHECK(loom::sum(x * y) == 20.0f);
    CHECK(loom::max(x - y) == 3.0f);
    CHECK(loom::min(x - y) == -3.0f);
    CHECK(loom::product(x) == 24.0f);
    CHECK(loom::count(x > 2.0f) == 2u);
    CHECK(loom::any(x > 3.5f));
    CHECK(loom::all(x > 0.5f));
    CHECK(loom::minmax(x) == std::pair<float, float>(1.0f, 4.0f));
    CHECK(loom::reduce(x, 0.0f, [](auto p, auto q) { return loom::max(p, q); }) == 4.0f);
    loom::scalar<float> total = loom::sum(x, loom::on_device);
    CHECK(total.value() == 10.0f);
    loom::inclusive_scan(x, out);
    CHECK(out.to_host() == std::vector<float>{1, 3, 6, 10});
    loom::exclusive_scan(x, out, 100.0f);
    CHECK(out.to_host() == std::vector<float>{100, 101, 103, 106});
    loom::inclusive_scan(x, out, 1.0f, [](auto p, auto q) { return p * q; });
    CHECK(out.to_host() == std::vector<float>{1, 2, 6, 24});
    out = loom::shift(x, 1, loom::boundary::wrap);
    CHECK(out.to_host() == std::vector<float>{2, 3, 4, 1});
    // A 2 x 2 grid (nx = 2 columns, ny = 2 rows): the neighbour to the right, clamped.
    out = loom::at(loom::grid(x, 2, 2), 1, 0);
    CHECK(out.to_host() == std::vector<float>{2, 2, 4, 4});

    // Sorting and keyed operations.
    loom::vector<float> keys(c, std::vector<float>{3, 1, 2, 1}), values(c, hx);
    loom::sort_by_key(keys, values);
    CHECK(keys.to_host() == std::vector<float>{1, 1, 2, 3});
    CHECK(values.to_host() == std::vector<float>{2, 4, 3, 1});
    loom::sort(keys, loom::descending);
    CHECK(keys.to_host() == std::vector<float>{3, 2, 1, 1});
    loom::sort(x - y, out, [](auto p, auto q) { return loom::abs(p) < loom::abs(q); });
    CHECK(out.to_host() == std::vector<float>{-1, 1, -3, 3});
    loom::vector<std::int32_t> k(c, std::vector<std::int32_t>{7, 7, 5, 5}), k_out(c, 4);
    loom::vector<float> v_out(c, 4);
    CHECK(loom::reduce_by_key(k, x, k_out, v_out) == 2u);
    CHECK(k_out.to_host() == std::vector<std::int32_t>{7, 5, 0, 0});
    CHECK(v_out.to_host() == std::vector<float>{3, 7, 0, 0});
    loom::inclusive_scan_by_key(k, x, out);
    CHECK(out.to_host() == std::vector<float>{1, 3, 3, 7});
}

TEST_CASE("coming-from.md: binary searches") {
    loom::context& c = ctx();
    loom::vector<float> sorted(c, std::vector<float>{1, 2, 2, 3}), values(c, std::vector<float>{2, 0, 5});
    loom::vector<std::uint32_t> places(c, 3), found(c, 3);
    loom::lower_bound(sorted, values, places);
    CHECK(places.to_host() == std::vector<std::uint32_t>{1, 0, 4});
    loom::upper_bound(sorted, values, places);
    CHECK(places.to_host() == std::vector<std::uint32_t>{3, 0, 4});
    loom::binary_search(sorted, values, found);
    CHECK(found.to_host() == std::vector<std::uint32_t>{1, 0, 0});
    CHECK(loom::lower_bound(sorted, 2.5f) == 3);
    loom::vector<std::uint32_t> last(c, 3);
    loom::equal_range(sorted, values, places, last);
    CHECK(places.to_host() == std::vector<std::uint32_t>{1, 0, 4});
    CHECK(last.to_host() == std::vector<std::uint32_t>{3, 0, 4});
}

TEST_CASE("coming-from.md: control flow on the device, interop and custom code") {
    loom::context& c = ctx();
    loom::vector<float> x(c, 8, 1.0f);
    loom::scalar<float> r = loom::max(x, loom::on_device);
    const float tol = 0.1f;
    const std::uint64_t ran = loom::loop_while(
        c, r > tol,
        [&] {
            x = x * 0.5f;
            r = loom::max(x, loom::on_device);
        },
        4);
    CHECK(ran == 4); // 1 -> 0.5 -> 0.25 -> 0.125 -> 0.0625
    CHECK(x.to_host() == std::vector<float>(8, 0.0625f));
    loom::loop(c, 3, [&] { x = x * 2.0f; });
    CHECK(x.to_host() == std::vector<float>(8, 0.5f));
    loom::pipeline step(c);
    step.stage([&] { x = x + 1.0f; }).stage([&] { x = x * 2.0f; });
    step.run();
    CHECK(x.to_host() == std::vector<float>(8, 3.0f));

    // A work-item per small block: each 4 x 4 block transposed.
    std::vector<float> square(64);
    for (std::size_t i = 0; i < square.size(); ++i) square[i] = float(i);
    loom::matrix<float> a(c, 8, 8, square), b(c, 8, 8);
    loom::map_blocks<4, 4>(a, b, [](const loom::block<float, 4, 4>& in) {
        loom::block<float, 4, 4> out;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) out(i, j) = in(j, i);
        return out;
    });
    const std::vector<float> transposed = b.to_host();
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j)
            CHECK(transposed[i * 8 + j] == square[(i / 4 * 4 + j % 4) * 8 + j / 4 * 4 + i % 4]);

    if (c.backend_name() == "opencl") {
        void* mem = x.native_handle().opencl<void*>();
        loom::vector<float> wrapped = loom::vector<float>::wrap(c, mem, 8);
        CHECK(wrapped.to_host() == std::vector<float>(8, 3.0f));
        loom::context adopted =
            loom::context::from_opencl(c.native_context().opencl<void*>(), c.native_queue().opencl<void*>());
        loom::vector<float> there(adopted, 2, 5.0f);
        CHECK(there.to_host() == std::vector<float>(2, 5.0f));
        loom::kernel scale(c, "scale", R"(
            __kernel void scale(__global float* y, __global const float* x, float a, ulong n) {
                ulong i = get_global_id(0);
                if (i < n) y[i] = a * x[i];
            })");
        loom::vector<float> y(c, 8);
        scale({8}, y, x, 2.0f, std::uint64_t(8));
        CHECK(y.to_host() == std::vector<float>(8, 6.0f));
    }
}
