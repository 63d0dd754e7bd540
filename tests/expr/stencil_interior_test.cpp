// Stencil kernels take a work-group's border apart (src/codegen/emit.cpp, interior test):
// a whole group whose neighbours all lie inside reads element i + offset, the others clamp,
// wrap or substitute per element. Offsets shorter than a group, longer than one, and outside
// the data altogether put groups on both sides of the test, as do the partial last groups of
// a vector (1-D groups of 1024) or grid (64 x 4). Every element is compared with the host,
// exactly.
#include "support.hpp"

using loom_test::ctx;

namespace {

enum class policy { clamp, wrap, constant };
constexpr float outside = 7.5f;

std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
    return loom_test::random_values<float>(n, -1.0f, 1.0f, stream);
}

// Element k of v under the policy, for any k.
float host_read(const std::vector<float>& v, long k, policy p) {
    const long n = long(v.size());
    if (k >= 0 && k < n) return v[std::size_t(k)];
    if (p == policy::clamp) return v[std::size_t(k < 0 ? 0 : n - 1)];
    if (p == policy::wrap) return v[std::size_t((k % n + n) % n)];
    return outside;
}

// (x, y) of an nx-wide grid over v under the policy, per dimension.
float host_grid_read(const std::vector<float>& v, long nx, long x, long y, policy p) {
    const long ny = long(v.size()) / nx;
    if (x >= 0 && x < nx && y >= 0 && y < ny) return v[std::size_t(y * nx + x)];
    if (p == policy::constant) return outside;
    auto fix = [&](long k, long size) {
        if (p == policy::clamp) return k < 0 ? 0 : (k >= size ? size - 1 : k);
        return (k % size + size) % size;
    };
    return v[std::size_t(fix(y, ny) * nx + fix(x, nx))];
}

// f(host policy, its name, Loom's policy) for each policy; Loom's are distinct types.
template <class F> void for_each_policy(F f) {
    f(policy::clamp, "clamp", loom::boundary::clamp);
    f(policy::wrap, "wrap", loom::boundary::wrap);
    f(policy::constant, "constant", loom::boundary::constant(outside));
}

} // namespace

TEST_CASE("1-D reads equal the host in interior and border work-groups, for near, far and outside offsets") {
    const long n = 50 * 1024 + 333; // 51 groups of 1024, the last one partial
    const auto hx = random_floats(std::size_t(n), 900);
    loom::vector<float> x(ctx(), hx), y(ctx(), std::size_t(n));
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (long k : {-1L, 1L, -1023L, 1024L, -1500L, 3000L, n - 1, n + 5, -3 * n}) {
            CAPTURE(name);
            CAPTURE(k);
            // Two reads, so the test covers several offsets; the second goes the other way.
            y = loom::shift(x, k, boundary) * 2.0f - loom::shift(x, -k / 2, boundary);
            const auto hy = y.to_host();
            std::size_t wrong = 0;
            for (long i = 0; i < n; ++i)
                wrong += hy[std::size_t(i)] != host_read(hx, i + k, p) * 2.0f - host_read(hx, i - k / 2, p);
            CHECK(wrong == 0);
        }
    });
}

TEST_CASE("2-D reads equal the host in interior and border work-groups, for near, far and outside offsets") {
    // 300 x 70: five groups of 64 across (the last 44 wide), eighteen of 4 down (the last 2 high).
    const long nx = 300, ny = 70;
    const auto hu = random_floats(std::size_t(nx * ny), 901);
    loom::vector<float> u(ctx(), hu), v(ctx(), hu.size());
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    const std::pair<long, long> offsets[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {63, 3}, {-64, -4}, {65, 5}, {-300, 2}, {2, 70}};
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (auto [dx, dy] : offsets) {
            CAPTURE(name);
            CAPTURE(dx);
            CAPTURE(dy);
            // The second read is the first turned a quarter round.
            v = loom::at(g, dx, dy, boundary) - 0.5f * loom::at(g, -dy, dx, boundary);
            const auto hv = v.to_host();
            std::size_t wrong = 0;
            for (long y = 0; y < ny; ++y)
                for (long x = 0; x < nx; ++x)
                    wrong += hv[std::size_t(y * nx + x)] !=
                             host_grid_read(hu, nx, x + dx, y + dy, p) - 0.5f * host_grid_read(hu, nx, x - dy, y + dx, p);
            CHECK(wrong == 0);
        }
    });
}

TEST_CASE("a 2-D launch whose kernel also reads along the vector bounds both reads by the group's elements") {
    const long nx = 130, ny = 37;
    const long n = nx * ny;
    const auto hu = random_floats(std::size_t(n), 902), hw = random_floats(std::size_t(n), 903);
    loom::vector<float> u(ctx(), hu), w(ctx(), hw), out(ctx(), std::size_t(n));
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    // A shift of one row reads the element below; a shift of 70 rows reads past the end.
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (long k : {1L, -1L, nx, -nx, 4 * nx + 3, 70 * nx}) {
            CAPTURE(name);
            CAPTURE(k);
            out = loom::at(g, 1, -1) + loom::shift(w, k, boundary);
            const auto ho = out.to_host();
            std::size_t wrong = 0;
            for (long i = 0; i < n; ++i)
                wrong += ho[std::size_t(i)] !=
                         host_grid_read(hu, nx, i % nx + 1, i / nx - 1, policy::clamp) + host_read(hw, i + k, p);
            CHECK(wrong == 0);
        }
    });
}
