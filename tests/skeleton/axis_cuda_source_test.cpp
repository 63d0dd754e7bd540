// The axis reduction passes in the CUDA dialect, from real 2-D expressions (matvec, N-Body's
// pairwise terms in double, integer positions, a user operation with a capture, a stencil read,
// a guarded pass): both forms, both axes, generated without a device and, where NVRTC is built
// in, compiled for sm_80 and sm_90.
#include "support.hpp"

#include <string>

#include "codegen/axis_pass.hpp"
#include "codegen/dialect.hpp"
#include "launch/skeleton_geometry.hpp"
#include "skeleton/skeleton_kernel.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

namespace {

template <class T, class Op> loom::skeleton::combine_op combine(const Op& op, T identity) {
    return loom::skeleton::combine_of(loom::expr::operation<T>(op, identity));
}

// Every slot of a shape its own class (vectors) or a scalar.
std::vector<std::uint32_t> classes_of(const loom::detail::shape& s) {
    std::vector<std::uint32_t> c;
    std::uint32_t next = 0;
    for (const auto& slot : s.slots)
        c.push_back(slot.kind == loom::detail::slot_kind::vector ? next++ : loom::skeleton::no_class);
    return c;
}

loom::skeleton::input_kernel input_of(const loom::detail::shape* s, loom::dtype t) {
    return loom::skeleton::build_input(*s, classes_of(*s), t);
}

} // namespace

TEST_CASE("axis reduction passes are valid CUDA C++ in both forms and along both axes (NVRTC where built in)") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    // Shapes are lowered from types only: objects without a context are enough.
    loom::matrix<float> af;
    loom::vector<float> xf;
    loom::vector<double> pd, md;
    loom::matrix<std::int32_t> ai;
    const input_kernel matvec = input_of(loom::expr::values_shape(af * loom::as_row(xf)), loom::dtype::f32);
    const auto dx = loom::as_row(pd) - loom::as_column(pd);
    const auto r2 = dx * dx + 1e-3;
    const input_kernel nbody =
        input_of(loom::expr::values_shape(loom::as_row(md) * dx * loom::rsqrt(r2) / r2), loom::dtype::f64);
    const input_kernel positions = input_of(
        loom::expr::values_shape(loom::cast<std::int64_t>(loom::index<0>() * 1000u + loom::index<1>()) * ai),
        loom::dtype::i64);
    const input_kernel shifted =
        input_of(loom::expr::values_shape(loom::shift(xf, 1) * loom::as_column(xf) + af), loom::dtype::f32);
    input_kernel guarded = matvec;
    guarded.kernel.guarded = true;

    const combine_op plus_f = combine<float>(loom::detail::plus_operation{}, 0.0f);
    const combine_op plus_d = combine<double>(loom::detail::plus_operation{}, 0.0);
    const combine_op min_f = combine<float>(loom::detail::min_operation{}, 0.0f);
    const std::int64_t limit = 1000003;
    const combine_op capped =
        combine<std::int64_t>([limit](auto a, auto b) { return loom::min(a + b, limit); }, std::int64_t(0));

    struct job {
        const input_kernel* in;
        const combine_op* op;
    };
    const job jobs[] = {
        {&matvec, &plus_f}, {&nbody, &plus_d}, {&positions, &capped}, {&shifted, &min_f}, {&guarded, &plus_f}};
    std::size_t compiled = 0;
    for (const job& j : jobs)
        for (auto form : {loom::codegen::axis_form::lanes, loom::codegen::axis_form::groups})
            for (unsigned axis : {0u, 1u}) {
                loom::codegen::axis_pass_kernel pass;
                pass.input = &j.in->kernel;
                pass.accumulators = {{j.in->root, j.op}};
                pass.axis = axis;
                pass.form = form;
                pass.group = 256;
                pass.lanes = 16;
                const std::string s = loom::codegen::emit_axis_pass(pass, cuda).text();
                CAPTURE(s);
                CHECK(s.find("__local") == std::string::npos);
                CHECK(s.find("get_global_id") == std::string::npos);
                CHECK((s.find("__syncthreads();") != std::string::npos) ==
                      (form == loom::codegen::axis_form::groups && axis == 1));
                CHECK((s.find("if (loom_guard[0] == 0) return;") != std::string::npos) == j.in->kernel.guarded);
#ifdef LOOM_HAVE_CUDA
                for (int cc : {80, 90}) {
                    CAPTURE(cc);
                    CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(s, cc));
                }
#endif
                ++compiled;
            }
    CHECK(compiled == 20);
}

TEST_CASE("an axis pass of several values (a tuple's) is valid CUDA C++ in both forms and along both axes") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    loom::vector<float> p, m;
    const auto dx = loom::as_row(p) - loom::as_column(p);
    const auto w = loom::as_row(m) * loom::rsqrt(dx * dx + 1e-3f);
    const loom::detail::shape* s = loom::expr::values_shape(w * dx, w, loom::cast<double>(dx));
    REQUIRE(s->more_roots.size() == 2);
    const input_kernel in = build_input(*s, classes_of(*s), {loom::dtype::f32, loom::dtype::f32, loom::dtype::f64});
    REQUIRE(in.more_roots.size() == 2);
    const combine_op plus_f = combine<float>(loom::detail::plus_operation{}, 0.0f);
    const combine_op max_f = combine<float>(loom::detail::max_operation{}, 0.0f);
    const combine_op plus_d = combine<double>(loom::detail::plus_operation{}, 0.0);
    for (auto form : {loom::codegen::axis_form::lanes, loom::codegen::axis_form::groups})
        for (unsigned axis : {0u, 1u}) {
            loom::codegen::axis_pass_kernel pass;
            pass.input = &in.kernel;
            pass.accumulators.push_back({in.root, &plus_f});
            pass.accumulators.push_back({in.more_roots[0], &max_f});
            pass.accumulators.push_back({in.more_roots[1], &plus_d});
            pass.axis = axis;
            pass.form = form;
            pass.group = 128;
            pass.lanes = 16;
            const std::string text = loom::codegen::emit_axis_pass(pass, cuda).text();
            CAPTURE(text);
            for (const char* out : {"out0", "out1", "out2"}) CHECK(text.find(out) != std::string::npos);
            CHECK(text.find("rsqrt") != std::string::npos);
#ifdef LOOM_HAVE_CUDA
            for (int cc : {80, 90}) {
                CAPTURE(cc);
                CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(text, cc));
            }
#endif
        }
}

TEST_CASE("axis reduction geometry: lanes on CPU devices, a group per row or an item per column on GPUs") {
    loom::backend::device_info cpu, gpu;
    cpu.compute_units = 4;
    cpu.max_work_group = 4096;
    gpu.gpu = true;
    gpu.compute_units = 100;
    gpu.max_work_group = 1024;
    using loom::codegen::axis_form;
    auto g = loom::launch::axis_geometry_for(cpu, std::nullopt, 1, 16384, 16384);
    CHECK(g.form == axis_form::lanes);
    CHECK(g.group == 1);
    CHECK(g.items == 32); // a few bands of rows per compute unit
    g = loom::launch::axis_geometry_for(cpu, std::nullopt, 1, 3, 1u << 20);
    CHECK(g.items == 3); // no more work-items than rows
    g = loom::launch::axis_geometry_for(cpu, std::nullopt, 0, 1000, 40);
    CHECK(g.items == 3); // blocks of 16 columns
    g = loom::launch::axis_geometry_for(gpu, std::nullopt, 1, 5000, 10);
    CHECK(g.form == axis_form::groups);
    CHECK(g.group == 32); // narrow rows: a warp
    CHECK(g.items == 3200 * 32);
    g = loom::launch::axis_geometry_for(gpu, std::nullopt, 1, 10, 100000);
    CHECK(g.group == 256);
    CHECK(g.items == 10 * 256);
    g = loom::launch::axis_geometry_for(gpu, std::nullopt, 0, 10, 1000);
    CHECK(g.group == 256);
    CHECK(g.items == 1024);
    // LOOM_KERNEL_FORM's choice overrides the device's, so CI runs the GPU form on its CPU.
    g = loom::launch::axis_geometry_for(cpu, loom::ir::map_form::grid_stride, 1, 10, 10);
    CHECK(g.form == axis_form::groups);
}
