// The reduction pass emitter; see reduce_kernel.hpp. Written with the emitter core's
// building blocks and the skeleton dialect table, so it serves OpenCL C and CUDA C++.
#include "skeleton/reduce_kernel.hpp"

#include "codegen/emit.hpp"

namespace loom::skeleton {

std::string emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                             const codegen::dialect& d) {
    const codegen::skeleton_dialect& sd = codegen::skeleton_dialect_for(d);
    std::vector<const combine_op*> ops;
    for (const accumulator& a : acc) ops.push_back(a.op);
    std::string s = skeleton_prologue(in, ops, d);
    for (std::size_t k = 0; k < acc.size(); ++k) s += emit_combine(*acc[k].op, "loom_combine" + std::to_string(k), d, sd);

    auto type = [&](std::size_t k) { return std::string(codegen::type_name(d, acc[k].op->type)); };
    auto call = [&](std::size_t k, const std::string& a, const std::string& b) {
        return combine_call(*acc[k].op, "loom_combine" + std::to_string(k), a, b, "c" + std::to_string(k) + "_");
    };
    const std::string w = std::to_string(group);

    s += std::string(d.kernel_prefix) + " " + codegen::kernel_name + "(" + codegen::emit_parameters(in.kernel, d);
    for (std::size_t k = 0; k < acc.size(); ++k)
        s += std::string(d.global_prefix) + type(k) + " *" + d.restrict_keyword + "out" + std::to_string(k) + ", ";
    for (std::size_t k = 0; k < acc.size(); ++k) s += type(k) + " id" + std::to_string(k) + ", ";
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const std::vector<dtype> captures = capture_types(*acc[k].op);
        for (std::size_t j = 0; j < captures.size(); ++j)
            s += std::string(codegen::type_name(d, captures[j])) + " c" + std::to_string(k) + "_" + std::to_string(j) +
                 ", ";
    }
    s += std::string(d.index_type) + " n) {\n" + codegen::emit_guard(in.kernel);
    for (std::size_t k = 0; k < acc.size(); ++k) {
        s += "    " + std::string(sd.local_array) + " " + type(k) + " s" + std::to_string(k) + "[" + w + "];\n";
        s += "    " + type(k) + " a" + std::to_string(k) + " = id" + std::to_string(k) + ";\n";
    }
    std::vector<std::uint32_t> roots;
    for (const accumulator& a : acc) roots.push_back(a.value);
    s += "    " + std::string(d.stride_loop_head) + "\n";
    s += codegen::emit_values(in.kernel, d, roots, "        ");
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const std::string a = "a" + std::to_string(k);
        s += "        " + a + " = " + call(k, a, codegen::value_name(acc[k].value)) + ";\n";
    }
    s += "    }\n";
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
    s += "    }\n}\n";
    return s;
}

} // namespace loom::skeleton
