// The merge sort pass emitter; see merge_pass.hpp.
#include "codegen/merge_pass.hpp"

#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/radix_pass.hpp"
#include "codegen/source_builder.hpp"

namespace loom::codegen {
namespace {

struct pass_text {
    const merge_pass_kernel& m;
    std::string key; // the key's type name
    std::string index;

    // Whether key x goes before key y: the comparator's answer, or (no comparator) the radix
    // sort's order of the keys' ordered bits in the kernel's direction.
    std::string less(const std::string& x, const std::string& y) const {
        if (!m.less) return "(loom_key_bits(" + x + ", descending) < loom_key_bits(" + y + ", descending))";
        return "(" + combine_call(*m.less, "loom_combine", x, y, "c") + " != 0)";
    }
    std::string carried(std::size_t k) const { return "v" + std::to_string(k); }
};

// Two sorted runs as a merge reads them: run A's keys are `a_keys[a_at + x]` for x below
// `a_length`, its value vector k's v<k><a_values>[a_at + x]; run B's alike.
struct merge_runs {
    std::string a_keys, a_at, a_length, a_values;
    std::string b_keys, b_at, b_length, b_values;

    std::string a(const std::string& x) const { return a_keys + "[" + a_at + x + "]"; }
    std::string b(const std::string& x) const { return b_keys + "[" + b_at + x + "]"; }
};

// Two runs in one buffer, src[a0, a1) and src[a1, b1) (the merge sort's).
merge_runs one_buffer(const std::string& src, const std::string& values) {
    return {src, "a0 + ", "(a1 - a0)", values, src, "a1 + ", "(b1 - a1)", values};
}

// Merges the runs into dst from `to` on: `count` outputs starting at output o of the merge
// along the merge path; run A's key goes first on a tie. Value vector k's outputs go to
// v<k><value_dst>.
void write_merge(source_builder& b, const pass_text& p, const merge_runs& r, const std::string& dst,
                 const std::string& value_dst) {
    const std::string& index = p.index;
    // i: how many of the first o outputs come from run A, by the diagonal's binary search.
    b.declare(index, "lo", "o > " + r.b_length + " ? o - " + r.b_length + " : 0");
    b.declare(index, "hi", "o < " + r.a_length + " ? o : " + r.a_length);
    b.open("while (lo < hi)");
    b.declare_const(index, "mid", "lo + (hi - lo) / 2");
    b.line("if (!" + p.less(r.b("o - mid - 1"), r.a("mid")) + ") lo = mid + 1; else hi = mid;");
    b.close();
    b.declare(index, "i", "lo");
    b.declare(index, "j", "o - lo");
    const std::string& na = r.a_length;
    const std::string& nb = r.b_length;
    // Both runs non-empty: each run's head key held, the taken run's next read after it is taken.
    b.open("if (" + na + " > 0 && " + nb + " > 0)");
    b.declare(p.key, "ka", r.a("(i < " + na + " ? i : " + na + " - 1)"));
    b.declare(p.key, "kb", r.b("(j < " + nb + " ? j : " + nb + " - 1)"));
    b.open_for(index + " k = 0", "k < count", "++k");
    b.open("if (j >= " + nb + " || (i < " + na + " && !" + p.less("kb", "ka") + "))");
    b.line(dst + "[to + k] = ka;");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) {
        const std::string v = p.carried(k);
        b.line(v + value_dst + "[to + k] = " + v + r.a_values + "[" + r.a_at + "i];");
    }
    b.line("if (++i < " + na + ") ka = " + r.a("i") + ";");
    b.next("else");
    b.line(dst + "[to + k] = kb;");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) {
        const std::string v = p.carried(k);
        b.line(v + value_dst + "[to + k] = " + v + r.b_values + "[" + r.b_at + "j];");
    }
    b.line("if (++j < " + nb + ") kb = " + r.b("j") + ";");
    b.close();
    b.close();
    // One run empty: the other's keys in order.
    b.next("else");
    b.open_for(index + " k = 0", "k < count", "++k");
    b.line(dst + "[to + k] = " + na + " > 0 ? " + r.a("i + k") + " : " + r.b("j + k") + ";");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) {
        const std::string v = p.carried(k);
        b.line(v + value_dst + "[to + k] = " + na + " > 0 ? " + v + r.a_values + "[" + r.a_at + "i + k] : " + v +
               r.b_values + "[" + r.b_at + "j + k];");
    }
    b.close();
    b.close();
}

// Keys a run sort orders by insertion before its first merge sweep: a few moves a key, in place,
// where the sweeps below this width would each read and write the whole part.
constexpr unsigned insertion_run = 16;

// The run sort's body: copy the part into run A, sort runs of insertion_run keys there by
// insertion (stable: a key moves left past greater ones only), then sweeps of doubling width
// between A and B. The current source is a flag, not swapped pointers: both are parameters of
// the kernel.
void run_sort_body(source_builder& b, const pass_text& p, const ir::kernel& lowered, std::uint32_t root) {
    const dialect& d = b.dialect();
    const std::string& index = p.index;
    b.declare_const(index, "gid", "(" + index + ")" + d.global_id);
    b.line("if (gid * chunk >= n) return;");
    b.declare_const(index, "part_begin", "gid * chunk");
    b.declare_const(index, "part_end", "n - part_begin < chunk ? n : part_begin + chunk");
    b.open_for(index + " e = part_begin", "e < part_end", "++e");
    write_values(b, lowered, {root}, "e");
    b.line("keys_a[e] = " + value_name(root) + ";");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) b.line(p.carried(k) + "_a[e] = " + p.carried(k) + "_in[e];");
    b.close();
    const std::string run = std::to_string(insertion_run);
    b.open_for(index + " r0 = part_begin", "r0 < part_end", "r0 += " + run);
    b.declare_const(index, "r1", "part_end - r0 < " + run + " ? part_end : r0 + " + run);
    b.open_for(index + " i = r0 + 1", "i < r1", "++i");
    b.declare_const(p.key, "key", "keys_a[i]");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k)
        b.declare_const(type_name(d, p.m.carried[k]), p.carried(k) + "_moved", p.carried(k) + "_a[i]");
    b.declare(index, "j", "i");
    b.open("while (j > r0 && " + p.less("key", "keys_a[j - 1]") + ")");
    b.line("keys_a[j] = keys_a[j - 1];");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k)
        b.line(p.carried(k) + "_a[j] = " + p.carried(k) + "_a[j - 1];");
    b.line("--j;");
    b.close();
    b.line("keys_a[j] = key;");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) b.line(p.carried(k) + "_a[j] = " + p.carried(k) + "_moved;");
    b.close();
    b.close();
    b.line("int in_a = 1;");
    b.open_for(index + " w = " + run, "w < part_end - part_begin", "w *= 2");
    b.open_for(index + " a0 = part_begin", "a0 < part_end", "a0 += 2 * w");
    b.declare_const(index, "a1", "part_end - a0 < w ? part_end : a0 + w");
    b.declare_const(index, "b1", "part_end - a1 < w ? part_end : a1 + w");
    b.declare_const(index, "o", "0");
    b.declare_const(index, "to", "a0");
    b.declare_const(index, "count", "b1 - a0");
    b.open("if (in_a)");
    write_merge(b, p, one_buffer("keys_a", "_a"), "keys_b", "_b");
    b.next("else");
    write_merge(b, p, one_buffer("keys_b", "_b"), "keys_a", "_a");
    b.close();
    b.close();
    b.line("in_a = !in_a;");
    b.close();
    b.open("if (!in_a)");
    b.open_for(index + " e = part_begin", "e < part_end", "++e");
    b.line("keys_a[e] = keys_b[e];");
    for (std::size_t k = 0; k < p.m.carried.size(); ++k) b.line(p.carried(k) + "_a[e] = " + p.carried(k) + "_b[e];");
    b.close();
    b.close();
}

// The body of a pass whose work-item g writes outputs g * items .. of a merge: a merge pass's
// (runs of chunk << doubling keys of parameter 0, merged pairwise), or a merge of two vectors'
// (A, parameter 0, of `chunk` keys; B, parameter 1, of the other n - chunk).
void merge_output_body(source_builder& b, const pass_text& p) {
    const dialect& d = b.dialect();
    const std::string& index = p.index;
    b.declare_const(index, "gid", "(" + index + ")" + d.global_id);
    b.line("if (gid * items >= n) return;");
    b.declare_const(index, "start", "gid * items");
    b.declare_const(index, "to", "start");
    b.declare_const(index, "count", "n - start < items ? n - start : items");
    if (p.m.pass == merge_pass::merge_two) {
        b.declare_const(index, "o", "start");
        write_merge(b, p, {"p0", "", "chunk", "_a", "p1", "", "(n - chunk)", "_b"}, "keys_out", "_out");
        return;
    }
    b.declare_const(index, "width", "chunk << doubling");
    b.declare_const(index, "a0", "start / (2 * width) * (2 * width)");
    b.declare_const(index, "a1", "n - a0 < width ? n : a0 + width");
    b.declare_const(index, "b1", "n - a1 < width ? n : a1 + width");
    b.declare_const(index, "o", "start - a0");
    write_merge(b, p, one_buffer("p0", "_src"), "keys_out", "_out");
}

} // namespace

kernel_source emit_merge_pass(const merge_pass_kernel& m, const dialect& d) {
    const ir::kernel& input = *m.input;
    lowered_kernel lowered = lower_neighbour_reads(input, {m.root}, neighbour_form::checked);
    pass_text p{m, type_name(d, m.key), d.index_type};

    ir::kernel probe = input; // the pragmas the keys and carried values need
    for (dtype t : m.carried) probe.params.push_back({ir::param_kind::buffer, t, false});
    source_builder b(d);
    if (m.less) {
        b.append(pass_prologue(probe, {m.less}, d));
        write_combine(b, *m.less, "loom_combine");
    } else {
        b.append(pass_prologue(probe, {}, d));
        write_key_bits(b, m.key);
    }

    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(input, d);
    parameter_layout layout;
    input_layout(input, layout);
    // The run buffers are read and written through both names of a pair: not restrict.
    auto buffer = [&](const std::string& type, const std::string& name, bool written, parameter role) {
        signature += buffer_parameter(d, type, written, false) + name + ", ";
        layout.push_back(role);
    };
    std::uint32_t output = 0;
    const bool two = m.pass == merge_pass::merge_two;
    if (m.pass == merge_pass::run_sort) {
        buffer(p.key, "keys_a", true, {parameter_role::output, output++});
        buffer(p.key, "keys_b", true, {parameter_role::output, output++});
    } else {
        buffer(p.key, "keys_out", true, {parameter_role::output, output++});
    }
    for (std::uint32_t k = 0; k < m.carried.size(); ++k) {
        const std::string t = type_name(d, m.carried[k]), v = p.carried(k);
        if (m.pass == merge_pass::run_sort) {
            buffer(t, v + "_in", false, {parameter_role::carried, k});
            buffer(t, v + "_a", true, {parameter_role::output, output++});
            buffer(t, v + "_b", true, {parameter_role::output, output++});
        } else if (two) {
            buffer(t, v + "_a", false, {parameter_role::carried, 2 * k});
            buffer(t, v + "_b", false, {parameter_role::carried, 2 * k + 1});
            buffer(t, v + "_out", true, {parameter_role::output, output++});
        } else {
            buffer(t, v + "_src", false, {parameter_role::carried, k});
            buffer(t, v + "_out", true, {parameter_role::output, output++});
        }
    }
    if (m.less) declare_captures(*m.less, 0, "c", d, signature, layout);
    if (m.pass == merge_pass::merge) {
        signature += "unsigned int doubling, ";
        layout.push_back({parameter_role::pass_constant});
    }
    if (!m.less) {
        signature += "unsigned int descending, ";
        layout.push_back({parameter_role::key_order});
    }
    const std::string index = d.index_type;
    b.open(signature + index + " n, " + index + " chunk, " + index + " items)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::items)});
    write_guard(b, input);
    if (m.pass == merge_pass::run_sort)
        run_sort_body(b, p, lowered.kernel, lowered.node[m.root]);
    else
        merge_output_body(b, p);
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
