// The one way kernel text is written. Lines go out at a depth that blocks open and close,
// so no emitter spells indentation; declarations take the dialect's spelling of types and
// qualifiers. Maps, reduction passes and scan passes all write through it.
#pragma once

#include <string>

#include "codegen/dialect.hpp"

namespace loom::codegen {

class source_builder {
public:
    // `depth`: the level its lines start at, for text another builder appends.
    explicit source_builder(const codegen::dialect& d, unsigned depth = 0) : d_(d), depth_(depth) {}

    const codegen::dialect& dialect() const { return d_; }
    // The dialect's name of an element type.
    const char* type(dtype t) const { return type_name(d_, t); }

    // One line at the current depth.
    void line(const std::string& text);
    // Several lines (from a dialect table): each at the current depth plus its own leading spaces.
    void lines(const std::string& text);
    // "head {" ("{" for an empty head); what follows is one level deeper.
    void open(const std::string& head = "");
    // "for (init; condition; step) {", a block like open's.
    void open_for(const std::string& init, const std::string& condition, const std::string& step);
    // One level out, then "}" and `tail` on its line.
    void close(const std::string& tail = "");
    // "} head {": the block ends and the next (an else branch) opens at the same depth.
    void next(const std::string& head);
    // One level deeper without a line of its own (the block a dialect's multi-line text opened).
    void enter() { ++depth_; }
    unsigned depth() const { return depth_; }

    // "type name = init;", and with const before it.
    void declare(const std::string& type, const std::string& name, const std::string& init);
    void declare(dtype t, const std::string& name, const std::string& init) { declare(type(t), name, init); }
    void declare_const(const std::string& type, const std::string& name, const std::string& init);
    void declare_const(dtype t, const std::string& name, const std::string& init) {
        declare_const(type(t), name, init);
    }

    // Complete lines written elsewhere (a device function of another builder), as they are.
    void append(const std::string& text) { text_ += text; }

    const std::string& text() const { return text_; }

private:
    void indent();

    const codegen::dialect& d_;
    std::string text_;
    unsigned depth_ = 0;
};

// A buffer parameter's type: "__global const float *restrict " (OpenCL) or
// "const float *__restrict__ " (CUDA); read-only buffers are const, and `restricted`
// buffers alias no other parameter.
std::string buffer_parameter(const dialect& d, const std::string& element, bool written, bool restricted);

} // namespace loom::codegen
