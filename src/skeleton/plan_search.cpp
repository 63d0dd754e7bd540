// The binary-search planner; see plan_search.hpp.
#include "skeleton/plan_search.hpp"

#include "skeleton/pass_arguments.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

plan::plan plan_search(const search_request& r, const codegen::dialect& d) {
    using plan::source;
    input_kernel in = build_input(*r.input, *r.slot_class, r.key);
    in.kernel.guarded = r.guarded;
    codegen::search_pass_kernel s;
    s.input = &in.kernel;
    s.root = in.root;
    s.key = r.key;
    s.result = r.result;
    s.bound = r.bound;
    pass_binding b;
    b.outputs = {plan::argument{source::result, 0}};
    b.carried = {plan::argument{source::slot_buffer, std::uint32_t(r.input->slots.size() - 1)}};
    b.descending = r.descending ? 1 : 0;
    plan::pass pass;
    pass.kernel = codegen::emit_search_pass(s, d);
    pass.summary = r.bound == codegen::search_bound::lower   ? "lower_bound"
                   : r.bound == codegen::search_bound::upper ? "upper_bound"
                                                             : "binary_search";
    pass.arguments = pass_arguments(pass.kernel.layout, in, {}, b);
    pass.kind = plan::pass_kind::sort;
    plan::plan p;
    p.passes.push_back(std::move(pass));
    return p;
}

} // namespace loom::skeleton
