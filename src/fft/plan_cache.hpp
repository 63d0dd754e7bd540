// A context's FFT plans, one per transform (kind, precision, rank, extents), kept with the
// context (runtime/library_state.hpp) so that repeated transforms of one size plan once and a
// context's plans go with it.
#pragma once

#include <map>
#include <memory>

#include "fft/library_plan.hpp"
#include "loom/detail/runtime.hpp"
#include "runtime/library_state.hpp"

namespace loom::fourier {

class plan_cache : public detail::library_state {
public:
    // The plan of `t`, made by `make()` on first use. Callers hold the context's mutex.
    template <class Make> library_plan& get(const transform& t, Make&& make, bool& made) {
        auto found = plans_.find(t);
        made = found == plans_.end();
        if (made) found = plans_.emplace(t, make()).first;
        return *found->second;
    }
    std::size_t size() const { return plans_.size(); }

private:
    std::map<transform, std::unique_ptr<library_plan>> plans_;
};

// How many plans `ctx` holds (fft.cpp): what tests read to see that a size is planned once.
std::size_t plans_held(detail::context_impl& ctx);

} // namespace loom::fourier
