// The sort planner; see plan_sort.hpp.
#include "skeleton/plan_sort.hpp"

#include <string>

#include "codegen/radix_pass.hpp"
#include "skeleton/pass_arguments.hpp"

namespace loom::skeleton {
namespace {

enum column : std::uint8_t { count_column, offsets_column, scatter_column };

unsigned digits_of(const sort_request& r) { return size_of(r.key) * 8 / r.geometry.radix_bits; }

} // namespace

plan::plan plan_sort(const sort_request& r, const codegen::dialect& d) {
    using plan::source;
    const launch::sort_geometry& g = r.geometry;
    input_kernel expression = build_input(*r.input, *r.slot_class, r.key);
    input_kernel moved = partials_input({r.key}); // a digit after the first reads the keys moved
    input_kernel counts = partials_input({dtype::u64});
    for (input_kernel* in : {&expression, &moved, &counts}) in->kernel.guarded = r.guarded;

    plan::plan p;
    p.scratch.push_back(dtype::u64);
    p.scratch.push_back(r.key);
    for (dtype t : r.carried) p.scratch.push_back(t);

    codegen::radix_pass_kernel k;
    k.key = r.key;
    k.radix_bits = g.radix_bits;
    k.carried = r.carried;
    k.chunked = g.chunked;
    auto add = [&](const input_kernel& in, codegen::radix_pass which, std::uint8_t column, const pass_binding& b,
                   std::string summary) {
        k.input = &in.kernel;
        k.root = in.root;
        k.pass = which;
        k.group = which == codegen::radix_pass::offsets ? g.offsets_group : g.group;
        plan::pass pass;
        pass.kernel = codegen::emit_radix_pass(k, d);
        pass.summary = std::move(summary);
        pass.arguments = pass_arguments(pass.kernel.layout, in, {}, b);
        pass.kind = plan::pass_kind::sort;
        pass.sizes = column;
        p.passes.push_back(std::move(pass));
    };
    const std::string shape = " (input shape " + std::to_string(r.input->id) + ")";
    const unsigned digits = digits_of(r);
    if (g.whole) {
        // Keys and values through the scratch copies (carried) to the outputs, in one pass.
        pass_binding b;
        b.descending = r.descending ? 1 : 0;
        b.outputs = {plan::argument{source::result, 0}};
        b.carried = {plan::argument{source::scratch, 1}};
        for (std::uint32_t v = 0; v < r.carried.size(); ++v) {
            b.outputs.push_back({source::result, 1 + v});
            b.carried.push_back({source::scratch, 2 + v});
        }
        add(expression, codegen::radix_pass::whole, count_column, b,
            "sort, " + std::to_string(digits) + " digits in one work-item" + shape);
        return p;
    }
    for (unsigned digit = 0; digit < digits; ++digit) {
        // Even digits write the scratch copies, odd ones the outputs; each reads what the one
        // before wrote (the first, the input and the value vectors in place).
        const bool first = digit == 0, to_output = digit % 2 == 1;
        const std::string which = "sort digit " + std::to_string(digit + 1) + " of " + std::to_string(digits);
        pass_binding b;
        b.totals = b.offsets = 0;
        b.pass_constant = digit * g.radix_bits;
        b.descending = r.descending ? 1 : 0;
        if (!first) {
            b.input = pass_binding::input_from::given;
            b.given = {to_output ? plan::argument{source::scratch, 1} : plan::argument{source::result, 0}};
        }
        b.outputs = {to_output ? plan::argument{source::result, 0} : plan::argument{source::scratch, 1}};
        for (std::uint32_t v = 0; v < r.carried.size(); ++v) {
            const plan::argument scratch{source::scratch, 2 + v}, result{source::result, 1 + v};
            b.carried.push_back(to_output ? scratch : result);
            b.outputs.push_back(to_output ? result : scratch);
        }
        const input_kernel& in = first ? expression : moved;
        add(in, codegen::radix_pass::count, count_column, b, which + ", counts" + (first ? shape : ""));
        pass_binding offsets;
        offsets.input = pass_binding::input_from::scratch;
        offsets.partials = {0};
        add(counts, codegen::radix_pass::offsets, offsets_column, offsets, which + ", offsets");
        add(in, codegen::radix_pass::scatter, scatter_column, b, which + ", scatter" + (first ? shape : ""));
    }
    return p;
}

plan::launch_sizes sort_launch(const launch::sort_geometry& g, std::uint64_t n, std::size_t carried) {
    plan::launch_sizes s;
    const auto extent = [](codegen::pass_extent e) { return std::size_t(e); };
    for (std::size_t c : {std::size_t(count_column), std::size_t(scatter_column)}) {
        s.geometry[c] = {g.groups * g.group, g.group};
        s.extents[c][extent(codegen::pass_extent::n)] = n;
        s.extents[c][extent(codegen::pass_extent::chunk)] = g.chunk;
        s.extents[c][extent(codegen::pass_extent::parts)] = g.parts;
        s.elements[c] = n;
    }
    if (g.whole) { // one work-item, one pass; the counts' scratch is unused
        s.geometry[count_column] = {1, 1};
        s.scratch_elements[0] = 1;
        s.scratch_elements[1] = n;
        for (std::size_t v = 0; v < carried; ++v) s.scratch_elements[2 + v] = n;
        return s;
    }
    const std::uint64_t counts = g.parts << g.radix_bits;
    s.geometry[offsets_column] = {g.offsets_group, g.offsets_group};
    s.extents[offsets_column][extent(codegen::pass_extent::n)] = counts;
    s.extents[offsets_column][extent(codegen::pass_extent::chunk)] = g.offsets_chunk;
    s.extents[offsets_column][extent(codegen::pass_extent::parts)] = g.parts;
    s.elements[offsets_column] = counts;
    s.scratch_elements[0] = counts;
    s.scratch_elements[1] = n;
    for (std::size_t v = 0; v < carried; ++v) s.scratch_elements[2 + v] = n;
    return s;
}

} // namespace loom::skeleton
