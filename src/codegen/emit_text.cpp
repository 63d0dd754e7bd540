// The emitter core's lines as text with a given indentation (emit.hpp), for code outside
// codegen that writes kernels of its own around Loom's bodies.
#include <string>
#include <vector>

#include "codegen/emit.hpp"

namespace loom::codegen {
namespace {

std::string indented(const std::string& text, const std::string& indent) {
    std::string s;
    bool line_start = true;
    for (char c : text) {
        if (line_start) s += indent;
        s += c;
        line_start = c == '\n';
    }
    return s;
}

} // namespace

std::string emit_guard(const ir::kernel& k, const dialect& d) {
    source_builder b(d);
    b.enter();
    write_guard(b, k);
    return b.text();
}

std::string emit_values(const ir::kernel& k, const dialect& d, const std::vector<std::uint32_t>& roots,
                        const std::string& indent, const std::string& index) {
    source_builder b(d);
    write_values(b, k, roots, index);
    return indented(b.text(), indent);
}

std::string emit_stores(const ir::kernel& k, const std::string& indent, const std::string& index) {
    source_builder b(opencl_dialect()); // a store is spelled alike in every dialect
    write_stores(b, k, index);
    return indented(b.text(), indent);
}

} // namespace loom::codegen
