// Counting a hand-written kernel's parameters in its source text; see kernel_parameters.hpp.
#include "runtime/kernel_parameters.hpp"

#include <cctype>

namespace loom::detail {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether the declaration that `name` at `at` belongs to (back to the previous statement,
// brace, parenthesis or directive) is a kernel's: it says __global__, __kernel or kernel.
bool declares_kernel(const std::string& source, std::size_t at) {
    const std::size_t start = source.find_last_of(";{}()=#", at);
    const std::string head =
        source.substr(start == std::string::npos ? 0 : start + 1, at - (start == std::string::npos ? 0 : start + 1));
    for (const char* word : {"__global__", "__kernel", "kernel"})
        for (std::size_t p = head.find(word); p != std::string::npos; p = head.find(word, p + 1)) {
            const std::size_t end = p + std::char_traits<char>::length(word);
            if ((p == 0 || !identifier_char(head[p - 1])) && (end == head.size() || !identifier_char(head[end])))
                return true;
        }
    return false;
}

// The parameters of the list opening at `open` ('('), or nullopt when it does not close.
std::optional<std::size_t> count_list(const std::string& source, std::size_t open) {
    int depth = 0;
    std::size_t commas = 0;
    bool anything = false;
    std::string first; // the list's text up to its first comma, to tell (void) apart
    for (std::size_t i = open + 1; i < source.size(); ++i) {
        const char c = source[i];
        if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
        if (c == ')' && depth == 0) {
            if (commas == 0) {
                std::string word;
                for (char f : first)
                    if (!std::isspace(static_cast<unsigned char>(f))) word += f;
                if (word.empty() || word == "void") return std::size_t(0);
            }
            return anything ? commas + 1 : 0;
        }
        if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
        if (depth < 0) return std::nullopt;
        if (c == ',' && depth == 0) ++commas;
        if (commas == 0) first += c;
        anything = anything || !std::isspace(static_cast<unsigned char>(c));
    }
    return std::nullopt;
}

} // namespace

std::optional<std::size_t> parameters_in_source(const std::string& source, const std::string& name) {
    if (name.empty()) return std::nullopt;
    for (std::size_t at = source.find(name); at != std::string::npos; at = source.find(name, at + 1)) {
        const std::size_t end = at + name.size();
        if ((at > 0 && identifier_char(source[at - 1])) || (end < source.size() && identifier_char(source[end])))
            continue;
        std::size_t open = end;
        while (open < source.size() && std::isspace(static_cast<unsigned char>(source[open]))) ++open;
        if (open == source.size() || source[open] != '(' || !declares_kernel(source, at)) continue;
        return count_list(source, open);
    }
    return std::nullopt;
}

} // namespace loom::detail
