// Scans against host references: sizes around the block size, + and user operations,
// fused inputs, in-place scans (inclusive and exclusive), exclusive init.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "launch/skeleton_geometry.hpp"
#include "runtime/context_impl.hpp"
#include "backend/device.hpp"
#include "skeleton/scan_kernel.hpp"
#include "skeleton/skeleton_kernel.hpp"

using namespace skeleton_test;

TEST_CASE("inclusive and exclusive + scans match the host for every size") {
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        const std::vector<std::int32_t> h = random_values<std::int32_t>(n, -50, 50, 31);
        loom::vector<std::int32_t> x(ctx(), h), inc(ctx(), n), exc(ctx(), n);
        loom::inclusive_scan(x, inc);
        loom::exclusive_scan(x, exc, 7);
        const std::vector<std::int32_t> hi = inc.to_host(), he = exc.to_host();
        std::int32_t run = 0;
        std::size_t bad_inc = 0, bad_exc = 0;
        for (std::size_t i = 0; i < n; ++i) {
            bad_exc += he[i] != run + 7;
            run += h[i];
            bad_inc += hi[i] != run;
        }
        CHECK(bad_inc == 0);
        CHECK(bad_exc == 0);
    }
}

TEST_CASE("a scan fuses its input expression and may write in place") {
    const std::size_t n = 100000;
    const std::vector<std::int64_t> h = random_values<std::int64_t>(n, 0, 1000, 32);
    loom::vector<std::int64_t> x(ctx(), h), y(ctx(), n);
    ctx().finish();
    const auto before = ctx().statistics();
    loom::inclusive_scan(x * x + 1, y);
    // Three passes over chunks (CPU devices), or the status cleared and one pass (GPUs).
    const auto geo = loom::launch::scan_geometry_for(ctx().impl()->info(), ctx().impl()->settings().form, n, 8);
    CHECK(ctx().statistics().kernels_launched - before.kernels_launched == (geo.chunked ? 3u : 2u));
    std::vector<std::int64_t> hy = y.to_host();
    std::int64_t run = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += hy[i] != (run += h[i] * h[i] + 1);
    CHECK(bad == 0);
    loom::inclusive_scan(x * x + 1, x); // in place: reads x, writes x
    hy = x.to_host();
    run = 0;
    bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += hy[i] != (run += h[i] * h[i] + 1);
    CHECK(bad == 0);
}

TEST_CASE("an exclusive scan fuses its input, reads it one to the left, and may write in place") {
    // n leaves a ragged last chunk and steps of eight that straddle the chunk starts.
    const std::size_t n = 100003;
    const std::vector<std::int64_t> h = random_values<std::int64_t>(n, 0, 1000, 34);
    loom::vector<std::int64_t> x(ctx(), h), y(ctx(), n);
    auto check_exclusive = [&](const std::vector<std::int64_t>& got) {
        std::int64_t run = -5;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) {
            bad += got[i] != run;
            run += h[i] * h[i] + 1;
        }
        CHECK(bad == 0);
    };
    loom::exclusive_scan(x * x + 1, y, std::int64_t(-5));
    check_exclusive(y.to_host());
    loom::exclusive_scan(x * x + 1, x, std::int64_t(-5)); // in place: reads x, writes x
    check_exclusive(x.to_host());
}

// Types under 32 bits (on a GPU the warp shuffles carry them through an int) and a 64-bit
// float, in both directions, over sizes that leave ragged tiles.
TEST_CASE("scans of 8- and 16-bit integers and of doubles match the host") {
    for (std::size_t n : {std::size_t(2047), std::size_t(2049), std::size_t(300001)}) {
        CAPTURE(n);
        const std::vector<std::int16_t> hs = random_values<std::int16_t>(n, -300, 300, 36);
        const std::vector<std::uint8_t> hb = random_values<std::uint8_t>(n, 0, 255, 37);
        const std::vector<double> hd = random_values<double>(n, -1.0, 1.0, 38);
        loom::vector<std::int16_t> xs(ctx(), hs), ys(ctx(), n);
        loom::vector<std::uint8_t> xb(ctx(), hb), yb(ctx(), n);
        loom::vector<double> xd(ctx(), hd), yd(ctx(), n);
        loom::inclusive_scan(xs, ys); // wraps modulo 2^16, as the host's sum cast back does
        loom::exclusive_scan(xb, yb, std::uint8_t(3));
        loom::inclusive_scan(xd * 2.0, yd);
        const std::vector<std::int16_t> gs = ys.to_host();
        const std::vector<std::uint8_t> gb = yb.to_host();
        const std::vector<double> gd = yd.to_host();
        std::int16_t rs = 0;
        std::uint8_t rb = 3;
        double rd = 0.0, magnitude = 0.0;
        std::size_t bad_s = 0, bad_b = 0, bad_d = 0;
        for (std::size_t i = 0; i < n; ++i) {
            rs = std::int16_t(rs + hs[i]);
            bad_s += gs[i] != rs;
            bad_b += gb[i] != rb;
            rb = std::uint8_t(rb + hb[i]);
            rd += 2.0 * hd[i];
            magnitude += std::fabs(2.0 * hd[i]);
            bad_d += std::fabs(gd[i] - rd) > 1e-12 * (magnitude + 1.0);
        }
        CHECK(bad_s == 0);
        CHECK(bad_b == 0);
        CHECK(bad_d == 0);
    }
}

TEST_CASE("scans with a user operation: running maximum, and float sums") {
    const std::size_t n = 70001;
    const std::vector<float> h = random_values<float>(n, -1000.0f, 1000.0f, 33);
    loom::vector<float> x(ctx(), h), y(ctx(), n);
    const float lowest = -std::numeric_limits<float>::infinity();
    loom::inclusive_scan(x, y, lowest, [](auto a, auto b) { return loom::max(a, b); });
    std::vector<float> hy = y.to_host();
    float run = lowest;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += hy[i] != (run = std::max(run, h[i]));
    CHECK(bad == 0);
    loom::exclusive_scan(x, y, 5.0f, lowest, [](auto a, auto b) { return loom::max(a, b); });
    hy = y.to_host();
    run = 5.0f;
    bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        bad += hy[i] != run;
        run = std::max(run, h[i]);
    }
    CHECK(bad == 0);
}

// Forward fill: op(a, b) = b unless b is the missing marker -1. Associative, with -1 as
// its identity on both sides, and not commutative, so the chunk totals of pass 1 must keep
// the operands' order (its in-lane fast path is for commutative operations only).
TEST_CASE("a scan with an associative operation that is not commutative keeps the order") {
    const auto fill = [](auto a, auto b) { return loom::where(b == -1, a, b); };
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        std::vector<std::int32_t> h = random_values<std::int32_t>(n, -1000, 1000, 35);
        for (std::int32_t& v : h) v = v < 0 ? -1 : v; // missing half the time
        loom::vector<std::int32_t> x(ctx(), h), y(ctx(), n);
        loom::inclusive_scan(x, y, -1, fill);
        const std::vector<std::int32_t> hy = y.to_host();
        std::int32_t last = -1;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += hy[i] != (last = h[i] == -1 ? last : h[i]);
        CHECK(bad == 0);
    }
}

TEST_CASE("operations Loom can tell are commutative") {
    auto commutes = [](auto type, auto op) {
        using T = decltype(type);
        const loom::detail::skeleton_operation s = loom::expr::operation<T>(op, T(0));
        return loom::skeleton::commutative({s.op->body, s.op->role, s.type, {}});
    };
    CHECK(commutes(0.0f, [](auto a, auto b) { return a + b; }));
    CHECK(commutes(0.0, [](auto a, auto b) { return b * a; }));
    CHECK(commutes(std::int16_t(0), [](auto a, auto b) { return a + b; })); // computed in int, cast back
    CHECK(commutes(0, [](auto a, auto b) { return loom::max(a, b); }));
    CHECK(commutes(0u, [](auto a, auto b) { return a ^ b; }));
    CHECK_FALSE(commutes(0.0f, [](auto a, auto b) { return loom::max(a, b); })); // NaN: the left operand wins
    CHECK_FALSE(commutes(0.0f, [](auto a, auto b) { return a - b; }));
    CHECK_FALSE(commutes(0, [](auto a, auto b) { return loom::where(b == -1, a, b); }));
    CHECK_FALSE(commutes(0.0f, [](auto a, auto) { return a + a; }));
    CHECK_FALSE(commutes(0, [](auto a, auto b) { return loom::cast<std::int8_t>(a) + b; })); // one side narrowed
    const float c = 2.0f; // a capture is neither operand
    CHECK_FALSE(commutes(0.0f, [c](auto a, auto) { return a + c; }));
}

TEST_CASE("a scan sees pending statements and rejects mismatched lengths") {
    // int32, +: the plan of the first test case (no new kernel).
    loom::vector<std::int32_t> x(ctx(), 300, 1), y(ctx(), 300), z(ctx(), 299);
    x = x + 1; // pending
    loom::inclusive_scan(x, y);
    CHECK(y[299] == 600);
    CHECK_THROWS_WITH_AS(loom::inclusive_scan(x, z), doctest::Contains("length mismatch"), loom::error);
}

// The single pass's look-back, run on this context's device with the tiles before the launch
// set up by hand: tiles 0 .. 59 "ran earlier" (the ticket counter starts at 60), tile 0 and
// tile 30 published their folds (status 2), the others only their totals (status 1), and the
// totals of tiles 1 .. 29 are wrong on purpose, so that a look-back that went past tile 30
// shows. The 40 groups launched then take tiles 60 .. 99: their look-backs cross windows of
// totals (a group of 4 work-items reads 4 tiles a step) before they reach tile 30. A fill
// forward (the last nonzero value) is not commutative: a fold out of order shows too.
TEST_CASE("the single-pass scan's look-back folds published totals in order up to the nearest fold") {
    using loom::skeleton::input_kernel;
    const unsigned group = 4, tile = group * loom::codegen::tile_items, tiles = 100, done = 60;
    const std::size_t n = std::size_t(tiles) * tile - 5; // a ragged last tile
    std::vector<std::int32_t> h = random_values<std::int32_t>(n, -3, 40, 36);
    for (std::int32_t& v : h) v = v < 0 ? 0 : v;                  // zeros carry the last value on
    for (std::size_t i = 30 * tile; i < 60 * tile; ++i) h[i] = 0; // ... across many tiles
    h[35 * tile + 3] = 1001; // the fill's nearest nonzero before tile 60 is tile 57's, windows away
    h[50 * tile + 7] = 1002; // from these: folds in the wrong order take one of them instead
    h[57 * tile + 1] = 1003;
    h[56 * tile + 2] = 1004; // ... or this one, in tile 57's window
    for (std::size_t i = 60 * tile; i < 99 * tile; ++i) h[i] = i % 997 == 0 ? std::int32_t(i) : 0;
    const std::vector<bool> op_kinds = {false, true}; // fill forward, then +
    for (bool plus : op_kinds) {
        CAPTURE(plus);
        auto fill = [](auto a, auto b) { return loom::where(b != 0, b, a); };
        auto add = [](auto a, auto b) { return a + b; };
        const loom::detail::skeleton_operation sop =
            plus ? loom::expr::operation<std::int32_t>(add, 0) : loom::expr::operation<std::int32_t>(fill, 0);
        auto apply = [&](std::int32_t a, std::int32_t b) { return plus ? a + b : (b != 0 ? b : a); };
        std::vector<std::int32_t> inclusive(n);
        std::int32_t run = 0;
        for (std::size_t i = 0; i < n; ++i) inclusive[i] = run = apply(run, h[i]);
        std::vector<std::int32_t> totals(tiles, 0), folds(tiles, 0);
        std::vector<std::uint32_t> status(tiles + 1, 0);
        for (unsigned t = 0; t < tiles; ++t) {
            std::int32_t f = 0;
            for (std::size_t i = std::size_t(t) * tile; i < std::min(n, std::size_t(t + 1) * tile); ++i)
                f = apply(f, h[i]);
            totals[t] = f;
            folds[t] = inclusive[std::min(n, std::size_t(t + 1) * tile) - 1];
        }
        for (unsigned t = 1; t < 30; ++t) totals[t] = 12345 + std::int32_t(t); // never to be read
        for (unsigned t = 0; t < done; ++t) status[t] = t == 0 || t == 30 ? 2 : 1;
        status[tiles] = done;

        loom::vector<std::int32_t> x(ctx(), h);
        loom::skeleton::combine_op op{sop.op->body, sop.op->role, sop.type, {}};
        op.captures = loom::codegen::capture_types(op); // the fill's 0 is a capture
        const input_kernel in = loom::skeleton::build_input(*loom::expr::input_shape(x), {0}, loom::dtype::i32);
        loom::backend::device& dev = ctx().impl()->device();
        const auto source = loom::skeleton::emit_scan_pass(in, op, loom::codegen::scan_pass::single_pass, false,
                                                           loom::skeleton::no_class, group, false, dev.dialect());
        const loom::backend::build_result built = dev.build(source.text(), source.name);
        auto buffer = [&](const void* data, std::size_t bytes) {
            std::unique_ptr<loom::backend::memory> m = dev.allocate(bytes);
            if (data) dev.write(*m, 0, data, bytes);
            return m;
        };
        const auto in_mem = buffer(h.data(), n * 4), out_mem = buffer(nullptr, n * 4);
        const auto totals_mem = buffer(totals.data(), tiles * 4), folds_mem = buffer(folds.data(), tiles * 4);
        const auto status_mem = buffer(status.data(), (tiles + 1) * 4);
        const std::int32_t id = 0, init = 0;
        const std::uint64_t chunk = tile, length = n;
        std::vector<loom::backend::kernel_arg> args = {{in_mem.get()},     {out_mem.get()},    {totals_mem.get()},
                                                       {folds_mem.get()},  {status_mem.get()}, {nullptr, &id, 4},
                                                       {nullptr, &init, 4}};
        for (std::size_t c = 0; c < op.captures.size(); ++c)
            args.push_back({nullptr, sop.captures.at(c).word, loom::size_of(op.captures[c])});
        args.push_back({nullptr, &chunk, 8});
        args.push_back({nullptr, &length, 8});
        dev.launch(*built.compiled, args.data(), args.size(), {std::uint64_t(tiles - done) * group, group});
        std::vector<std::int32_t> out(n), got_folds(tiles);
        std::vector<std::uint32_t> got_status(tiles + 1);
        dev.read(*out_mem, 0, out.data(), n * 4);
        dev.read(*folds_mem, 0, got_folds.data(), tiles * 4);
        dev.read(*status_mem, 0, got_status.data(), (tiles + 1) * 4);
        std::size_t bad = 0, bad_folds = 0;
        for (std::size_t i = std::size_t(done) * tile; i < n; ++i) bad += out[i] != inclusive[i];
        for (unsigned t = done; t < tiles; ++t) bad_folds += got_status[t] != 2 || got_folds[t] != folds[t];
        CHECK(bad == 0);
        CHECK(bad_folds == 0);
        CHECK(got_status[tiles] == tiles); // every ticket taken once
    }
}
