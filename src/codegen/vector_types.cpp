// Short vector types in kernel text; see vector_types.hpp.
#include "codegen/vector_types.hpp"

#include <cstring>

namespace loom::codegen {

const char* component_name(unsigned c) {
    static const char* names[] = {"x", "y", "z", "w"};
    return names[c];
}

std::string vector_value(const dialect& d, dtype t, const std::vector<std::string>& components) {
    std::string s = d.vector_make_prefix ? std::string(d.vector_make_prefix) + type_name(d, t) + "("
                                         : "(" + std::string(type_name(d, t)) + ")(";
    for (std::size_t c = 0; c < components.size(); ++c) s += (c ? ", " : "") + components[c];
    return s + ")";
}

std::string vector_type_definitions(const ir::kernel& k, const dialect& d) {
    bool used[dtype_count] = {};
    for (const ir::node& n : k.body) used[std::size_t(n.type)] = true;
    for (const ir::kernel_param& p : k.params) used[std::size_t(p.type)] = true;
    std::string s;
    for (std::size_t t = 0; t < dtype_count; ++t) {
        if (!used[t] || !is_short_vector(dtype(t))) continue;
        const std::string name = type_name(d, dtype(t));
        if (name.rfind("loom_", 0) != 0) continue; // the dialect's own
        const std::string c = type_name(d, component_dtype(dtype(t)));
        const unsigned width = width_of(dtype(t));
        const std::string guard = name + "_defined";
        s += "#ifndef " + guard + "\n#define " + guard + "\nstruct __align__(16) " + name + " { " + c + " x, y" +
             (width == 4 ? ", z, w" : "") + "; };\n" + d.function_prefix + " " + name + " " + d.vector_make_prefix +
             name + "(" + c + " x, " + c + " y" + (width == 4 ? ", " + c + " z, " + c + " w" : "") + ") {\n    " +
             name + " v;\n";
        for (unsigned l = 0; l < width; ++l)
            s += std::string("    v.") + component_name(l) + " = " + component_name(l) + ";\n";
        s += "    return v;\n}\n#endif\n";
    }
    return s;
}

} // namespace loom::codegen
