// The reduction pass emitter; see reduce_pass.hpp. The emitter core writes the element's
// values, the source builder every line, so it serves OpenCL C and CUDA C++.
#include "codegen/reduce_pass.hpp"

#include <functional>

#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"
#include "loom/error.hpp"

namespace loom::codegen {
namespace {

// The lanes the chunked fold ends in: one vector register of them.
constexpr unsigned vector_lanes = 8;

std::string lane(std::size_t k, unsigned l) { return "a" + std::to_string(k) + "_" + std::to_string(l); }

// What the pass writes and how it names it.
struct pass_text {
    const reduce_pass_kernel& pass;
    ir::kernel input;                  // the pass's input, its neighbour reads lowered
    std::vector<std::uint32_t> folded; // per accumulator, the node of `input` it folds
    std::vector<std::uint32_t> roots;  // the values computed per element

    std::string type(const source_builder& b, std::size_t k) const { return b.type(pass.accumulators[k].op->type); }
    // op_k(a, b), captures passed as c<k>_0, c<k>_1, ...
    std::string call(std::size_t k, const std::string& a, const std::string& b) const {
        return accumulator_call(*pass.accumulators[k].op, k, a, b);
    }
};

// The values computed per element: the accumulated ones, and what the statements fused into
// the pass store (map-reduce fusion; each element is visited exactly once).
pass_text text_of(const reduce_pass_kernel& pass) {
    std::vector<std::uint32_t> roots;
    for (const accumulator& a : pass.accumulators) roots.push_back(a.value);
    ir::append_store_nodes(*pass.input, roots);
    lowered_kernel lowered = lower_neighbour_reads(*pass.input, roots, neighbour_form::checked);
    pass_text t{pass, std::move(lowered.kernel), {}, {}};
    for (const accumulator& a : pass.accumulators) t.folded.push_back(lowered.node[a.value]);
    for (std::uint32_t r : roots) t.roots.push_back(lowered.node[r]);
    return t;
}

// One element's values and stores, then each accumulator `into(k)` folds its value.
void fold_element(source_builder& b, const pass_text& t, const std::string& index,
                  const std::function<std::string(std::size_t)>& into) {
    write_values(b, t.input, t.roots, index);
    write_stores(b, t.input, index);
    for (std::size_t k = 0; k < t.pass.accumulators.size(); ++k)
        b.line(into(k) + " = " + t.call(k, into(k), value_name(t.folded[k])) + ";");
}

// Elements a work-item of the grid-stride fold loads before it folds them (stride_fold).
constexpr unsigned stride_batch = 4;

// The grid-stride fold (GPUs): elements i, i + G, i + 2G, ... of the work-item, stride_batch of
// them loaded (their values computed, their stores written) before any is folded, then folded
// in order into the one accumulator, so the order, and the result, are those of a fold one
// element at a time. With one element a step the fold waited for each load before the next
// (the compiler does not unroll it): one load in flight per warp, too few to keep a GPU's
// memory busy (docs/skeleton-reduce.md).
void stride_fold(source_builder& b, const pass_text& t) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type, batch = std::to_string(stride_batch);
    const std::size_t count = t.pass.accumulators.size();
    b.open();
    b.declare(index, "i", d.global_id);
    b.declare_const(index, "loom_stride", d.global_size);
    b.open_for("", "i + " + std::to_string(stride_batch - 1) + " * loom_stride < n",
               "i += " + batch + " * loom_stride");
    auto loaded = [](std::size_t k, unsigned l) { return "r" + std::to_string(k) + "_" + std::to_string(l); };
    for (std::size_t k = 0; k < count; ++k) {
        std::string names;
        for (unsigned l = 0; l < stride_batch; ++l) names += (l ? ", " : "") + loaded(k, l);
        b.line(t.type(b, k) + " " + names + ";");
    }
    for (unsigned l = 0; l < stride_batch; ++l) {
        b.open();
        const std::string at = l == 0 ? "i" : "(i + " + std::to_string(l) + " * loom_stride)";
        write_values(b, t.input, t.roots, at);
        write_stores(b, t.input, at);
        for (std::size_t k = 0; k < count; ++k) b.line(loaded(k, l) + " = " + value_name(t.folded[k]) + ";");
        b.close();
    }
    for (unsigned l = 0; l < stride_batch; ++l)
        for (std::size_t k = 0; k < count; ++k) {
            const std::string a = "a" + std::to_string(k);
            b.line(a + " = " + t.call(k, a, loaded(k, l)) + ";");
        }
    b.close();
    b.open_for("", "i < n", "i += loom_stride");
    fold_element(b, t, "i", [](std::size_t k) { return "a" + std::to_string(k); });
    b.close();
    b.close();
}

// The per-work-item fold over a contiguous chunk: `lanes` elements a step into as many
// accumulators a<k>_<lane>, the tail into lane 0; then lane l takes lane l + 8 (one vector
// operation) and the eight are folded in order into a<k>. In order, not as a tree: LLVM's
// SLP vectorizer (PoCL) recognises the in-order fold as one horizontal reduction and keeps
// the eight lanes in one vector register; with the tree it split them into 2-wide pieces
// built by element inserts, which made a float min or max markedly slower. The reduction
// skeleton's error bound (reduce_depth) counts this order.
void chunked_fold(source_builder& b, const pass_text& t) {
    const reduce_pass_kernel& pass = t.pass;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(pass.group) + "u";
    b.declare_const(index, "threads", "(" + index + ")" + d.group.group_count + " * " + w);
    b.declare_const(index, "gid", "(" + index + ")" + d.group.group_id + " * " + w + " + " + d.group.local_id);
    const std::string mask = std::to_string(pass.lanes - 1);
    b.declare_const(index, "chunk", "((n + threads - 1) / threads + " + mask + ") & ~(" + index + ")" + mask);
    b.declare(index, "i", "gid * chunk < n ? gid * chunk : n");
    b.declare_const(index, "last", "n - i < chunk ? n : i + chunk");
    for (std::size_t k = 0; k < pass.accumulators.size(); ++k)
        for (unsigned l = 0; l < pass.lanes; ++l) b.declare(t.type(b, k), lane(k, l), "id" + std::to_string(k));
    const std::string step = std::to_string(pass.lanes);
    b.open_for("", "i + " + step + " <= last", "i += " + step);
    for (unsigned l = 0; l < pass.lanes; ++l) {
        b.open();
        fold_element(b, t, "(i + " + std::to_string(l) + ")", [&](std::size_t k) { return lane(k, l); });
        b.close();
    }
    b.close();
    b.open_for("", "i < last", "++i");
    b.open();
    fold_element(b, t, "i", [&](std::size_t k) { return lane(k, 0); });
    b.close();
    b.close();
    for (std::size_t k = 0; k < pass.accumulators.size(); ++k) {
        for (unsigned l = vector_lanes; l < pass.lanes; ++l)
            b.line(lane(k, l % vector_lanes) + " = " + t.call(k, lane(k, l % vector_lanes), lane(k, l)) + ";");
        std::string folded = lane(k, 0);
        for (unsigned l = 1; l < vector_lanes; ++l) folded = t.call(k, folded, lane(k, l));
        b.line("a" + std::to_string(k) + " = " + folded + ";");
    }
}

// The epilogue as a device function of its own (its parameters named as in any kernel).
std::string epilogue_function(const ir::kernel& k, const dialect& d) {
    std::string signature = emit_parameters(k, d);
    if (signature.size() >= 2) signature.resize(signature.size() - 2); // the trailing ", "
    source_builder b(d);
    b.open(std::string(d.function_prefix) + " void loom_epilogue(" + signature + ")");
    std::vector<std::uint32_t> roots;
    ir::append_store_nodes(k, roots);
    write_body(b, lower_neighbour_reads(k, roots, neighbour_form::checked).kernel, "0");
    b.close();
    return b.text();
}

// A kernel parameter in launch order: its name and, for a buffer, its element type.
struct parameter {
    std::string name;
    std::string element; // empty: passed by value
};

// The pass's parameters as emit_reduce_pass declares them (see reduce_pass.hpp).
std::vector<parameter> parameter_list(const reduce_pass_kernel& pass, const dialect& d) {
    std::vector<parameter> list;
    auto add = [&](std::string name, bool buffer, dtype t) {
        list.push_back({std::move(name), buffer ? type_name(d, t) : ""});
    };
    const ir::kernel& in = *pass.input;
    for (std::size_t p = 0; p < in.params.size(); ++p)
        add("p" + std::to_string(p), in.params[p].kind == ir::param_kind::buffer, in.params[p].type);
    if (in.guarded) add("loom_guard", true, dtype::i32);
    const std::vector<accumulator>& acc = pass.accumulators;
    for (std::size_t k = 0; k < acc.size(); ++k) add("out" + std::to_string(k), true, acc[k].op->type);
    for (std::size_t k = 0; k < acc.size(); ++k) add("id" + std::to_string(k), false, acc[k].op->type);
    for (std::size_t k = 0; k < acc.size(); ++k)
        for (std::size_t j = 0; j < capture_types(*acc[k].op).size(); ++j)
            add("c" + std::to_string(k) + "_" + std::to_string(j), false, dtype::f32);
    add("n", false, dtype::u64);
    if (pass.epilogue)
        for (std::size_t p = 0; p < pass.epilogue->params.size(); ++p)
            add("e" + std::to_string(p), pass.epilogue->params[p].kind == ir::param_kind::buffer,
                pass.epilogue->params[p].type);
    return list;
}

// The end of a looped pass's iteration: parameter j points where parameter rotation[j]
// pointed (loom::swap between iterations), all read before any is written.
void rotate_buffers(source_builder& b, const std::vector<parameter>& params,
                    const std::vector<std::uint32_t>& rotation) {
    if (rotation.size() != params.size())
        throw error("loom: internal error: a loop batch's rotation does not match its kernel's parameters");
    std::vector<std::size_t> moved;
    for (std::size_t j = 0; j < params.size(); ++j) {
        const std::uint32_t from = rotation[j];
        if (from == j) continue;
        if (from >= params.size() || params[j].element.empty() || params[j].element != params[from].element)
            throw error("loom: internal error: a loop batch moves a buffer between parameters of different types");
        moved.push_back(j);
    }
    if (moved.empty()) return;
    b.line("{ // the next iteration's buffers, as loom::swap moved them");
    b.enter();
    for (std::size_t j : moved)
        b.line(buffer_parameter(b.dialect(), params[j].element, true, false) + "r" + std::to_string(j) + " = " +
               params[rotation[j]].name + ";");
    for (std::size_t j : moved) b.line(params[j].name + " = r" + std::to_string(j) + ";");
    b.close();
}

// One iteration's work: fold, tree, results (and the bookkeeping) by work-item 0.
void write_pass(source_builder& b, const pass_text& t) {
    const reduce_pass_kernel& pass = t.pass;
    const dialect& d = b.dialect();
    const std::size_t count = pass.accumulators.size();
    for (std::size_t k = 0; k < count; ++k) b.declare(t.type(b, k), "a" + std::to_string(k), "id" + std::to_string(k));
    if (pass.chunked) {
        chunked_fold(b, t);
    } else {
        stride_fold(b, t);
    }
    b.declare_const("unsigned int", "lid", d.group.local_id);
    for (std::size_t k = 0; k < count; ++k) b.line("s" + std::to_string(k) + "[lid] = a" + std::to_string(k) + ";");
    b.line(d.group.barrier);
    b.open_for("unsigned int step = " + std::to_string(pass.group / 2) + "u", "step > 0u", "step >>= 1");
    b.open("if (lid < step)");
    for (std::size_t k = 0; k < count; ++k) {
        const std::string s = "s" + std::to_string(k);
        b.line(s + "[lid] = " + t.call(k, s + "[lid]", s + "[lid + step]") + ";");
    }
    b.close();
    b.line(d.group.barrier);
    b.close();
    b.open("if (lid == 0u)");
    for (std::size_t k = 0; k < count; ++k)
        b.line("out" + std::to_string(k) + "[" + d.group.group_id + "] = s" + std::to_string(k) + "[0];");
    if (pass.epilogue) {
        std::string call = "loom_epilogue(";
        for (std::size_t p = 0; p < pass.epilogue->params.size(); ++p) call += (p ? ", e" : "e") + std::to_string(p);
        b.line(call + ");");
    }
    b.close();
}

} // namespace

kernel_source emit_reduce_pass(const reduce_pass_kernel& pass, const dialect& d) {
    const ir::kernel& in = *pass.input;
    const pass_text t = text_of(pass);
    const bool looped = pass.rotation != nullptr;
    source_builder b(d);
    std::vector<const combine_op*> ops;
    for (const accumulator& a : pass.accumulators) ops.push_back(a.op);
    b.append(pass_prologue(in, ops, d));
    if (pass.epilogue && uses_f64(*pass.epilogue)) b.append(d.prologue_fp64);    // a repeated pragma is harmless
    if (pass.epilogue) b.append(source_function_definitions(*pass.epilogue, d)); // each guarded against a repeat
    for (std::size_t k = 0; k < ops.size(); ++k) write_accumulator_combine(b, *ops[k], k);
    if (pass.epilogue) b.append(epilogue_function(*pass.epilogue, d));

    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(in, d, looped);
    parameter_layout layout;
    input_layout(in, layout);
    // With an epilogue, which reads the results back, the outputs may alias its parameters.
    for (std::uint32_t k = 0; k < ops.size(); ++k) {
        signature += buffer_parameter(d, t.type(b, k), true, !pass.epilogue) + "out" + std::to_string(k) + ", ";
        layout.push_back({parameter_role::output, k});
    }
    for (std::uint32_t k = 0; k < ops.size(); ++k) {
        signature += t.type(b, k) + " id" + std::to_string(k) + ", ";
        layout.push_back({parameter_role::identity, k});
    }
    for (std::uint32_t k = 0; k < ops.size(); ++k)
        declare_captures(*ops[k], k, "c" + std::to_string(k) + "_", d, signature, layout);
    signature += std::string(d.index_type) + " n";
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    if (pass.epilogue)
        for (std::uint32_t p = 0; p < pass.epilogue->params.size(); ++p) {
            const ir::kernel_param& param = pass.epilogue->params[p];
            const std::string name = "e" + std::to_string(p);
            const std::string type = type_name(d, param.type);
            signature += ", " + (param.kind == ir::param_kind::buffer ? buffer_parameter(d, type, true, false) + name
                                                                      : type + " " + name);
            layout.push_back({parameter_role::epilogue, p});
        }
    if (looped) {
        signature += ", unsigned int loom_iterations";
        layout.push_back({parameter_role::iterations});
    }
    b.open(signature + ")");
    // The source with its layout (a local lambda: the text is finished in two places below).
    auto finished = [&] {
        kernel_source source = name_kernel(b.text(), d);
        source.layout = std::move(layout);
        return source;
    };
    // Work-group arrays at the kernel's outermost scope, as OpenCL C requires.
    for (std::size_t k = 0; k < ops.size(); ++k)
        b.line(std::string(d.group.array_qualifier) + " " + t.type(b, k) + " s" + std::to_string(k) + "[" +
               std::to_string(pass.group) + "];");
    if (!looped) {
        write_guard(b, in);
        write_pass(b, t);
        b.close();
        return finished();
    }
    // The batch: iterations back to back in one work-group, each seeing the last one's
    // writes and its bookkeeping (the guard falls uniformly: all read it after the barrier).
    b.open_for("unsigned int loom_it = 0u",
               in.guarded ? "loom_it < loom_iterations && loom_guard[0] != 0" : "loom_it < loom_iterations",
               "++loom_it");
    write_pass(b, t);
    b.line(d.group.global_barrier);
    rotate_buffers(b, parameter_list(pass, d), *pass.rotation);
    b.close();
    b.close();
    return finished();
}

} // namespace loom::codegen
