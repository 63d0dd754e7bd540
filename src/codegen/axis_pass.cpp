// The axis reduction emitter; see axis_pass.hpp. The emitter core writes the element's values,
// the source builder every line, so it serves OpenCL C and CUDA C++.
#include "codegen/axis_pass.hpp"

#include <algorithm>
#include <functional>

#include "codegen/emit_core.hpp"
#include "codegen/lane_vectors.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"
#include "loom/error.hpp"

namespace loom::codegen {
namespace {

// The widest vector of lanes: OpenCL C's float16.
constexpr unsigned widest_vector = 16;
// Rows folded side by side (lanes_rows), for an element of at most light_element_nodes live nodes
// in rows of at least block_row_length columns: on the CPU device four long rows a step beat one
// (matvec), and four short rows a step lose to one (bench/results/history.csv has the runs).
constexpr unsigned rows_per_block = 4;
constexpr long light_element_nodes = 8;
constexpr unsigned block_row_length = 4096;

std::string acc(std::size_t k) { return "a" + std::to_string(k); }
// Lane l of accumulator k (scalar lanes), or its vector l (vector lanes), for the row `row` of a
// block of rows (lanes_rows) after the first.
std::string lane(std::size_t k, unsigned l, unsigned row = 0) {
    return "a" + std::to_string(k) + "_" + std::to_string(l) + (row ? "_r" + std::to_string(row) : "");
}
std::string out(std::size_t k) { return "out" + std::to_string(k); }

// What the pass writes and how it names it.
struct axis_text {
    const axis_pass_kernel& pass;
    ir::kernel input;                  // the pass's input, its neighbour reads lowered
    std::vector<std::uint32_t> folded; // per accumulator, the node of `input` it folds
    // Lanes form: the lanes as vector values (lane_vectors.hpp) `width` wide (0: scalars), and
    // then the nodes the folds reach and those that vary across the lanes.
    unsigned width = 0;
    std::vector<bool> live, varying;
    // Lanes form, axis 1: whether long rows go rows_per_block at a time (lanes_rows).
    bool block_rows = false;

    std::size_t count() const { return pass.accumulators.size(); }
    std::string type(const source_builder& b, std::size_t k) const { return b.type(pass.accumulators[k].op->type); }
    // op_k(a, b), captures passed as c<k>_0, c<k>_1, ...
    std::string call(std::size_t k, const std::string& a, const std::string& b) const {
        return accumulator_call(*pass.accumulators[k].op, k, a, b);
    }
};

axis_text text_of(const axis_pass_kernel& pass, const dialect& d) {
    std::vector<std::uint32_t> roots;
    for (const accumulator& a : pass.accumulators) roots.push_back(a.value);
    lowered_kernel lowered = lower_neighbour_reads(*pass.input, roots, neighbour_form::checked);
    axis_text t{pass, std::move(lowered.kernel), {}, 0, {}, {}};
    for (const accumulator& a : pass.accumulators) t.folded.push_back(lowered.node[a.value]);
    if (pass.form == axis_form::lanes) {
        t.live = live_nodes(t.input, t.folded);
        t.varying = lanes_varying(t.input, element_lane_seeds(t.input));
        const unsigned width = std::min(pass.lanes, widest_vector);
        bool vectors = lanes_vectorise(t.input, t.live, t.varying, d, width);
        for (const accumulator& a : pass.accumulators) vectors = vectors && combines_lanes(*a.op, d, width);
        t.width = vectors ? width : 0;
        // A light element (a product of two loads, say) leaves the pass bound by memory; a
        // heavier one (N-Body's) keeps a row at a time, whose values alone fill the registers.
        const auto work = std::count(t.live.begin(), t.live.end(), true);
        t.block_rows = pass.axis == 1 && t.width != 0 && work <= light_element_nodes;
    }
    return t;
}

// Whether accumulator k folds its value's product by one fused multiply-add (contract_folds).
bool folds_by_fma(const axis_text& t, std::size_t k) {
    const ir::node& value = t.input.body[t.folded[k]];
    const combine_op& op = *t.pass.accumulators[k].op;
    return t.pass.contract_folds && value.op == opcode::mul && value.type == op.type && is_float_sum(op);
}

// Each accumulator into(k) folding its value (as the right operand, so that min and max skip a
// NaN element as loom::min does), by fma where folds_by_fma says. `operand` names a node of the
// input; `vectors`: into(k) and the values are vector lanes, folded by the operation's lane
// function.
void write_folds(source_builder& b, const axis_text& t, const std::function<std::string(std::size_t)>& into,
                 const std::function<std::string(std::uint32_t)>& operand, bool vectors) {
    for (std::size_t k = 0; k < t.count(); ++k) {
        const ir::node& value = t.input.body[t.folded[k]];
        const std::string a = into(k);
        if (folds_by_fma(t, k)) {
            b.line(a + " = fma(" + operand(value.arg[0]) + ", " + operand(value.arg[1]) + ", " + a + ");");
            continue;
        }
        const std::string folded = operand(t.folded[k]);
        b.line(a + " = " +
               (vectors ? accumulator_lane_call(*t.pass.accumulators[k].op, k, a, folded) : t.call(k, a, folded)) +
               ";");
    }
}

// The element at (loom_r, loom_c), whose row starts at element `base`: its index i, its
// values, and each accumulator into(k) folding its value.
void fold_element(source_builder& b, const axis_text& t, const std::string& base,
                  const std::function<std::string(std::size_t)>& into) {
    b.declare_const(b.dialect().index_type, "i", base + " + loom_c");
    write_values(b, t.input, t.folded, "i");
    write_folds(b, t, into, value_name, false);
}

void declare_accumulators(source_builder& b, const axis_text& t, const std::function<std::string(std::size_t)>& name) {
    for (std::size_t k = 0; k < t.count(); ++k) b.declare(t.type(b, k), name(k), "id" + std::to_string(k));
}

// Every accumulator's lanes, one accumulator's lanes together: the device compiler (LLVM's SLP
// vectorizer) bundles neighbouring declarations into vector registers, and a bundle of one
// value's lanes is isomorphic (a tuple's values interleaved lane by lane made PoCL's N-Body
// pass of three values several times slower than three passes of one, docs/matrices.md).
// Vector lanes: lanes / width vectors per accumulator.
void declare_lane_accumulators(source_builder& b, const axis_text& t, unsigned row = 0) {
    for (std::size_t k = 0; k < t.count(); ++k) {
        const std::string id = "id" + std::to_string(k);
        if (t.width != 0) {
            const std::string type = lane_type(b.dialect(), t.pass.accumulators[k].op->type, t.width);
            for (unsigned v = 0; v < t.pass.lanes / t.width; ++v)
                b.declare(type, lane(k, v, row), "(" + type + ")(" + id + ")");
            continue;
        }
        for (unsigned l = 0; l < t.pass.lanes; ++l) b.declare(t.type(b, k), lane(k, l, row), id);
    }
}

// Lane l of accumulator k in the lanes form: a0_3, or a0_0.s3 where the lanes are vectors.
std::string lane_name(const axis_text& t, std::size_t k, unsigned l, unsigned row = 0) {
    return t.width != 0 ? lane_of(lane(k, l / t.width, row), l % t.width) : lane(k, l, row);
}

// This work-item's share [<first>, <last>) of `total` things, a contiguous band of them.
void declare_band(source_builder& b, const std::string& total, const std::string& first, const std::string& last) {
    const dialect& d = b.dialect();
    const std::string u = d.index_type;
    b.declare_const(u, "loom_items", d.global_size);
    b.declare_const(u, "loom_band", "(" + total + " + loom_items - 1) / loom_items");
    b.declare_const(u, "loom_from", "(" + u + ")" + d.global_id + " * loom_band");
    b.declare_const(u, first, "loom_from < " + total + " ? loom_from : " + total);
    b.declare_const(u, last, total + " - " + first + " < loom_band ? " + total + " : " + first + " + loom_band");
}

// Accumulator k's lanes folded into its lane 0, which it names: a tree, lane l taking lane
// l + w (the lower lane the left operand) for w = lanes / 2, ..., 2, 1. Both lane forms fold in
// this order, so that the form a kernel takes never changes its result. Vector lanes take a level
// in one operation: whole vectors while w spans them, then the first vector and itself rotated by
// w. Folded lane by lane in order, the last levels were a visible part of N-Body's time at small
// sizes.
std::string fold_lanes(source_builder& b, const axis_text& t, std::size_t k, unsigned row = 0) {
    const unsigned lanes = t.pass.lanes, width = t.width;
    const combine_op& op = *t.pass.accumulators[k].op;
    for (unsigned w = lanes / 2; w >= 1; w /= 2) {
        if (width == 0) {
            for (unsigned l = 0; l < w; ++l)
                b.line(lane(k, l, row) + " = " + t.call(k, lane(k, l, row), lane(k, l + w, row)) + ";");
        } else if (w >= width) {
            for (unsigned v = 0; v < w / width; ++v)
                b.line(lane(k, v, row) + " = " +
                       accumulator_lane_call(op, k, lane(k, v, row), lane(k, v + w / width, row)) + ";");
        } else {
            std::string rotated = lane(k, 0, row) + ".s";
            for (unsigned l = 0; l < width; ++l) rotated += "0123456789abcdef"[(l + w) % width];
            b.line(lane(k, 0, row) + " = " + accumulator_lane_call(op, k, lane(k, 0, row), rotated) + ";");
        }
    }
    return lane_name(t, k, 0, row);
}

// Vector lanes: the values of each vector's `width` columns, from loom_c0 + v * width on, as
// vectors, and each accumulator's vector v folding them lane by lane (row start loom_base).
void fold_lane_vectors(source_builder& b, const axis_text& t, unsigned row) {
    const dialect& d = b.dialect();
    auto operand = [&](std::uint32_t n) { return lane_operand(t.input, n, t.varying, d, t.width); };
    for (unsigned v = 0; v < t.pass.lanes / t.width; ++v) {
        b.open();
        b.declare_const(d.index_type, "loom_c", "loom_c0 + " + std::to_string(v * t.width) + "u");
        b.declare_const(d.index_type, "i", "loom_base + loom_c");
        write_lane_values(b, t.input, t.live, t.varying, {t.width, "i", "loom_c"});
        write_folds(
            b, t, [v, row](std::size_t k) { return lane(k, v, row); }, operand, true);
        b.close();
    }
}

// One element of each of `lanes` adjacent columns, from loom_c0 on, into lane accumulators
// 0..lanes-1 (row start loom_base).
void fold_lane_columns(source_builder& b, const axis_text& t, unsigned row = 0) {
    if (t.width != 0) {
        fold_lane_vectors(b, t, row);
        return;
    }
    const std::string u = b.dialect().index_type;
    for (unsigned l = 0; l < t.pass.lanes; ++l) {
        b.open();
        b.declare_const(u, "loom_c", "loom_c0 + " + std::to_string(l) + "u");
        fold_element(b, t, "loom_base", [&](std::size_t k) { return lane(k, l, row); });
        b.close();
    }
}

// Lanes form, axis 1: each row of the band, `lanes` columns a step into as many accumulators,
// the tail into lane 0; then the lanes fold into one (fold_lanes). Where the element is light
// (axis_text::block_rows) and rows are long, four rows go side by side, each with accumulators
// of its own: what they share (matvec's x) is read once a step for the four, and four rows
// stream at once, as the handwritten `band4_vec8` does. A row's values and fold order are the
// ones it has alone. Rows shorter than block_row_length, whose four rows are one contiguous
// stretch then read out of order, go one at a time, as the rows left over do.
void lanes_rows(source_builder& b, const axis_text& t) {
    const std::string u = b.dialect().index_type, step = std::to_string(t.pass.lanes) + "u";
    declare_band(b, "rows", "loom_r0", "loom_r1");
    b.declare(u, "loom_rb", "loom_r0");
    auto rows = [&](unsigned count) { // rows loom_rb .. loom_rb + count - 1
        auto in_row = [&](unsigned q, const std::function<void()>& body, bool base = true) {
            b.open();
            b.declare_const(u, "loom_r", "loom_rb + " + std::to_string(q) + "u");
            if (base) b.declare_const(u, "loom_base", "loom_r * cols");
            body();
            b.close();
        };
        for (unsigned q = 0; q < count; ++q) declare_lane_accumulators(b, t, q);
        b.declare(u, "loom_c0", "0");
        b.open_for("", "loom_c0 + " + step + " <= cols", "loom_c0 += " + step);
        for (unsigned q = 0; q < count; ++q) in_row(q, [&] { fold_lane_columns(b, t, q); });
        b.close();
        b.open_for("", "loom_c0 < cols", "++loom_c0");
        b.declare_const(u, "loom_c", "loom_c0");
        for (unsigned q = 0; q < count; ++q)
            in_row(q, [&] { fold_element(b, t, "loom_base", [&](std::size_t k) { return lane_name(t, k, 0, q); }); });
        b.close();
        for (unsigned q = 0; q < count; ++q)
            in_row(
                q,
                [&] {
                    for (std::size_t k = 0; k < t.count(); ++k)
                        b.line(out(k) + "[loom_r] = " + fold_lanes(b, t, k, q) + ";");
                },
                false);
    };
    if (t.block_rows) {
        const std::string block = std::to_string(rows_per_block) + "u";
        b.open_for("", "cols >= " + std::to_string(block_row_length) + "u && loom_rb + " + block + " <= loom_r1",
                   "loom_rb += " + block);
        rows(rows_per_block);
        b.close();
    }
    b.open_for("", "loom_rb < loom_r1", "++loom_rb");
    rows(1);
    b.close();
}

// Lanes form, axis 0: blocks of `lanes` columns, each column folded over every row in order,
// a block's columns side by side (contiguous loads); the last, narrower block column by column.
void lanes_columns(source_builder& b, const axis_text& t) {
    const std::string u = b.dialect().index_type, width = std::to_string(t.pass.lanes) + "u";
    b.declare_const(u, "loom_blocks", "(cols + " + width + " - 1u) / " + width);
    declare_band(b, "loom_blocks", "loom_b0", "loom_b1");
    b.open_for(u + " loom_b = loom_b0", "loom_b < loom_b1", "++loom_b");
    b.declare_const(u, "loom_c0", "loom_b * " + width);
    b.open("if (loom_c0 + " + width + " <= cols)");
    declare_lane_accumulators(b, t);
    b.open_for(u + " loom_r = 0", "loom_r < rows", "++loom_r");
    b.declare_const(u, "loom_base", "loom_r * cols");
    fold_lane_columns(b, t);
    b.close();
    for (std::size_t k = 0; k < t.count(); ++k)
        for (unsigned l = 0; l < t.pass.lanes; ++l)
            b.line(out(k) + "[loom_c0 + " + std::to_string(l) + "u] = " + lane_name(t, k, l) + ";");
    b.next("else");
    b.open_for(u + " loom_c = loom_c0", "loom_c < cols", "++loom_c");
    declare_accumulators(b, t, acc);
    b.open_for(u + " loom_r = 0", "loom_r < rows", "++loom_r");
    fold_element(b, t, "loom_r * cols", acc);
    b.close();
    for (std::size_t k = 0; k < t.count(); ++k) b.line(out(k) + "[loom_c] = " + acc(k) + ";");
    b.close();
    b.close();
    b.close();
}

// Groups form, axis 1: a work-group per row (rows group_id, group_id + groups, ...), its
// work-items striding over the columns, then a tree in work-group memory. The row loop's trip
// count is the same for the whole group, so every work-item meets every barrier. No barrier
// ends an iteration: work-item 0 reads s<k>[0] before it writes it again, and the others
// write only their own element before the next barrier.
void group_rows(source_builder& b, const axis_text& t) {
    const dialect& d = b.dialect();
    const std::string u = d.index_type;
    const unsigned group = t.pass.group;
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.open_for(u + " loom_r = " + d.group.group_id, "loom_r < rows", "loom_r += " + std::string(d.group.group_count));
    b.declare_const(u, "loom_base", "loom_r * cols");
    declare_accumulators(b, t, acc);
    b.open_for(u + " loom_c = lid", "loom_c < cols", "loom_c += " + std::to_string(group) + "u");
    fold_element(b, t, "loom_base", acc);
    b.close();
    for (std::size_t k = 0; k < t.count(); ++k) b.line("s" + std::to_string(k) + "[lid] = " + acc(k) + ";");
    b.line(d.group.barrier);
    b.open_for("unsigned int step = " + std::to_string(group / 2) + "u", "step > 0u", "step >>= 1");
    b.open("if (lid < step)");
    for (std::size_t k = 0; k < t.count(); ++k) {
        const std::string s = "s" + std::to_string(k);
        b.line(s + "[lid] = " + t.call(k, s + "[lid]", s + "[lid + step]") + ";");
    }
    b.close();
    b.line(d.group.barrier);
    b.close();
    b.open("if (lid == 0u)");
    for (std::size_t k = 0; k < t.count(); ++k) b.line(out(k) + "[loom_r] = s" + std::to_string(k) + "[0];");
    b.close();
    b.close();
}

// Groups form, axis 0: a work-item per column, folding every row in order.
void item_columns(source_builder& b, const axis_text& t) {
    const dialect& d = b.dialect();
    const std::string u = d.index_type;
    b.open_for(u + " loom_c = " + d.global_id, "loom_c < cols", "loom_c += " + std::string(d.global_size));
    declare_accumulators(b, t, acc);
    b.open_for(u + " loom_r = 0", "loom_r < rows", "++loom_r");
    fold_element(b, t, "loom_r * cols", acc);
    b.close();
    for (std::size_t k = 0; k < t.count(); ++k) b.line(out(k) + "[loom_c] = " + acc(k) + ";");
    b.close();
}

} // namespace

kernel_source emit_axis_pass(const axis_pass_kernel& pass, const dialect& d) {
    const ir::kernel& in = *pass.input;
    if (!in.stores.empty() || pass.axis > 1 || pass.accumulators.empty())
        throw error("loom: internal error: an axis reduction pass stores nothing, folds a value, along axis 0 or 1");
    if (pass.form == axis_form::lanes && (pass.lanes < 2 || (pass.lanes & (pass.lanes - 1)) != 0))
        throw error("loom: internal error: an axis reduction's lanes are a power of two");
    const axis_text t = text_of(pass, d);
    source_builder b(d);
    std::vector<const combine_op*> ops;
    for (const accumulator& a : pass.accumulators) ops.push_back(a.op);
    b.append(pass_prologue(in, ops, d));
    for (std::size_t k = 0; k < ops.size(); ++k) write_accumulator_combine(b, *ops[k], k);
    if (t.width != 0)
        for (std::size_t k = 0; k < ops.size(); ++k) write_accumulator_lane_combine(b, *ops[k], k, t.width);

    const std::string u = d.index_type;
    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(in, d);
    parameter_layout layout;
    input_layout(in, layout);
    for (std::uint32_t k = 0; k < ops.size(); ++k) {
        signature += buffer_parameter(d, t.type(b, k), true, true) + out(k) + ", ";
        layout.push_back({parameter_role::output, k});
    }
    for (std::uint32_t k = 0; k < ops.size(); ++k) {
        signature += t.type(b, k) + " id" + std::to_string(k) + ", ";
        layout.push_back({parameter_role::identity, k});
    }
    for (std::uint32_t k = 0; k < ops.size(); ++k)
        declare_captures(*ops[k], k, "c" + std::to_string(k) + "_", d, signature, layout);
    b.open(signature + u + " rows, " + u + " cols)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::rows)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::cols)});
    const bool tree = pass.form == axis_form::groups && pass.axis == 1;
    if (tree) // work-group arrays at the kernel's outermost scope, as OpenCL C requires
        for (std::size_t k = 0; k < ops.size(); ++k)
            b.line(std::string(d.group.array_qualifier) + " " + t.type(b, k) + " s" + std::to_string(k) + "[" +
                   std::to_string(pass.group) + "];");
    write_guard(b, in);
    b.declare_const(u, "n", "rows * cols"); // the element count, which a 1-D neighbour read tests against
    if (pass.form == axis_form::lanes)
        pass.axis == 1 ? lanes_rows(b, t) : lanes_columns(b, t);
    else
        pass.axis == 1 ? group_rows(b, t) : item_columns(b, t);
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
