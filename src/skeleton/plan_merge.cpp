// The merge planner; see plan_merge.hpp.
#include "skeleton/plan_merge.hpp"

#include "codegen/merge_pass.hpp"
#include "skeleton/pass_arguments.hpp"

namespace loom::skeleton {

plan::plan plan_merge(const merge_request& r, const codegen::dialect& d) {
    using plan::source;
    input_kernel runs = partials_input({r.key, r.key});
    runs.kernel.guarded = r.guarded;
    std::vector<combine_op> less;
    if (r.less) less.push_back(combine_of(*r.less));

    codegen::merge_pass_kernel m;
    m.input = &runs.kernel;
    m.root = runs.root;
    m.pass = codegen::merge_pass::merge_two;
    m.less = r.less ? &less[0] : nullptr;
    m.key = r.key;
    m.carried = r.carried;

    const std::size_t c = r.carried.size();
    const auto input = [&](std::uint32_t i) { return plan::argument{source::result, merge_input(c, i)}; };
    pass_binding b;
    b.input = pass_binding::input_from::given;
    b.given = {input(0), input(1)};
    b.outputs = {plan::argument{source::result, 0}};
    for (std::uint32_t v = 0; v < c; ++v) {
        b.carried.push_back(input(2 + 2 * v));
        b.carried.push_back(input(3 + 2 * v));
        b.outputs.push_back({source::result, 1 + v});
    }
    b.descending = r.descending ? 1 : 0;

    plan::pass pass;
    pass.kernel = codegen::emit_merge_pass(m, d);
    pass.summary = r.less ? "merge by a comparator" : "merge";
    pass.arguments = pass_arguments(pass.kernel.layout, runs, less, b);
    pass.kind = plan::pass_kind::sort;
    plan::plan p;
    p.passes.push_back(std::move(pass));
    return p;
}

plan::launch_sizes merge_launch(const launch::merge_geometry& g, std::uint64_t a_length, std::uint64_t b_length) {
    plan::launch_sizes s;
    const auto extent = [](codegen::pass_extent e) { return std::size_t(e); };
    const std::uint64_t n = a_length + b_length;
    const std::uint64_t items = (n + g.items - 1) / g.items;
    s.geometry[0] = {(items + g.group - 1) / g.group * g.group, g.group};
    s.extents[0][extent(codegen::pass_extent::n)] = n;
    s.extents[0][extent(codegen::pass_extent::chunk)] = a_length;
    s.extents[0][extent(codegen::pass_extent::items)] = g.items;
    s.elements[0] = n;
    return s;
}

} // namespace loom::skeleton
