// The radix and merge sorts', the merge's and the keyed scan's passes (codegen/radix_pass.hpp, merge_pass.hpp,
// segmented_scan_pass.hpp) in the CUDA dialect, in both layouts, for keys of each width and kind,
// with and without value vectors: generated without a device and, where NVRTC is built in,
// compiled to PTX for sm_90 (the compiler's own checks; ptxas would only add minutes). Each
// distinct source is compiled once.
#include "support.hpp"

#include <complex>
#include <set>
#include <string>

#include "codegen/dialect.hpp"
#include "codegen/radix_pass.hpp"
#include "skeleton/plan_compact.hpp"
#include "skeleton/plan_keyed_scan.hpp"
#include "skeleton/plan_merge.hpp"
#include "skeleton/plan_sort.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

TEST_CASE("sort and keyed scan passes are valid CUDA C++ in both layouts (NVRTC, sm_90, where built in)") {
    using namespace loom::skeleton;
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    loom::vector<float> xf;
    loom::vector<double> xd;
    loom::vector<std::int8_t> xi8;
    loom::vector<std::uint64_t> xu64;
    loom::vector<std::int32_t> xi32;
    struct key_case {
        const loom::detail::shape* input;
        std::vector<std::uint32_t> classes; // of the vector slots; scalars past them: their own
        loom::dtype key;
        std::vector<loom::dtype> carried;
    };
    const std::vector<key_case> cases = {
        {loom::expr::input_shape(xf * xf), {0, 0}, loom::dtype::f32, {loom::dtype::f64, loom::dtype::c64}},
        {loom::expr::input_shape(xd), {0}, loom::dtype::f64, {}},
        {loom::expr::input_shape(xi8), {0}, loom::dtype::i8, {loom::dtype::u32}},
        {loom::expr::input_shape(xu64), {0}, loom::dtype::u64, {}},
        {loom::expr::input_shape(xi32 + 1), {0}, loom::dtype::i32, {loom::dtype::i16}},
    };
    std::set<std::string> sources;
    for (const key_case& c : cases)
        for (bool chunked : {true, false}) {
            sort_request r;
            r.input = c.input;
            r.slot_class = &c.classes;
            r.key = c.key;
            r.carried = c.carried;
            r.geometry.chunked = chunked;
            r.geometry.group = chunked ? 1 : 256;
            r.geometry.radix_bits = chunked ? (loom::size_of(c.key) == 1 ? 4 : 8) : loom::codegen::tiled_radix_bits;
            r.geometry.offsets_group = 256;
            const loom::plan::plan p = plan_sort(r, cuda);
            CHECK(p.passes.size() == 3 * loom::size_of(c.key) * 8 / r.geometry.radix_bits);
            for (const loom::plan::pass& pass : p.passes) sources.insert(pass.kernel.body);
            if (!chunked) continue;
            r.geometry.whole = true; // one part: every digit in one pass
            const loom::plan::plan whole = plan_sort(r, cuda);
            CHECK(whole.passes.size() == 1);
            sources.insert(whole.passes[0].kernel.body);
        }
    // The merge sort's passes, with a comparator that captures a host scalar.
    const float pivot = 2.0f;
    const loom::detail::skeleton_operation less = loom::expr::operation<float>(
        [pivot](auto a, auto b) { return loom::abs(a - pivot) < loom::abs(b - pivot); }, 0.0f);
    for (bool chunked : {true, false}) {
        sort_request r;
        r.input = cases[0].input;
        r.slot_class = &cases[0].classes;
        r.key = loom::dtype::f32;
        r.carried = cases[0].carried;
        r.less = &less;
        r.merge.chunked = chunked;
        r.merge.merges = 3;
        const loom::plan::plan p = plan_merge_sort(r, cuda);
        CHECK(p.passes.size() == 4);
        for (const loom::plan::pass& pass : p.passes) sources.insert(pass.kernel.body);
    }
    // The merge's pass: in the sort's order for keys of each kind (float and double through their
    // bits), with and without values; and by the comparator.
    for (const key_case& c : cases) {
        merge_request r;
        r.key = c.key;
        r.carried = c.carried;
        r.descending = c.key == loom::dtype::f64;
        sources.insert(plan_merge(r, cuda).passes.at(0).kernel.body);
    }
    {
        merge_request r;
        r.key = loom::dtype::f32;
        r.less = &less;
        r.carried = {loom::dtype::u32};
        sources.insert(plan_merge(r, cuda).passes.at(0).kernel.body);
    }
    // The keyed scan's passes: keys an expression, values double, max as a traced operation.
    const loom::detail::skeleton_operation max_op =
        loom::expr::operation<double>([](auto a, auto b) { return loom::max(a, b); }, -1.0);
    for (bool exclusive : {false, true}) {
        keyed_scan_request r;
        r.input = loom::expr::values_shape(xi32 / 10, xd);
        const std::vector<std::uint32_t> classes{0, loom::skeleton::no_class, 1};
        r.slot_class = &classes;
        r.key = loom::dtype::i32;
        r.op = &max_op;
        r.exclusive = exclusive;
        r.geometry.offsets_group = 256;
        const loom::plan::plan p = plan_keyed_scan(r, cuda);
        CHECK(p.passes.size() == 3);
        for (const loom::plan::pass& pass : p.passes) sources.insert(pass.kernel.body);
        {
            // ... and its single pass (GPUs): the tiles' status cleared, then one pass whose tiles
            // holding a head publish their running value before they look back.
            keyed_scan_request single = r;
            single.geometry.single_pass = true;
            single.geometry.tile_group = 256;
            single.geometry.tiles = 3;
            const loom::plan::plan one = plan_keyed_scan(single, cuda);
            REQUIRE(one.passes.size() == 2);
            CHECK(one.passes[1].kernel.body.find("if (tile_head != 0u) {") != std::string::npos);
            for (const loom::plan::pass& pass : one.passes) sources.insert(pass.kernel.body);
        }
        // reduce_by_key's passes, keys written as int64.
        r.key_out = loom::dtype::i64;
        const loom::plan::plan reduce = plan_reduce_by_key(r, cuda);
        CHECK(reduce.passes.size() == 4);
        for (const loom::plan::pass& pass : reduce.passes) sources.insert(pass.kernel.body);
    }
    // Stream compaction's passes: the values an expression of double, the predicate of int32 keys.
    {
        loom::skeleton::compact_request r;
        r.input = loom::expr::values_shape(xd * 2.0, loom::where(xi32 > 3, 1u, 0u));
        const std::vector<std::uint32_t> classes{0,
                                                 loom::skeleton::no_class,
                                                 1,
                                                 loom::skeleton::no_class,
                                                 loom::skeleton::no_class,
                                                 loom::skeleton::no_class};
        r.slot_class = &classes;
        r.value = loom::dtype::f64;
        r.geometry.chunks.offsets_group = 256;
        const loom::plan::plan p = plan_compact(r, cuda);
        CHECK(p.passes.size() == 3);
        for (const loom::plan::pass& pass : p.passes) sources.insert(pass.kernel.body);
        // ... and in one pass, where the output has room for every element: the status cleared,
        // then the tiles ranked, looked back at and written.
        r.geometry.single_pass = true;
        r.geometry.tile_group = 256;
        r.geometry.tiles = 7;
        const loom::plan::plan single = plan_compact(r, cuda);
        REQUIRE(single.passes.size() == 2);
        CHECK(single.passes[1].kernel.body.find("ticket = atomicAdd(status + tiles, 1u);") != std::string::npos);
        CHECK(single.passes[1].kernel.body.find("if (lid == 0u && g + 1u == tiles) count[0] = carry + total;") !=
              std::string::npos);
        for (const loom::plan::pass& pass : single.passes) sources.insert(pass.kernel.body);
    }
#ifdef LOOM_HAVE_CUDA
    for (const std::string& s : sources) {
        CAPTURE(s);
        CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(s, 90, false)); // PTX: the front end's checks
    }
#endif
    CHECK(sources.size() > 10);
}
