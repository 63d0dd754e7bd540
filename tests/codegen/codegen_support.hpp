// Hand-built kernel IR for the emitter tests: a small builder over ir::kernel whose body
// hash-conses like every IR builder, so a test states a kernel in a few lines.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "codegen/dialect.hpp"
#include "codegen/emit.hpp"
#include "ir/kernel.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

namespace loom_codegen_test {

// NVRTC compiles `source` for sm_80 (where the CUDA toolkit is there at build time): the CUDA
// emitter checked with no GPU.
inline void compiles_with_nvrtc(const std::string& source) {
#ifdef LOOM_HAVE_CUDA
    CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(source, 80));
#else
    (void)source;
#endif
}

using loom::dtype;
using loom::opcode;

class kernel_builder {
public:
    std::uint32_t buffer(dtype t) { return param(loom::ir::param_kind::buffer, t); }
    std::uint32_t scalar_param(dtype t) { return param(loom::ir::param_kind::scalar, t); }

    std::uint32_t load(std::uint32_t p) { return leaf(opcode::load, k_.params[p].type, p); }
    std::uint32_t scalar(std::uint32_t p) { return leaf(opcode::scalar, k_.params[p].type, p); }
    std::uint32_t index() { return leaf(opcode::index, dtype::u64, 0); }
    // The literal 0 a zero neighbour offset is compiled in as (fusion::zero_offset).
    std::uint32_t zero() { return leaf(opcode::index, dtype::i64, std::uint32_t(loom::ir::index_value::zero)); }
    std::uint32_t op(opcode o, dtype t, std::uint32_t a, std::uint32_t b = loom::ir::no_node,
                     std::uint32_t c = loom::ir::no_node) {
        loom::ir::node n{o, t};
        n.arg[0] = a;
        n.arg[1] = b;
        n.arg[2] = c;
        return body_.add(n);
    }
    // A clamped read of buffer p at offset di (and dj on a grid width w): operands are scalar nodes.
    std::uint32_t neighbour(std::uint32_t p, std::uint32_t di, std::uint32_t dj = loom::ir::no_node,
                            std::uint32_t w = loom::ir::no_node) {
        return neighbour(p, loom::boundary_policy::clamp, di, dj, w);
    }
    // The same read with a boundary policy; `value` (a node) is the constant policy's value.
    std::uint32_t neighbour(std::uint32_t p, loom::boundary_policy policy, std::uint32_t di,
                            std::uint32_t dj = loom::ir::no_node, std::uint32_t w = loom::ir::no_node,
                            std::uint32_t value = loom::ir::no_node) {
        return neighbour3(p, policy, di, dj, loom::ir::no_node, w, loom::ir::no_node, value);
    }
    // The same read on a 3-D grid: dk planes away, planes of h rows (scalar nodes).
    std::uint32_t neighbour3(std::uint32_t p, loom::boundary_policy policy, std::uint32_t di, std::uint32_t dj,
                             std::uint32_t dk, std::uint32_t w, std::uint32_t h,
                             std::uint32_t value = loom::ir::no_node) {
        loom::ir::node n{opcode::load_neighbour, k_.params[p].type};
        n.boundary = std::uint8_t(policy);
        n.slot = p;
        n.arg[loom::ir::offset_i] = di;
        n.arg[loom::ir::offset_j] = dj;
        n.arg[loom::ir::grid_width] = w;
        n.arg[loom::ir::offset_k] = dk;
        n.arg[loom::ir::grid_height] = h;
        n.arg[loom::ir::boundary_value] = value;
        return body_.add(n);
    }
    // Any node (one that needs its slot, as a short vector's component read).
    std::uint32_t node(const loom::ir::node& n) { return body_.add(n); }
    // Launch the kernel on the 2-D range of rows as wide as scalar parameter p.
    void grid_launch(std::uint32_t p) { k_.grid_width_param = p; }
    // ... with its 3-D reads' planes scalar parameter p rows high.
    void plane_launch(std::uint32_t p) { k_.grid_height_param = p; }
    // The 1-D form (the launch policy's choice for the device).
    void form(loom::ir::map_form f) { k_.form = f; }
    void store(std::uint32_t p, std::uint32_t value) {
        k_.params[p].written = true;
        k_.stores.push_back({p, value});
    }
    const loom::ir::kernel& kernel() {
        k_.body = body_.nodes();
        return k_;
    }

private:
    std::uint32_t param(loom::ir::param_kind kind, dtype t) {
        k_.params.push_back({kind, t, false});
        return std::uint32_t(k_.params.size() - 1);
    }
    std::uint32_t leaf(opcode o, dtype t, std::uint32_t slot) {
        loom::ir::node n{o, t};
        n.slot = slot;
        return body_.add(n);
    }

    loom::ir::kernel k_;
    loom::ir::node_list body_;
};

inline std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
    return count;
}

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The text from the first `from` on up to the next `to` after it ("" when either is missing).
inline std::string between(const std::string& text, const std::string& from, const std::string& to) {
    const std::size_t begin = text.find(from);
    if (begin == std::string::npos) return "";
    const std::size_t end = text.find(to, begin + from.size());
    return end == std::string::npos ? "" : text.substr(begin, end - begin);
}

// y = a * x + sin(x) over float buffers x (read) and y (written), a a float scalar.
inline loom::ir::kernel saxpy_sin(dtype t = dtype::f32) {
    kernel_builder b;
    const auto x = b.buffer(t), y = b.buffer(t), a = b.scalar_param(t);
    const auto lx = b.load(x);
    const auto v = b.op(opcode::add, t, b.op(opcode::mul, t, b.scalar(a), lx), b.op(opcode::sin, t, lx));
    b.store(y, v);
    return b.kernel();
}

} // namespace loom_codegen_test
