// The radix pass emitter; see radix_pass.hpp.
#include "codegen/radix_pass.hpp"

#include <functional>
#include <string>

#include "codegen/combine_op.hpp"
#include "codegen/count_scan.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"
#include "ir/promotion.hpp"
#include "loom/error.hpp"

namespace loom::codegen {
namespace {

unsigned key_bits(dtype t) { return size_of(t) * 8; }

// The ordered bits' type: a 32-bit word for keys up to 32 bits, a 64-bit one above.
std::string bits_type(const dialect& d, dtype key) {
    return type_name(d, key_bits(key) > 32 ? dtype::u64 : dtype::u32);
}

} // namespace

void write_key_bits(source_builder& b, dtype key) {
    const dialect& d = b.dialect();
    const unsigned bits = key_bits(key);
    const std::string u = bits_type(d, key);
    const bool wide = bits > 32;
    // The sign bit and every bit of the key's width, in the ordered bits' type.
    const std::string sign = "((" + u + ")1 << " + std::to_string(bits - 1) + ")";
    const std::string all =
        wide ? "(~(" + u + ")0)" : "(" + u + ")" + std::to_string((std::uint64_t(1) << bits) - 1) + "u";
    b.open(std::string(d.function_prefix) + " " + u + " loom_key_bits(" + type_name(d, key) +
           " x, unsigned int descending)");
    std::string ordered;
    if (ir::is_float(key)) {
        const bool cuda = std::string(d.name) == "cuda";
        const std::string raw = key == dtype::f32
                                    ? (cuda ? "__float_as_uint(x)" : "as_uint(x)")
                                    : (cuda ? "(unsigned long long)__double_as_longlong(x)" : "as_ulong(x)");
        b.declare_const(u, "raw", raw);
        ordered = "(raw ^ ((raw >> " + std::to_string(bits - 1) + ") != 0 ? " + all + " : " + sign + "))";
    } else {
        // Through the unsigned type of the key's own width, so a negative narrow key does not
        // carry its sign into the wider word's high bits.
        const dtype unsigned_key = bits == 8    ? dtype::u8
                                   : bits == 16 ? dtype::u16
                                   : bits == 32 ? dtype::u32
                                                : dtype::u64;
        ordered = "((" + u + ")(" + type_name(d, unsigned_key) + ")x";
        ordered += ir::is_signed_integer(key) ? " ^ " + sign + ")" : ")";
    }
    b.line("return " + ordered + " ^ (descending != 0u ? " + all + " : (" + u + ")0);");
    b.close();
}

namespace {

struct pass_text {
    const radix_pass_kernel& r;
    ir::kernel lowered;
    std::uint32_t root;
    std::string key;  // the key's type name
    std::string mask; // the digit's mask

    // The key's digit, from the key `x`.
    std::string digit(const std::string& x) const {
        return "(unsigned int)((loom_key_bits(" + x + ", descending) >> shift) & " + mask + ")";
    }
    // The lines that compute the key of element `index`; the key is then value_name(root).
    void key_at(source_builder& b, const std::string& index) const { write_values(b, lowered, {root}, index); }
};

// The count of digit value `digit` (an unsigned int) in part `part`: counts[digit * parts + part].
std::string parts_of_digit(const std::string& digit, const std::string& part) {
    return "counts[(parts * " + digit + ") + " + part + "]";
}

// The chunked layout's count and scatter bodies (radix_pass.hpp).
void chunked_body(source_builder& b, const pass_text& p) {
    const radix_pass_kernel& r = p.r;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, radix = std::to_string(1u << r.radix_bits) + "u";
    b.declare_const(index, "gid",
                    "(" + index + ")" + d.group.group_id + " * " + std::to_string(r.group) + "u + " + d.group.local_id);
    b.declare(index, "i", "gid * chunk < n ? gid * chunk : n");
    b.declare_const(index, "last", "n - i < chunk ? n : i + chunk");
    b.line(index + " c[" + std::to_string(1u << r.radix_bits) + "];");
    if (r.pass == radix_pass::count) {
        b.line("for (unsigned int v = 0u; v < " + radix + "; ++v) c[v] = 0;");
        b.open_for("", "i < last", "++i");
        p.key_at(b, "i");
        b.line("++c[" + p.digit(value_name(p.root)) + "];");
        b.close();
        b.line("for (unsigned int v = 0u; v < " + radix + "; ++v) " + parts_of_digit("v", "gid") + " = c[v];");
        return;
    }
    b.line("for (unsigned int v = 0u; v < " + radix + "; ++v) c[v] = " + parts_of_digit("v", "gid") + ";");
    b.open_for("", "i < last", "++i");
    p.key_at(b, "i");
    b.declare_const(p.key, "key", value_name(p.root));
    b.declare_const(index, "to", "c[" + p.digit("key") + "]++");
    b.line("keys_out[to] = key;");
    for (std::size_t k = 0; k < r.carried.size(); ++k)
        b.line("out" + std::to_string(k) + "[to] = in" + std::to_string(k) + "[i];");
    b.close();
}

// The tiled layout's count body: each work-item counts its elements of the group's chunk, then
// the group adds the work-items' counts up in work-group memory.
void tiled_count_body(source_builder& b, const pass_text& p) {
    const radix_pass_kernel& r = p.r;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(r.group) + "u";
    const unsigned radix = 1u << r.radix_bits;
    const std::string radix_u = std::to_string(radix) + "u";
    b.line(std::string(d.group.array_qualifier) + " unsigned int h[" + std::to_string(radix * r.group) + "];");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const("unsigned int", "g", d.group.group_id);
    b.declare_const(index, "first", "(" + index + ")g * chunk");
    b.declare(index, "last", "first + chunk");
    b.line("if (last > n) last = n;");
    b.line("unsigned int c[" + std::to_string(radix) + "];");
    b.line("for (unsigned int v = 0u; v < " + radix_u + "; ++v) c[v] = 0u;");
    b.open_for(index + " i = first + lid", "i < last", "i += " + w);
    p.key_at(b, "i");
    b.line("++c[" + p.digit(value_name(p.root)) + "];");
    b.close();
    b.line("for (unsigned int v = 0u; v < " + radix_u + "; ++v) h[v * " + w + " + lid] = c[v];");
    b.line(d.group.barrier);
    b.open_for("unsigned int s = " + std::to_string(r.group / 2) + "u", "s > 0u", "s >>= 1");
    b.line("if (lid < s) for (unsigned int v = 0u; v < " + radix_u + "; ++v) h[v * " + w + " + lid] += h[v * " + w +
           " + lid + s];");
    b.line(d.group.barrier);
    b.close();
    b.line("if (lid < " + radix_u + ") " + parts_of_digit("lid", "g") + " = h[lid * " + w + "];");
}

// The tiled layout's scatter body. Work-item l holds the tile's keys l * radix_items ..
// l * radix_items + radix_items - 1, so ranks in work-item order are ranks in element order. Its
// count of each digit value is a 16-bit half of one of 8 words (a tile is at most 2^16 keys); an
// inclusive scan of the words over the group gives each work-item the tile's keys of each value
// before its own, and the group's last the tile's totals, which advance the group's start of each
// digit value for the next tile.
void tiled_scatter_body(source_builder& b, const pass_text& p) {
    const radix_pass_kernel& r = p.r;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(r.group) + "u";
    const std::string items = std::to_string(radix_items) + "u";
    const std::string q = d.group.array_qualifier;
    b.line(q + " unsigned int sc[" + std::to_string(8 * r.group) + "];");
    b.line(q + " " + index + " base[16];");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const("unsigned int", "g", d.group.group_id);
    b.declare_const(index, "first", "(" + index + ")g * chunk");
    b.declare(index, "last", "first + chunk");
    b.line("if (last > n) last = n;");
    b.line("if (lid < 16u) base[lid] = " + parts_of_digit("lid", "g") + ";");
    b.line(d.group.barrier);
    b.open_for(index + " t = first", "t < last", "t += " + std::to_string(r.group * radix_items) + "u");
    b.line("unsigned int wd[8];");
    b.line("for (unsigned int v = 0u; v < 8u; ++v) wd[v] = 0u;");
    b.line(p.key + " k[" + std::to_string(radix_items) + "];");
    b.line("unsigned int dg[" + std::to_string(radix_items) + "], rk[" + std::to_string(radix_items) + "];");
    for (unsigned j = 0; j < radix_items; ++j) {
        const std::string jj = std::to_string(j);
        b.open();
        b.declare_const(index, "i", "t + (" + index + ")lid * " + items + " + " + jj + "u");
        b.line("dg[" + jj + "] = 16u;");
        b.open("if (i < last)");
        p.key_at(b, "i");
        b.line("k[" + jj + "] = " + value_name(p.root) + ";");
        b.declare_const("unsigned int", "v", p.digit("k[" + jj + "]"));
        b.line("dg[" + jj + "] = v;");
        b.line("rk[" + jj + "] = (wd[v >> 1] >> ((v & 1u) * 16u)) & 0xFFFFu;");
        b.line("wd[v >> 1] += 1u << ((v & 1u) * 16u);");
        b.close();
        b.close();
    }
    b.line("for (unsigned int v = 0u; v < 8u; ++v) sc[v * " + w + " + lid] = wd[v];");
    b.line(d.group.barrier);
    b.open_for("unsigned int o = 1u", "o < " + w, "o <<= 1");
    b.line("unsigned int x[8];");
    b.line("for (unsigned int v = 0u; v < 8u; ++v) x[v] = lid >= o ? sc[v * " + w + " + lid - o] : 0u;");
    b.line(d.group.barrier);
    b.line("for (unsigned int v = 0u; v < 8u; ++v) sc[v * " + w + " + lid] += x[v];");
    b.line(d.group.barrier);
    b.close();
    for (unsigned j = 0; j < radix_items; ++j) {
        const std::string jj = std::to_string(j);
        b.open("if (dg[" + jj + "] < 16u)");
        b.declare_const("unsigned int", "v", "dg[" + jj + "]");
        b.declare_const("unsigned int", "before",
                        "((sc[(v >> 1) * " + w + " + lid] - wd[v >> 1]) >> ((v & 1u) * 16u)) & 0xFFFFu");
        b.declare_const(index, "to", "base[v] + before + rk[" + jj + "]");
        b.line("keys_out[to] = k[" + jj + "];");
        for (std::size_t k = 0; k < r.carried.size(); ++k)
            b.line("out" + std::to_string(k) + "[to] = in" + std::to_string(k) + "[t + (" + index + ")lid * " + items +
                   " + " + jj + "u];");
        b.close();
    }
    b.line(d.group.barrier);
    b.line("if (lid < 16u) base[lid] += (sc[(lid >> 1) * " + w + " + " + std::to_string(r.group - 1) +
           "u] >> ((lid & 1u) * 16u)) & 0xFFFFu;");
    b.line(d.group.barrier);
    b.close();
}

// The whole sort in one work-item (radix_pass::whole): per digit, the counts of its values, their
// exclusive scan, then each key (and its values) to its place; the first digit reads the input
// and the value vectors in place and writes the scratch copies, then the digits alternate, the
// last (an odd one: the count is even) writing the outputs.
void whole_body(source_builder& b, const pass_text& p) {
    const radix_pass_kernel& r = p.r;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, radix = std::to_string(1u << r.radix_bits) + "u";
    const unsigned digits = size_of(r.key) * 8 / r.radix_bits;
    b.line(index + " c[" + std::to_string(1u << r.radix_bits) + "];");
    // One digit: keys from `key_of` (lines for element i, then the key's name), values from
    // `in` + k, to `keys_to` and `out` + k.
    auto digit = [&](const std::function<std::string()>& key_of, const std::string& keys_to, const std::string& in,
                     const std::string& out) {
        b.line("for (unsigned int v = 0u; v < " + radix + "; ++v) c[v] = 0;");
        b.open_for(index + " i = 0", "i < n", "++i");
        b.line("++c[" + p.digit(key_of()) + "];");
        b.close();
        b.declare(index, "sum", "0");
        b.open_for("unsigned int v = 0u", "v < " + radix, "++v");
        b.declare_const(index, "count", "c[v]");
        b.line("c[v] = sum;");
        b.line("sum += count;");
        b.close();
        b.open_for(index + " i = 0", "i < n", "++i");
        b.declare_const(p.key, "key", key_of());
        b.declare_const(index, "to", "c[" + p.digit("key") + "]++");
        b.line(keys_to + "[to] = key;");
        for (std::size_t k = 0; k < r.carried.size(); ++k)
            b.line(out + std::to_string(k) + "[to] = " + in + std::to_string(k) + "[i];");
        b.close();
    };
    b.open();
    b.line("const unsigned int shift = 0u;");
    digit(
        [&] {
            p.key_at(b, "i");
            return value_name(p.root);
        },
        "keys_tmp", "out", "tmp");
    b.close();
    b.open_for("unsigned int at = 1u", "at < " + std::to_string(digits) + "u", "++at");
    b.declare_const("unsigned int", "shift", "at * " + std::to_string(r.radix_bits) + "u");
    const std::string key_pointer = buffer_parameter(d, p.key, true, false);
    b.declare(key_pointer, "from", "(at & 1u) ? keys_tmp : keys_out");
    b.declare(key_pointer, "keys_to", "(at & 1u) ? keys_out : keys_tmp");
    for (std::size_t k = 0; k < r.carried.size(); ++k) {
        const std::string kk = std::to_string(k),
                          pointer = buffer_parameter(d, type_name(d, r.carried[k]), true, false);
        b.declare(pointer, "from" + kk, "(at & 1u) ? tmp" + kk + " : out" + kk);
        b.declare(pointer, "to" + kk, "(at & 1u) ? out" + kk + " : tmp" + kk);
    }
    digit([] { return std::string("from[i]"); }, "keys_to", "from", "to");
    b.close();
}

// The offsets pass: one group's exclusive scan of the counts, in place (codegen/count_scan.hpp).
void offsets_body(source_builder& b, const radix_pass_kernel& r) { write_count_scan(b, r.group, "p0"); }

} // namespace

bool radix_key(dtype t) { return ir::is_float(t) || ir::is_signed_integer(t) || ir::is_unsigned_integer(t); }

kernel_source emit_radix_pass(const radix_pass_kernel& r, const dialect& d) {
    if (!radix_key(r.key)) throw error("loom: internal error: a radix sort's key is not an integer or floating type");
    if (!r.chunked && r.radix_bits != tiled_radix_bits)
        throw error("loom: internal error: the tiled radix passes take 4-bit digits");
    ir::kernel input = *r.input;
    if (r.pass == radix_pass::offsets) input.params[0].written = true;
    lowered_kernel lowered = lower_neighbour_reads(input, {r.root}, neighbour_form::checked);
    pass_text p{r, std::move(lowered.kernel), lowered.node[r.root], type_name(d, r.key),
                std::to_string((1u << r.radix_bits) - 1) + "u"};

    ir::kernel probe = input; // the pragmas the keys and carried values need
    for (dtype t : r.carried) probe.params.push_back({ir::param_kind::buffer, t, false});
    source_builder b(d);
    b.append(pass_prologue(probe, {}, d));
    if (r.pass != radix_pass::offsets) write_key_bits(b, r.key);

    const bool whole = r.pass == radix_pass::whole;
    if (whole && !r.chunked) throw error("loom: internal error: a whole radix sort is the chunked layout's");
    std::string signature =
        std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(input, d, /*rebindable=*/whole);
    parameter_layout layout;
    input_layout(input, layout);
    const std::string index = d.index_type;
    auto buffer = [&](const std::string& type, const std::string& name, bool written, parameter role,
                      bool restricted = true) {
        signature += buffer_parameter(d, type, written, restricted) + name + ", ";
        layout.push_back(role);
    };
    if (whole) {
        buffer(p.key, "keys_out", true, {parameter_role::output, 0}, false);
        buffer(p.key, "keys_tmp", true, {parameter_role::carried, 0}, false);
        for (std::uint32_t k = 0; k < r.carried.size(); ++k) {
            const std::string t = type_name(d, r.carried[k]);
            buffer(t, "out" + std::to_string(k), true, {parameter_role::output, k + 1}, false);
            buffer(t, "tmp" + std::to_string(k), true, {parameter_role::carried, k + 1}, false);
        }
        signature += "unsigned int descending, ";
        layout.push_back({parameter_role::key_order});
    }
    if (r.pass == radix_pass::scatter) buffer(p.key, "keys_out", true, {parameter_role::output, 0});
    if (r.pass == radix_pass::count) buffer(index, "counts", true, {parameter_role::totals});
    if (r.pass == radix_pass::scatter) buffer(index, "counts", false, {parameter_role::offsets});
    if (r.pass == radix_pass::scatter)
        for (std::uint32_t k = 0; k < r.carried.size(); ++k) {
            const std::string t = type_name(d, r.carried[k]);
            buffer(t, "in" + std::to_string(k), false, {parameter_role::carried, k});
            buffer(t, "out" + std::to_string(k), true, {parameter_role::output, k + 1});
        }
    if (r.pass == radix_pass::count || r.pass == radix_pass::scatter) {
        signature += "unsigned int shift, unsigned int descending, ";
        layout.push_back({parameter_role::pass_constant});
        layout.push_back({parameter_role::key_order});
    }
    b.open(signature + index + " n, " + index + " chunk, " + index + " parts)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::parts)});
    write_guard(b, input);
    if (r.pass == radix_pass::offsets)
        offsets_body(b, r);
    else if (whole)
        whole_body(b, p);
    else if (r.chunked)
        chunked_body(b, p);
    else if (r.pass == radix_pass::count)
        tiled_count_body(b, p);
    else
        tiled_scatter_body(b, p);
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
