// GPU code quality without a GPU (issue 19, item 6): writes the CUDA C++ that Loom's CUDA
// backend generates for bench_cuda's workloads, and compiles each with NVRTC exactly as the
// backend does (backend/cuda/nvrtc_compile.cpp), so that bench/cuda/code_quality.sh can set
// its resource usage and SASS beside the handwritten kernels of kernels.cu.
//
//   code_quality OUT_DIR [--arch 90]
//
// Writes per kernel, into OUT_DIR: <name>.cu (the source), <name>.cubin (nvrtc_compile's
// cubin, the backend's binary), <name>.ptx (the PTX nvrtc_compile would JIT from),
// <name>.ptxas.txt and <name>.verbose.cubin (NVRTC's log and cubin of the same compile with
// --ptxas-options=-v added), and manifest.tsv (one line per kernel: name, role, the bytes one
// element loads and stores, and the expression).
//
// Needs no GPU: the maps are planned on an OpenCL context (PoCL's CPU device) and caught by
// the kernel observer before they compile; each is then given the form a GPU gets
// (ir::map_form::grid_stride, no 2-D launch, no double division, as runtime/flush.cpp sets
// them from launch::map_form_for and wants_grid_form on a GPU) and emitted in the CUDA
// dialect. The reduce and scan passes are emitted by the skeleton emitters with the
// arguments skeleton/plan_reduce.cpp and plan_scan.cpp plan on a GPU.
//
// Kernels named preview_* are NOT what Loom generates today: they are Loom's IR emitted with
// a change this tool makes (a 32-bit index dialect, four elements per iteration through
// float4, the stencil's grid form on a GPU), so that the fixes proposed
// in docs/bench/gpu-code-quality.md are measured by the same script as the rest.
#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "loom/loom.hpp"

#include "backend/cuda/nvrtc_compile.hpp"
#include "backend/device.hpp"
#include "codegen/dialect.hpp"
#include "codegen/emit.hpp"
#include "ir/kernel.hpp"
#include "runtime/kernel_observer.hpp"
#include "launch/skeleton_geometry.hpp"
#include "skeleton/reduce_kernel.hpp"
#include "skeleton/scan_kernel.hpp"

namespace {

namespace cuda = loom::backend::cuda;

// A generated kernel's body with its entry point called loom_kernel again (Loom names each
// kernel after its text, codegen/kernel_source.hpp): code_quality.sh finds every kernel's
// function by that one name.
std::string unnamed(const loom::codegen::kernel_source& k) {
    std::string s = k.body;
    s.replace(s.find(k.name), k.name.size(), loom::codegen::unnamed_kernel);
    return s;
}

struct options {
    std::string out;
    int arch = 90;
};

void write_file(const std::string& path, const void* data, std::size_t size) {
    std::ofstream f(path, std::ios::binary);
    f.write(static_cast<const char*>(data), std::streamsize(size));
    if (!f) throw std::runtime_error("cannot write " + path);
}

void write_text(const std::string& path, const std::string& text) { write_file(path, text.data(), text.size()); }

// NVRTC with the backend's options (nvrtc_compile) plus --ptxas-options=-v: its log is
// ptxas's resource report. Returns the log; `cubin` receives the binary, whose SASS the
// script checks against nvrtc_compile's.
std::string ptxas_report(const std::string& source, int arch, std::vector<char>& cubin) {
    std::vector<std::string> opts = {"--gpu-architecture=sm_" + std::to_string(arch)};
    for (const std::string& o : cuda::nvrtc_common_options()) opts.push_back(o);
    opts.push_back("--ptxas-options=-v");
    std::vector<const char*> argv;
    for (const std::string& o : opts) argv.push_back(o.c_str());
    nvrtcProgram prog = nullptr;
    if (nvrtcCreateProgram(&prog, source.c_str(), "loom_kernel.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
        throw std::runtime_error("nvrtcCreateProgram failed");
    const nvrtcResult r = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    if (size) nvrtcGetProgramLog(prog, log.data());
    log.erase(std::remove(log.begin(), log.end(), '\0'), log.end());
    if (r == NVRTC_SUCCESS) {
        nvrtcGetCUBINSize(prog, &size);
        cubin.resize(size);
        nvrtcGetCUBIN(prog, cubin.data());
    }
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) throw std::runtime_error(std::string("NVRTC: ") + nvrtcGetErrorString(r) + "\n" + log);
    std::string all;
    for (const std::string& o : opts) all += o + " ";
    return "# NVRTC options: " + all + "\n" + log;
}

// A kernel's role, for the analysis: which bytes count one element (manifest.tsv).
struct entry {
    std::string name, role;
    int load_bytes, store_bytes; // per element, of the arrays the hot loop walks
    std::string what;
};

class writer {
public:
    explicit writer(options o) : o_(std::move(o)) {}

    void add(const entry& e, const std::string& source) {
        const std::string base = o_.out + "/" + e.name;
        write_text(base + ".cu", source);
        const cuda::nvrtc_output bin = cuda::nvrtc_compile(source, o_.arch, true);
        if (bin.kind != "cubin") throw std::runtime_error(e.name + ": NVRTC gave " + bin.kind + ", not a cubin");
        write_file(base + ".cubin", bin.binary.data(), bin.binary.size());
        const cuda::nvrtc_output ptx = cuda::nvrtc_compile(source, o_.arch, false);
        write_file(base + ".ptx", ptx.binary.data(), ptx.binary.size() - 1); // without the '\0'
        // The verbose compile's cubin, which code_quality.sh checks has the same SASS (its ELF
        // notes differ: they hold the options).
        std::vector<char> verbose_cubin;
        write_text(base + ".ptxas.txt", ptxas_report(source, o_.arch, verbose_cubin));
        write_file(base + ".verbose.cubin", verbose_cubin.data(), verbose_cubin.size());
        manifest_ += e.name + "\t" + e.role + "\t" + std::to_string(e.load_bytes) + "\t" +
                     std::to_string(e.store_bytes) + "\t" + e.what + "\n";
        std::printf("%-24s %s (%zu bytes of cubin)\n", e.name.c_str(), e.what.c_str(), bin.binary.size());
    }

    void finish() {
        write_text(o_.out + "/manifest.tsv", "# name\trole\tload_bytes\tstore_bytes\twhat\n" + manifest_);
        write_text(o_.out + "/versions.txt", cuda::nvrtc_version() + ", sm_" + std::to_string(o_.arch) + "\n");
    }

private:
    options o_;
    std::string manifest_;
};

// The maps: each statement flushed on its own, its one kernel caught by the observer.
std::vector<loom::ir::kernel>& caught() {
    static std::vector<loom::ir::kernel> k;
    return k;
}

// The map kernel as a GPU gets it (runtime/flush.cpp on a device_info with gpu = true).
loom::ir::kernel as_on_gpu(loom::ir::kernel k) {
    k.form = loom::ir::map_form::grid_stride;
    k.double_grid_division = false;
    k.grid_width_param = loom::ir::no_node; // the 1-D form; grid kernels are added apart (below)
    return k;
}

loom::ir::kernel map_kernel(loom::context& ctx, const std::function<void()>& statement, const std::string& name) {
    ctx.finish();
    caught().clear();
    statement();
    ctx.finish();
    // A 2-D stencil is caught twice on PoCL: the 1-D kernel first, then its grid form.
    if (caught().empty()) throw std::runtime_error(name + ": no map kernel was generated");
    const loom::ir::kernel k = as_on_gpu(caught().front());
    for (const loom::ir::kernel_param& p : k.params)
        if (p.packed) std::fprintf(stderr, "%s: note: packed scalars (PoCL's parameter limit)\n", name.c_str());
    return k;
}

// ---- previews of proposed fixes: NOT what Loom generates today ------------------------------

// Fix 2 (docs/bench/gpu-code-quality.md): a 32-bit index where n plus one grid stride fits in
// 32 bits, the CUDA dialect with unsigned int i and n.
loom::codegen::dialect cuda_dialect_32() {
    loom::codegen::dialect d = loom::codegen::cuda_dialect();
    d.global_id = "(blockIdx.x * blockDim.x + threadIdx.x)";
    d.global_size = "(blockDim.x * gridDim.x)";
    d.index_type = "unsigned int";
    return d;
}

// Fix 1 with fix 2: the grid form in 32-bit coordinates (int row, column, width and offsets),
// for grids of fewer than 2^31 elements.
loom::codegen::dialect cuda_grid_dialect_32() {
    loom::codegen::dialect d = cuda_dialect_32();
    d.grid_item = "for (int loom_row = blockIdx.y * blockDim.y + threadIdx.y; loom_row < loom_h;"
                  " loom_row += blockDim.y * gridDim.y)\n"
                  "    for (int loom_col = blockIdx.x * blockDim.x + threadIdx.x; loom_col < loom_w;"
                  " loom_col += blockDim.x * gridDim.x) {\n"
                  "        const unsigned int i = (unsigned int)(loom_row * loom_w + loom_col);";
    d.signed_index_type = "int";
    d.type_names[std::size_t(loom::dtype::i64)] = "int"; // the offsets and widths
    return d;
}

// Fix 3: four consecutive elements per iteration of the grid-stride loop, every float buffer
// read and written as one float4 (16-byte aligned buffers: the runtime would keep the scalar
// kernel for others), then the last n % 4 elements one per work-item. The element body is the
// emitter's own text once per lane, in a block where each buffer parameter p<k> names the
// lane's four registers, so that its loads read p<k>[lane] and its stores write it.
// `per_element(index)`: statements after each element's body (a reduction's fold).
std::string vec4_loop(const loom::ir::kernel& k, const loom::codegen::dialect& d,
                      const std::vector<std::uint32_t>& roots, const std::function<std::string()>& per_element) {
    namespace cg = loom::codegen;
    for (const loom::ir::node& n : k.body)
        if (n.op == loom::opcode::load_neighbour || n.op == loom::opcode::index || n.op == loom::opcode::load_first)
            throw std::runtime_error("vec4 preview: only plain loads");
    const std::string u = d.index_type;
    std::string s = "    const " + u + " loom_quads = n / 4;\n";
    s += "    for (" + u + " q = " + d.global_id + "; q < loom_quads; q += " + d.global_size + ") {\n";
    std::string shadows, stores;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const loom::ir::kernel_param& param = k.params[p];
        if (param.kind != loom::ir::param_kind::buffer) continue;
        if (param.type != loom::dtype::f32) throw std::runtime_error("vec4 preview: float buffers only");
        const std::string b = "b" + std::to_string(p), g = "p" + std::to_string(p);
        bool read = false;
        for (const loom::ir::node& n : k.body) read = read || (n.op == loom::opcode::load && n.slot == p);
        s += "        float " + b + "[4];\n";
        if (read)
            s += "        { const float4 t = ((const float4 *)" + g + ")[q]; " + b + "[0] = t.x; " + b + "[1] = t.y; " +
                 b + "[2] = t.z; " + b + "[3] = t.w; }\n";
        shadows += std::string(param.written ? "float *" : "const float *") + g + " = " + b + "; ";
        if (param.written)
            stores += "        ((float4 *)" + g + ")[q] = make_float4(" + b + "[0], " + b + "[1], " + b + "[2], " + b +
                      "[3]);\n";
    }
    for (int lane = 0; lane < 4; ++lane) {
        const std::string l = std::to_string(lane);
        s += "        {\n            " + shadows + "\n";
        s += cg::emit_values(k, d, roots, "            ", l) + cg::emit_stores(k, "            ", l) + per_element();
        s += "        }\n";
    }
    s += stores + "    }\n";
    s += "    for (" + u + " i = loom_quads * 4 + " + d.global_id + "; i < n; i += " + d.global_size + ") {\n";
    s += cg::emit_values(k, d, roots, "        ", "i") + cg::emit_stores(k, "        ", "i") + per_element();
    return s + "    }\n";
}

std::string vec4_map(const loom::ir::kernel& k, const loom::codegen::dialect& d) {
    namespace cg = loom::codegen;
    std::vector<std::uint32_t> roots;
    for (const loom::ir::kernel_store& st : k.stores) roots.push_back(st.value);
    return cg::emit_prologue(k, d) + d.kernel_prefix + " " + cg::unnamed_kernel + "(" + cg::emit_parameters(k, d) +
           d.index_type + " n) {\n" + cg::emit_guard(k, d) + vec4_loop(k, d, roots, [] { return std::string(); }) +
           "}\n";
}

// Reduce pass 1 (grid-stride) with its element loop replaced by vec4_loop; the rest (the
// tree) as Loom emits it.
std::string vec4_reduce_pass(const std::string& pass, const loom::skeleton::input_kernel& in,
                             const loom::codegen::dialect& d) {
    // The grid-stride fold (codegen/reduce_pass.cpp, stride_fold) is the block that opens with i.
    const std::string head = std::string("    {\n        ") + d.index_type + " i = ";
    std::size_t from = pass.find(head);
    const std::size_t to = pass.find("    const unsigned int lid");
    // An emitter with a 32-bit loop before the 64-bit one puts a test of n first: both go.
    const std::size_t narrow = pass.find("    if (n + ");
    if (narrow != std::string::npos && narrow < from) from = narrow;
    if (from == std::string::npos || to == std::string::npos) throw std::runtime_error("vec4 preview: no stride loop");
    const std::string fold = "            a0 = loom_combine0(a0, " + loom::codegen::value_name(in.root) + ");\n";
    return pass.substr(0, from) + vec4_loop(in.kernel, d, {in.root}, [&] { return fold; }) + pass.substr(to);
}

template <class T, class Op> loom::skeleton::combine_op combine(const Op& op, T identity) {
    const loom::detail::skeleton_operation s = loom::expr::operation<T>(op, identity);
    loom::skeleton::combine_op c;
    c.shape = s.op->body;
    c.role = s.op->role;
    c.type = s.type;
    c.captures = loom::skeleton::capture_types(c);
    return c;
}

int run(const options& o) {
    namespace cg = loom::codegen;
    writer out(o);
    const cg::dialect& d = cg::cuda_dialect();
    const cg::dialect d32 = cuda_dialect_32();
    loom::detail::set_kernel_observer([](const loom::ir::kernel& k) { caught().push_back(k); });
    // bench_cuda's context options: fusion on, contraction off (bench/cuda/bench_cuda.cpp).
    loom::context ctx(loom::context_options{"opencl", "", 1, 0});
    loom::context fma_ctx(loom::context_options{"opencl", "", 1, 1}); // LOOM_FP_CONTRACT=on, for comparison
    constexpr std::size_t nx = 64, n = nx * nx;                       // the source does not depend on n
    const std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
    // bench_cuda's scalars (scalars(), stencil_c).
    const float a = 2.5f, c[8] = {0.75f, 1.25f, 0.5f, 1.5f, 0.875f, 1.125f, 0.625f, 1.375f}, stencil_c = 0.2f;

    for (loom::context* cx : {&ctx, &fma_ctx}) {
        const bool fma = cx == &fma_ctx;
        const std::string suffix = fma ? "_fma" : "";
        loom::vector<float> x(*cx, hx), y(*cx, hy), z(*cx, n);
        auto map = [&](const std::string& name, int load, const std::string& what, const std::function<void()>& st) {
            const loom::ir::kernel k = map_kernel(*cx, st, name);
            const std::string w = what + (fma ? " (fp_contract on)" : "");
            out.add({"loom_" + name + suffix, "map", load, 4, w}, unnamed(cg::emit(k, d)));
            if (fma) return k;
            if (name == "saxpy" || name == "triad") { // previews of fixes 2 and 3
                out.add({"preview_" + name + "_idx32", "map", load, 4, w + "; 32-bit index"},
                        unnamed(cg::emit(k, d32)));
                out.add({"preview_" + name + "_vec4", "map", load, 4, w + "; float4, 64-bit index"}, vec4_map(k, d));
                out.add({"preview_" + name + "_vec4_idx32", "map", load, 4, w + "; float4, 32-bit index"},
                        vec4_map(k, d32));
            }
            return k;
        };
        if (!fma) {
            map("copy", 4, "z = x", [&] { z = x; });
            map("scale", 4, "z = a * x", [&] { z = a * x; });
        }
        map("saxpy", 8, "y = a * x + y", [&] { y = a * x + y; });
        map("triad", 8, "z = x + a * y", [&] { z = x + a * y; });
        map("chain8", 4, "z = (..((x * c0 + x) * c1 + x)..) * c7 + x", [&] {
            z = (((((((x * c[0] + x) * c[1] + x) * c[2] + x) * c[3] + x) * c[4] + x) * c[5] + x) * c[6] + x) * c[7] + x;
        });
        map("issue4_chain4", 8, "z = (a * x + y) * (a * x + y) - x", [&] { z = (a * x + y) * (a * x + y) - x; });
        const loom::ir::kernel stencil = map(
            "stencil2d_5pt", 4, "z = x + c * (at(g,-1,0) + at(g,1,0) + at(g,0,-1) + at(g,0,1) - 4 * x), clamped", [&] {
                auto g = loom::grid(x, nx, n / nx);
                z = x + stencil_c * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) -
                                     4.0f * x);
            });
        if (!fma) { // the grid form, which a GPU runs since launch::wants_grid_form holds for every device
            loom::ir::kernel grid = stencil;
            const std::vector<std::uint32_t> widths = loom::ir::grid_width_params(grid);
            if (widths.empty()) throw std::runtime_error("stencil: no grid width parameter");
            grid.grid_width_param = widths[0];
            out.add({"preview_stencil2d_5pt_grid", "map", 4, 4,
                     "the stencil in Loom's grid form (2-D launch, no division)"},
                    unnamed(cg::emit(grid, d)));
            out.add({"preview_stencil2d_5pt_grid_idx32", "map", 4, 4, "the grid form in 32-bit coordinates"},
                    unnamed(cg::emit(grid, cuda_grid_dialect_32())));
            grid.narrow_grid = true; // what Loom launches on grids of fewer than 2^30 elements
            out.add({"loom_stencil2d_5pt_grid_int", "map", 4, 4, "the grid kernel in int coordinates"},
                    unnamed(cg::emit(grid, d)));
        }
    }
    loom::detail::set_kernel_observer(nullptr);

    // The reduce and scan passes as the CUDA path emits them: group size and layout from
    // reduce_geometry_for on a GPU (an H100's 132 SMs and 1024-thread blocks; only `gpu` and
    // `max_work_group` change the source), the scan's group from the same skeleton_group_size.
    using namespace loom::skeleton;
    using loom::launch::reduce_geometry;
    using loom::launch::reduce_geometry_for;
    loom::backend::device_info gpu;
    gpu.gpu = true;
    gpu.compute_units = 132;
    gpu.max_work_group = 1024;
    const reduce_geometry geo = reduce_geometry_for(gpu, std::uint64_t(1) << 26);
    const unsigned group = geo.group;
    const combine_op plus = combine<float>(loom::detail::plus_operation{}, 0.0f);
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    // Input slot classes as run_reduce binds them: x and y distinct buffers.
    const input_kernel dot = build_input(*loom::expr::input_shape(x * y), {0, 1}, loom::dtype::f32);
    const input_kernel sum = build_input(*loom::expr::input_shape(x), {0}, loom::dtype::f32);
    const input_kernel partials = partials_input({loom::dtype::f32});
    const std::string g = " (group " + std::to_string(group) + (geo.chunked ? ", chunked)" : ", grid-stride)");
    const std::string dot_what = "sum(x * y), pass 1" + g;
    out.add({"loom_dot_pass1", "reduce", 8, 0, dot_what},
            unnamed(emit_reduce_pass(dot, {{dot.root, &plus}}, group, geo.chunked, d)));
    out.add({"preview_dot_pass1_idx32", "reduce", 8, 0, dot_what + "; 32-bit index"},
            unnamed(emit_reduce_pass(dot, {{dot.root, &plus}}, group, geo.chunked, d32)));
    out.add({"preview_dot_pass1_vec4", "reduce", 8, 0, dot_what + "; float4, 64-bit index"},
            vec4_reduce_pass(unnamed(emit_reduce_pass(dot, {{dot.root, &plus}}, group, geo.chunked, d)), dot, d));
    out.add({"preview_dot_pass1_vec4_idx32", "reduce", 8, 0, dot_what + "; float4, 32-bit index"},
            vec4_reduce_pass(unnamed(emit_reduce_pass(dot, {{dot.root, &plus}}, group, geo.chunked, d32)), dot, d32));
    out.add({"loom_sum_pass1", "reduce", 4, 0, "sum(x), pass 1" + g},
            unnamed(emit_reduce_pass(sum, {{sum.root, &plus}}, group, geo.chunked, d)));
    out.add({"loom_reduce_pass2", "reduce", 4, 0, "sum and dot, pass 2 over the partials" + g},
            unnamed(emit_reduce_pass(partials, {{0, &plus}}, group, geo.chunked, d)));
    // inclusive_scan(x, z): out of place (skeleton/plan_scan.cpp): on a GPU one pass with
    // decoupled look-back after a pass clearing the tiles' status; three passes when chunked.
    const bool chunked = geo.chunked;
    const std::string t = " (group " + std::to_string(group) + (chunked ? ", chunked)" : ", single pass)");
    if (chunked) {
        out.add({"loom_scan_pass1", "scan", 4, 0, "inclusive_scan(x, z), pass 1: chunk totals" + t},
                unnamed(emit_scan_pass(sum, plus, scan_pass::chunk_totals, false, no_class, group, chunked, d)));
        out.add({"loom_scan_pass2", "scan", 4, 4, "inclusive_scan(x, z), pass 2: scan of the totals" + t},
                unnamed(emit_scan_pass(partials, plus, scan_pass::scan_totals, true, no_class, group, chunked, d)));
        out.add({"loom_scan_pass3", "scan", 4, 4, "inclusive_scan(x, z), pass 3: the output" + t},
                unnamed(emit_scan_pass(sum, plus, scan_pass::scan_output, false, no_class, group, chunked, d)));
    } else {
        out.add({"loom_scan_single_pass", "scan", 4, 4, "inclusive_scan(x, z), the single pass" + t},
                unnamed(emit_scan_pass(sum, plus, scan_pass::single_pass, false, no_class, group, chunked, d)));
    }
    out.finish();
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--arch" && i + 1 < argc)
            o.arch = std::atoi(argv[++i]);
        else if (a == "-h" || a == "--help") {
            std::printf("usage: %s OUT_DIR [--arch 90]\n", argv[0]);
            return 0;
        } else
            o.out = a;
    }
    if (o.out.empty()) {
        std::fprintf(stderr, "usage: %s OUT_DIR [--arch 90]\n", argv[0]);
        return 2;
    }
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "code_quality: %s\n", e.what());
        return 1;
    }
}
