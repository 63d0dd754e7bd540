// The reduce and scan passes in the CUDA dialect: the source is generated without a
// device (the skeleton dialect table supplies shared memory, barriers and built-ins) and,
// where NVRTC is built in, compiled for sm_80 and sm_90.
#include "support.hpp"

#include <complex>
#include <string>

#include "codegen/dialect.hpp"
#include "codegen/emit.hpp"
#include "skeleton/reduce_kernel.hpp"
#include "skeleton/scan_kernel.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

namespace {

template <class T, class Op> loom::skeleton::combine_op combine(const Op& op, T identity) {
    const loom::detail::skeleton_operation s = loom::expr::operation<T>(op, identity);
    loom::skeleton::combine_op c;
    c.shape = s.op->body;
    c.role = s.op->role;
    c.type = s.type;
    return c;
}

// Compiles `source` for sm_80 and sm_90 where NVRTC is built in.
void compiles_with_nvrtc(const std::string& source) {
#ifdef LOOM_HAVE_CUDA
    for (int cc : {80, 90}) {
        CAPTURE(cc);
        CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(source, cc));
    }
#else
    (void)source;
#endif
}

} // namespace

TEST_CASE("reduce and scan passes are valid CUDA C++ (NVRTC, sm_80 and sm_90, where built in)") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    // Shapes are lowered from types only: vectors without a context are enough.
    loom::vector<float> xf, yf;
    loom::vector<double> xd;
    loom::vector<std::int64_t> xi;
    const input_kernel dot = build_input(*loom::expr::input_shape(xf * yf), {0, 1}, loom::dtype::f32);
    const input_kernel dsin = build_input(*loom::expr::input_shape(loom::sin(xd) + 1.0), {0}, loom::dtype::f64);
    const input_kernel ints = build_input(*loom::expr::input_shape(xi * 3 + 1), {0}, loom::dtype::i64);
    const combine_op plus = combine<float>(loom::detail::plus_operation{}, 0.0f);
    const combine_op lo = combine<double>(loom::detail::min_operation{}, 0.0);
    const combine_op hi = combine<double>(loom::detail::max_operation{}, 0.0);
    const std::int64_t m = 1000003;
    const combine_op mod = combine<std::int64_t>([m](auto a, auto b) { return (a + b) % m; }, std::int64_t(0));

    std::vector<std::string> sources = {
        emit_reduce_pass(dot, {{dot.root, &plus}}, 256, false, cuda).text(),
        emit_reduce_pass(partials_input({loom::dtype::f32}), {{0, &plus}}, 256, false, cuda).text(),
        emit_reduce_pass(dsin, {{dsin.root, &lo}, {dsin.root, &hi}}, 256, false, cuda).text(),
        emit_scan_pass(ints, mod, scan_pass::single_pass, false, no_class, 256, false, cuda).text(),
        emit_scan_pass(ints, mod, scan_pass::single_pass, true, 0, 256, false, cuda).text(), // in place
    };
    // A whole tile of a plain input moves as vectors: 64-bit integers two at a time (sources[3]).
    CHECK(sources[3].find("const longlong2 loom_v0 = *(const longlong2 *)(p0 + loom_first);") != std::string::npos);
    CHECK(sources[3].find("*(longlong2 *)(out + first + e) = make_longlong2(") != std::string::npos);
    CHECK(sources.back().find("*(longlong2 *)(p0 + first + e) = make_longlong2((e == 0u ? carry : ") !=
          std::string::npos); // in place and exclusive: lane 0 of the tile's first vector is the carry
    // The single pass's look-back: a ticket, tiles' values read through volatile pointers.
    CHECK(sources.back().find("ticket = atomicAdd(status + tiles, 1u);") != std::string::npos);
    CHECK(sources.back().find("*((volatile long long*)(offsets + (end - 1u - lid)))") != std::string::npos);
    CHECK(sources.back().find("__threadfence();") != std::string::npos);
    // A 16-bit scan: its warp shuffles carry the values through an int.
    {
        loom::vector<std::int16_t> xs;
        const input_kernel shorts = build_input(*loom::expr::input_shape(xs + xs), {0, 0}, loom::dtype::i16);
        const combine_op splus = combine<std::int16_t>(loom::detail::plus_operation{}, std::int16_t(0));
        sources.push_back(
            emit_scan_pass(shorts, splus, scan_pass::single_pass, false, no_class, 256, false, cuda).text());
        CHECK(sources.back().find("(short)__shfl_up_sync(0xffffffffu, (int)") != std::string::npos);
    }
    // Short vectors: CUDA's are structs, read through volatile pointers a component at a time.
    {
        loom::vector<loom::int4> xv;
        loom::vector<loom::double4> xw;
        const input_kernel ints4 = build_input(*loom::expr::input_shape(xv), {0}, loom::dtype::i32x4);
        const input_kernel doubles4 = build_input(*loom::expr::input_shape(xw), {0}, loom::dtype::f64x4);
        const combine_op plus4 = combine<loom::int4>(loom::detail::plus_operation{}, loom::int4{});
        const combine_op plusd4 = combine<loom::double4>(loom::detail::plus_operation{}, loom::double4{});
        sources.push_back(
            emit_scan_pass(ints4, plus4, scan_pass::single_pass, false, no_class, 256, false, cuda).text());
        CHECK(sources.back().find("((volatile int*)(totals + (end - 1u - lid)))[3]") != std::string::npos);
        // 32-byte values: a group of 128, so that the tile fits in 32 KiB (launch::scan_geometry_for).
        sources.push_back(
            emit_scan_pass(doubles4, plusd4, scan_pass::single_pass, true, no_class, 128, false, cuda).text());
    }
    // The pass that clears the tiles' status before the single pass.
    sources.push_back(loom::codegen::emit_status_clear(cuda).text());
    const std::size_t status_clear = sources.size() - 1;
    // Inside loom::loop_while: guarded passes, reading a device scalar (a broadcast load).
    loom::scalar<float> sf;
    input_kernel scaled = build_input(*loom::expr::input_shape(xf * sf), {0, 1}, loom::dtype::f32);
    scaled.kernel.guarded = true;
    input_kernel guarded_partials = partials_input({loom::dtype::f32});
    guarded_partials.kernel.guarded = true;
    input_kernel stored = scaled; // ... and the same expression as a guarded map
    stored.kernel.params.push_back({loom::ir::param_kind::buffer, loom::dtype::f32, true});
    stored.kernel.stores.push_back({std::uint32_t(stored.kernel.params.size() - 1), scaled.root});
    sources.push_back(loom::codegen::emit(stored.kernel, cuda).text());
    const std::size_t first_guarded = sources.size() - 1;
    sources.push_back(emit_reduce_pass(scaled, {{scaled.root, &plus}}, 256, false, cuda).text());
    sources.push_back(emit_reduce_pass(guarded_partials, {{0, &plus}}, 256, false, cuda).text());
    sources.push_back(emit_scan_pass(scaled, plus, scan_pass::single_pass, false, no_class, 256, false, cuda).text());
    // Map-reduce fusion: pass 1 also stores, per element, what the statements fused into it store.
    sources.push_back(emit_reduce_pass(stored, {{stored.root, &plus}}, 256, false, cuda).text());
    CHECK(sources.back().find("p2[i] = ") != std::string::npos);
    sources.push_back(emit_reduce_pass(stored, {{stored.root, &plus}}, 256, true, cuda).text());
    CHECK(sources.back().find("p2[(i + 7)] = ") != std::string::npos);
    // loop_while's bookkeeping at the end of a held last pass: a one-element kernel that
    // reads the result (a float buffer) and updates two more buffers.
    {
        loom::ir::kernel epilogue;
        epilogue.params = {{loom::ir::param_kind::buffer, loom::dtype::f32, false},
                           {loom::ir::param_kind::buffer, loom::dtype::i32, true},
                           {loom::ir::param_kind::scalar, loom::dtype::f32, false}};
        loom::ir::node r{loom::opcode::load, loom::dtype::f32}, tol{loom::opcode::scalar, loom::dtype::f32};
        r.slot = 0;
        tol.slot = 2;
        loom::ir::node above{loom::opcode::greater, loom::dtype::boolean}, flag{loom::opcode::cast, loom::dtype::i32};
        above.arg[0] = 0;
        above.arg[1] = 1;
        flag.arg[0] = 2;
        epilogue.body = {r, tol, above, flag};
        epilogue.stores = {{1, 3}};
        sources.push_back(emit_reduce_pass(guarded_partials, {{0, &plus}}, 256, false, cuda, &epilogue).text());
        CHECK(sources.back().find("loom_epilogue(e0, e1, e2);") != std::string::npos);
        CHECK(sources.back().find("__restrict__ out0") == std::string::npos); // read back by the epilogue
    }
    for (std::size_t k = first_guarded; k < sources.size(); ++k)
        CHECK(sources[k].find("if (loom_guard[0] == 0) return;") != std::string::npos);
    // The chunked layout (CPU devices) is dialect-neutral too; its scan passes use no
    // work-group memory.
    const std::size_t first_chunked = sources.size();
    sources.push_back(emit_reduce_pass(dsin, {{dsin.root, &lo}, {dsin.root, &hi}}, 256, true, cuda).text());
    sources.push_back(emit_reduce_pass(partials_input({loom::dtype::f32}), {{0, &plus}}, 256, true, cuda).text());
    sources.push_back(emit_scan_pass(ints, mod, scan_pass::chunk_totals, false, no_class, 256, true, cuda).text());
    sources.push_back(
        emit_scan_pass(partials_input({loom::dtype::i64}), mod, scan_pass::scan_totals, true, no_class, 256, true, cuda)
            .text());
    sources.push_back(emit_scan_pass(ints, mod, scan_pass::scan_output, true, 0, 256, true, cuda).text());
    sources.push_back(emit_scan_pass(scaled, plus, scan_pass::scan_output, false, no_class, 256, true, cuda).text());
    // An exclusive scan out of place reads its input one to the left and runs the inclusive steps.
    sources.push_back(emit_scan_pass(ints, mod, scan_pass::scan_output, true, no_class, 256, true, cuda).text());
    CHECK(sources.back().find("(i + 7 - 1)") != std::string::npos);
    for (std::size_t k = 0; k < sources.size(); ++k) {
        const std::string& s = sources[k];
        CAPTURE(s);
        // The map, the status clear, the chunked scans:
        const bool barrier_free = k == first_guarded || k == status_clear || (k >= first_chunked + 2);
        CHECK((barrier_free || s.find("__shared__") != std::string::npos));
        CHECK((barrier_free || s.find("__syncthreads();") != std::string::npos));
        CHECK(s.find("__local") == std::string::npos);
        CHECK(s.find("get_local_id") == std::string::npos);
        compiles_with_nvrtc(s);
    }
}

TEST_CASE("complex reduce and scan passes are valid CUDA C++ (NVRTC, sm_80 and sm_90, where built in)") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    loom::vector<std::complex<float>> xf, yf;
    loom::vector<std::complex<double>> zd;
    loom::vector<double> rd;
    // sum(x * conj(y)), and a product of complex<double> values made from reals and a complex scalar.
    const input_kernel dot = build_input(*loom::expr::input_shape(xf * loom::conj(yf)), {0, 1}, loom::dtype::c64);
    const input_kernel turns =
        build_input(*loom::expr::input_shape(loom::polar(rd, rd) * std::complex<double>(0, 1) + zd), {0, 0, 1, 2},
                    loom::dtype::c128);
    const combine_op plus = combine<std::complex<float>>(loom::detail::plus_operation{}, std::complex<float>(0));
    const combine_op times =
        combine<std::complex<double>>(loom::detail::multiplies_operation{}, std::complex<double>(1));
    std::vector<std::string> sources = {
        emit_reduce_pass(dot, {{dot.root, &plus}}, 256, false, cuda).text(),
        emit_reduce_pass(partials_input({loom::dtype::c64}), {{0, &plus}}, 256, false, cuda).text(),
        emit_reduce_pass(turns, {{turns.root, &times}}, 256, false, cuda).text(),
        emit_reduce_pass(partials_input({loom::dtype::c128}), {{0, &times}}, 256, true, cuda).text(),
    };
    // Scans: the warp scan's shuffles carry a complex value as its two components, and the
    // look-back reads one through volatile pointers a component at a time.
    sources.push_back(emit_scan_pass(dot, plus, scan_pass::single_pass, false, no_class, 256, false, cuda).text());
    CHECK(sources.back().find("make_float2(__shfl_up_sync(0xffffffffu, x.x, o), __shfl_up_sync(0xffffffffu, "
                              "x.y, o))") != std::string::npos);
    CHECK(sources.back().find("make_float2(((volatile float*)(offsets + (end - 1u - lid)))[0], ((volatile "
                              "float*)(offsets + (end - 1u - lid)))[1])") != std::string::npos);
    CHECK(sources.back().find("vector_tile") == std::string::npos); // complex values move one at a time
    sources.push_back(emit_scan_pass(turns, times, scan_pass::single_pass, true, no_class, 256, false, cuda).text());
    sources.push_back(emit_scan_pass(partials_input({loom::dtype::c128}), times, scan_pass::chunk_totals, false,
                                     no_class, 256, true, cuda)
                          .text());
    for (const std::string& s : sources) {
        CAPTURE(s);
        CHECK((s.find("loom_cadd") != std::string::npos || s.find("loom_cmul") != std::string::npos));
        CHECK(s.find("make_float2") + s.find("make_double2") != 2 * std::string::npos);
        compiles_with_nvrtc(s);
    }
}

TEST_CASE("the looped pass of a loop_while batch is valid CUDA C++; a rotation across types is refused") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    loom::vector<float> xf;
    loom::scalar<float> sf;
    // Pass 1 of a batched loop: it reads p0 and a device scalar p1, stores p2 (the ping-pong
    // partner of p0), folds into out0 and runs the loop's bookkeeping (e0..e2) at its end.
    input_kernel stored = build_input(*loom::expr::input_shape(xf * sf), {0, 1}, loom::dtype::f32);
    stored.kernel.guarded = true;
    stored.kernel.params.push_back({loom::ir::param_kind::buffer, loom::dtype::f32, true});
    stored.kernel.stores.push_back({2, stored.root});
    const combine_op plus = combine<float>(loom::detail::plus_operation{}, 0.0f);
    loom::ir::kernel epilogue;
    epilogue.params = {{loom::ir::param_kind::buffer, loom::dtype::f32, false},
                       {loom::ir::param_kind::buffer, loom::dtype::i32, true}};
    loom::ir::node r{loom::opcode::load, loom::dtype::f32}, flag{loom::opcode::cast, loom::dtype::i32};
    r.slot = 0;
    flag.arg[0] = 0;
    epilogue.body = {r, flag};
    epilogue.stores = {{1, 1}};
    // Launch order: p0 p1 p2 loom_guard out0 id0 n e0 e1; p0 and p2 swap between iterations.
    const std::vector<std::uint32_t> ping_pong = {2, 1, 0, 3, 4, 5, 6, 7, 8};
    for (bool chunked : {true, false}) {
        CAPTURE(chunked);
        const std::string s =
            emit_reduce_pass(stored, {{stored.root, &plus}}, 256, chunked, cuda, &epilogue, &ping_pong).text();
        CAPTURE(s);
        CHECK(s.find("unsigned int loom_iterations)") != std::string::npos);
        CHECK(s.find("loom_it < loom_iterations && loom_guard[0] != 0") != std::string::npos);
        CHECK(s.find("p0 = r0;") != std::string::npos);
        CHECK(s.find("p2 = r2;") != std::string::npos);
        const std::size_t entry = s.find("__global__ void loom_");
        const std::string signature = s.substr(entry, s.find(") {", entry) - entry);
        CHECK(signature.find("__restrict__") == std::string::npos); // the pointers move: none is restrict
        CHECK(signature.find("const") == std::string::npos);
        compiles_with_nvrtc(s);
    }
    // The float buffer p0 cannot take the int guard's place; a rotation must cover every parameter.
    const std::vector<std::uint32_t> across_types = {3, 1, 2, 0, 4, 5, 6, 7, 8};
    const std::vector<std::uint32_t> short_rotation = {2, 1, 0};
    CHECK_THROWS_AS(emit_reduce_pass(stored, {{stored.root, &plus}}, 256, true, cuda, &epilogue, &across_types).text(),
                    loom::error);
    CHECK_THROWS_AS(
        emit_reduce_pass(stored, {{stored.root, &plus}}, 256, true, cuda, &epilogue, &short_rotation).text(),
        loom::error);
}

TEST_CASE("reduce and scan passes calling source functions are valid CUDA C++ (NVRTC, where built in)") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    loom::vector<float> xf;
    const loom::function<float(float)> bump("bump", "if (a < 0.0f) return -a;\nreturn a + 1.0f;");
    const loom::function<float(float, float)> larger("larger", "return a > b ? a : b;");
    const input_kernel in = build_input(*loom::expr::input_shape(bump(xf) * 2.0f), {0}, loom::dtype::f32);
    const combine_op pick = combine<float>([&](auto a, auto b) { return larger(a, b); }, 0.0f);
    const std::vector<std::string> sources = {
        emit_reduce_pass(in, {{in.root, &pick}}, 256, false, cuda).text(),
        emit_scan_pass(in, pick, scan_pass::single_pass, false, no_class, 256, false, cuda).text(),
        emit_scan_pass(in, pick, scan_pass::single_pass, true, 0, 256, false, cuda).text(),
    };
    for (const std::string& source : sources) {
        // Both definitions, before the kernel: the input's call and the operation's.
        CHECK(source.find("#define LOOM_DEFINED_bump_") != std::string::npos);
        CHECK(source.find("#define LOOM_DEFINED_larger_") != std::string::npos);
        CHECK(source.find("#define LOOM_DEFINED_") < source.find("extern \"C\" __global__"));
        compiles_with_nvrtc(source);
    }
}
