// Device memory kept for reuse (src/runtime/memory_pool.hpp): the pool's own rules against a
// counting stand-in for device memory, then through contexts: a loop of temporaries allocates
// only in its first iteration, reused memory gives the values its new vector says (not what it
// held before), work still enqueued on the memory runs before its next use, memory a caller
// holds a handle of is never reused, and kept memory (of any context) is freed before an
// allocation is refused.
// Every value is checked against a host loop.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/context_impl.hpp"
#include "runtime/memory_pool.hpp"

namespace {

using loom::detail::memory_pool;

// Counts its frees.
struct counted_memory final : loom::backend::memory {
    explicit counted_memory(int& freed) : freed_(freed) {}
    ~counted_memory() override { ++freed_; }
    int& freed_;
};

loom::context_options on_opencl() {
    loom::context_options o;
    o.backend = "opencl";
    return o;
}

std::uint64_t reused(const loom::context& c) { return c.statistics().buffers_reused; }
std::uint64_t allocated(const loom::context& c) { return c.statistics().buffers_allocated; }

} // namespace

TEST_CASE("the pool keeps memory up to its capacity, gives it back by exact size, and frees it all on trim") {
    int freed = 0;
    memory_pool pool(1000);
    pool.give(std::make_unique<counted_memory>(freed), 400);
    pool.give(std::make_unique<counted_memory>(freed), 400);
    CHECK(pool.kept() == 800);
    pool.give(std::make_unique<counted_memory>(freed), 400); // past the capacity: freed at once
    CHECK(freed == 1);
    pool.give(std::make_unique<counted_memory>(freed), 0); // nothing to keep
    CHECK(freed == 2);
    CHECK(pool.take(300) == nullptr); // only the exact size
    auto m = pool.take(400);
    CHECK(m != nullptr);
    CHECK(pool.kept() == 400);
    CHECK(freed == 2);
    CHECK(pool.trim() == 400);
    CHECK(freed == 3);
    CHECK(pool.kept() == 0);
    CHECK(pool.take(400) == nullptr);
    m.reset();
    CHECK(freed == 4);
    CHECK(memory_pool::capacity_for(std::uint64_t(1) << 30) == (std::uint64_t(1) << 26));
    CHECK(memory_pool::capacity_for(std::uint64_t(80) << 30) == (std::uint64_t(256) << 20));
}

TEST_CASE("a loop of temporaries and reductions along an axis allocates in its first iteration only") {
    loom::context c(on_opencl());
    const std::size_t rows = 37, cols = 23;
    std::vector<float> hx(cols), ha(rows * cols);
    for (std::size_t j = 0; j < cols; ++j) hx[j] = 0.25f * float(j % 7) - 0.5f;
    for (std::size_t k = 0; k < rows * cols; ++k) ha[k] = float(k % 11) - 5.0f;
    loom::vector<float> x(c, hx), y(c, rows), z(c, rows);
    loom::matrix<float> a(c, rows, cols, ha);
    std::uint64_t allocated_after_first = 0, reused_after_first = 0;
    for (int it = 0; it < 4; ++it) {
        {
            loom::vector<float> t(c, rows); // dies at the end of the iteration
            t = loom::sum(a * loom::as_row(x), loom::axis<1>) * float(it + 1);
            y = t + 1.0f;
        }
        z = loom::sum(a * loom::as_row(x) * loom::as_row(x), loom::axis<1>); // the result adopted
        const std::vector<float> gy = y.to_host(), gz = z.to_host();
        for (std::size_t i = 0; i < rows; ++i) {
            float s = 0, q = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                s += ha[i * cols + j] * hx[j];
                q += ha[i * cols + j] * hx[j] * hx[j];
            }
            CHECK(gy[i] == doctest::Approx(s * float(it + 1) + 1.0f).epsilon(1e-5));
            CHECK(gz[i] == doctest::Approx(q).epsilon(1e-5));
        }
        if (it == 0) {
            allocated_after_first = allocated(c);
            reused_after_first = reused(c);
        }
    }
    CHECK(allocated(c) == allocated_after_first);
    CHECK(reused(c) >= reused_after_first + 3 * 3); // each later iteration: t, and both results
}

TEST_CASE("reused memory holds its new vector's values, after the work still enqueued on it") {
    loom::context c(on_opencl());
    const std::size_t n = 1 << 16;
    std::vector<float> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = float(i % 1000) * 0.5f;
    loom::vector<float> x(c, hx), y(c, n), w(c, n);
    c.finish();
    {
        loom::vector<float> t(c, n, 9.0f);
        t = x * 3.0f + t;
        y = t - 1.0f;
        c.impl()->flush(); // enqueued, not waited for: t's memory goes back with work pending on it
    }
    const std::uint64_t before = reused(c);
    loom::vector<float> zeros(c, n); // t's memory, zero as a new vector is
    loom::vector<float> sevens(c, n, 7.0f);
    w = zeros + sevens * 2.0f;
    std::vector<float> want_y(n);
    for (std::size_t i = 0; i < n; ++i) want_y[i] = hx[i] * 3.0f + 9.0f - 1.0f;
    CHECK(y.to_host() == want_y);
    CHECK(w.to_host() == std::vector<float>(n, 14.0f));
    CHECK(reused(c) > before);
}

TEST_CASE("memory a caller holds a handle of is never reused") {
    loom::context c(on_opencl());
    const std::size_t n = 512;
    {
        loom::vector<float> v(c, n, 1.0f);
        CHECK(v.native_handle().value() != 0);
    }
    const std::uint64_t before = reused(c), made = allocated(c);
    loom::vector<float> u(c, n, 2.0f);
    CHECK(u.to_host() == std::vector<float>(n, 2.0f));
    CHECK(reused(c) == before);
    CHECK(allocated(c) == made + 1);
}

TEST_CASE("kept memory is freed before an allocation is refused for want of room, whichever context keeps it") {
    for (bool other : {false, true}) {
        CAPTURE(other);
        loom::context c(on_opencl()), d(on_opencl()); // one device
        loom::context& asks = other ? d : c;          // the context that needs the room
        loom::backend::device& device = c.impl()->device();
        const std::uint64_t total = device.info().global_memory;
        const std::uint64_t largest = std::min(device.info().max_allocation, total);
        const std::size_t n = 1 << 20; // 4 MiB a vector, well inside a pool's capacity
        const std::uint64_t bytes = n * sizeof(float);
        loom::vector<float> x(c, n, 2.0f);
        {
            loom::vector<float> kept(c, n, 5.0f);
            c.finish();
        }
        const std::uint64_t in_use = device.memory_in_use(); // x and the kept memory
        REQUIRE(in_use >= 2 * bytes);
        // Hold all but half a vector's worth (never written: the driver commits none of it).
        std::vector<std::unique_ptr<loom::backend::memory>> held;
        const std::uint64_t to_hold = total - in_use - bytes / 2;
        for (std::uint64_t left = to_hold; left > 0; left -= std::min(left, largest))
            held.push_back(device.allocate(std::min(left, largest)));
        // A new vector of another size needs new memory: there is room for it only once the kept
        // memory is freed.
        const std::size_t m = n - 1;
        loom::vector<float> a(asks, m, 1.0f);
        a = a * 2.0f + 3.0f;
        CHECK(a.to_host() == std::vector<float>(m, 5.0f));
        CHECK(x.to_host() == std::vector<float>(n, 2.0f));
        held.clear();
    }
}
