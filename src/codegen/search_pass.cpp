// The binary-search pass emitter; see search_pass.hpp.
#include "codegen/search_pass.hpp"

#include "codegen/combine_op.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/radix_pass.hpp"
#include "codegen/source_builder.hpp"

namespace loom::codegen {

kernel_source emit_search_pass(const search_pass_kernel& s, const dialect& d) {
    const ir::kernel& input = *s.input;
    const lowered_kernel lowered = lower_neighbour_reads(input, {s.root}, neighbour_form::checked);
    const std::string key = type_name(d, s.key), result = type_name(d, s.result), index = d.index_type;

    ir::kernel probe = input; // the pragmas the keys and the output need
    probe.params.push_back({ir::param_kind::buffer, s.key, false});
    probe.params.push_back({ir::param_kind::buffer, s.result, true});
    source_builder b(d);
    b.append(pass_prologue(probe, {}, d));
    write_key_bits(b, s.key);

    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(input, d);
    parameter_layout layout;
    input_layout(input, layout);
    signature += buffer_parameter(d, key, false, true) + "sorted, ";
    layout.push_back({parameter_role::carried, 0});
    signature += buffer_parameter(d, result, true, true) + "out, ";
    layout.push_back({parameter_role::output, 0});
    signature += "unsigned int descending, ";
    layout.push_back({parameter_role::key_order});
    b.open(signature + index + " n, " + index + " count)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    write_guard(b, input);
    b.open_for(index + " i = " + d.global_id, "i < n", "i += " + std::string(d.global_size));
    write_values(b, lowered.kernel, {lowered.node[s.root]}, "i");
    // The value's ordered bits, then the first place whose key is not before it (lower, found)
    // or is after it (upper), by halving [base, base + len) with no branch on the keys: the
    // number of steps depends on `count` alone, so neighbouring work-items (a GPU's warp, the
    // lanes PoCL runs side by side) step together and their reads overlap. A branching search
    // took 1.3x a serial host loop's time at 2^24 keys on this CPU (latency-bound reads, one
    // at a time).
    const std::string goes_before = s.bound == search_bound::upper
                                        ? "!(v < loom_key_bits(sorted[base + step], descending))"
                                        : "loom_key_bits(sorted[base + step], descending) < v";
    b.declare_const(index, "v", "loom_key_bits(" + value_name(lowered.node[s.root]) + ", descending)");
    b.declare(index, "base", "0");
    b.declare(index, "len", "count");
    b.open("while (len > 1)");
    b.declare_const(index, "step", "len / 2");
    b.line("base = (" + goes_before + ") ? base + step : base;");
    b.line("len -= step;");
    b.close();
    const std::string last = s.bound == search_bound::upper ? "!(v < loom_key_bits(sorted[base], descending))"
                                                            : "loom_key_bits(sorted[base], descending) < v";
    b.declare_const(index, "lo", "base + (count > 0 && " + last + " ? 1 : 0)");
    if (s.bound == search_bound::found)
        b.line("out[i] = (" + result + ")(lo < count && loom_key_bits(sorted[lo], descending) == v);");
    else
        b.line("out[i] = (" + result + ")lo;");
    b.close();
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
