// The sparse matrix-vector product's pass emitter; see spmv_pass.hpp.
#include "codegen/spmv_pass.hpp"

#include "codegen/source_builder.hpp"

namespace loom::codegen {

namespace {

// The first row that starts at or after entry `target` (< entries), as `name`: a binary search of
// row_ptr[0..n], whose last element is the entries.
void first_row_from(source_builder& b, const std::string& index, const std::string& name, const std::string& target) {
    b.declare(index, name, "0");
    b.open();
    b.declare(index, "hi", "n");
    b.open("while (" + name + " < hi)");
    b.declare_const(index, "mid", name + " + (hi - " + name + ") / 2");
    b.line("if ((" + index + ")row_ptr[mid] < " + target + ") " + name + " = mid + 1; else hi = mid;");
    b.close();
    b.close();
}

void scalar_rows(source_builder& b, const spmv_kernel& k, const std::string& t, const std::string& ix,
                 const std::string& index) {
    const dialect& d = b.dialect();
    b.declare_const(index, "gid", "(" + index + ")" + d.global_id);
    if (k.balanced) {
        b.line("if (gid * chunk >= entries) return; // past the last run: a whole group's padding");
        first_row_from(b, index, "first", "gid * chunk");
        b.line("// The last run also takes the rows that start at the end (empty rows after the last entry).");
        b.declare(index, "last", "n");
        b.line("if (entries - gid * chunk > chunk) {");
        b.enter();
        first_row_from(b, index, "bound", "(gid + 1) * chunk");
        b.line("last = bound;");
        b.close();
    } else {
        b.line("if (gid * chunk >= n) return; // past the last row: a whole group's padding");
        b.declare_const(index, "first", "gid * chunk");
        b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    }
    // Each row's end is the next row's start: one row_ptr read per row.
    b.declare(ix, "start", "row_ptr[first]");
    b.open_for(index + " r = first", "r < last", "++r");
    b.declare_const(ix, "end", "row_ptr[r + 1]");
    b.declare(t, "sum", "(" + t + ")0");
    b.open_for(ix + " j = start", "j < end", "++j");
    b.line("sum += val[j] * x[col[j]];");
    b.close();
    b.line("y[r] = sum;");
    b.line("start = end;");
    b.close();
}

// Every work-item reaches every barrier: rows past the last only sum nothing.
void vector_rows(source_builder& b, const spmv_kernel& k, const std::string& t, const std::string& ix,
                 const std::string& index) {
    const dialect& d = b.dialect();
    const std::string lanes = std::to_string(k.lanes) + "u";
    b.line(std::string(d.group.array_qualifier) + " " + t + " part[" + std::to_string(k.group) + "];");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const("unsigned int", "lane", "lid % " + lanes);
    b.declare_const(index, "r",
                    "(" + index + ")" + d.group.group_id + " * " + std::to_string(k.group / k.lanes) + "u + lid / " +
                        lanes);
    b.declare(t, "sum", "(" + t + ")0");
    b.open("if (r < n)");
    b.declare_const(ix, "end", "row_ptr[r + 1]");
    b.open_for(ix + " j = row_ptr[r] + lane", "j < end", "j += " + lanes);
    b.line("sum += val[j] * x[col[j]];");
    b.close();
    b.close();
    b.line("part[lid] = sum;");
    b.line(d.group.barrier);
    b.open_for("unsigned int o = " + std::to_string(k.lanes / 2) + "u", "o > 0u", "o >>= 1");
    b.line("if (lane < o) part[lid] += part[lid + o];");
    b.line(d.group.barrier);
    b.close();
    b.line("if (lane == 0u && r < n) y[r] = part[lid];");
}

} // namespace

kernel_source emit_spmv_pass(const spmv_kernel& k, const dialect& d) {
    source_builder b(d);
    b.append(d.prologue);
    if (k.value == dtype::f64) b.append(d.prologue_fp64);
    const std::string t = type_name(d, k.value), ix = type_name(d, k.index), index = d.index_type;
    parameter_layout layout;
    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(";
    auto buffer = [&](const std::string& type, const std::string& name, bool written, bool restricted, parameter role) {
        signature += buffer_parameter(d, type, written, restricted) + name + ", ";
        layout.push_back(role);
    };
    buffer(ix, "row_ptr", false, true, {parameter_role::input, 0});
    buffer(ix, "col", false, true, {parameter_role::input, 1});
    buffer(t, "val", false, true, {parameter_role::input, 2});
    buffer(t, "x", false, true, {parameter_role::input, 3});
    buffer(t, "y", true, true, {parameter_role::output, 0});
    if (k.guarded) buffer(type_name(d, dtype::i32), "loom_guard", true, false, {parameter_role::guard});
    b.open(signature + index + " n, " + index + " chunk, " + index + " entries)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::entries)});
    if (k.guarded) b.line("if (loom_guard[0] == 0) return;");
    if (k.lanes <= 1)
        scalar_rows(b, k, t, ix, index);
    else
        vector_rows(b, k, t, ix, index);
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
