// loom::map_blocks (loom/block.hpp): a lambda over every R x C block of a matrix, one block a
// work-item. Every result against a host loop over the same blocks: the 8 x 8 DCT, a 4 x 4
// matrix product per block, a transpose per block, blocks that are not square, several inputs of
// other types, math functions, integer arithmetic, host numbers; the mistakes refused with the
// output as it was. The passes' CUDA text is compiled with NVRTC where it is built in.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <tuple>

#include "codegen/dialect.hpp"
#include "skeleton/plan_block_map.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

using skeleton_test::ctx;
using skeleton_test::random_values;

namespace {

// The orthonormal DCT-II matrix: c[v][k].
std::array<std::array<float, 8>, 8> dct_matrix() {
    std::array<std::array<float, 8>, 8> c{};
    const double pi = 3.14159265358979323846;
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 8; ++k)
            c[v][k] = float((v == 0 ? std::sqrt(1.0 / 8) : std::sqrt(2.0 / 8)) * std::cos((2 * k + 1) * v * pi / 16));
    return c;
}

// The lambda of examples/dct8x8.cpp: each block's rows, then its columns.
auto dct_of(const std::array<std::array<float, 8>, 8>& c) {
    return [c](const loom::block<float, 8, 8>& in) {
        loom::block<float, 8, 8> rows, out;
        for (int r = 0; r < 8; ++r)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = in(r, 0) * c[v][0];
                for (int k = 1; k < 8; ++k) s += in(r, k) * c[v][k];
                rows(r, v) = s;
            }
        for (int u = 0; u < 8; ++u)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = c[u][0] * rows(0, v);
                for (int r = 1; r < 8; ++r) s += c[u][r] * rows(r, v);
                out(u, v) = s;
            }
        return out;
    };
}

} // namespace

TEST_CASE("map_blocks: the 8 x 8 DCT of every block, against a host loop in double") {
    const auto c = dct_matrix();
    for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{8, 8}, {24, 40}, {64, 48}}) {
        CAPTURE(rows);
        CAPTURE(cols);
        const std::vector<float> h = random_values<float>(rows * cols, -1.0f, 1.0f, 1);
        loom::matrix<float> x(ctx(), rows, cols, h), f(ctx(), rows, cols, 5.0f);
        loom::map_blocks<8, 8>(x, f, dct_of(c));
        const std::vector<float> got = f.to_host();
        for (std::size_t bi = 0; bi < rows / 8; ++bi)
            for (std::size_t bj = 0; bj < cols / 8; ++bj)
                for (std::size_t u = 0; u < 8; ++u)
                    for (std::size_t v = 0; v < 8; ++v) {
                        double s = 0;
                        for (std::size_t r = 0; r < 8; ++r)
                            for (std::size_t k = 0; k < 8; ++k)
                                s += double(c[u][r]) * h[(bi * 8 + r) * cols + bj * 8 + k] * double(c[v][k]);
                        CHECK(got[(bi * 8 + u) * cols + bj * 8 + v] == doctest::Approx(s).epsilon(1e-5).scale(1));
                    }
        // In a context with fp_contract on (multiply-adds rounded once): within the same bound.
        loom::context_options o;
        o.fp_contract = 1;
        loom::context contracted(o);
        loom::matrix<float> xc(contracted, rows, cols, h), fc(contracted, rows, cols);
        loom::map_blocks<8, 8>(xc, fc, dct_of(c));
        const std::vector<float> got_contracted = fc.to_host();
        for (std::size_t i = 0; i < got.size(); ++i)
            CHECK(got_contracted[i] == doctest::Approx(got[i]).epsilon(1e-5).scale(1));
    }
}

TEST_CASE("map_blocks: a 4 x 4 product, a transpose and blocks of 2 x 4, exact on integers") {
    const std::size_t rows = 12, cols = 16;
    const std::vector<std::int32_t> h = random_values<std::int32_t>(rows * cols, -50, 50, 2);
    loom::matrix<std::int32_t> x(ctx(), rows, cols, h), y(ctx(), rows, cols);
    const int a[4][4] = {{1, 2, 0, -1}, {3, 0, 1, 1}, {0, -2, 5, 0}, {1, 1, 1, 1}};
    // y's block = A * x's block.
    loom::map_blocks<4, 4>(x, y, [&](const loom::block<std::int32_t, 4, 4>& b) {
        loom::block<std::int32_t, 4, 4> out;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                loom::traced<std::int32_t> s = a[i][0] * b(0, j);
                for (int k = 1; k < 4; ++k) s += a[i][k] * b(k, j);
                out(i, j) = s;
            }
        return out;
    });
    std::vector<std::int32_t> want(rows * cols);
    for (std::size_t bi = 0; bi < rows; bi += 4)
        for (std::size_t bj = 0; bj < cols; bj += 4)
            for (std::size_t i = 0; i < 4; ++i)
                for (std::size_t j = 0; j < 4; ++j) {
                    std::int32_t s = 0;
                    for (std::size_t k = 0; k < 4; ++k) s += a[i][k] * h[(bi + k) * cols + bj + j];
                    want[(bi + i) * cols + bj + j] = s;
                }
    CHECK(y.to_host() == want);
    // Each block transposed in place of itself.
    loom::map_blocks<4>(x, y, [](const auto& b) {
        loom::block<std::int32_t, 4, 4> t;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) t(j, i) = b(i, j);
        return t;
    });
    for (std::size_t bi = 0; bi < rows; bi += 4)
        for (std::size_t bj = 0; bj < cols; bj += 4)
            for (std::size_t i = 0; i < 4; ++i)
                for (std::size_t j = 0; j < 4; ++j) want[(bi + j) * cols + bj + i] = h[(bi + i) * cols + bj + j];
    CHECK(y.to_host() == want);
    // 2 x 4 blocks: each row reversed and the rows swapped, minus the block's first element.
    loom::map_blocks<2, 4>(x, y, [](const loom::block<std::int32_t, 2, 4>& b) {
        loom::block<std::int32_t, 2, 4> out;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 4; ++j) out(i, j) = b(1 - i, 3 - j) - b(0, 0);
        return out;
    });
    for (std::size_t bi = 0; bi < rows; bi += 2)
        for (std::size_t bj = 0; bj < cols; bj += 4)
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 4; ++j)
                    want[(bi + i) * cols + bj + j] = h[(bi + 1 - i) * cols + bj + 3 - j] - h[bi * cols + bj];
    CHECK(y.to_host() == want);
}

TEST_CASE("map_blocks on a vector through loom::reshape: runs of 8 elements as 1 x 8 blocks") {
    const std::size_t n = 8 * 37;
    const std::vector<std::int64_t> h = random_values<std::int64_t>(n, -1000, 1000, 6);
    loom::vector<std::int64_t> x(ctx(), h), y(ctx(), n);
    loom::matrix<std::int64_t> ym = loom::reshape(y, 1, n);
    // Each run reversed, less the run's smallest value.
    loom::map_blocks<1, 8>(loom::reshape(x, 1, n), ym, [](const loom::block<std::int64_t, 1, 8>& b) {
        loom::traced<std::int64_t> least = b(0, 0);
        for (int k = 1; k < 8; ++k) least = loom::min(least, b(0, k));
        loom::block<std::int64_t, 1, 8> out;
        for (int k = 0; k < 8; ++k) out(0, k) = b(0, 7 - k) - least;
        return out;
    });
    std::vector<std::int64_t> want(n);
    for (std::size_t r = 0; r < n; r += 8) {
        const std::int64_t least = *std::min_element(h.begin() + std::ptrdiff_t(r), h.begin() + std::ptrdiff_t(r + 8));
        for (std::size_t k = 0; k < 8; ++k) want[r + k] = h[r + 7 - k] - least;
    }
    CHECK(y.to_host() == want);
}

TEST_CASE("map_blocks: several inputs of other types, math functions, where, casts and C++'s types") {
    const std::size_t rows = 6, cols = 9;
    const std::vector<std::int16_t> ha = random_values<std::int16_t>(rows * cols, -9, 9, 3);
    const std::vector<float> hb = random_values<float>(rows * cols, 0.25f, 4.0f, 4);
    loom::matrix<std::int16_t> a(ctx(), rows, cols, ha);
    loom::matrix<float> b(ctx(), rows, cols, hb);
    loom::matrix<double> out(ctx(), rows, cols);
    const double scale = 0.5;
    loom::map_blocks<3>(std::tie(a, b), out, [&](const auto& p, const auto& q) {
        static_assert(std::is_same_v<decltype(p(0, 0) + p(0, 1)), loom::traced<int>>, "int16 + int16 is an int");
        static_assert(std::is_same_v<decltype(q(0, 0) * scale), loom::traced<double>>, "float * double is a double");
        loom::block<double, 3, 3> r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const auto positive = p(i, j) > 0;
                r(i, j) = loom::where(positive, loom::sqrt(q(i, j)) * p(i, j), -loom::cast<double>(p(i, j)) * scale) +
                          loom::max(q(i, j), 1.0f) + loom::cast<float>(p(i, j) % 4);
            }
        r(2, 2) += loom::fma(q(0, 0), q(1, 1), 1.0) - loom::exp(loom::cast<double>(p(2, 2)) / 10);
        return r;
    });
    std::vector<double> want(rows * cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            const std::size_t e = i * cols + j;
            const int p = ha[e];
            const float q = hb[e];
            double v = (p > 0 ? double(std::sqrt(q) * float(p)) : -double(p) * scale) + double(std::max(q, 1.0f)) +
                       double(float(p % 4));
            if (i % 3 == 2 && j % 3 == 2) {
                const std::size_t origin = (i - 2) * cols + (j - 2);
                v += std::fma(double(hb[origin]), double(hb[origin + cols + 1]), 1.0) - std::exp(double(p) / 10);
            }
            want[e] = v;
        }
    const std::vector<double> got = out.to_host();
    for (std::size_t e = 0; e < got.size(); ++e) CHECK(got[e] == doctest::Approx(want[e]).epsilon(1e-6));
}

TEST_CASE("map_blocks: pending statements run first, and statements after read the blocks") {
    const std::size_t n = 8;
    std::vector<float> h(n * n);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(i);
    loom::matrix<float> x(ctx(), n, n, h), y(ctx(), n, n), z(ctx(), n, n);
    x = x * 2.0f; // pending when the blocks run
    loom::map_blocks<2>(x, y, [](const loom::block<float, 2, 2>& b) {
        loom::block<float, 2, 2> s;
        const loom::traced<float> sum = b(0, 0) + b(0, 1) + b(1, 0) + b(1, 1);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) s(i, j) = sum;
        return s;
    });
    z = y + 1.0f;
    const std::vector<float> got = z.to_host();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t r = i / 2 * 2, c = j / 2 * 2;
            const float sum = 2.0f * (h[r * n + c] + h[r * n + c + 1] + h[(r + 1) * n + c] + h[(r + 1) * n + c + 1]);
            CHECK(got[i * n + j] == sum + 1.0f);
        }
}

TEST_CASE("map_blocks in place: the output is an input, each block read whole before it is written") {
    const std::size_t rows = 8, cols = 12;
    const std::vector<float> ha = random_values<float>(rows * cols, -2.0f, 2.0f, 7);
    const std::vector<float> hb = random_values<float>(rows * cols, -2.0f, 2.0f, 8);
    loom::matrix<float> a(ctx(), rows, cols, ha), b(ctx(), rows, cols, hb);
    // Each 4 x 4 block transposed and shifted by the other matrix's block, into a itself.
    loom::map_blocks<4>(std::tie(a, b), a, [](const loom::block<float, 4, 4>& p, const loom::block<float, 4, 4>& q) {
        loom::block<float, 4, 4> out;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) out(i, j) = p(j, i) + q(i, j);
        return out;
    });
    std::vector<float> want(rows * cols);
    for (std::size_t bi = 0; bi < rows; bi += 4)
        for (std::size_t bj = 0; bj < cols; bj += 4)
            for (std::size_t i = 0; i < 4; ++i)
                for (std::size_t j = 0; j < 4; ++j)
                    want[(bi + i) * cols + bj + j] = ha[(bi + j) * cols + bj + i] + hb[(bi + i) * cols + bj + j];
    CHECK(a.to_host() == want);
    // In place of an input the lambda never reads: the blocks come from the other input only.
    loom::map_blocks<4>(std::tie(b, a), b, [](const auto&, const loom::block<float, 4, 4>& q) { return q; });
    CHECK(b.to_host() == want);
}

TEST_CASE("map_blocks(f) traces f once and keeps the trace; map_blocks(in, out, f) traces at every call") {
    const std::size_t n = 8;
    std::vector<float> h(n * n);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(i % 13) - 6.0f;
    loom::matrix<float> x(ctx(), n, n, h), y(ctx(), n, n);
    loom::matrix<double> z(ctx(), n, n);
    float scale = 2.0f;
    const auto scaled = [&](const loom::block<float, 4, 4>& b) {
        loom::block<float, 4, 4> out;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) out(i, j) = b(i, j) * scale + b(0, 0);
        return out;
    };
    const auto times = [&](float s) {
        std::vector<float> want(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) want[i * n + j] = h[i * n + j] * s + h[(i / 4 * 4) * n + j / 4 * 4];
        return want;
    };
    const auto kept = loom::map_blocks<4>(scaled);
    kept(x, y);
    CHECK(y.to_host() == times(2.0f));
    scale = 3.0f; // read at the first call: kept still scales by 2
    kept(x, y);
    CHECK(y.to_host() == times(2.0f));
    kept(std::tie(x), z); // a new output type: traced now, with 3
    const std::vector<float> thrice = times(3.0f);
    CHECK(z.to_host() == std::vector<double>(thrice.begin(), thrice.end()));
    loom::map_blocks<4>(x, y, scaled); // traced at the call
    CHECK(y.to_host() == thrice);
    const auto copy = kept; // copies share the traces
    copy(x, y);
    CHECK(y.to_host() == times(2.0f));
}

TEST_CASE("map_blocks: the mistakes are refused, and the output is as it was") {
    const std::vector<float> h = random_values<float>(64, -1.0f, 1.0f, 5);
    loom::matrix<float> x(ctx(), 8, 8, h), y(ctx(), 8, 8, 3.0f), odd(ctx(), 8, 6, 1.0f), other_size(ctx(), 4, 16);
    const auto identity = [](const loom::block<float, 4, 4>& b) { return b; };
    const auto unchanged = [&] { CHECK(y.to_host() == std::vector<float>(64, 3.0f)); };
    // Sizes: not whole blocks, or the matrices of other sizes.
    CHECK_THROWS_AS(loom::map_blocks<4>(odd, odd, identity), loom::length_error);
    CHECK_THROWS_WITH_AS(loom::map_blocks<4>(x, other_size, identity), doctest::Contains("give every matrix one size"),
                         loom::length_error);
    // An element of the block returned never given a value.
    CHECK_THROWS_WITH_AS(loom::map_blocks<4>(x, y,
                                             [](const loom::block<float, 4, 4>& b) {
                                                 loom::block<float, 4, 4> out;
                                                 for (int i = 0; i < 4; ++i)
                                                     for (int j = 0; j < 4; ++j)
                                                         if (i + j != 5) out(i, j) = b(i, j);
                                                 return out;
                                             }),
                         doctest::Contains("element (2, 3)"), loom::error);
    unchanged();
    // An element outside the block; a traced value kept past its lambda; nested block maps.
    CHECK_THROWS_WITH_AS(loom::map_blocks<4>(x, y,
                                             [](const loom::block<float, 4, 4>& b) {
                                                 loom::block<float, 4, 4> out = b;
                                                 out(0, 0) = b(4, 0);
                                                 return out;
                                             }),
                         doctest::Contains("outside a 4 x 4 block"), loom::error);
    loom::traced<float> kept;
    loom::map_blocks<4>(x, y, [&](const loom::block<float, 4, 4>& b) {
        kept = b(0, 0);
        return b;
    });
    CHECK_THROWS_WITH_AS((void)(kept + 1.0f), doctest::Contains("outside its block lambda"), loom::error);
    CHECK_THROWS_WITH_AS(loom::map_blocks<4>(x, y,
                                             [&](const loom::block<float, 4, 4>& b) {
                                                 loom::map_blocks<4>(x, y, identity);
                                                 return b;
                                             }),
                         doctest::Contains("do not nest"), loom::error);
    // A matrix of another context.
    loom::context elsewhere;
    loom::matrix<float> foreign(elsewhere, 8, 8, 2.0f);
    y = loom::matrix<float>(ctx(), 8, 8, 3.0f);
    CHECK_THROWS_WITH_AS(loom::map_blocks<4>(foreign, y, identity), doctest::Contains("another context"), loom::error);
    unchanged();
    // An empty output: a length_error; empty matrices both: nothing to do.
    loom::matrix<float> empty, none;
    CHECK_THROWS_AS(loom::map_blocks<4>(x, empty, identity), loom::length_error);
    CHECK_NOTHROW(loom::map_blocks<4>(none, empty, identity));
}

TEST_CASE("map_blocks' pass is valid CUDA C++ (NVRTC, sm_90, where built in)") {
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    std::set<std::string> sources;
    const auto c = dct_matrix();
    for (loom::dtype out : {loom::dtype::f32, loom::dtype::f64, loom::dtype::i16}) {
        const loom::dtype inputs[] = {loom::dtype::f32};
        loom::detail::block_trace trace(inputs, 1, 8, 8);
        loom::block<float, 8, 8> b;
        for (std::size_t r = 0; r < 8; ++r)
            for (std::size_t k = 0; k < 8; ++k) b(r, k) = loom::traced<float>::of(trace.element(0, r, k), trace.id());
        const auto result = dct_of(c)(b);
        loom::detail::node_ref values[64];
        for (std::size_t e = 0; e < 64; ++e) values[e] = result(e / 8, e % 8).node();
        const loom::detail::shape* body = trace.finish(values, out);
        const std::vector<std::uint32_t> classes = {0}; // the input; every scalar its own
        loom::skeleton::block_map_request r;
        r.body = body;
        r.slot_class = &classes;
        r.output = out;
        const loom::plan::plan p = loom::skeleton::plan_block_map(r, cuda);
        REQUIRE(p.passes.size() == 1);
        sources.insert(p.passes[0].kernel.body);
    }
#ifdef LOOM_HAVE_CUDA
    for (const std::string& s : sources) {
        CAPTURE(s);
        CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(s, 90, false)); // PTX: the front end's checks
    }
#endif
    CHECK(sources.size() == 3);
}
