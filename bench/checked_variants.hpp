// The variants of a program that times Loom beside its peers on the host or on the same device
// (bench_merge, bench_search): each made and checked once per size, before it is timed; a variant
// that fails to make, run or check is skipped with the reason.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"

namespace bench {

struct checked_instance {
    virtual ~checked_instance() = default;
    virtual void once() = 0; // the timed work, finished
    std::string error;       // why the variant is not timed; empty when it is
};

// Variant `name` at n (its key "<name>/<n>"): made by make() (a std::unique_ptr of a class
// derived from checked_instance), run once (the first run also builds the kernels), then
// check(instance) ("" where the result is right).
template <class Make, class Check>
checked_instance& checked(const std::string& name, std::size_t n, Make make, Check check) {
    const std::string key = name + "/" + std::to_string(n);
    return prepared<checked_instance>(key, [&]() -> checked_instance* {
        struct failed : checked_instance {
            void once() override {}
        };
        std::unique_ptr<checked_instance> kept;
        std::string error;
        try {
            auto p = make();
            p->once();
            error = check(*p);
            kept = std::move(p);
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (!kept) kept = std::make_unique<failed>();
        kept->error = error.empty() ? "" : key + ": " + error;
        return kept.release();
    });
}

// Registers `name` over `sizes`: each run times prepared(n).once() (or skips with its error), then
// sets `counters(state)`.
template <class Prepared, class Counters> void add_checked(const std::string& name, Prepared prepared,
                                                           const std::vector<std::int64_t>& sizes, Counters counters) {
    add(
        name,
        [=](benchmark::State& s) {
            checked_instance& p = prepared(std::size_t(s.range(0)));
            if (!p.error.empty()) {
                s.SkipWithError(p.error.c_str());
                return;
            }
            time_loop(s, [&] { p.once(); });
            counters(s);
        },
        sizes);
}

// Registers `name` over `sizes` for a program whose variants share their inputs: at n, the
// variant is make(inputs_of(n)), checked by check(instance, inputs) ("" where right).
template <class Inputs, class Instance, class Check, class Counters>
void add_variant(const std::string& name, const Inputs& (*inputs_of)(std::size_t),
                 std::unique_ptr<Instance> (*make)(const Inputs&), Check check, const std::vector<std::int64_t>& sizes,
                 Counters counters) {
    add_checked(
        name,
        [=](std::size_t n) -> checked_instance& {
            const Inputs& in = inputs_of(n);
            return checked(
                name, n, [&] { return make(in); }, [&](Instance& p) { return check(p, in); });
        },
        sizes, counters);
}

} // namespace bench
