// The variants of one pass of a reduction plan that run a loop's bookkeeping at their end, and
// with a rotation the looped variant that runs a batch of iterations (loop/loop_runtime.hpp):
// emitted by the planner (skeleton::reduce_pass_with_epilogue), compiled once per
// (bookkeeping pattern, rotation) through the program cache.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/program_cache.hpp"
#include "runtime/loop/loop_runtime.hpp"
#include "skeleton/plan_reduce.hpp"

namespace loom::detail {

class reduce_epilogues final : public epilogue_source {
public:
    reduce_epilogues(cache::program_cache& programs, const codegen::dialect& dialect,
                     const skeleton::reduce_recipe& recipe, std::uint32_t pass, std::string summary)
        : programs_(programs), dialect_(dialect), recipe_(recipe), pass_(pass), summary_(std::move(summary)) {}

    backend::kernel* with_epilogue(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>& key,
                                   const std::vector<std::uint32_t>* rotation) override;

private:
    // The bookkeeping's plan key, then the rotation; `key_length` says where the one ends.
    struct variant_key {
        bool looped = false;
        std::uint32_t key_length = 0;
        std::vector<std::uint32_t> bindings;
        bool operator==(const variant_key& o) const {
            return looped == o.looped && key_length == o.key_length && bindings == o.bindings;
        }
    };
    struct variant_hash {
        std::size_t operator()(const variant_key& k) const;
    };

    backend::kernel* build(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>* rotation);

    cache::program_cache& programs_;
    const codegen::dialect& dialect_;
    const skeleton::reduce_recipe& recipe_;
    std::uint32_t pass_;
    std::string summary_;
    variant_key lookup_; // its capacity stays: a hit allocates nothing
    std::unordered_map<variant_key, backend::kernel*, variant_hash> variants_;
};

} // namespace loom::detail
