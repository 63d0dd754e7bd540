// The source builder; see source_builder.hpp. Four spaces a level.
#include "codegen/source_builder.hpp"

namespace loom::codegen {

void source_builder::indent() { text_.append(4 * std::size_t(depth_), ' '); }

void source_builder::line(const std::string& text) {
    indent();
    text_ += text;
    text_ += '\n';
}

void source_builder::lines(const std::string& text) {
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t end = text.find('\n', from);
        line(text.substr(from, end == std::string::npos ? std::string::npos : end - from));
        if (end == std::string::npos) break;
        from = end + 1;
    }
}

void source_builder::open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++depth_;
}

void source_builder::open_for(const std::string& init, const std::string& condition, const std::string& step) {
    open("for (" + init + "; " + condition + "; " + step + ")");
}

void source_builder::close(const std::string& tail) {
    --depth_;
    line("}" + tail);
}

void source_builder::next(const std::string& head) {
    --depth_;
    line("} " + head + " {");
    ++depth_;
}

void source_builder::declare(const std::string& type, const std::string& name, const std::string& init) {
    line(type + " " + name + " = " + init + ";");
}

void source_builder::declare_const(const std::string& type, const std::string& name, const std::string& init) {
    line("const " + type + " " + name + " = " + init + ";");
}

std::string buffer_parameter(const dialect& d, const std::string& element, bool written, bool restricted) {
    return std::string(d.global_prefix) + (written ? "" : "const ") + element + " *" +
           (restricted ? d.restrict_keyword : "");
}

} // namespace loom::codegen
