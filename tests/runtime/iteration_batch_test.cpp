// iteration_batch without a device: which iterations continue a batch, the rotation it
// learns from loom::swap, and the launches it stands for when run one by one.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "runtime/loop/iteration_batch.hpp"

using loom::backend::kernel_arg;
using loom::detail::iteration_batch;

namespace {

struct fake_memory : loom::backend::memory {};
struct fake_kernel : loom::backend::kernel {};

const loom::backend::geometry one_group{64, 64};

kernel_arg buf(const fake_memory& m) { return {&m, nullptr, 0}; }
kernel_arg val(const std::uint64_t& v) { return {nullptr, &v, sizeof v}; }

} // namespace

TEST_CASE("a batch learns the swap between its first two iterations and follows it") {
    fake_memory a, b, flag;
    fake_kernel k;
    const std::uint64_t n = 4096;
    iteration_batch batch;
    // (u, next, guard, n): u and next swap every iteration.
    CHECK(batch.add(k, {buf(a), buf(b), buf(flag), val(n)}, one_group));
    CHECK(batch.rotation().empty());
    CHECK(batch.add(k, {buf(b), buf(a), buf(flag), val(n)}, one_group));
    CHECK(batch.rotation() == std::vector<std::uint32_t>{1, 0, 2, 3});
    CHECK(batch.add(k, {buf(a), buf(b), buf(flag), val(n)}, one_group));
    // Not the swap the batch follows: refused, and the batch is unchanged.
    CHECK_FALSE(batch.add(k, {buf(a), buf(b), buf(flag), val(n)}, one_group));
    CHECK(batch.size() == 3);

    std::vector<std::vector<const loom::backend::memory*>> seen;
    batch.for_each_iteration([&](const std::vector<kernel_arg>& args) {
        seen.push_back({args[0].buffer, args[1].buffer, args[2].buffer});
        CHECK(*static_cast<const std::uint64_t*>(args[3].value) == n);
    });
    const std::vector<std::vector<const loom::backend::memory*>> expected = {
        {&a, &b, &flag}, {&b, &a, &flag}, {&a, &b, &flag}};
    CHECK(seen == expected);
}

TEST_CASE("a batch refuses another kernel, geometry, host value or buffer, and stops at its size") {
    fake_memory a, b, c;
    fake_kernel k, other;
    std::uint64_t n = 100;
    const std::uint64_t n2 = 200;
    iteration_batch batch;
    CHECK(batch.add(k, {buf(a), val(n)}, one_group));
    n = 7; // the batch copied the first iteration's value: changing the caller's does not matter
    CHECK(*static_cast<const std::uint64_t*>(batch.first_arguments()[1].value) == 100);
    const std::uint64_t n1 = 100;
    CHECK_FALSE(batch.add(other, {buf(a), val(n1)}, one_group));
    CHECK_FALSE(batch.add(k, {buf(a), val(n1)}, {128, 128}));
    CHECK_FALSE(batch.add(k, {buf(a), val(n2)}, one_group));
    CHECK_FALSE(batch.add(k, {buf(c), val(n1)}, one_group)); // a buffer the batch never named
    CHECK_FALSE(batch.add(k, {val(n1), buf(a)}, one_group)); // a value where a buffer was
    CHECK(batch.size() == 1);
    while (batch.size() < iteration_batch::max_iterations) CHECK(batch.add(k, {buf(a), val(n1)}, one_group));
    CHECK_FALSE(batch.add(k, {buf(a), val(n1)}, one_group));
    batch.clear();
    CHECK(batch.empty());
    CHECK(batch.add(k, {buf(b), val(n2)}, one_group)); // an empty batch takes anything
}

TEST_CASE("a buffer named twice keeps its place; a three-way rotation is learnt whole") {
    fake_memory p, u, v, flag;
    fake_kernel k;
    iteration_batch batch;
    // (prev, u, next, guard, flag again as the bookkeeping's argument)
    CHECK(batch.add(k, {buf(p), buf(u), buf(v), buf(flag), buf(flag)}, one_group));
    CHECK(batch.add(k, {buf(u), buf(v), buf(p), buf(flag), buf(flag)}, one_group));
    CHECK(batch.rotation() == std::vector<std::uint32_t>{1, 2, 0, 3, 4});
    CHECK(batch.add(k, {buf(v), buf(p), buf(u), buf(flag), buf(flag)}, one_group));
}
