// A reduction pass's loop variants; see reduce_epilogues.hpp.
#include "runtime/reduce_epilogues.hpp"

#include "loom/error.hpp"
#include "support/log.hpp"

namespace loom::detail {

std::size_t reduce_epilogues::variant_hash::operator()(const variant_key& k) const {
    std::size_t h = (k.looped ? 1 : 0) ^ (std::size_t(k.key_length) << 1);
    for (std::uint32_t v : k.bindings) h ^= std::size_t(v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
    return h;
}

backend::kernel* reduce_epilogues::with_epilogue(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>& key,
                                                 const std::vector<std::uint32_t>* rotation) {
    lookup_.looped = rotation != nullptr;
    lookup_.bindings.assign(key.begin(), key.end());
    if (rotation) lookup_.bindings.insert(lookup_.bindings.end(), rotation->begin(), rotation->end());
    lookup_.key_length = std::uint32_t(key.size());
    auto it = variants_.find(lookup_);
    if (it != variants_.end()) return it->second;
    backend::kernel* k = build(bookkeeping, rotation);
    variants_.emplace(lookup_, k);
    return k;
}

backend::kernel* reduce_epilogues::build(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>* rotation) {
    const std::string summary = summary_ + ", with a loop's bookkeeping at its end";
    if (!rotation)
        return &programs_.get(skeleton::reduce_pass_with_epilogue(recipe_, pass_, bookkeeping, nullptr, dialect_),
                              summary);
    // A device that rejects the looped variant still runs the batch, a launch an iteration:
    // remembered as null, so it is not tried again.
    try {
        return &programs_.get(skeleton::reduce_pass_with_epilogue(recipe_, pass_, bookkeeping, rotation, dialect_),
                              summary + ", looped over a batch of iterations");
    } catch (const error& e) {
        logging::warn(std::string("loop_while runs its iterations one launch each: ") + e.what());
        return nullptr;
    }
}

} // namespace loom::detail
