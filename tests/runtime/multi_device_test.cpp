// A context over several devices (docs/multi-device.md), tested with two contexts of this
// machine's OpenCL device as its parts: vectors split into one part per device, element-wise
// statements run on every part, reductions folded across the parts, host transfers across the
// part boundaries, and what runs on one device only refused with a loom::error that leaves every
// vector as it was. Every value against a host reference and against the same work on one device.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include "runtime/context_impl.hpp"
#include "runtime/parts/rebalance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

loom::context_options opencl(int fusion = -1) {
    loom::context_options o;
    o.backend = "opencl";
    o.fusion = fusion;
    return o;
}

// Two parts on this machine's OpenCL device: each its own context, queue and caches.
loom::context two_parts(int fusion = -1) {
    return loom::context({loom::context(opencl(fusion)), loom::context(opencl(fusion))});
}

std::vector<float> ramp(std::size_t n, float scale) {
    std::vector<float> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = scale * float(int(i % 97) - 48) / 7.0f;
    return h;
}

} // namespace

TEST_CASE("a context over two devices splits vectors and runs element-wise statements on every part") {
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context group = two_parts(fusion);
        CHECK(group.device_count() == 2);
        CHECK(group.device_name().find(" | ") != std::string::npos);
        loom::context one(opencl(fusion));
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1001), std::size_t(65537)}) {
            CAPTURE(n);
            const std::vector<float> hx = ramp(n, 1.0f), hy = ramp(n, -0.5f);
            // The same statements on two parts and on one device: equal bit for bit.
            const auto run = [&](loom::context& c) {
                loom::vector<float> x(c, hx), y(c, hy), z(c, n);
                z = 2.0f * x + y;
                z = z * x + sin(y); // fused with the statement before where fusion is on
                loom::vector<float> w = z - 1.0f;
                return w.to_host();
            };
            const std::vector<float> got = run(group);
            CHECK(got == run(one));
            REQUIRE(got.size() == n);
            for (std::size_t i = 0; i < n; ++i) {
                const float zi =
                    (2.0f * hx[i] + hy[i]) * hx[i] + std::sin(hy[i]); // the device's sin may differ by an ulp
                CHECK(got[i] == doctest::Approx(zi - 1.0f).epsilon(1e-6));
            }
        }
    }
}

TEST_CASE("on several devices the element index counts from the vector's start: index(), random numbers") {
    loom::context group = two_parts(), one(opencl());
    const std::size_t n = 10007;
    loom::vector<std::uint64_t> at(group, n);
    at = loom::index();
    const std::vector<std::uint64_t> h = at.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(h[i] == i);
    // The same draws as on one device, bit for bit: a draw depends on the seed and the element index.
    loom::vector<float> r(group, n), r1(one, n);
    r = loom::random_uniform<float>(42) * 2.0f;
    r1 = loom::random_uniform<float>(42) * 2.0f;
    CHECK(r.to_host() == r1.to_host());
}

TEST_CASE("reductions on several devices fold the parts' partial results with the same operation") {
    loom::context group = two_parts();
    for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(4099), std::size_t(100003)}) {
        CAPTURE(n);
        std::vector<std::int32_t> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = std::int32_t((i * 7919) % 2001) - 1000;
        loom::vector<std::int32_t> x(group, h);
        CHECK(loom::sum<std::int64_t>(x) == std::accumulate(h.begin(), h.end(), std::int64_t(0)));
        CHECK(loom::min(x) == *std::min_element(h.begin(), h.end()));
        CHECK(loom::max(x * 2) == 2 * *std::max_element(h.begin(), h.end()));
        CHECK(loom::count(x > 500) == std::uint64_t(std::count_if(h.begin(), h.end(), [](int v) { return v > 500; })));
        const auto [lo, hi] = loom::minmax(x);
        CHECK(lo == *std::min_element(h.begin(), h.end()));
        CHECK(hi == *std::max_element(h.begin(), h.end()));
        // min_element's key holds the element index: counted from the vector's start on every part.
        const loom::element<std::int32_t> m = loom::min_element(x);
        CHECK(m.index == std::uint64_t(std::min_element(h.begin(), h.end()) - h.begin()));
        // A user's operation, and pending statements fused into each part's first pass.
        loom::vector<std::int32_t> y(group, n);
        y = x * 3 + 1;
        std::int64_t want = 0;
        for (std::int32_t v : h) want = std::max<std::int64_t>(want, std::int64_t(std::abs(v * 3 + 1)));
        CHECK(loom::reduce(loom::cast<std::int64_t>(loom::abs(y)), std::int64_t(0),
                           [](auto a, auto b) { return loom::max(a, b); }) == want);
    }
}

TEST_CASE("host reads and writes cross the parts: v[i], copies of ranges, to_host") {
    loom::context group = two_parts();
    const std::size_t n = 1000;
    std::vector<float> h = ramp(n, 3.0f);
    loom::vector<float> x(group, h);
    for (std::size_t i : {std::size_t(0), std::size_t(499), std::size_t(500), std::size_t(999)}) {
        CHECK(float(x[i]) == h[i]);
        x[i] = float(i);
        h[i] = float(i);
    }
    CHECK(x.to_host() == h);
    // A vector made from an expression and a copy of a vector take the context's split.
    loom::vector<float> y = x * 2.0f, c = y;
    const std::vector<float> got = c.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == 2.0f * h[i]);
}

TEST_CASE("what runs on one device is refused on several with a loom::error, and nothing changes") {
    loom::context group = two_parts();
    const std::size_t n = 300;
    const std::vector<float> h = ramp(n, 1.0f);
    loom::vector<float> x(group, h), y(group, n, 5.0f);
    const auto refused = [&](auto&& f, const char* what) {
        CAPTURE(what);
        try {
            f();
            FAIL("no error");
        } catch (const loom::error& e) {
            CHECK(std::string(e.what()).find("runs on one device") != std::string::npos);
        }
        CHECK(x.to_host() == h);
        CHECK(y.to_host() == std::vector<float>(n, 5.0f));
    };
    // The refusal names what runs on one device.
    const auto by_size = [](auto a, auto b) { return loom::abs(a) < loom::abs(b); };
    CHECK_THROWS_WITH_AS(loom::sort(x, y, by_size),
                         doctest::Contains("a sort with a comparator (a merge sort) runs on one device"), loom::error);
    refused([&] { loom::sort(x, y, by_size); }, "a sort with a comparator");
    const loom::vector<std::uint32_t> at(group, n, 3u);
    refused([&] { y = loom::gather(x, at); }, "a gather");
    loom::vector<std::uint32_t> places(group, n, 7u);
    refused([&] { loom::lower_bound(x, y, places); }, "a binary search");
    CHECK(places.to_host() == std::vector<std::uint32_t>(n, 7u));
}

TEST_CASE("contexts over several devices: LOOM_DEVICE's list, and the mistakes refused") {
    loom::context_options o = opencl();
    o.device = "0,0"; // device 0 twice: two parts on one device
    loom::context listed(o);
    CHECK(listed.device_count() == 2);
    loom::vector<float> x(listed, std::vector<float>{1.0f, 2.0f, 3.0f});
    CHECK(loom::sum(x * x) == 14.0f);
    o.device = "0,";
    CHECK_THROWS_AS(loom::context{o}, loom::error);
    loom::context one(opencl());
    CHECK_THROWS_AS(loom::context(std::vector<loom::context>{one}), loom::error);
    CHECK_THROWS_AS(loom::context(std::vector<loom::context>{one, one}), loom::error);
    CHECK_THROWS_AS(loom::context(std::vector<loom::context>{one, listed}), loom::error);
    // Vectors of two contexts do not mix.
    loom::vector<float> a(one, 3, 1.0f);
    CHECK_THROWS_AS(x = x + a, loom::error);
}

// OpenCL device 0 split into two sub-devices (LOOM_DEVICE=0/2), or nothing (and why, as a
// message) where it has an odd number of compute units or its driver offers no sub-devices.
std::optional<loom::context> sub_devices() {
    loom::context whole(opencl());
    const unsigned units = whole.impl()->info().compute_units;
    if (units < 2 || units % 2 != 0) {
        MESSAGE("skipped: the OpenCL device has " << units << " compute units, which do not split in two");
        return std::nullopt;
    }
    loom::context_options o = opencl();
    o.device = "0/2";
    try {
        return loom::context(o);
    } catch (const loom::error& e) {
        // GPUs' OpenCL drivers (NVIDIA's) offer no sub-devices; the message says so and what to do.
        REQUIRE(std::string(e.what()).find("cannot be split into equal sub-devices") != std::string::npos);
        MESSAGE("skipped: " << e.what());
        return std::nullopt;
    }
}

// The contexts the algorithms across parts are tried on: two parts (two contexts: data between
// them through the host), four parts (sorts merge in two rounds), and two sub-devices where the
// device splits (data copied between the devices).
std::vector<loom::context> part_groups() {
    std::vector<loom::context> groups;
    groups.push_back(two_parts());
    loom::context_options four = opencl();
    four.device = "0,0,0,0";
    groups.emplace_back(four);
    if (std::optional<loom::context> halves = sub_devices()) groups.push_back(*halves);
    return groups;
}

TEST_CASE("LOOM_DEVICE=0/2 splits one OpenCL device into two sub-devices, each a part with half its compute units") {
    std::optional<loom::context> opened = sub_devices();
    if (!opened) return;
    const unsigned units = loom::context(opencl()).impl()->info().compute_units;
    loom::context_options o = opencl();
    loom::context& halves = *opened;
    REQUIRE(halves.device_count() == 2);
    for (const auto& part : halves.impl()->parts()) CHECK(part->info().compute_units * 2 == units);
    const std::size_t n = 50001;
    std::vector<double> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = double(i % 1000) * 0.5;
    loom::vector<double> x(halves, h), y(halves, n);
    y = x * x + loom::cast<double>(loom::index());
    const std::vector<double> got = y.to_host();
    double want = 0;
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(got[i] == h[i] * h[i] + double(i));
        want += got[i];
    }
    CHECK(loom::sum(y) == doctest::Approx(want).epsilon(1e-12));
    // A list of split and whole devices; the mistakes in the spelling.
    o.device = "0/2,0";
    CHECK(loom::context(o).device_count() == 3);
    for (const std::string& bad : {std::string("0/1"), std::string("0/x"), std::string("/2"),
                                   "0/" + std::to_string(units + 1)}) { // more parts than compute units
        CAPTURE(bad);
        o.device = bad;
        CHECK_THROWS_AS(loom::context{o}, loom::error);
    }
}

TEST_CASE("scans on several devices carry the parts before: inclusive, exclusive with an initial value, traced "
          "operations") {
    loom::context group = two_parts(), one(opencl());
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(4097), std::size_t(100001)}) {
        CAPTURE(n);
        std::vector<std::int64_t> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = std::int64_t((i * 37) % 101) - 50;
        loom::vector<std::int64_t> x(group, h), y(group, n), z(group, n);
        loom::inclusive_scan(x * 2, y);
        loom::exclusive_scan(x, z, std::int64_t(1000));
        std::vector<std::int64_t> incl(n), excl(n);
        std::int64_t run = 0;
        for (std::size_t i = 0; i < n; ++i) {
            excl[i] = 1000 + run;
            run += h[i];
            incl[i] = 2 * run;
        }
        CHECK(y.to_host() == incl);
        CHECK(z.to_host() == excl);
        // A traced operation that is not commutative keeps its order across the parts: the last
        // nonzero value so far (a "fill forward").
        loom::inclusive_scan(x, y, std::int64_t(0), [](auto a, auto b) { return loom::where(b != 0, b, a); });
        std::vector<std::int64_t> want(n);
        std::int64_t last = 0;
        for (std::size_t i = 0; i < n; ++i) want[i] = last = h[i] != 0 ? h[i] : last;
        CHECK(y.to_host() == want);
        loom::vector<float> f(group, n), f1(one, n);
        loom::inclusive_scan(loom::random_uniform<float>(7), f);
        loom::inclusive_scan(loom::random_uniform<float>(7), f1);
        const std::vector<float> got = f.to_host(), reference = f1.to_host();
        for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == doctest::Approx(reference[i]).epsilon(1e-5));
    }
}

TEST_CASE("loom::scalar on several devices: every part holds it; reductions into one, statements reading it") {
    loom::context group = two_parts();
    const std::size_t n = 20011;
    std::vector<double> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = double(i % 113) - 56.0;
    loom::vector<double> x(group, h), y(group, n);
    loom::scalar<double> norm2 = loom::sum(x * x, loom::on_device); // folded on every part, nothing read
    loom::scalar<double> half(group, 0.5);
    half = half * 2.0 + 1.0; // a one-element statement on every part's copy: 2
    y = x * half / loom::sqrt(norm2);
    double want2 = 0;
    for (double v : h) want2 += v * v;
    CHECK(norm2.value() == doctest::Approx(want2).epsilon(1e-14));
    CHECK(half.value() == 2.0);
    const std::vector<double> got = y.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == doctest::Approx(h[i] * 2.0 / std::sqrt(want2)).epsilon(1e-14));
    // A reduction reading a scalar, into a scalar; and minmax into two.
    loom::scalar<double> shifted = loom::sum(x + half, loom::on_device);
    CHECK(shifted.value() == doctest::Approx(std::accumulate(h.begin(), h.end(), 0.0) + 2.0 * double(n)));
    const auto [lo, hi] = loom::minmax(x, loom::on_device);
    CHECK(lo.value() == -56.0);
    CHECK(hi.value() == 56.0);
}

TEST_CASE("STEPOCL's damped step moves the shares toward equal time and stops when the times agree") {
    using loom::detail::balanced_shares;
    using loom::detail::times_agree;
    // Two equal devices given 90% and 10%: times 9 : 1, mean 5. r0 = 0.9 (1 + (5/9 - 1)/2) = 0.7,
    // r1 = 0.1 (1 + (5 - 1)/2) = 0.3, already summing to 1.
    std::vector<double> r = balanced_shares({0.9, 0.1}, {9.0, 1.0}, 2.0);
    CHECK(r[0] == doctest::Approx(0.7));
    CHECK(r[1] == doctest::Approx(0.3));
    // Iterated with times proportional to the shares (equal devices), the split reaches even within
    // 5% in a few steps, as STEPOCL reports (about 3).
    int steps = 0;
    while (std::fabs(r[0] - 0.5) > 0.025 && steps < 20) {
        r = balanced_shares(r, {r[0], r[1]}, 2.0);
        ++steps;
    }
    CHECK(steps <= 4);
    // A device twice as fast settles at two thirds of the work.
    r = {0.5, 0.5};
    for (int i = 0; i < 30; ++i) r = balanced_shares(r, {r[0] / 2.0, r[1]}, 2.0);
    CHECK(r[0] == doctest::Approx(2.0 / 3.0).epsilon(1e-3));
    // A part that measured nothing keeps its share; agreement within the tolerance stays.
    r = balanced_shares({0.5, 0.5}, {0.0, 3.0}, 2.0);
    CHECK(r[0] == doctest::Approx(0.5));
    CHECK(times_agree({1.0, 1.04}, 0.05));
    CHECK(!times_agree({1.0, 1.2}, 0.05));
}

TEST_CASE("set_split moves every vector's data to the new parts; balance::dynamic moves it toward equal time") {
    loom::context group = two_parts();
    const std::size_t n = 100003;
    const std::vector<float> h = ramp(n, 1.0f);
    loom::vector<float> x(group, h), y(group, n, 1.0f), unwritten(group, n);
    y = y + x;
    group.set_split({9.0, 1.0});
    const std::vector<double> shares = group.split();
    CHECK(shares[0] == doctest::Approx(0.9));
    CHECK(shares[1] == doctest::Approx(0.1));
    CHECK(x.to_host() == h);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 1.0f + h[i];
    CHECK(y.to_host() == want);
    unwritten = unwritten + 2.0f; // made before the new split, written after it
    CHECK(unwritten.to_host() == std::vector<float>(n, 2.0f));
    CHECK(loom::sum(loom::cast<double>(x)) == doctest::Approx(std::accumulate(h.begin(), h.end(), 0.0)));
    CHECK_THROWS_AS(group.set_split({1.0}), loom::error);
    CHECK_THROWS_AS(group.set_split({1.0, 0.0}), loom::error);
    CHECK_THROWS_AS(loom::context(opencl()).set_split({1.0}), loom::error);

    // Dynamic: two parts on one device, timed; from 90/10 the first part's share falls.
    loom::context_options timed = opencl();
    timed.profiling = 1;
    loom::context balanced({loom::context(timed), loom::context(timed)}, loom::balance::dynamic);
    balanced.set_split({0.9, 0.1});
    const std::size_t big = std::size_t(1) << 22;
    loom::vector<float> a(balanced, big, 1.0f), b(balanced, big, 2.0f);
    // A judgement needs 100 us of kernel time on every part: a CPU reaches it in the first round,
    // a GPU after some tens of rounds.
    int rounds = 0;
    for (; rounds < 400 && (rounds < 6 || balanced.split()[0] >= 0.85); ++rounds) {
        for (int k = 0; k < 4; ++k) b = 0.5f * a + b;
        balanced.finish();
    }
    CAPTURE(rounds);
    CHECK(balanced.split()[0] < 0.85);
    // The data moved with every step: b = 2 + 0.5 for every statement (exact in float below 2^23).
    CHECK(b.to_host() == std::vector<float>(big, 2.0f + 2.0f * float(rounds)));
}

TEST_CASE("sub-devices of one device copy halos and moved parts between them on the devices") {
    // The parts share a cl_context: halos and set_split's moves are copies between the devices
    // (the parts of two contexts, two_parts(), go through the host).
    std::optional<loom::context> opened = sub_devices();
    if (!opened) return;
    loom::context& halves = *opened;
    loom::context one(opencl());
    const std::size_t nx = 64, ny = 48, n = nx * ny;
    std::vector<float> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = float((i * 7919) % 1000) / 250.0f;
    const auto run = [&](loom::context& c, bool move) {
        loom::vector<float> u(c, h), next(c, n), w(c, n);
        for (int step = 0; step < 12; ++step) {
            const auto g = loom::grid(u, nx, ny);
            next = u + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) +
                               loom::at(g, 0, 2, loom::boundary::wrap) - 4.0f * u);
            loom::swap(u, next);
            if (move && step == 5) c.set_split({0.3, 0.7}); // the data moves on the devices
        }
        w = loom::shift(u, -1) - loom::shift(u, 3, loom::boundary::constant(2.0f));
        std::vector<float> all = u.to_host();
        const std::vector<float> more = w.to_host();
        all.insert(all.end(), more.begin(), more.end());
        return all;
    };
    const std::vector<float> want = run(one, false);
    CHECK(run(halves, false) == want);
    CHECK(run(halves, true) == want);
    CHECK(halves.split()[0] == doctest::Approx(0.3));
}

TEST_CASE("sorts across parts: every part sorts its own, then the runs merge; stable, both directions, with values") {
    std::vector<loom::context> groups = part_groups();
    for (loom::context& group : groups) {
        CAPTURE(group.device_count());
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1000), std::size_t(65537)}) {
            CAPTURE(n);
            // Keys with many repeats (stability shows), negative and positive; values their places.
            std::vector<std::int32_t> keys(n);
            std::vector<std::uint32_t> places(n);
            std::vector<float> reals(n);
            for (std::size_t i = 0; i < n; ++i) {
                keys[i] = std::int32_t((i * 7919) % 41) - 20;
                places[i] = std::uint32_t(i);
                reals[i] = float(int((i * 104729) % 2001) - 1000) * 0.25f;
            }
            reals[n / 2] = -0.0f; // -0.0 before +0.0 (totalOrder)
            for (const bool down : {false, true}) {
                CAPTURE(down);
                loom::vector<std::int32_t> k(group, keys);
                loom::vector<std::uint32_t> v(group, places);
                if (down)
                    loom::sort_by_key(k, v, loom::descending);
                else
                    loom::sort_by_key(k, v);
                std::vector<std::size_t> order(n);
                std::iota(order.begin(), order.end(), std::size_t(0));
                std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                    return down ? keys[a] > keys[b] : keys[a] < keys[b];
                });
                std::vector<std::int32_t> want_keys(n);
                std::vector<std::uint32_t> want_places(n);
                for (std::size_t i = 0; i < n; ++i) {
                    want_keys[i] = keys[order[i]];
                    want_places[i] = std::uint32_t(order[i]);
                }
                CHECK(k.to_host() == want_keys);
                CHECK(v.to_host() == want_places);
            }
            // Runs already in order (no merge), and runs in reverse order (every key moves).
            for (const bool reversed : {false, true}) {
                std::vector<std::int32_t> ordered(n);
                for (std::size_t i = 0; i < n; ++i) ordered[i] = std::int32_t(reversed ? n - i : i / 3);
                loom::vector<std::int32_t> k(group, ordered);
                loom::sort(k);
                std::sort(ordered.begin(), ordered.end());
                CHECK(k.to_host() == ordered);
            }
            // Floats from an expression into another vector.
            loom::vector<float> r(group, reals), out(group, n);
            loom::sort(r * 2.0f, out);
            std::vector<float> want(n);
            for (std::size_t i = 0; i < n; ++i) want[i] = reals[i] * 2.0f;
            std::stable_sort(want.begin(), want.end(), [](float a, float b) {
                return std::signbit(a) != std::signbit(b) && a == b ? std::signbit(a) : a < b;
            });
            const std::vector<float> got = out.to_host();
            CHECK(got == want);
            for (std::size_t i = 0; i + 1 < n; ++i)
                if (got[i] == 0.0f && got[i + 1] == 0.0f)
                    CHECK_FALSE((!std::signbit(got[i]) && std::signbit(got[i + 1])));
        }
    }
}

TEST_CASE("merges across parts: each output part merges its shares of both inputs; stable, both directions") {
    std::vector<loom::context> groups = part_groups();
    for (loom::context& group : groups) {
        CAPTURE(group.device_count());
        const std::pair<std::size_t, std::size_t> lengths[] = {{0, 3}, {1, 1}, {5, 1000}, {4097, 3000}};
        for (const auto& [na, nb] : lengths)
            for (const bool down : {false, true}) {
                CAPTURE(na);
                CAPTURE(nb);
                CAPTURE(down);
                // Keys with repeats across both inputs (a's go first); values their places in a ++ b.
                std::vector<std::int64_t> ka(na), kb(nb);
                for (std::size_t i = 0; i < na; ++i) ka[i] = std::int64_t(i / 3) - 300;
                for (std::size_t j = 0; j < nb; ++j) kb[j] = std::int64_t(j / 2) - 500;
                const auto before = [down](std::int64_t x, std::int64_t y) { return down ? x > y : x < y; };
                std::sort(ka.begin(), ka.end(), before);
                std::sort(kb.begin(), kb.end(), before);
                std::vector<std::uint32_t> pa(na), pb(nb);
                std::iota(pa.begin(), pa.end(), 0u);
                std::iota(pb.begin(), pb.end(), std::uint32_t(na));
                std::vector<std::pair<std::int64_t, std::uint32_t>> a, b, want(na + nb);
                for (std::size_t i = 0; i < na; ++i) a.emplace_back(ka[i], pa[i]);
                for (std::size_t j = 0; j < nb; ++j) b.emplace_back(kb[j], pb[j]);
                std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(),
                           [&](const auto& x, const auto& y) { return before(x.first, y.first); });
                std::vector<std::int64_t> want_keys;
                std::vector<std::uint32_t> want_places;
                for (const auto& [k, v] : want) {
                    want_keys.push_back(k);
                    want_places.push_back(v);
                }
                loom::vector<std::int64_t> da(group, ka), db(group, kb), keys(group, na + nb);
                loom::vector<std::uint32_t> va(group, pa), vb(group, pb), places(group, na + nb);
                if (down)
                    loom::merge_by_key(da, db, va, vb, keys, places, loom::descending);
                else
                    loom::merge_by_key(da, db, va, vb, keys, places);
                CHECK(keys.to_host() == want_keys);
                CHECK(places.to_host() == want_places);
                loom::vector<std::int64_t> merged(group, na + nb);
                if (down)
                    loom::merge(da, db, merged, loom::descending);
                else
                    loom::merge(da, db, merged);
                CHECK(merged.to_host() == want_keys);
            }
        // A comparator's merge needs one device: the host cannot compare keys by it.
        loom::vector<float> a(group, std::vector<float>{1, 2}), b(group, std::vector<float>{3}), out(group, 3);
        CHECK_THROWS_WITH_AS(loom::merge(a, b, out, [](auto x, auto y) { return x < y; }),
                             doctest::Contains("a merge with a comparator"), loom::error);
    }
}

TEST_CASE("compactions across parts: each part keeps its own, then the kept values go to their places, in order") {
    std::vector<loom::context> groups = part_groups();
    for (loom::context& group : groups) {
        CAPTURE(group.device_count());
        for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(1000), std::size_t(65537)}) {
            CAPTURE(n);
            std::vector<std::int32_t> h(n);
            for (std::size_t i = 0; i < n; ++i) h[i] = std::int32_t((i * 7919) % 201) - 100;
            loom::vector<std::int32_t> x(group, h), out(group, n + 5, std::int32_t(-7)), parted(group, n);
            // The positive values times 3, from an expression with loom::index() (counted from the
            // vector's start on every part).
            const std::uint64_t kept = loom::copy_if(x * 3 + loom::cast<std::int32_t>(loom::index() % 2), x > 0, out);
            std::vector<std::int32_t> want(n + 5, -7);
            std::size_t at = 0;
            for (std::size_t i = 0; i < n; ++i)
                if (h[i] > 0) want[at++] = h[i] * 3 + std::int32_t(i % 2);
            CHECK(kept == at);
            CHECK(out.to_host() == want);
            // A stable partition: the negatives first, then the rest, each in order.
            const std::uint64_t first = loom::partition(x, x < 0, parted);
            std::vector<std::int32_t> split = h;
            const auto middle = std::stable_partition(split.begin(), split.end(), [](std::int32_t v) { return v < 0; });
            CHECK(first == std::uint64_t(middle - split.begin()));
            CHECK(parted.to_host() == split);
            // unique: its predicate reads the neighbour before (the values computed across the
            // parts first).
            std::vector<std::int32_t> runs(n);
            for (std::size_t i = 0; i < n; ++i) runs[i] = std::int32_t((i / 3) % 5);
            loom::vector<std::int32_t> r(group, runs), distinct(group, n);
            const std::uint64_t left = loom::unique(r, distinct);
            std::vector<std::int32_t> want_distinct(runs.begin(), std::unique(runs.begin(), runs.end()));
            CHECK(left == want_distinct.size());
            const std::vector<std::int32_t> got_distinct = distinct.to_host();
            CHECK(std::vector<std::int32_t>(got_distinct.begin(), got_distinct.begin() + std::ptrdiff_t(left)) ==
                  want_distinct);
            // Too many for the output: a length_error, and the output as it was.
            loom::vector<std::int32_t> small(group, 1, std::int32_t(9));
            if (at > 1) {
                CHECK_THROWS_AS(loom::copy_if(x, x > 0, small), loom::length_error);
                CHECK(small.to_host() == std::vector<std::int32_t>{9});
            }
        }
    }
}

namespace {

// Host references of the keyed operations: segments are runs of keys equal by ==.
template <class K, class T, class Op>
std::vector<T> host_scan_by_key(const std::vector<K>& k, const std::vector<T>& v, bool exclusive, T init, Op op) {
    std::vector<T> out(v.size());
    T run{};
    for (std::size_t i = 0; i < v.size(); ++i) {
        const bool head = i == 0 || !(k[i] == k[i - 1]);
        if (exclusive) {
            if (head) run = init;
            out[i] = run;
            run = op(run, v[i]);
        } else {
            run = head ? v[i] : op(run, v[i]);
            out[i] = run;
        }
    }
    return out;
}

template <class K, class T, class Op>
std::pair<std::vector<K>, std::vector<T>> host_reduce_by_key(const std::vector<K>& k, const std::vector<T>& v, Op op) {
    std::pair<std::vector<K>, std::vector<T>> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i == 0 || !(k[i] == k[i - 1])) {
            out.first.push_back(k[i]);
            out.second.push_back(v[i]);
        } else {
            out.second.back() = op(out.second.back(), v[i]);
        }
    }
    return out;
}

} // namespace

TEST_CASE("keyed operations across parts: a segment split by the parts takes the fold of its values before") {
    const auto plus = [](std::int64_t a, std::int64_t b) { return a + b; };
    const auto fill = [](std::int64_t a, std::int64_t b) { return b != 0 ? b : a; }; // not commutative
    const auto traced_fill = [](auto a, auto b) { return loom::where(b != 0, b, a); };
    for (loom::context& group : part_groups()) {
        CAPTURE(group.device_count());
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(10), std::size_t(1000), std::size_t(4099)}) {
            // Segments of one element, of three, longer than a part (a part that is all one
            // segment passes the carry on), and one over every part.
            for (std::size_t run : {std::size_t(1), std::size_t(3), std::size_t(400), n}) {
                CAPTURE(n);
                CAPTURE(run);
                std::vector<std::int32_t> kh(n);
                std::vector<std::int64_t> vh(n), twice(n);
                for (std::size_t i = 0; i < n; ++i) {
                    kh[i] = std::int32_t(i / run);
                    vh[i] = std::int64_t((i * 37) % 101) - 50;
                    twice[i] = 2 * vh[i] + std::int64_t(i % 3);
                }
                loom::vector<std::int32_t> k(group, kh), keys_out(group, n + 2, -1);
                loom::vector<std::int64_t> v(group, vh), out(group, n), values_out(group, n + 2, std::int64_t(-1));
                loom::inclusive_scan_by_key(k, v, out);
                CHECK(out.to_host() == host_scan_by_key(kh, vh, false, std::int64_t(0), plus));
                loom::exclusive_scan_by_key(k, v, out);
                CHECK(out.to_host() == host_scan_by_key(kh, vh, true, std::int64_t(0), plus));
                // From an initial value that is not the identity; values an expression counting
                // loom::index() from the vector's start.
                const auto values = v * 2 + loom::cast<std::int64_t>(loom::index() % 3);
                loom::exclusive_scan_by_key(k, values, out, std::int64_t(1000));
                CHECK(out.to_host() == host_scan_by_key(kh, twice, true, std::int64_t(1000), plus));
                // A traced operation that is not commutative keeps its order across the parts.
                loom::inclusive_scan_by_key(k, v, out, std::int64_t(0), traced_fill);
                CHECK(out.to_host() == host_scan_by_key(kh, vh, false, std::int64_t(0), fill));
                loom::exclusive_scan_by_key(k, v, out, std::int64_t(7), std::int64_t(0), traced_fill);
                CHECK(out.to_host() == host_scan_by_key(kh, vh, true, std::int64_t(7), fill));
                // Keys an expression: computed into a vector first.
                loom::inclusive_scan_by_key(loom::cast<std::int32_t>(loom::index() / run), v, out);
                CHECK(out.to_host() == host_scan_by_key(kh, vh, false, std::int64_t(0), plus));

                const auto [want_keys, want_sums] = host_reduce_by_key(kh, twice, plus);
                const std::uint64_t m = loom::reduce_by_key(k, values, keys_out, values_out);
                REQUIRE(m == want_keys.size());
                std::vector<std::int32_t> got_keys = keys_out.to_host();
                std::vector<std::int64_t> got_values = values_out.to_host();
                CHECK(std::vector<std::int32_t>(got_keys.begin(), got_keys.begin() + std::ptrdiff_t(m)) == want_keys);
                CHECK(std::vector<std::int64_t>(got_values.begin(), got_values.begin() + std::ptrdiff_t(m)) ==
                      want_sums);
                CHECK(got_keys[m] == -1); // past the segments: as it was
                const auto filled = host_reduce_by_key(kh, vh, fill).second;
                CHECK(loom::reduce_by_key(k, v, keys_out, values_out, std::int64_t(0), traced_fill) == m);
                got_values = values_out.to_host();
                CHECK(std::vector<std::int64_t>(got_values.begin(), got_values.begin() + std::ptrdiff_t(m)) == filled);
                // Too few places for the segments: a length_error, both outputs as they were.
                if (m > 1) {
                    loom::vector<std::int32_t> few_keys(group, m - 1, 5);
                    loom::vector<std::int64_t> few_values(group, m + 3, std::int64_t(6));
                    CHECK_THROWS_AS(loom::reduce_by_key(k, v, few_keys, few_values), loom::length_error);
                    CHECK(few_keys.to_host() == std::vector<std::int32_t>(m - 1, 5));
                    CHECK(few_values.to_host() == std::vector<std::int64_t>(m + 3, std::int64_t(6)));
                }
            }
        }
        // Float keys: each NaN a segment of its own, -0 like +0; values read through neighbours
        // (computed with halos first).
        const std::size_t n = 777;
        std::vector<float> kh(n), xh(n), shifted(n);
        for (std::size_t i = 0; i < n; ++i) {
            kh[i] = (i / 100) % 3 == 1 ? std::numeric_limits<float>::quiet_NaN() : float(i / 200);
            if (i == 50) kh[i] = -0.0f;
            xh[i] = float(int(i % 7));
        }
        for (std::size_t i = 0; i < n; ++i) shifted[i] = xh[std::min(i + 1, n - 1)];
        loom::vector<float> k(group, kh), x(group, xh), out(group, n), keys_out(group, n);
        loom::inclusive_scan_by_key(k, loom::shift(x, 1), out);
        CHECK(out.to_host() == host_scan_by_key(kh, shifted, false, 0.0f, std::plus<float>()));
        const auto [want_keys, want_sums] = host_reduce_by_key(kh, xh, std::plus<float>());
        const std::uint64_t m = loom::reduce_by_key(k, x, keys_out, out);
        CHECK(m == want_keys.size());
        const std::vector<float> got = out.to_host();
        CHECK(std::vector<float>(got.begin(), got.begin() + std::ptrdiff_t(m)) == want_sums);
    }
}

TEST_CASE("block maps across parts: each part transforms its rows of blocks, equal to one device") {
    // y's 4 x 4 blocks: each row's prefix sums, times the block's first element plus one.
    const auto prefix = [](const loom::block<float, 4, 4>& b) {
        loom::block<float, 4, 4> out;
        for (int i = 0; i < 4; ++i) {
            loom::traced<float> s = b(i, 0);
            out(i, 0) = s;
            for (int j = 1; j < 4; ++j) out(i, j) = s += b(i, j);
        }
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) out(i, j) *= b(0, 0) + 1.0f;
        return out;
    };
    const std::size_t rows = 32, cols = 12;
    std::vector<float> h(rows * cols);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(int(i % 11) - 5) / 4.0f;
    loom::context one(opencl());
    loom::matrix<float> x1(one, rows, cols, h), y1(one, rows, cols);
    loom::map_blocks<4>(x1, y1, prefix);
    const std::vector<float> want = y1.to_host();
    for (loom::context& group : part_groups()) {
        CAPTURE(group.device_count());
        loom::matrix<float> x(group, rows, cols, h), y(group, rows, cols, 9.0f);
        x = x * 1.0f; // pending on every part when the blocks run
        loom::map_blocks<4>(x, y, prefix);
        CHECK(y.to_host() == want);
        // A split that cuts a row of blocks: refused, y as it was.
        loom::matrix<float> narrow(group, 40, 4, 1.0f), out(group, 40, 4, 2.0f);
        if (group.device_count() == 2) { // 80 elements a part: 20 rows, not whole rows of 8
            const auto eights = [&] {
                loom::map_blocks<8, 4>(narrow, out, [](const loom::block<float, 8, 4>& b) { return b; });
            };
            CHECK_THROWS_WITH_AS(eights(), doctest::Contains("whole rows of 8 x 4 blocks"), loom::error);
            CHECK(out.to_host() == std::vector<float>(160, 2.0f));
        }
    }
}

TEST_CASE("sparse products across parts: each part its rows, x's elements of other parts in a halo") {
    std::vector<loom::context> groups = part_groups();
    loom::context one(opencl());
    // A band, a few far columns (every part reaches every other), empty rows; square and not.
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{1000, 1000}, {333, 901}, {3, 2}}) {
        CAPTURE(rows);
        CAPTURE(cols);
        std::vector<std::uint32_t> row_ptr{0}, col;
        std::vector<float> val;
        for (std::size_t r = 0; r < rows; ++r) {
            if (r % 7 != 3)
                for (std::size_t c : {r * cols / rows, r * cols / rows + 1, (r * 37) % cols, cols - 1 - r % cols})
                    if (c < cols) {
                        col.push_back(std::uint32_t(c));
                        val.push_back(float(int((r * 31 + c * 17) % 23) - 11) * 0.125f);
                    }
            row_ptr.push_back(std::uint32_t(col.size()));
        }
        std::vector<float> hx(cols), hz(rows);
        for (std::size_t i = 0; i < cols; ++i) hx[i] = float(int(i % 19) - 9) * 0.5f;
        for (std::size_t i = 0; i < rows; ++i) hz[i] = float(i % 5);
        // The host's product, in the entries' order, in float.
        std::vector<float> want(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            float sum = 0.0f;
            for (std::uint32_t e = row_ptr[r]; e < row_ptr[r + 1]; ++e) sum += val[e] * hx[col[e]];
            want[r] = sum;
        }
        for (const loom::sparse_layout& layout : {loom::sparse_layout::csr(), loom::sparse_layout::sliced_ell(4)}) {
            const auto run = [&](loom::context& c, bool move) {
                const loom::sparse_matrix<float> a(c, rows, cols, row_ptr, col, val, layout);
                loom::vector<float> x(c, hx), z(c, hz), y(c, rows), w(c, rows);
                y = a * x;
                // Fused with element-wise work and loom::index() (counted from the vector's start).
                w = 2.0f * (a * x) + z - loom::cast<float>(loom::index() % 3);
                if (move) { // a new split: the rows laid out again
                    c.set_split({0.25, 0.75});
                    w = w + a * x;
                }
                std::vector<float> all = y.to_host();
                const std::vector<float> more = w.to_host();
                all.insert(all.end(), more.begin(), more.end());
                // A reduction of a product (every sum here is exact in float: sixteenths, small),
                // a scan and a sort of one.
                all.push_back(loom::sum(a * x));
                loom::vector<float> scanned(c, rows), sorted(c, rows);
                loom::inclusive_scan(a * x, scanned);
                loom::sort(a * x, sorted);
                for (const loom::vector<float>* v : {&scanned, &sorted}) {
                    const std::vector<float> got = v->to_host();
                    all.insert(all.end(), got.begin(), got.end());
                }
                return all;
            };
            double total = 0;
            for (const float v : want) total += double(v);
            for (loom::context& group : groups) {
                CAPTURE(group.device_count());
                const std::vector<float> got = run(group, false);
                CHECK(std::vector<float>(got.begin(), got.begin() + std::ptrdiff_t(rows)) == want);
                CHECK(double(got[2 * rows]) == total);
                CHECK(got == run(one, false));
            }
            CHECK(run(groups[0], true) == [&] {
                std::vector<float> all = want;
                for (std::size_t r = 0; r < rows; ++r) all.push_back((2.0f * want[r] + hz[r] - float(r % 3)) + want[r]);
                all.push_back(float(total));
                float run = 0;
                for (std::size_t r = 0; r < rows; ++r) all.push_back(run += want[r]);
                std::vector<float> ordered = want;
                std::stable_sort(ordered.begin(), ordered.end());
                all.insert(all.end(), ordered.begin(), ordered.end());
                return all;
            }());
        }
    }
}

TEST_CASE("stencils across parts read their neighbours from halos: equal to one device, every policy") {
    loom::context one(opencl());
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context group = two_parts(fusion);
        // Lengths whose parts are shorter than the halos (1, 2, 3, 5) and longer.
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(5), std::size_t(1001)}) {
            CAPTURE(n);
            const std::vector<float> h = ramp(n, 1.0f);
            const auto run = [&](loom::context& c) {
                loom::vector<float> x(c, h), y(c, n), z(c, n), w(c, n);
                y = x + 0.5f * (loom::shift(x, -1) + loom::shift(x, 3)); // clamped
                z = loom::shift(x, -2, loom::boundary::wrap) - loom::shift(x, 2, loom::boundary::constant(7.0f));
                w = x * 2.0f;
                w = w + loom::shift(w, 1); // reads what the statement before wrote
                x = x - loom::shift(x, 1); // reads and writes x: every part reads the values from before
                std::vector<float> all = y.to_host();
                for (const loom::vector<float>* v : {&z, &w, &x}) {
                    const std::vector<float> got = v->to_host();
                    all.insert(all.end(), got.begin(), got.end());
                }
                return all;
            };
            const std::vector<float> got = run(group), want = run(one);
            CHECK(got == want);
            // The host's clamped reads, for the first statement.
            for (std::size_t i = 0; i < n; ++i) {
                const auto at = [&](std::int64_t j) {
                    return h[std::size_t(std::clamp<std::int64_t>(j, 0, std::int64_t(n) - 1))];
                };
                CHECK(got[i] == h[i] + 0.5f * (at(std::int64_t(i) - 1) + at(std::int64_t(i) + 3)));
            }
        }
        // 2-D: a grid of rows split anywhere (parts need not hold whole rows: 7 x 5 splits inside a
        // row; 33 x 40 and 64 x 6 into whole rows, which run the stencil as it is and rewrite
        // their borders), each policy.
        for (auto [nx, ny] : {std::pair<std::size_t, std::size_t>{7, 5}, {1, 9}, {16, 1}, {33, 40}, {64, 6}}) {
            CAPTURE(nx);
            CAPTURE(ny);
            const std::size_t n = nx * ny;
            const std::vector<float> h = ramp(n, 1.0f);
            const auto run = [&](loom::context& c) {
                loom::vector<float> u(c, h), v(c, n), p(c, n), q(c, n), r(c, n);
                const auto g = loom::grid(u, nx, ny);
                // The element's index in the vector's numbering, on parts that run the stencil as
                // it is (whole rows) and on the others.
                r = loom::at(g, 0, 1) - 0.5f * loom::cast<float>(loom::index());
                v = u + 0.25f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) -
                                 4.0f * u);
                p = loom::at(g, 1, -2, loom::boundary::wrap) + loom::at(g, -2, 1, loom::boundary::wrap);
                q = loom::at(g, 1, 1, loom::boundary::constant(-3.0f)) *
                    loom::at(g, -1, -1, loom::boundary::constant(2.0f));
                std::vector<float> all = v.to_host();
                for (const loom::vector<float>* w : {&p, &q, &r}) {
                    const std::vector<float> got = w->to_host();
                    all.insert(all.end(), got.begin(), got.end());
                }
                return all;
            };
            CHECK(run(group) == run(one));
        }
    }
}

TEST_CASE("3-D stencils across parts read neighbouring planes from halos: equal to one device, every policy") {
    loom::context one(opencl());
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context group = two_parts(fusion);
        // 3 x 4 x 5 splits inside a plane; 8 x 4 x 6 into whole planes (three a part), which run the
        // stencil as it is and rewrite the plane at each end, but for the read two planes away.
        for (auto [nx, ny, nz] : {std::tuple<std::size_t, std::size_t, std::size_t>{3, 4, 5}, {8, 4, 6}, {2, 2, 1}}) {
            CAPTURE(nx);
            CAPTURE(ny);
            CAPTURE(nz);
            const std::size_t n = nx * ny * nz;
            const std::vector<float> h = ramp(n, 1.0f);
            const auto run = [&](loom::context& c) {
                loom::vector<float> u(c, h), v(c, n), p(c, n), q(c, n);
                const auto g = loom::grid(u, nx, ny, nz);
                v = loom::at(g, -1, 0, 0) + loom::at(g, 1, 0, 0) + loom::at(g, 0, -1, 0) + loom::at(g, 0, 1, 0) +
                    loom::at(g, 0, 0, -1) + loom::at(g, 0, 0, 1) - 6.0f * u;
                p = loom::at(g, 1, -1, 2, loom::boundary::wrap) - loom::cast<float>(loom::index());
                q = loom::at(g, -1, 2, -1, loom::boundary::constant(5.0f)) * loom::at(g, 0, 0, 1, loom::boundary::wrap);
                std::vector<float> all = v.to_host();
                for (const loom::vector<float>* w : {&p, &q}) {
                    const std::vector<float> got = w->to_host();
                    all.insert(all.end(), got.begin(), got.end());
                }
                return all;
            };
            const std::vector<float> got = run(group);
            CHECK(got == run(one));
            // The host's clamped 7-point stencil, for the first statement.
            const auto at = [&](std::size_t i, std::size_t j, std::size_t k, int di, int dj, int dk) {
                const auto moved = [](std::size_t c, int d, std::size_t size) {
                    return std::size_t(std::clamp<std::int64_t>(std::int64_t(c) + d, 0, std::int64_t(size) - 1));
                };
                return h[(moved(k, dk, nz) * ny + moved(j, dj, ny)) * nx + moved(i, di, nx)];
            };
            for (std::size_t k = 0; k < nz; ++k)
                for (std::size_t j = 0; j < ny; ++j)
                    for (std::size_t i = 0; i < nx; ++i)
                        CHECK(got[(k * ny + j) * nx + i] == at(i, j, k, -1, 0, 0) + at(i, j, k, 1, 0, 0) +
                                                                at(i, j, k, 0, -1, 0) + at(i, j, k, 0, 1, 0) +
                                                                at(i, j, k, 0, 0, -1) + at(i, j, k, 0, 0, 1) -
                                                                6.0f * h[(k * ny + j) * nx + i]);
        }
    }
}

TEST_CASE("reductions and scans of stencils across parts: the neighbour reads computed with halos, then reduced") {
    loom::context group = two_parts(), one(opencl());
    // 1-D reads on parts shorter and longer than their halos; a 64 x 6 grid in whole rows a part.
    for (std::size_t n : {std::size_t(3), std::size_t(1001), std::size_t(384)}) {
        CAPTURE(n);
        std::vector<std::int64_t> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = std::int64_t((i * 37) % 101) - 50;
        const auto at = [&](std::int64_t i) {
            return h[std::size_t(std::clamp<std::int64_t>(i, 0, std::int64_t(n) - 1))];
        };
        loom::vector<std::int64_t> x(group, h), y(group, n);
        // Host references: clamped reads.
        std::int64_t sum = 0, largest = std::numeric_limits<std::int64_t>::min(), above = 0, run = 0;
        std::vector<std::int64_t> scanned(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t d = at(std::int64_t(i) + 2) - at(std::int64_t(i) - 1);
            sum += d;
            largest = std::max(largest, at(std::int64_t(i) - 3) * h[i]);
            above += at(std::int64_t(i) + 1) > 20 ? 1 : 0;
            run += d;
            scanned[i] = run;
        }
        CHECK(loom::sum(loom::shift(x, 2) - loom::shift(x, -1)) == sum);
        CHECK(loom::max(loom::shift(x, -3) * x) == largest);
        CHECK(loom::count(loom::shift(x, 1) > std::int64_t(20)) == above);
        loom::inclusive_scan(loom::shift(x, 2) - loom::shift(x, -1), y);
        CHECK(y.to_host() == scanned);
        if (n == 384) { // 2-D, against one device
            const auto on = [&](loom::context& c) {
                loom::vector<std::int64_t> u(c, h), out(c, n);
                const auto g = loom::grid(u, 64, 6);
                loom::exclusive_scan(loom::at(g, 1, -1) + loom::at(g, 0, 2, loom::boundary::wrap), out,
                                     std::int64_t(7));
                std::vector<std::int64_t> got = out.to_host();
                got.push_back(loom::sum(loom::at(g, -1, 1) * loom::at(g, 0, -1)));
                return got;
            };
            CHECK(on(group) == on(one));
        }
    }
}

TEST_CASE("a stencil loop across parts: the 2-D heat equation equals one device's, step by step") {
    const std::size_t nx = 64, ny = 48, n = nx * ny;
    std::vector<float> h(n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) h[i] = (i / nx > ny / 3 && i / nx < ny / 2 && i % nx > nx / 4) ? 1.0f : 0.0f;
    const auto run = [&](loom::context& c) {
        loom::vector<float> u(c, h), next(c, n);
        for (int step = 0; step < 20; ++step) {
            const auto g = loom::grid(u, nx, ny);
            next =
                u + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u);
            loom::swap(u, next);
        }
        return u.to_host();
    };
    loom::context group = two_parts(), one(opencl());
    CHECK(run(group) == run(one));
}

TEST_CASE("halos are cut again only where their vector was written: a coefficient field is exchanged once") {
    // A 1-D diffusion with a coefficient field k read through neighbours every step: u's halos
    // change every step, k's only after k is written: by a statement, a host write, a sort into
    // it, a scan into it, and a new split. Every step equals one device's.
    const std::size_t n = 4099;
    const std::vector<float> h = ramp(n, 1.0f), hk = ramp(n, 0.01f);
    const auto run = [&](loom::context& c, std::vector<std::uint64_t>* syncs) {
        loom::vector<float> u(c, h), next(c, n), k(c, hk);
        std::vector<std::vector<float>> steps;
        for (int step = 0; step < 12; ++step) {
            const std::uint64_t before = c.statistics().host_syncs;
            next = u + 0.1f * ((k + loom::shift(k, 1)) * (loom::shift(u, 1) - u) -
                               (k + loom::shift(k, -1)) * (u - loom::shift(u, -1)));
            loom::swap(u, next);
            steps.push_back(u.to_host());
            if (syncs) syncs->push_back(c.statistics().host_syncs - before);
            switch (step) {
            case 3: k = k * 0.5f + 0.001f; break;
            case 5: k[7] = 0.25f; break;
            case 7: loom::sort(k * -1.0f, k); break;
            case 9: loom::inclusive_scan(loom::where(k > 0.0f, 0.0009765625f, 0.0f), k); break; // exact sums
            case 10:
                if (c.device_count() == 2) c.set_split({0.3, 0.7});
                break;
            default: break;
            }
        }
        return steps;
    };
    loom::context one(opencl());
    const std::vector<std::vector<float>> want = run(one, nullptr);
    for (loom::context& group : part_groups()) {
        CAPTURE(group.device_count());
        std::vector<std::uint64_t> syncs;
        const std::vector<std::vector<float>> got = run(group, &syncs);
        for (std::size_t step = 0; step < want.size(); ++step) {
            CAPTURE(step);
            CHECK(got[step] == want[step]);
        }
        // Through the host (two contexts), a step after k was written waits for k's halos too;
        // a step after one that left k alone waits for u's alone.
        const bool through_host = !group.parts()[0].impl()->device().copies_from(group.parts()[1].impl()->device());
        if (group.device_count() == 2 && through_host) {
            CHECK(syncs[2] == syncs[3]); // k left alone: u's halos alone
            CHECK(syncs[4] > syncs[3]);  // after the statement that wrote k
            CHECK(syncs[6] > syncs[7]);  // after the host write
            CHECK(syncs[8] > syncs[7]);  // after the sort
        }
    }
}

TEST_CASE("LOOM_DEVICE=all opens every device of the backend as the parts of one context") {
    std::size_t opencl_devices = 0;
    bool cuda = false;
    for (const loom::device_description& d : loom::devices()) {
        opencl_devices += d.backend == "opencl";
        cuda = cuda || d.backend == "cuda";
    }
    loom::context_options o = opencl();
    o.device = "all";
    loom::context every(o);
    CHECK(every.device_count() == opencl_devices); // one device: a context of that device
    loom::vector<float> x(every, 1001, 2.0f);
    CHECK(loom::sum(x * x) == doctest::Approx(4.0 * 1001));
    if (!cuda) {
        o.backend = "cuda";
        CHECK_THROWS_AS(loom::context{o}, loom::no_device);
    }
}
