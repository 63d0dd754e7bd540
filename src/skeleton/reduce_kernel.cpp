// The reduction pass emitter; see reduce_kernel.hpp. Written with the emitter core's
// building blocks and the skeleton dialect table, so it serves OpenCL C and CUDA C++.
#include "skeleton/reduce_kernel.hpp"

#include <functional>

#include "codegen/emit.hpp"

namespace loom::skeleton {

namespace {

constexpr int lanes = 8; // accumulators per work-item in the chunked layout

// The values computed per element: the accumulated ones, and what the statements fused
// into the pass store (map-reduce fusion; each element is visited exactly once).
std::vector<std::uint32_t> element_roots(const input_kernel& in, const std::vector<accumulator>& acc) {
    std::vector<std::uint32_t> roots;
    for (const accumulator& a : acc) roots.push_back(a.value);
    for (const ir::kernel_store& st : in.kernel.stores) roots.push_back(st.value);
    return roots;
}

// The per-work-item fold over a contiguous chunk: eight elements a step into eight
// accumulators a<k>_<lane>, the tail into lane 0, then the lanes folded as a tree into a<k>.
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
    s += "    const " + index + " chunk = ((n + threads - 1) / threads + 7) & ~(" + index + ")7;\n";
    s += "    " + index + " i = gid * chunk < n ? gid * chunk : n;\n";
    s += "    const " + index + " last = n - i < chunk ? n : i + chunk;\n";
    for (std::size_t k = 0; k < acc.size(); ++k)
        for (int l = 0; l < lanes; ++l) {
            const std::string t = codegen::type_name(d, acc[k].op->type);
            s += "    " + t + " " + lane(k, l) + " = id" + std::to_string(k) + ";\n";
        }
    s += "    for (; i + 8 <= last; i += 8) {\n";
    for (int l = 0; l < lanes; ++l) s += fold_at("(i + " + std::to_string(l) + ")", l, "        ");
    s += "    }\n    for (; i < last; ++i) {\n" + fold_at("i", 0, "        ") + "    }\n";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        auto pair = [&](int a, int b) { return call(k, lane(k, a), lane(k, b)); };
        s += "    a" + std::to_string(k) + " = " +
             call(k, call(k, pair(0, 1), pair(2, 3)), call(k, pair(4, 5), pair(6, 7))) + ";\n";
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

} // namespace

std::string emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                             bool chunked, const codegen::dialect& d, const ir::kernel* epilogue) {
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

    s += std::string(d.kernel_prefix) + " " + codegen::kernel_name + "(" + codegen::emit_parameters(in.kernel, d);
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
    s += std::string(d.index_type) + " n" + epilogue_params + ") {\n" + codegen::emit_guard(in.kernel);
    for (std::size_t k = 0; k < acc.size(); ++k) {
        s += "    " + std::string(sd.local_array) + " " + type(k) + " s" + std::to_string(k) + "[" + w + "];\n";
        s += "    " + type(k) + " a" + std::to_string(k) + " = id" + std::to_string(k) + ";\n";
    }
    if (chunked) {
        s += chunked_fold(in, acc, group, d, sd, call);
    } else {
        s += "    " + std::string(d.stride_loop_head) + "\n";
        s += codegen::emit_values(in.kernel, d, element_roots(in, acc), "        ");
        s += codegen::emit_stores(in.kernel, "        ");
        for (std::size_t k = 0; k < acc.size(); ++k) {
            const std::string a = "a" + std::to_string(k);
            s += "        " + a + " = " + call(k, a, codegen::value_name(acc[k].value)) + ";\n";
        }
        s += "    }\n";
    }
    s += "    const unsigned int lid = " + std::string(sd.local_id) + ";\n";
    for (std::size_t k = 0; k < acc.size(); ++k) s += "    s" + std::to_string(k) + "[lid] = a" + std::to_string(k) + ";\n";
    s += "    " + std::string(sd.barrier) + "\n";
    s += "    for (unsigned int step = " + std::to_string(group / 2) + "u; step > 0u; step >>= 1) {\n";
    s += "        if (lid < step) {\n";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const std::string sk = "s" + std::to_string(k);
        s += "            " + sk + "[lid] = " + call(k, sk + "[lid]", sk + "[lid + step]") + ";\n";
    }
    s += "        }\n        " + std::string(sd.barrier) + "\n    }\n";
    s += "    if (lid == 0u) {\n";
    for (std::size_t k = 0; k < acc.size(); ++k)
        s += "        out" + std::to_string(k) + "[" + sd.group_id + "] = s" + std::to_string(k) + "[0];\n";
    s += epilogue_call;
    s += "    }\n}\n";
    return s;
}

} // namespace loom::skeleton
