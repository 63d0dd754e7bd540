// Cache keys: every field of a kernel's identity changes the key, and the hex form is the
// entry's directory name.
#include <doctest/doctest.h>

#include <set>

#include "cache/cache_test_support.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

TEST_CASE("cache key changes with every identity field") {
    const sample_kernel base = make_sample(1);
    const key k = base.key();
    CHECK(k == base.key()); // deterministic

    std::set<std::string> seen{k.hex()};
    auto check_differs = [&](sample_kernel changed, const char* field) {
        INFO("changed field: " << field);
        CHECK(changed.key() != k);
        CHECK(seen.insert(changed.key().hex()).second);
    };
    sample_kernel s = base;
    s.source += " ";
    check_differs(s, "source");
    s = base;
    s.backend = "cuda";
    check_differs(s, "backend");
    s = base;
    s.device = "pthread-Other CPU";
    check_differs(s, "device");
    s = base;
    s.driver = "PoCL 5.1 test";
    check_differs(s, "driver");
    s = base;
    s.options = "-cl-std=CL1.2 -cl-fast-relaxed-math";
    check_differs(s, "options");
}

TEST_CASE("cache key keeps field boundaries: moving text between fields changes it") {
    const key a = make_key({"src", "opencl", "devA", "1.0", ""});
    const key b = make_key({"src", "opencl", "dev", "A1.0", ""});
    const key c = make_key({"src", "opencl", "devA1.0", "", ""});
    CHECK(a != b);
    CHECK(a != c);
    CHECK(b != c);
}

TEST_CASE("cache key hex is 32 lowercase digits and parses back") {
    const key k = make_sample(7).key();
    const std::string hex = k.hex();
    REQUIRE(hex.size() == 32);
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
    const auto parsed = key_from_hex(hex);
    REQUIRE(parsed);
    CHECK(*parsed == k);
    CHECK(key{0x0123456789abcdefull, 0xfedcba9876543210ull}.hex() == "0123456789abcdeffedcba9876543210");
}

TEST_CASE("key_from_hex rejects names that are not entry names") {
    CHECK_FALSE(key_from_hex(""));
    CHECK_FALSE(key_from_hex("0123456789abcdef0123456789abcde"));   // 31 digits
    CHECK_FALSE(key_from_hex("0123456789abcdef0123456789abcdef0")); // 33 digits
    CHECK_FALSE(key_from_hex("0123456789ABCDEF0123456789abcdef"));  // upper case
    CHECK_FALSE(key_from_hex("README.md"));
    CHECK_FALSE(key_from_hex(".tmp-0123456789abcdef0123456789ab"));
}
