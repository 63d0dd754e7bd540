// The context's one cache of skeleton plans (reductions, scans, reductions along an axis, sorts,
// keyed scans, sparse products): each plan made once per key by its planner (src/skeleton),
// compiled in one step through the program cache, and kept with the device scratch its calls
// reuse. Keys are typed values of small integers (shape ids, operation ids, buffer aliasing), so a repeated call
// generates no source text and hashes none; a plan keeps pointers to its compiled kernels, so a repeated
// call looks nothing up but its key.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "plan/plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/loop/loop_runtime.hpp"
#include "skeleton/plan_reduce.hpp"

namespace loom::detail {

// A reduction's key: input shape, how pass 1 gets its input, the operations, where the results
// go and the geometry's parts that change the text. Bindings: the input's slot classes, or for
// a fused pass 1 the plan key of the flush that planned it.
struct reduce_key {
    std::uint32_t input_shape = 0;
    bool fused = false, truth = false, guarded = false, into_device = false;
    std::uint32_t passes = 1, group = 0;
    std::uint32_t op_count = 0;
    std::array<std::uint32_t, 2> op_shape{}, op_type{};
    std::vector<std::uint32_t> bindings;

    auto fields() const {
        return std::tie(input_shape, fused, truth, guarded, into_device, passes, group, op_count, op_shape, op_type,
                        bindings);
    }
};

// A scan's key. Bindings: the input's slot classes.
struct scan_key {
    std::uint32_t input_shape = 0, op_shape = 0, op_type = 0;
    bool exclusive = false, guarded = false, chunked = false;
    std::uint32_t group = 0;
    std::uint32_t output_class = 0; // the output's class among the input's buffers, or skeleton::no_class
    std::vector<std::uint32_t> bindings;

    auto fields() const {
        return std::tie(input_shape, op_shape, op_type, exclusive, guarded, chunked, group, output_class, bindings);
    }
};

// An axis reduction's key. Bindings: the input's slot classes, then each further value's
// operation shape and type.
struct axis_key {
    std::uint32_t input_shape = 0, axis = 0, form = 0, group = 0, lanes = 0;
    bool guarded = false;
    std::uint32_t op_shape = 0, op_type = 0;
    std::vector<std::uint32_t> bindings;

    auto fields() const {
        return std::tie(input_shape, axis, form, group, lanes, guarded, op_shape, op_type, bindings);
    }
};

// A sort's key: a radix sort's (no comparator: op_shape 0), or a merge sort's, whose plan has a
// merge pass per doubling. Bindings: the input's slot classes.
struct sort_key {
    std::uint32_t input_shape = 0, key_type = 0;
    bool descending = false, guarded = false, chunked = false, whole = false;
    std::uint32_t group = 0, offsets_group = 0, radix_bits = 0;
    std::uint32_t op_shape = 0, merges = 0;
    std::vector<std::uint32_t> carried; // the value vectors' types
    std::vector<std::uint32_t> bindings;

    auto fields() const {
        return std::tie(input_shape, key_type, descending, guarded, chunked, whole, group, offsets_group, radix_bits,
                        op_shape, merges, carried, bindings);
    }
};

// A keyed scan's key. Bindings: the input's slot classes.
struct keyed_scan_key {
    std::uint32_t input_shape = 0, key_type = 0, op_shape = 0, op_type = 0;
    bool exclusive = false, guarded = false;
    bool reduce = false;            // reduce_by_key's plan
    std::uint32_t key_out_type = 0; // reduce_by_key's keys output
    std::uint32_t offsets_group = 0;
    std::uint32_t tile_group = 0; // a keyed scan's single pass's groups, or 0: its three passes
    std::vector<std::uint32_t> bindings;

    auto fields() const {
        return std::tie(input_shape, key_type, op_shape, op_type, exclusive, guarded, reduce, key_out_type,
                        offsets_group, tile_group, bindings);
    }
};

// A merge's key (skeleton::plan_merge): no comparator (op_shape 0: the sort's order, in the
// direction `descending`) or a comparator's.
struct merge_key {
    std::uint32_t key_type = 0, op_shape = 0;
    bool descending = false, guarded = false;
    std::vector<std::uint32_t> carried; // the value vectors' types

    auto fields() const { return std::tie(key_type, op_shape, descending, guarded, carried); }
};

// A stream compaction's key. Bindings: the input's slot classes.
struct compact_key {
    std::uint32_t input_shape = 0, value_type = 0;
    bool guarded = false;
    std::uint32_t offsets_group = 0;
    std::uint32_t tile_group = 0; // the single pass's groups, or 0: the three passes
    std::vector<std::uint32_t> bindings;

    auto fields() const { return std::tie(input_shape, value_type, guarded, offsets_group, tile_group, bindings); }
};

// A block map's key (skeleton::plan_block_map): its traced body, as the context runs it, the
// output's type, and the input it is (in place), if any. Bindings: the body's slot classes.
struct block_map_key {
    std::uint32_t body_shape = 0, output_type = 0, form = 0, in_place = 0;
    bool guarded = false;
    std::vector<std::uint32_t> bindings;

    auto fields() const { return std::tie(body_shape, output_type, form, in_place, guarded, bindings); }
};

// A binary search's key (skeleton::plan_search). Bindings: the input's slot classes (the sorted
// vector's the last).
struct search_key {
    std::uint32_t input_shape = 0, key_type = 0, result_type = 0, bound = 0;
    bool descending = false, guarded = false;
    std::vector<std::uint32_t> bindings;

    auto fields() const { return std::tie(input_shape, key_type, result_type, bound, descending, guarded, bindings); }
};

// A plan with its kernels compiled and the scratch its calls keep.
struct cached_plan {
    plan::plan plan;
    std::vector<backend::kernel*> kernels; // one per pass; owned by the program cache
    // Device scratch, kept between calls: the queue is in order, so the next call's kernels run
    // after the last call's are done with it.
    plan_scratch scratch;
    // Reductions: what their passes are made of, and per pass the variants a loop asks for with
    // its bookkeeping at the end (runtime/reduce_epilogues.cpp), made when a loop first holds it.
    std::unique_ptr<skeleton::reduce_recipe> recipe;
    std::unique_ptr<epilogue_source> epilogues[2];
};

// Hash and equality of a key type, over its fields() in order.
struct skeleton_key_hash {
    template <class Key> std::size_t operator()(const Key& k) const {
        std::size_t h = 0;
        std::apply([&](const auto&... field) { (add(h, field), ...); }, k.fields());
        return h;
    }

private:
    static void mix(std::size_t& h, std::uint64_t v) {
        h ^= std::size_t(v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
    }
    static void add(std::size_t& h, std::uint32_t v) { mix(h, v); }
    static void add(std::size_t& h, bool v) { mix(h, v ? 1 : 0); }
    template <std::size_t N> static void add(std::size_t& h, const std::array<std::uint32_t, N>& a) {
        for (std::uint32_t v : a) mix(h, v);
    }
    static void add(std::size_t& h, const std::vector<std::uint32_t>& v) {
        mix(h, v.size());
        for (std::uint32_t x : v) mix(h, x);
    }
};
struct skeleton_key_equal {
    template <class Key> bool operator()(const Key& a, const Key& b) const { return a.fields() == b.fields(); }
};

class plan_cache {
public:
    explicit plan_cache(cache::program_cache& programs) : programs_(programs) {}

    // The lookup key of a call of this kind, reused so that a hit allocates nothing: fill it
    // in, then find, and on a miss plan and add.
    template <class Key> Key& key() { return table<Key>().lookup; }
    // The plan of the key last filled in, or null.
    template <class Key> cached_plan* find() {
        auto& t = table<Key>();
        auto it = t.plans.find(t.lookup);
        return it == t.plans.end() ? nullptr : it->second.get();
    }
    // Compiles a new plan's passes (the program cache builds or loads each kernel) and keeps it
    // under the key last filled in. A plan whose kernels fail to build is not kept.
    template <class Key> cached_plan& add(std::unique_ptr<cached_plan> made) {
        compile(*made);
        auto& t = table<Key>();
        return *t.plans.emplace(t.lookup, std::move(made)).first->second;
    }

    // The plan of the key last filled in: found, or made by `make()` (a plan::plan), compiled and
    // kept.
    template <class Key, class Make> cached_plan& find_or_plan(Make&& make) {
        if (cached_plan* found = find<Key>()) return *found;
        auto entry = std::make_unique<cached_plan>();
        entry->plan = make();
        return add<Key>(std::move(entry));
    }

private:
    template <class Key> struct keyed {
        Key lookup;
        std::unordered_map<Key, std::unique_ptr<cached_plan>, skeleton_key_hash, skeleton_key_equal> plans;
    };
    template <class Key> keyed<Key>& table() { return std::get<keyed<Key>>(tables_); }
    void compile(cached_plan& p);

    cache::program_cache& programs_;
    std::tuple<keyed<reduce_key>, keyed<scan_key>, keyed<axis_key>, keyed<sort_key>, keyed<keyed_scan_key>,
               keyed<compact_key>, keyed<merge_key>, keyed<block_map_key>, keyed<search_key>>
        tables_;
};

} // namespace loom::detail
