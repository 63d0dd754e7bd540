// The registry of source-text device functions (source_function.hpp). Functions are interned:
// the same name, signature, parameter names and body give the same id, so a statement type
// calling it is planned and compiled once however many loom::function objects spell it.
#include "ir/source_function.hpp"

#include <cctype>
#include <cstdio>
#include <deque>
#include <mutex>
#include <unordered_map>

#include <xxhash.h>

#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"

namespace loom::ir {
namespace {

// Never destroyed: a static context's last flush at exit may emit calls after this file's
// statics are gone (as the shape registry).
struct function_registry {
    std::mutex lock;
    std::deque<source_function> functions;
    std::unordered_map<std::string, std::uint32_t> ids; // by definition (identity_of)
};

function_registry& registry() {
    static function_registry& r = *new function_registry;
    return r;
}

// Words the emitted definition could not use as a name: keywords and type names of C, OpenCL C
// and CUDA C++ that may stand where a function or parameter name does.
bool reserved(const std::string& word) {
    static const char* const words[] = {
        "auto",     "bool",     "break",  "case",   "char",   "const",    "constant", "continue", "default",
        "do",       "double",   "else",   "enum",   "extern", "false",    "float",    "for",      "global",
        "goto",     "half",     "if",     "inline", "int",    "kernel",   "local",    "long",     "private",
        "register", "restrict", "return", "short",  "signed", "sizeof",   "static",   "struct",   "switch",
        "true",     "typedef",  "uchar",  "uint",   "ulong",  "union",    "unsigned", "ushort",   "void",
        "volatile", "while",    "class",  "delete", "new",    "template", "this",     "namespace"};
    for (const char* w : words)
        if (word == w) return true;
    return false;
}

// Throws unless `word` is a name Loom can write into a kernel: an identifier, no keyword, and
// clear of the names Loom's own code uses (loom_..., and __ which C reserves).
void check_identifier(const std::string& word, const std::string& function, const char* what) {
    const auto where = [&] { return "loom::function '" + function + "': "; };
    bool ok = !word.empty() && (std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '_');
    for (char c : word) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok)
        throw error(where() + "the " + what + " '" + word +
                    "' is not an identifier; use letters, digits and underscores, starting with a letter");
    if (reserved(word))
        throw error(where() + "the " + what + " '" + word + "' is a keyword or type name of the device language");
    if (word.compare(0, 5, "loom_") == 0 || word.compare(0, 2, "__") == 0)
        throw error(where() + "the " + what + " '" + word +
                    "' starts with loom_ or __, which name Loom's and the compiler's own code");
}

// The definition as one string: the registry's key and the emitted name's hash.
std::string identity_of(const source_function& f) {
    std::string s = f.name + '\0' + char(f.result);
    for (std::size_t p = 0; p < f.params.size(); ++p) s += char(f.params[p]) + f.param_names[p] + '\0';
    return s + f.body;
}

} // namespace

const source_function& source_function_of(std::uint32_t id) {
    function_registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    return r.functions.at(id); // a deque: references stay valid as it grows
}

} // namespace loom::ir

namespace loom::detail {

std::uint32_t source_function_id(const std::string& name, dtype result, const dtype* params,
                                 const std::string* param_names, unsigned count, const std::string& body) {
    ir::source_function f{name, {}, result, {params, params + count}, {param_names, param_names + count}, body};
    ir::check_identifier(name, name, "name");
    if (count == 0 || count > max_source_function_arguments)
        throw error("loom::function '" + name + "': a source function takes 1 to " +
                    std::to_string(max_source_function_arguments) + " arguments; this one declares " +
                    std::to_string(count));
    for (unsigned p = 0; p < count; ++p) {
        ir::check_identifier(param_names[p], name, "parameter name");
        if (param_names[p] == name)
            throw error("loom::function '" + name + "': a parameter has the function's own name");
        for (unsigned q = 0; q < p; ++q)
            if (param_names[q] == param_names[p])
                throw error("loom::function '" + name + "': two parameters are named '" + param_names[p] + "'");
    }
    if (body.find_first_not_of(" \t\r\n") == std::string::npos)
        throw error("loom::function '" + name +
                    "': the body is empty; give the statements of the function, such as "
                    "\"return a * b;\"");
    const std::string identity = ir::identity_of(f);
    ir::function_registry& r = ir::registry();
    std::lock_guard<std::mutex> guard(r.lock);
    auto it = r.ids.find(identity);
    if (it != r.ids.end()) return it->second;
    char hash[12];
    std::snprintf(hash, sizeof hash, "_%08x", unsigned(XXH3_64bits(identity.data(), identity.size())));
    f.emitted = name + hash;
    r.functions.push_back(std::move(f));
    const auto id = std::uint32_t(r.functions.size() - 1);
    r.ids.emplace(identity, id);
    return id;
}

} // namespace loom::detail
