// The grid-stride map with vector loads and stores; see vector_map.hpp.
#include "codegen/vector_map.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/emit_core.hpp"
#include "codegen/vector_types.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

// The vector form writes the element's body once per lane and twice more (the tail, the
// misaligned loop). Past this many live nodes a kernel computes more than it moves, and the
// scalar form's smaller code is kept: a rule, not yet measured on a GPU.
constexpr std::size_t most_live_nodes = 64;

bool plain_element_type(dtype t) {
    return t != dtype::boolean && !ir::is_complex(t) && !is_short_vector(t) && size_of(t) <= 8;
}

std::string vector_name(std::uint32_t param) { return "loom_v" + std::to_string(param); }

// Buffer p's `lanes` elements from the vector's first element, as a vector lvalue.
std::string vector_at(const dialect& d, const ir::kernel& k, std::uint32_t param, unsigned lanes, bool written) {
    const std::string type = type_name(d, vector_dtype(k.params[param].type, lanes));
    return "*(" + buffer_parameter(d, type, written, false) + ")(p" + std::to_string(param) + " + loom_first)";
}

} // namespace

unsigned vector_map_lanes(const ir::kernel& k) {
    if (k.form != ir::map_form::grid_stride || k.grid_width_param != ir::no_node || k.stores.empty()) return 0;
    for (const ir::kernel_store& st : k.stores) {
        const dtype t = k.params[st.param].type;
        if (st.index != ir::no_node || st.limit != ir::no_node || k.body[st.value].type != t) return 0;
    }
    return vector_lanes(k, live_nodes(k), k.params[k.stores[0].param].type);
}

unsigned vector_lanes(const ir::kernel& k, const std::vector<bool>& live, dtype also) {
    std::size_t count = 0;
    unsigned widest = 0;
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        if (!live[j]) continue;
        ++count;
        const ir::node& n = k.body[j];
        switch (n.op) {
        case opcode::load:
            if (!plain_element_type(n.type) || n.type != k.params[n.slot].type) return 0;
            widest = std::max(widest, size_of(n.type));
            break;
        case opcode::load_at:
        case opcode::load_neighbour:
        case opcode::row_sum: return 0;
        case opcode::index:
            switch (ir::index_value(n.slot)) {
            case ir::index_value::element:
            case ir::index_value::count:
            case ir::index_value::zero:
            case ir::index_value::one: break;
            default: return 0; // a grid's or an axis's position: not a plain map
            }
            break;
        default: break;
        }
    }
    if (count > most_live_nodes) return 0;
    for (const ir::kernel_store& st : k.stores) {
        const dtype t = k.params[st.param].type;
        if (!plain_element_type(t)) return 0;
        widest = std::max(widest, size_of(t));
    }
    if (!plain_element_type(also)) return 0;
    widest = std::max(widest, size_of(also));
    return widest == 8 ? 2 : 4;
}

std::vector<std::uint32_t> vector_loads(const ir::kernel& k, const std::vector<bool>& live) {
    std::vector<std::uint32_t> loaded;
    for (std::uint32_t j = 0; j < k.body.size(); ++j)
        if (live[j] && k.body[j].op == opcode::load) loaded.push_back(k.body[j].slot);
    std::sort(loaded.begin(), loaded.end());
    loaded.erase(std::unique(loaded.begin(), loaded.end()), loaded.end());
    return loaded;
}

std::string misalignment(const ir::kernel& k, const std::vector<std::uint32_t>& params, unsigned lanes) {
    std::string misaligned;
    for (std::uint32_t p : params) {
        const std::string bytes = std::to_string(size_of(k.params[p].type) * lanes);
        misaligned += (misaligned.empty() ? "" : " | ") + ("((size_t)p" + std::to_string(p) + " % " + bytes + ")");
    }
    return misaligned.empty() ? "0" : misaligned;
}

void declare_vector_loads(source_builder& b, const ir::kernel& k, const std::vector<std::uint32_t>& params,
                          unsigned lanes) {
    const dialect& d = b.dialect();
    for (std::uint32_t p : params) {
        const std::string type = type_name(d, vector_dtype(k.params[p].type, lanes));
        b.declare_const(type, vector_name(p), vector_at(d, k, p, lanes, false));
    }
}

void write_lane_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& live, unsigned lane) {
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        if (!live[j]) continue;
        const ir::node& n = k.body[j];
        b.declare(n.type, value_name(j),
                  n.op == opcode::load ? vector_name(n.slot) + "." + component_name(lane)
                                       : value_expression(k, j, b.dialect(), "i"));
    }
}

void write_vector_map(source_builder& b, const ir::kernel& k, unsigned lanes) {
    const dialect& d = b.dialect();
    const std::string u = d.index_type, l = std::to_string(lanes);
    const std::vector<bool> live = live_nodes(k);
    const std::vector<std::uint32_t> loaded = vector_loads(k, live);
    // Every buffer at a multiple of its vector's size, tested once for the whole kernel.
    std::vector<std::uint32_t> accessed = loaded, written_only; // the loaded, then the stored ones not loaded
    for (const ir::kernel_store& st : k.stores)
        if (!std::binary_search(loaded.begin(), loaded.end(), st.param)) written_only.push_back(st.param);
    std::sort(written_only.begin(), written_only.end());
    written_only.erase(std::unique(written_only.begin(), written_only.end()), written_only.end());
    accessed.insert(accessed.end(), written_only.begin(), written_only.end());
    const std::string misaligned = misalignment(k, accessed, lanes);
    const std::string scalar_loop_from = std::string(d.global_id);
    auto scalar_loop = [&](const std::string& from) {
        b.open_for(u + " i = " + from, "i < n", "i += " + std::string(d.global_size));
        write_body(b, k);
        b.close();
    };
    b.declare_const(u, "loom_vectors", "n / " + l);
    b.open("if ((" + misaligned + ") == 0)");
    b.open_for(u + " loom_q = " + d.global_id, "loom_q < loom_vectors", "loom_q += " + std::string(d.global_size));
    b.declare_const(u, "loom_first", "loom_q * " + l);
    declare_vector_loads(b, k, loaded, lanes);
    // Each lane's stored values, kept past the lane's scope for the vector stores.
    std::vector<std::vector<std::string>> stored(k.stores.size());
    for (std::size_t s = 0; s < k.stores.size(); ++s)
        for (unsigned lane = 0; lane < lanes; ++lane) {
            stored[s].push_back("loom_s" + std::to_string(s) + "_" + std::to_string(lane));
            b.line(std::string(b.type(k.params[k.stores[s].param].type)) + " " + stored[s].back() + ";");
        }
    for (unsigned lane = 0; lane < lanes; ++lane) {
        b.open();
        b.declare_const(u, "i", "loom_first + " + std::to_string(lane));
        write_lane_values(b, k, live, lane);
        for (std::size_t s = 0; s < k.stores.size(); ++s)
            b.line(stored[s][lane] + " = " + value_name(k.stores[s].value) + ";");
        b.close();
    }
    for (std::size_t s = 0; s < k.stores.size(); ++s) {
        const std::uint32_t p = k.stores[s].param;
        b.line(vector_at(d, k, p, lanes, true) + " = " +
               vector_value(d, vector_dtype(k.params[p].type, lanes), stored[s]) + ";");
    }
    b.close();
    scalar_loop("loom_vectors * " + l + " + " + scalar_loop_from);
    b.next("else");
    scalar_loop(scalar_loop_from);
    b.close();
}

} // namespace loom::codegen
