// The reduction pass emitter; see reduce_kernel.hpp. Written with the emitter core's
// building blocks and the skeleton dialect table, so it serves OpenCL C and CUDA C++.
#include "skeleton/reduce_kernel.hpp"

#include <functional>

#include "codegen/emit.hpp"
#include "loom/error.hpp"
#include "skeleton/reduce.hpp"

namespace loom::skeleton {

namespace {

constexpr int lanes = int(chunk_lanes), vector_lanes = 8;

// The values computed per element: the accumulated ones, and what the statements fused
// into the pass store (map-reduce fusion; each element is visited exactly once).
std::vector<std::uint32_t> element_roots(const input_kernel& in, const std::vector<accumulator>& acc) {
    std::vector<std::uint32_t> roots;
    for (const accumulator& a : acc) roots.push_back(a.value);
    for (const ir::kernel_store& st : in.kernel.stores) roots.push_back(st.value);
    return roots;
}

// The per-work-item fold over a contiguous chunk: `lanes` elements a step into as many
// accumulators a<k>_<lane>, the tail into lane 0; then lane l takes lane l + 8 (one vector
// operation) and the eight are folded in order into a<k>. In order, not as a tree: LLVM's
// SLP vectorizer (PoCL) recognises the in-order fold as one horizontal reduction and keeps
// the eight lanes in one vector register; with the tree it split them into 2-wide pieces
// built by element inserts, which made a float min or max markedly slower. reduce_depth
// counts this order.
std::string chunked_fold(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                         const codegen::dialect& d, const codegen::skeleton_dialect& sd,
                         const std::function<std::string(std::size_t, const std::string&, const std::string&)>& call) {
    const std::string index = d.index_type, w = std::to_string(group) + "u";
    const std::vector<std::uint32_t> roots = element_roots(in, acc);
    auto lane = [](std::size_t k, int l) { return "a" + std::to_string(k) + "_" + std::to_string(l); };
    auto fold_at = [&](const std::string& i, int l, const std::string& indent) {
        std::string s = indent + "{\n" + codegen::emit_values(in.kernel, d, roots, indent + "    ", i) +
                        codegen::emit_stores(in.kernel, indent + "    ", i);
        for (std::size_t k = 0; k < acc.size(); ++k)
            s += indent + "    " + lane(k, l) + " = " + call(k, lane(k, l), codegen::value_name(acc[k].value)) + ";\n";
        return s + indent + "}\n";
    };
    std::string s;
    s += "    const " + index + " threads = (" + index + ")" + sd.group_count + " * " + w + ";\n";
    s += "    const " + index + " gid = (" + index + ")" + sd.group_id + " * " + w + " + " + sd.local_id + ";\n";
    const std::string mask = std::to_string(lanes - 1);
    s += "    const " + index + " chunk = ((n + threads - 1) / threads + " + mask + ") & ~(" + index + ")" + mask + ";\n";
    s += "    " + index + " i = gid * chunk < n ? gid * chunk : n;\n";
    s += "    const " + index + " last = n - i < chunk ? n : i + chunk;\n";
    for (std::size_t k = 0; k < acc.size(); ++k)
        for (int l = 0; l < lanes; ++l) {
            const std::string t = codegen::type_name(d, acc[k].op->type);
            s += "    " + t + " " + lane(k, l) + " = id" + std::to_string(k) + ";\n";
        }
    const std::string step = std::to_string(lanes);
    s += "    for (; i + " + step + " <= last; i += " + step + ") {\n";
    for (int l = 0; l < lanes; ++l) s += fold_at("(i + " + std::to_string(l) + ")", l, "        ");
    s += "    }\n    for (; i < last; ++i) {\n" + fold_at("i", 0, "        ") + "    }\n";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        for (int l = vector_lanes; l < lanes; ++l)
            s += "    " + lane(k, l % vector_lanes) + " = " + call(k, lane(k, l % vector_lanes), lane(k, l)) + ";\n";
        std::string folded = lane(k, 0);
        for (int l = 1; l < vector_lanes; ++l) folded = call(k, folded, lane(k, l));
        s += "    a" + std::to_string(k) + " = " + folded + ";\n";
    }
    return s;
}

// The epilogue as a device function of its own (its parameters named as in any kernel),
// the kernel's extra parameters (", T *e0, T e1...") and the call work-item 0 makes.
std::string emit_epilogue(const ir::kernel& k, const codegen::dialect& d, const codegen::skeleton_dialect& sd,
                          std::string& params, std::string& call) {
    std::string signature = codegen::emit_parameters(k, d);
    if (signature.size() >= 2) signature.resize(signature.size() - 2); // the trailing ", "
    std::vector<std::uint32_t> roots;
    for (const ir::kernel_store& st : k.stores) roots.push_back(st.value);
    std::string s = std::string(sd.function_prefix) + " void loom_epilogue(" + signature + ") {\n";
    s += codegen::emit_values(k, d, roots, "    ", "0") + codegen::emit_stores(k, "    ", "0") + "}\n";
    call = "        loom_epilogue(";
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const std::string name = "e" + std::to_string(p);
        const std::string t = codegen::type_name(d, k.params[p].type);
        params += k.params[p].kind == ir::param_kind::buffer ? ", " + std::string(d.global_prefix) + t + " *" + name
                                                             : ", " + t + " " + name;
        call += (p ? ", " : "") + name;
    }
    call += ");\n";
    return s;
}

// A kernel parameter in launch order: its name and, for a buffer, its element type.
struct parameter {
    std::string name;
    std::string element; // empty: passed by value
};

// The pass's parameters as emit_reduce_pass declares them (see reduce_kernel.hpp).
std::vector<parameter> parameter_list(const input_kernel& in, const std::vector<accumulator>& acc,
                                      const ir::kernel* epilogue, const codegen::dialect& d) {
    std::vector<parameter> list;
    auto add = [&](std::string name, bool buffer, dtype t) {
        list.push_back({std::move(name), buffer ? codegen::type_name(d, t) : ""});
    };
    for (std::size_t p = 0; p < in.kernel.params.size(); ++p)
        add("p" + std::to_string(p), in.kernel.params[p].kind == ir::param_kind::buffer, in.kernel.params[p].type);
    if (in.kernel.guarded) add("loom_guard", true, dtype::i32);
    for (std::size_t k = 0; k < acc.size(); ++k) add("out" + std::to_string(k), true, acc[k].op->type);
    for (std::size_t k = 0; k < acc.size(); ++k) add("id" + std::to_string(k), false, acc[k].op->type);
    for (std::size_t k = 0; k < acc.size(); ++k)
        for (std::size_t j = 0; j < capture_types(*acc[k].op).size(); ++j)
            add("c" + std::to_string(k) + "_" + std::to_string(j), false, dtype::f32);
    add("n", false, dtype::u64);
    if (epilogue)
        for (std::size_t p = 0; p < epilogue->params.size(); ++p)
            add("e" + std::to_string(p), epilogue->params[p].kind == ir::param_kind::buffer, epilogue->params[p].type);
    return list;
}

// The end of a looped pass's iteration: parameter j points where parameter rotation[j]
// pointed (loom::swap between iterations), all read before any is written.
std::string rotate_buffers(const std::vector<parameter>& params, const std::vector<std::uint32_t>& rotation,
                           const codegen::dialect& d) {
    if (rotation.size() != params.size())
        throw error("loom: internal error: a loop batch's rotation does not match its kernel's parameters");
    std::string take, put;
    for (std::size_t j = 0; j < params.size(); ++j) {
        const std::uint32_t from = rotation[j];
        if (from == j) continue;
        if (from >= params.size() || params[j].element.empty() || params[j].element != params[from].element)
            throw error("loom: internal error: a loop batch moves a buffer between parameters of different types");
        const std::string r = "r" + std::to_string(j);
        take += "            " + std::string(d.global_prefix) + params[j].element + " *" + r + " = " +
                params[from].name + ";\n";
        put += "            " + params[j].name + " = " + r + ";\n";
    }
    if (take.empty()) return "";
    return "        { // the next iteration's buffers, as loom::swap moved them\n" + take + put + "        }\n";
}

// `text` one level deeper.
std::string indented(const std::string& text) {
    std::string s;
    bool line_start = true;
    for (char c : text) {
        if (line_start) s += "    ";
        s += c;
        line_start = c == '\n';
    }
    return s;
}

} // namespace

std::string emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                             bool chunked, const codegen::dialect& d, const ir::kernel* epilogue,
                             const std::vector<std::uint32_t>* rotation) {
    const codegen::skeleton_dialect& sd = codegen::skeleton_dialect_for(d);
    std::vector<const combine_op*> ops;
    for (const accumulator& a : acc) ops.push_back(a.op);
    std::string s = skeleton_prologue(in, ops, d);
    if (epilogue && codegen::uses_f64(*epilogue)) s += d.prologue_fp64; // a repeated pragma is harmless
    for (std::size_t k = 0; k < acc.size(); ++k) s += emit_combine(*acc[k].op, "loom_combine" + std::to_string(k), d, sd);
    std::string epilogue_params, epilogue_call;
    if (epilogue) s += emit_epilogue(*epilogue, d, sd, epilogue_params, epilogue_call);

    auto type = [&](std::size_t k) { return std::string(codegen::type_name(d, acc[k].op->type)); };
    auto call = [&](std::size_t k, const std::string& a, const std::string& b) {
        return combine_call(*acc[k].op, "loom_combine" + std::to_string(k), a, b, "c" + std::to_string(k) + "_");
    };
    const std::string w = std::to_string(group);
    const bool looped = rotation != nullptr;

    s += std::string(d.kernel_prefix) + " " + codegen::kernel_name + "(" +
         codegen::emit_parameters(in.kernel, d, looped);
    // With an epilogue, which reads the results back, the outputs may alias its parameters.
    for (std::size_t k = 0; k < acc.size(); ++k)
        s += std::string(d.global_prefix) + type(k) + " *" + (epilogue ? "" : d.restrict_keyword) + "out" +
             std::to_string(k) + ", ";
    for (std::size_t k = 0; k < acc.size(); ++k) s += type(k) + " id" + std::to_string(k) + ", ";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const std::vector<dtype> captures = capture_types(*acc[k].op);
        for (std::size_t j = 0; j < captures.size(); ++j)
            s += std::string(codegen::type_name(d, captures[j])) + " c" + std::to_string(k) + "_" + std::to_string(j) +
                 ", ";
    }
    s += std::string(d.index_type) + " n" + epilogue_params + (looped ? ", unsigned int loom_iterations" : "") +
         ") {\n";
    // Work-group arrays at the kernel's outermost scope, as OpenCL C requires.
    for (std::size_t k = 0; k < acc.size(); ++k)
        s += "    " + std::string(sd.local_array) + " " + type(k) + " s" + std::to_string(k) + "[" + w + "];\n";

    // One iteration's work: fold, tree, results (and the bookkeeping) by work-item 0.
    std::string pass;
    for (std::size_t k = 0; k < acc.size(); ++k)
        pass += "    " + type(k) + " a" + std::to_string(k) + " = id" + std::to_string(k) + ";\n";
    if (chunked) {
        pass += chunked_fold(in, acc, group, d, sd, call);
    } else {
        pass += "    " + std::string(d.stride_loop_head) + "\n";
        pass += codegen::emit_values(in.kernel, d, element_roots(in, acc), "        ");
        pass += codegen::emit_stores(in.kernel, "        ");
        for (std::size_t k = 0; k < acc.size(); ++k) {
            const std::string a = "a" + std::to_string(k);
            pass += "        " + a + " = " + call(k, a, codegen::value_name(acc[k].value)) + ";\n";
        }
        pass += "    }\n";
    }
    pass += "    const unsigned int lid = " + std::string(sd.local_id) + ";\n";
    for (std::size_t k = 0; k < acc.size(); ++k)
        pass += "    s" + std::to_string(k) + "[lid] = a" + std::to_string(k) + ";\n";
    pass += "    " + std::string(sd.barrier) + "\n";
    pass += "    for (unsigned int step = " + std::to_string(group / 2) + "u; step > 0u; step >>= 1) {\n";
    pass += "        if (lid < step) {\n";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const std::string sk = "s" + std::to_string(k);
        pass += "            " + sk + "[lid] = " + call(k, sk + "[lid]", sk + "[lid + step]") + ";\n";
    }
    pass += "        }\n        " + std::string(sd.barrier) + "\n    }\n";
    pass += "    if (lid == 0u) {\n";
    for (std::size_t k = 0; k < acc.size(); ++k)
        pass += "        out" + std::to_string(k) + "[" + sd.group_id + "] = s" + std::to_string(k) + "[0];\n";
    pass += epilogue_call;
    pass += "    }\n";

    if (!looped) return s + codegen::emit_guard(in.kernel, d) + pass + "}\n";
    // The batch: iterations back to back in one work-group, each seeing the last one's
    // writes and its bookkeeping (the guard falls uniformly: all read it after the barrier).
    s += "    for (unsigned int loom_it = 0u; loom_it < loom_iterations";
    s += in.kernel.guarded ? " && loom_guard[0] != 0; ++loom_it) {\n" : "; ++loom_it) {\n";
    s += indented(pass) + "        " + sd.global_barrier + "\n";
    s += rotate_buffers(parameter_list(in, acc, epilogue, d), *rotation, d);
    return s + "    }\n}\n";
}

} // namespace loom::skeleton
