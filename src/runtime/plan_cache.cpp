// The context's plan cache; see plan_cache.hpp.
#include "runtime/plan_cache.hpp"

namespace loom::detail {
namespace {

// Folds one field into a hash (the boost::hash_combine mix, on 64 bits).
void mix(std::size_t& h, std::uint64_t v) { h ^= std::size_t(v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

struct field_hasher {
    std::size_t h;
    void operator()(std::uint32_t v) { mix(h, v); }
    void operator()(bool v) { mix(h, v ? 1 : 0); }
    template <std::size_t N> void operator()(const std::array<std::uint32_t, N>& a) {
        for (std::uint32_t v : a) mix(h, v);
    }
    void operator()(const std::vector<std::uint32_t>& v) {
        mix(h, v.size());
        for (std::uint32_t x : v) mix(h, x);
    }
};

} // namespace

std::size_t plan_cache::key_hash::operator()(const plan_key& k) const {
    field_hasher f{k.index()};
    std::visit([&](const auto& key) { std::apply([&](const auto&... field) { (f(field), ...); }, key.fields()); }, k);
    return f.h;
}

bool plan_cache::key_equal::operator()(const plan_key& a, const plan_key& b) const {
    if (a.index() != b.index()) return false;
    return std::visit(
        [&](const auto& x) { return x.fields() == std::get<std::decay_t<decltype(x)>>(b).fields(); }, a);
}

cached_plan* plan_cache::find() {
    auto it = plans_.find(lookup_);
    return it == plans_.end() ? nullptr : it->second.get();
}

cached_plan& plan_cache::add(std::unique_ptr<cached_plan> made) {
    const std::vector<plan::pass>& passes = made->plan.passes;
    made->kernels.clear();
    for (const plan::pass& p : passes) made->kernels.push_back(&programs_.get(p.kernel, p.summary));
    return *plans_.emplace(lookup_, std::move(made)).first->second;
}

} // namespace loom::detail
