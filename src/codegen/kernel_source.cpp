// Naming a generated kernel after its own text (kernel_source.hpp).
#include "codegen/kernel_source.hpp"

#include <cstdio>

#include <xxhash.h>

#include "loom/error.hpp"

namespace loom::codegen {

kernel_source name_kernel(std::string body, const dialect& d, std::string header) {
    const std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(";
    const std::size_t at = body.find(signature);
    if (at == std::string::npos) throw error("loom: internal error: a generated kernel has no signature to name");
    char name[24];
    std::snprintf(name, sizeof name, "loom_%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(body.data(), body.size())));
    const std::size_t name_at = at + signature.size() - 1 - std::char_traits<char>::length(unnamed_kernel);
    body.replace(name_at, std::char_traits<char>::length(unnamed_kernel), name);
    return {name, std::move(body), std::move(header), {}};
}

std::vector<std::string> source_functions_in(const std::string& text) {
    const std::string define = std::string("#define ") + source_function_guard;
    const std::size_t hash_suffix = 9; // "_" and 8 hex digits
    std::vector<std::string> names;
    for (std::size_t at = text.find(define); at != std::string::npos; at = text.find(define, at + 1)) {
        const std::size_t first = at + define.size(), end = text.find('\n', first);
        const std::string emitted = text.substr(first, end == std::string::npos ? std::string::npos : end - first);
        if (emitted.size() > hash_suffix) names.push_back(emitted.substr(0, emitted.size() - hash_suffix));
    }
    return names;
}

} // namespace loom::codegen
