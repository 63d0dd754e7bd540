// What a library outside Loom keeps per context (loom::fft's plans, made for the context's
// device): held by the context, found by the address of a tag the library owns, and destroyed
// with the context, after its last flush and before its device. The runtime knows nothing of
// the library but this base.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace loom::detail {

class library_state {
public:
    virtual ~library_state() = default;
};

class library_states {
public:
    // The state kept under `tag`, made by `make()` on first use. Callers hold the context's mutex.
    template <class State, class Make> State& get(const void* tag, Make&& make) {
        for (auto& [t, s] : states_)
            if (t == tag) return static_cast<State&>(*s);
        std::unique_ptr<State> made = make();
        State& result = *made;
        states_.emplace_back(tag, std::move(made));
        return result;
    }

private:
    std::vector<std::pair<const void*, std::unique_ptr<library_state>>> states_;
};

} // namespace loom::detail
