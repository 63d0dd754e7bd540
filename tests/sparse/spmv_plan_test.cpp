// The product's planner and geometry without a device: one pass whose arguments follow the
// kernel's layout, rows split into contiguous runs on CPU devices, and on GPUs lanes per row from
// the average row (vector CSR) or one row per work-item; the CUDA text of every variant compiled
// to PTX with NVRTC where it is built in.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "codegen/dialect.hpp"
#include "launch/skeleton_geometry.hpp"
#include "skeleton/plan_spmv.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

using namespace loom;

TEST_CASE("the spmv plan is one pass binding the CSR arrays, x, y, the guard and the extents") {
    skeleton::spmv_request r;
    r.guarded = true;
    const plan::plan p = skeleton::plan_spmv(r, codegen::opencl_dialect());
    REQUIRE(p.passes.size() == 1);
    const auto& args = p.passes[0].arguments;
    REQUIRE(args.size() == 9);
    for (std::uint32_t s = 0; s < 4; ++s) CHECK(args[s] == plan::argument{plan::source::slot_buffer, s});
    CHECK(args[4] == plan::argument{plan::source::result, 0});
    CHECK(args[5] == plan::argument{plan::source::guard});
    CHECK(args[6] == plan::argument{plan::source::extent, std::uint32_t(codegen::pass_extent::n)});
    CHECK(args[7] == plan::argument{plan::source::extent, std::uint32_t(codegen::pass_extent::chunk)});
    CHECK(args[8] == plan::argument{plan::source::extent, std::uint32_t(codegen::pass_extent::entries)});
    CHECK(p.passes[0].kernel.body.find("loom_guard[0] == 0") != std::string::npos);
    CHECK(p.scratch.empty());
}

TEST_CASE("spmv geometry: contiguous runs of rows on CPU devices, a row per work-item on GPUs") {
    backend::device_info cpu;
    cpu.gpu = false;
    cpu.compute_units = 4;
    cpu.max_work_group = 4096;
    const launch::spmv_geometry c = launch::spmv_geometry_for(cpu, std::nullopt, 100000, 5000000);
    CHECK(c.group == 1);
    CHECK(c.lanes == 1);
    CHECK(c.balanced);
    CHECK(c.items == 64); // sixteen runs per compute unit, of equal entries
    CHECK(c.items * c.chunk >= 5000000);
    CHECK((c.items - 1) * c.chunk < 5000000);
    const launch::spmv_geometry small = launch::spmv_geometry_for(cpu, std::nullopt, 10, 1000);
    CHECK(small.items == 3); // at least 256 entries a run
    CHECK(small.chunk == 334);
    backend::device_info gpu = cpu;
    gpu.gpu = true;
    const launch::spmv_geometry g = launch::spmv_geometry_for(gpu, std::nullopt, 1000, 1500);
    CHECK(g.lanes == 1);
    CHECK(g.chunk == 1);
    CHECK(g.items == 1000);
    CHECK_FALSE(g.balanced);
    const plan::launch_sizes s = skeleton::spmv_launch(g, 1000, 1500);
    CHECK(s.geometry[0].global_items % g.group == 0);
    CHECK(s.geometry[0].global_items >= 1000);
    CHECK(s.extents[0][std::size_t(codegen::pass_extent::n)] == 1000);
    // Vector CSR: lanes the largest power of two not above the average row, at most 32.
    CHECK(launch::spmv_geometry_for(gpu, std::nullopt, 1000, 5000).lanes == 4);
    CHECK(launch::spmv_geometry_for(gpu, std::nullopt, 1000, 8000).lanes == 8);
    const launch::spmv_geometry v = launch::spmv_geometry_for(gpu, std::nullopt, 1000, 400000);
    CHECK(v.lanes == 32);
    CHECK(v.group == 256);
    const plan::launch_sizes vs = skeleton::spmv_launch(v, 1000, 400000);
    CHECK(vs.geometry[0].global_items == (1000 + 7) / 8 * 256); // 8 rows a group
    CHECK(launch::spmv_geometry_for(gpu, ir::map_form::chunked, 1000, 400000).lanes == 1);
}

TEST_CASE("spmv passes are valid CUDA C++ (NVRTC, sm_90, where built in)") {
    std::set<std::string> sources;
    for (dtype value : {dtype::f32, dtype::f64, dtype::i32, dtype::i64})
        for (dtype index : {dtype::u32, dtype::u64})
            for (bool guarded : {false, true})
                for (unsigned lanes : {0u, 1u, 2u, 32u}) { // 0: balanced scalar CSR
                    skeleton::spmv_request r;
                    r.value = value;
                    r.index = index;
                    r.guarded = guarded;
                    r.lanes = lanes == 0 ? 1 : lanes;
                    r.balanced = lanes == 0;
                    r.group = lanes > 1 ? 256 : 1;
                    sources.insert(skeleton::plan_spmv(r, codegen::cuda_dialect()).passes[0].kernel.body);
                }
    CHECK(sources.size() == 64);
#ifdef LOOM_HAVE_CUDA
    for (const std::string& s : sources) {
        CAPTURE(s);
        CHECK_NOTHROW(backend::cuda::nvrtc_compile(s, 90, false));
    }
#endif
}
