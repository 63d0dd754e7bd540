// loom::vector as a container: construction, copies and moves, host transfers and element
// access, and the empty vector.
#include "support.hpp"

#include <list>

using namespace loom_test;

TEST_CASE("a vector constructed from a size is zero-filled, from a size and a value is filled with it") {
    loom::vector<float> f(ctx(), 1000);
    loom::vector<std::int8_t> i8(ctx(), 7);
    loom::vector<std::uint64_t> u64(ctx(), 5);
    loom::vector<double> d(ctx(), 3, 0.1);
    loom::vector<std::int16_t> s(ctx(), 4, std::int16_t(-3));
    loom::vector<std::uint32_t> u(ctx(), 2, 4000000000u);
    CHECK(f.size() == 1000);
    CHECK(!f.empty());
    CHECK(f.to_host() == std::vector<float>(1000, 0.0f));
    CHECK(i8.to_host() == std::vector<std::int8_t>(7, 0));
    CHECK(u64.to_host() == std::vector<std::uint64_t>(5, 0));
    CHECK(d.to_host() == std::vector<double>(3, 0.1));
    CHECK(s.to_host() == std::vector<std::int16_t>(4, -3));
    CHECK(u.to_host() == std::vector<std::uint32_t>(2, 4000000000u));
}

TEST_CASE("a vector constructed from a std::vector or an iterator range holds those values") {
    const std::vector<std::int32_t> host = {5, -4, 3, -2, 1};
    const std::list<int> list = {1, 2, 3};
    const double array[] = {0.5, 1.5, 2.5, 3.5};
    loom::vector<std::int32_t> a(ctx(), host);
    loom::vector<std::int32_t> b(ctx(), host.begin() + 1, host.end() - 1);
    loom::vector<double> c(ctx(), list.begin(), list.end()); // converting range
    loom::vector<double> d(ctx(), std::begin(array), std::end(array));
    CHECK(a.size() == 5);
    CHECK(a.to_host() == host);
    CHECK(b.to_host() == std::vector<std::int32_t>{-4, 3, -2});
    CHECK(c.to_host() == std::vector<double>{1.0, 2.0, 3.0});
    CHECK(d.to_host() == std::vector<double>{0.5, 1.5, 2.5, 3.5});
}

TEST_CASE("a copy-constructed vector is an independent device copy") {
    const std::vector<float> host = {1, 2, 3, 4};
    loom::vector<float> a(ctx(), host);
    loom::vector<float> b(a);
    a = a * 10.0f;
    CHECK(b.to_host() == host);
    b += 1.0f;
    CHECK(a.to_host() == std::vector<float>{10, 20, 30, 40});
    CHECK(b.to_host() == std::vector<float>{2, 3, 4, 5});
}

TEST_CASE("a copy taken while statements are pending sees their results, not later ones") {
    loom::vector<std::int32_t> a(ctx(), 4, 1);
    a = a + 1;
    loom::vector<std::int32_t> b(a); // recorded after a = a + 1
    a = a * 5;
    CHECK(b.to_host() == std::vector<std::int32_t>(4, 2));
    CHECK(a.to_host() == std::vector<std::int32_t>(4, 10));
}

TEST_CASE("moving a vector transfers its buffer and leaves the source empty") {
    const std::vector<std::int64_t> host = {7, 8, 9};
    loom::vector<std::int64_t> a(ctx(), host);
    loom::vector<std::int64_t> b(std::move(a));
    CHECK(a.empty());
    CHECK(a.size() == 0);
    CHECK(a.to_host().empty());
    CHECK(b.to_host() == host);
    loom::vector<std::int64_t> c(ctx(), 10);
    c = std::move(b);
    CHECK(b.empty());
    CHECK(c.size() == 3);
    CHECK(c.to_host() == host);
}

TEST_CASE("copy assignment from a vector of another length resizes the target like std::vector") {
    const std::vector<std::uint16_t> big_host = {1, 2, 3, 4, 5, 6};
    loom::vector<std::uint16_t> big(ctx(), big_host);
    loom::vector<std::uint16_t> small(ctx(), 2, std::uint16_t(9));
    small = big;
    CHECK(small.size() == 6);
    CHECK(small.to_host() == big_host);
    big = big * 2;
    CHECK(small.to_host() == big_host); // still independent
    loom::vector<std::uint16_t> empty;
    empty = small;
    CHECK(empty.to_host() == big_host);
    small = loom::vector<std::uint16_t>(); // assigning an empty vector empties the target
    CHECK(small.empty());
}

TEST_CASE("swap exchanges buffers without copying") {
    loom::vector<float> a(ctx(), 3, 1.0f), b(ctx(), 5, 2.0f);
    swap(a, b);
    CHECK(a.to_host() == std::vector<float>(5, 2.0f));
    CHECK(b.to_host() == std::vector<float>(3, 1.0f));
}

TEST_CASE("loom::copy moves data both ways; device to host resizes the host vector") {
    loom::vector<double> v(ctx(), 4);
    const std::vector<double> in = {1.25, -2.5, 3.75, -5.0};
    loom::copy(in, v);
    v = v * 2.0;
    std::vector<double> out = {99.0};
    loom::copy(v, out);
    CHECK(out == std::vector<double>{2.5, -5.0, 7.5, -10.0});
    // A host write after pending statements does not overtake them.
    v = v + 1.0;
    loom::copy(in, v);
    CHECK(v.to_host() == in);
}

TEST_CASE("v[i] reads and writes one element and sees pending statements") {
    loom::vector<std::int32_t> v(ctx(), std::vector<std::int32_t>{10, 20, 30, 40});
    v = v + 1;
    CHECK(std::int32_t(v[2]) == 31);
    v[0] = -5;
    v[3] = v[1];
    const loom::vector<std::int32_t>& cv = v;
    CHECK(cv[0] == -5);
    CHECK(cv[3] == 21);
    v = v * 2; // the written elements take part in later statements
    CHECK(v.to_host() == std::vector<std::int32_t>{-10, 42, 62, 42});
}

TEST_CASE("empty vectors: default-constructed and zero-length vectors transfer nothing and do not fail") {
    loom::vector<float> none;
    CHECK(none.empty());
    CHECK(none.to_host().empty());
    std::vector<float> host = {1.0f};
    loom::copy(none, host);
    CHECK(host.empty());
    loom::copy(std::vector<float>{}, none);
    loom::vector<float> copy_of_none(none);
    CHECK(copy_of_none.empty());

    loom::vector<float> zero(ctx(), 0);
    CHECK(zero.empty());
    zero = zero * 2.0f + 1.0f; // a statement over no elements
    CHECK(zero.to_host().empty());
    loom::vector<float> from_empty(ctx(), std::vector<float>{});
    CHECK(from_empty.to_host().empty());
}
