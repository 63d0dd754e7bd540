// Gathering loop_while iterations for one launch; see iteration_batch.hpp.
#include "runtime/loop/iteration_batch.hpp"

#include <cstring>

namespace loom::detail {

namespace {

// Where in `latest` the buffer `b` is: `j` itself when it is there (a buffer no swap moved),
// else the first position naming it; `none` when the latest iteration did not name it.
constexpr std::uint32_t none = 0xFFFFFFFFu;
std::uint32_t position_of(const backend::memory* b, std::size_t j, const std::vector<const backend::memory*>& latest) {
    if (latest[j] == b) return std::uint32_t(j);
    for (std::size_t q = 0; q < latest.size(); ++q)
        if (latest[q] == b) return std::uint32_t(q);
    return none;
}

} // namespace

bool iteration_batch::continues(const std::vector<backend::kernel_arg>& args) const {
    for (std::size_t j = 0; j < args.size(); ++j) {
        const backend::kernel_arg& a = args[j];
        if (!a.buffer) { // a by-value argument: one looped kernel takes it once
            if (first_[j].buffer || a.size != first_[j].size || std::memcmp(a.value, first_[j].value, a.size) != 0)
                return false;
            continue;
        }
        if (!first_[j].buffer) return false;
        // The second iteration fixes the rotation; later ones must follow it.
        if (rotation_.empty() ? position_of(a.buffer, j, latest_) == none : latest_[rotation_[j]] != a.buffer)
            return false;
    }
    return true;
}

bool iteration_batch::add(backend::kernel& k, const std::vector<backend::kernel_arg>& args,
                          const backend::geometry& g) {
    if (count_ == 0) {
        kernel_ = &k;
        geometry_ = g;
        first_ = args;
        values_.assign(args.size(), 0);
        latest_.assign(args.size(), nullptr);
        for (std::size_t j = 0; j < args.size(); ++j) {
            if (args[j].buffer) {
                latest_[j] = args[j].buffer;
            } else {
                std::memcpy(&values_[j], args[j].value, args[j].size);
                first_[j].value = &values_[j];
            }
        }
        count_ = 1;
        return true;
    }
    if (count_ == max_iterations || &k != kernel_ || g.global_items != geometry_.global_items ||
        g.group_size != geometry_.group_size || args.size() != first_.size() || !continues(args))
        return false;
    if (rotation_.empty()) {
        rotation_.assign(args.size(), 0);
        for (std::size_t j = 0; j < args.size(); ++j)
            rotation_[j] = args[j].buffer ? position_of(args[j].buffer, j, latest_) : std::uint32_t(j);
    }
    for (std::size_t j = 0; j < args.size(); ++j) latest_[j] = args[j].buffer;
    ++count_;
    return true;
}

void iteration_batch::clear() {
    kernel_ = nullptr;
    count_ = 0;
    rotation_.clear();
    keep_.clear();
}

} // namespace loom::detail
