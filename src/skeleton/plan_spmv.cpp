// The sparse matrix-vector product's planner; see plan_spmv.hpp.
#include "skeleton/plan_spmv.hpp"

#include <string>

#include "codegen/spmv_pass.hpp"

namespace loom::skeleton {

plan::plan plan_spmv(const spmv_request& r, const codegen::dialect& d) {
    codegen::spmv_kernel k;
    k.value = r.value;
    k.index = r.index;
    k.guarded = r.guarded;
    k.lanes = r.lanes;
    k.group = r.group;
    k.balanced = r.balanced;
    plan::pass pass;
    pass.kernel = codegen::emit_spmv_pass(k, d);
    pass.summary = std::string("sparse matrix-vector product (") + type_name(d, r.value) + " values, " +
                   type_name(d, r.index) + " indices, " +
                   (r.lanes > 1  ? std::to_string(r.lanes) + " lanes a row)"
                    : r.balanced ? "runs of equal entries)"
                                 : "rows per work-item)");
    pass.kind = plan::pass_kind::spmv;
    for (const codegen::parameter& p : pass.kernel.layout) {
        plan::argument a;
        switch (p.role) {
        case codegen::parameter_role::input: a = {plan::source::slot_buffer, p.index}; break;
        case codegen::parameter_role::output: a = {plan::source::result, p.index}; break;
        case codegen::parameter_role::guard: a = {plan::source::guard}; break;
        default: a = {plan::source::extent, p.index}; break; // n, chunk
        }
        pass.arguments.push_back(a);
    }
    plan::plan p;
    p.passes.push_back(std::move(pass));
    return p;
}

plan::launch_sizes spmv_launch(const launch::spmv_geometry& g, std::uint64_t rows, std::uint64_t nonzeros) {
    plan::launch_sizes s;
    const std::uint64_t rows_per_group = g.lanes > 1 ? g.group / g.lanes : g.group;
    const std::uint64_t launched = (g.items + rows_per_group - 1) / rows_per_group * g.group;
    s.geometry[0] = {launched, g.group};
    s.extents[0][std::size_t(codegen::pass_extent::n)] = rows;
    s.extents[0][std::size_t(codegen::pass_extent::chunk)] = g.chunk;
    s.extents[0][std::size_t(codegen::pass_extent::entries)] = nonzeros;
    s.elements[0] = rows;
    return s;
}

} // namespace loom::skeleton
