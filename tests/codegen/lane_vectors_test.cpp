// Vector lanes (codegen/lane_vectors.hpp): which nodes vary across the lanes, which kernels can
// be written as vectors and which stay scalar, and how the vector lines are spelled.
#include "codegen_support.hpp"

#include "codegen/lane_vectors.hpp"
#include "codegen/source_builder.hpp"

using namespace loom_codegen_test;

namespace {

struct lanes_of {
    std::vector<bool> live, varying;
};

// The kernel's stored values' nodes, and which vary across lanes.
lanes_of lanes(const loom::ir::kernel& k) {
    std::vector<bool> live(k.body.size(), false);
    for (std::size_t j = 0; j < k.body.size(); ++j) live[j] = true;
    return {live, loom::codegen::lanes_varying(k, loom::codegen::element_lane_seeds(k))};
}

bool vectorise(const loom::ir::kernel& k, const loom::codegen::dialect& d = loom::codegen::opencl_dialect(),
               unsigned width = 16) {
    const lanes_of l = lanes(k);
    return loom::codegen::lanes_vectorise(k, l.live, l.varying, d, width);
}

} // namespace

TEST_CASE("element reads and what is computed from them vary across lanes; scalars do not") {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), a = b.scalar_param(dtype::f32);
    const auto lx = b.load(x), sa = b.scalar(a);
    const auto r =
        b.op(opcode::rsqrt, dtype::f32, b.op(opcode::add, dtype::f32, b.op(opcode::mul, dtype::f32, lx, lx), sa));
    const auto twice = b.op(opcode::add, dtype::f32, sa, sa); // the same in every lane
    b.store(y, b.op(opcode::mul, dtype::f32, r, twice));
    const loom::ir::kernel& k = b.kernel();
    const lanes_of l = lanes(k);
    CHECK(l.varying[lx]);
    CHECK(l.varying[r]);
    CHECK_FALSE(l.varying[sa]);
    CHECK_FALSE(l.varying[twice]);
    CHECK(vectorise(k));
    CHECK_FALSE(vectorise(k, loom::codegen::cuda_dialect())); // no vector arithmetic there
    CHECK_FALSE(vectorise(k, loom::codegen::opencl_dialect(), 3));

    loom::codegen::source_builder out(loom::codegen::opencl_dialect());
    loom::codegen::write_lane_values(out, k, l.live, l.varying, {16, "i", "loom_c"});
    const std::string text = out.text();
    CHECK(contains(text, "float16 v" + std::to_string(lx) + " = (float16)(p0[i], p0[i + 1], "));
    CHECK(contains(text, "float v" + std::to_string(twice) + " = ")); // a scalar line
    CHECK(contains(text, " + ((float16)(v" + std::to_string(sa) + ")))"));
    CHECK(contains(text, "float16 v" + std::to_string(r) + " = rsqrt(v"));
}

TEST_CASE("a kernel whose varying values lose their meaning lane by lane stays scalar") {
    SUBCASE("integer division (its zero divisor rule is written per element)") {
        kernel_builder b;
        const auto x = b.buffer(dtype::i32), y = b.buffer(dtype::i32);
        b.store(y, b.op(opcode::div, dtype::i32, b.load(x), b.load(x)));
        CHECK_FALSE(vectorise(b.kernel()));
    }
    SUBCASE("float division is lane by lane") {
        kernel_builder b;
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32);
        b.store(y, b.op(opcode::div, dtype::f32, b.load(x), b.load(x)));
        CHECK(vectorise(b.kernel()));
    }
    SUBCASE("a select on a condition that varies") {
        kernel_builder b;
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), a = b.scalar_param(dtype::f32);
        const auto lx = b.load(x);
        const auto test = b.op(opcode::less, dtype::boolean, lx, b.scalar(a));
        b.store(y, b.op(opcode::select, dtype::f32, test, lx, b.scalar(a)));
        CHECK_FALSE(vectorise(b.kernel()));
    }
    SUBCASE("a select on a condition the lanes share") {
        kernel_builder b;
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), a = b.scalar_param(dtype::f32);
        const auto lx = b.load(x);
        const auto test = b.op(opcode::less, dtype::boolean, b.scalar(a), b.scalar(a));
        b.store(y, b.op(opcode::select, dtype::f32, test, lx, b.scalar(a)));
        CHECK(vectorise(b.kernel()));
    }
    SUBCASE("a read through load_at: contiguous at the element, not at an index read per element") {
        for (bool gather : {true, false}) {
            CAPTURE(gather);
            kernel_builder b;
            const auto x = b.buffer(dtype::f32), idx = b.buffer(dtype::u64), y = b.buffer(dtype::f32);
            const auto at = b.op(opcode::load_at, dtype::f32, gather ? b.load(idx) : b.index());
            b.store(y, at);
            loom::ir::kernel k = b.kernel();
            k.body[at].slot = x; // load_at names its buffer in `slot`
            CHECK(vectorise(k) == !gather);
        }
    }
    SUBCASE("complex values") {
        kernel_builder b;
        const auto x = b.buffer(dtype::c64), y = b.buffer(dtype::c64);
        b.store(y, b.op(opcode::add, dtype::c64, b.load(x), b.load(x)));
        CHECK_FALSE(vectorise(b.kernel()));
    }
}
