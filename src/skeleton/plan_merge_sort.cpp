// The merge sort planner; see plan_sort.hpp.
#include <string>

#include "codegen/merge_pass.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/plan_sort.hpp"

namespace loom::skeleton {
namespace {

enum column : std::uint8_t { run_sort_column, merge_column };

} // namespace

plan::plan plan_merge_sort(const sort_request& r, const codegen::dialect& d) {
    using plan::source;
    input_kernel expression = build_input(*r.input, *r.slot_class, r.key);
    input_kernel runs = partials_input({r.key}); // a merge reads its source's keys
    expression.kernel.guarded = runs.kernel.guarded = r.guarded;
    const std::vector<combine_op> less{combine_of(*r.less)};

    plan::plan p;
    p.scratch.push_back(r.key);
    p.scratch.push_back(r.key);
    for (dtype t : r.carried) {
        p.scratch.push_back(t);
        p.scratch.push_back(t);
    }
    codegen::merge_pass_kernel m;
    m.less = &less[0];
    m.key = r.key;
    m.carried = r.carried;
    auto add = [&](const input_kernel& in, codegen::merge_pass which, std::uint8_t column, const pass_binding& b,
                   std::string summary) {
        m.input = &in.kernel;
        m.root = in.root;
        m.pass = which;
        plan::pass pass;
        pass.kernel = codegen::emit_merge_pass(m, d);
        pass.summary = std::move(summary);
        pass.arguments = pass_arguments(pass.kernel.layout, in, less, b);
        pass.kind = plan::pass_kind::sort;
        pass.sizes = column;
        p.passes.push_back(std::move(pass));
    };
    const auto run = [](std::uint32_t which, std::uint32_t k) { // scratch of run A (0) or B (1): keys, value k
        return plan::argument{source::scratch, k == 0 ? which : 2 + 2 * (k - 1) + which};
    };
    pass_binding sorting;
    sorting.outputs = {run(0, 0), run(1, 0)};
    for (std::uint32_t v = 0; v < r.carried.size(); ++v) {
        sorting.carried.push_back({source::result, 1 + v});
        sorting.outputs.push_back(run(0, 1 + v));
        sorting.outputs.push_back(run(1, 1 + v));
    }
    const std::string shape = " (input shape " + std::to_string(r.input->id) + ")";
    add(expression, codegen::merge_pass::run_sort, run_sort_column, sorting, "merge sort, runs" + shape);
    const unsigned merges = r.merge.merges;
    for (unsigned k = 0; k < merges; ++k) {
        // Merges alternate A -> B -> A ..., the last one into the outputs.
        const std::uint32_t from = k % 2, to = 1 - from;
        const bool last = k + 1 == merges;
        pass_binding b;
        b.input = pass_binding::input_from::given;
        b.given = {run(from, 0)};
        b.pass_constant = k;
        b.outputs = {last ? plan::argument{source::result, 0} : run(to, 0)};
        for (std::uint32_t v = 0; v < r.carried.size(); ++v) {
            b.carried.push_back(run(from, 1 + v));
            b.outputs.push_back(last ? plan::argument{source::result, 1 + v} : run(to, 1 + v));
        }
        add(runs, codegen::merge_pass::merge, merge_column, b,
            "merge sort, merge " + std::to_string(k + 1) + " of " + std::to_string(merges));
    }
    return p;
}

plan::launch_sizes merge_sort_launch(const launch::merge_geometry& g, std::uint64_t n, std::size_t carried) {
    plan::launch_sizes s;
    const auto extent = [](codegen::pass_extent e) { return std::size_t(e); };
    const auto round_up = [&](std::uint64_t items) { return (items + g.group - 1) / g.group * g.group; };
    s.geometry[run_sort_column] = {round_up(g.parts), g.group};
    s.geometry[merge_column] = {round_up((n + g.items - 1) / g.items), g.group};
    for (std::size_t c : {std::size_t(run_sort_column), std::size_t(merge_column)}) {
        s.extents[c][extent(codegen::pass_extent::n)] = n;
        s.extents[c][extent(codegen::pass_extent::chunk)] = g.chunk;
        s.extents[c][extent(codegen::pass_extent::items)] = g.items;
        s.elements[c] = n;
    }
    for (std::size_t k = 0; k < 2 + 2 * carried; ++k) s.scratch_elements[k] = n;
    return s;
}

} // namespace loom::skeleton
