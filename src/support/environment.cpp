// Reading the process environment (environment.hpp): the only getenv in Loom.
#include "support/environment.hpp"

#include <cctype>
#include <cstdlib>
#include <iterator>

namespace loom::environment {
namespace {

// A switch's spellings, the first of each the one messages and docs lead with.
constexpr std::string_view on_words[] = {"on", "1", "true"};
constexpr std::string_view off_words[] = {"off", "0", "false"};

bool same_letters(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// "on (or 1, true)", with "; the default" before the parenthesis closes when it is.
std::string spellings(bool on, bool is_default) {
    const auto& words = on ? on_words : off_words;
    std::string out = std::string(words[0]) + " (or ";
    for (std::size_t i = 1; i < std::size(words); ++i) out += std::string(i > 1 ? ", " : "") + std::string(words[i]);
    return out + (is_default ? "; the default)" : ")");
}

} // namespace

std::optional<std::string> text(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

std::optional<bool> switch_word(std::string_view word) {
    for (std::string_view on : on_words)
        if (same_letters(word, on)) return true;
    for (std::string_view off : off_words)
        if (same_letters(word, off)) return false;
    return std::nullopt;
}

error refusal(const char* name, std::string_view value, std::string_view what, std::string_view advice) {
    return error(std::string(name) + "='" + std::string(value) + "' is not " + std::string(what) + ": " +
                 std::string(advice));
}

bool flag(const char* name, bool fallback, std::string_view what, std::string_view on_means,
          std::string_view off_means) {
    const std::optional<std::string> value = text(name);
    if (!value) return fallback;
    if (const std::optional<bool> on = switch_word(*value)) return *on;
    auto choice = [&](bool on, std::string_view means) {
        return spellings(on, fallback == on) + (means.empty() ? "" : " " + std::string(means));
    };
    throw refusal(name, *value, what, "use " + choice(true, on_means) + ", or " + choice(false, off_means));
}

std::optional<std::uint64_t> whole_number(const char* name, std::uint64_t least, std::uint64_t most,
                                          std::string_view what, std::string_view advice) {
    const std::optional<std::string> value = text(name);
    if (!value) return std::nullopt;
    std::uint64_t n = 0;
    bool number = value->size() <= 18; // 18 digits cannot overflow
    for (char c : *value) {
        number = number && c >= '0' && c <= '9';
        if (number) n = n * 10 + unsigned(c - '0');
    }
    if (!number || n < least || n > most) throw refusal(name, *value, what, advice);
    return n;
}

} // namespace loom::environment
