// An 8x8 block DCT of an image in ordinary Loom code: the orthonormal 2-D DCT-II of every 8x8
// block (F = C X C^T per block, the transform of JPEG), as a pass along the rows and a pass down
// the columns. Checked against a host DCT in double, and the inverse (X = C^T F C) against the
// image; then the forward transform is timed, as pixels per second.
//   dct8x8 [height] [width]      (default 2048 x 2048; both multiples of 8)
#include <loom/loom.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using coefficients = std::array<double, 64>; // m[v * 8 + k]: output v's weight of input k

// The DCT-II matrix: C[v][k] = a(v) cos((2k + 1) v pi / 16), a(0) = sqrt(1/8), else sqrt(2/8).
coefficients dct_matrix() {
    const double pi = 3.14159265358979323846;
    coefficients c{};
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 8; ++k)
            c[v * 8 + k] = (v == 0 ? std::sqrt(0.125) : 0.5) * std::cos((2 * k + 1) * v * pi / 16);
    return c;
}

coefficients transposed(const coefficients& c) {
    coefficients t{};
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 8; ++k) t[k * 8 + v] = c[v * 8 + k];
    return t;
}

// Along the rows: out(i, 8b + v) = sum_k m[v][k] in(i, 8b + k). The flat image is a sequence of
// block rows of 8 pixels, so output phase v of every block row is the view out.slice(v, n/8, 8)
// and input phase k is in.slice(k, n/8, 8): no index arithmetic, and the weights are host
// numbers (kernel arguments). The eight writes share no element, so they are one kernel, and
// the eight statements' reads of one phase are one load: equal views share their arguments
// (docs/views.md). A matrix statement with gathers instead costs an index computation and two
// gathers per term (bench_dct8x8's loom_gathers; bench/results/history.csv).
void row_pass(loom::vector<float>& in, loom::vector<float>& out, const coefficients& m) {
    const std::size_t groups = in.size() / 8;
    for (int v = 0; v < 8; ++v) {
        auto term = [&](int k) { return float(m[v * 8 + k]) * in.slice(k, groups, 8); };
        out.slice(v, groups, 8) = term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7);
    }
}

// Down the columns: out(i, j) = sum_k m[i % 8][k] in(8 (i / 8) + k, j). A matrix statement over
// the element's row and column: the weights as broadcast columns (weight[k] holds m[i % 8][k]
// for every row i), the input read by a gather. On rows of 16 or more the kernel runs on whole
// rows: the row and column are the launch's, each weight is read once per row, and the gather
// reads a contiguous row of the input (docs/matrices.md, Costs). Narrower images find the row
// by a 64-bit division per element. (bench_dct8x8's loom_rowmagic finds it by a multiply and a
// shift, a trick a user should not need.)
void column_pass(const loom::matrix<float>& in, loom::matrix<float>& out,
                 const std::vector<loom::vector<float>>& weight) {
    const auto i = loom::index<0>();
    const auto j = loom::index<1>();
    const std::uint64_t band_mask = ~std::uint64_t(7), width = in.cols();
    auto term = [&](int k) {
        return loom::as_column(weight[k]) * loom::gather(in.elements(), ((i & band_mask) + k) * width + j);
    };
    out = term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7);
}

// weight[k][i] = m[i % 8][k]: the column pass's weights, one vector of `rows` per input row k.
std::vector<loom::vector<float>> column_weights(loom::context& ctx, const coefficients& m, std::size_t rows) {
    std::vector<loom::vector<float>> weight;
    for (int k = 0; k < 8; ++k) {
        std::vector<float> w(rows);
        for (std::size_t i = 0; i < rows; ++i) w[i] = float(m[(i % 8) * 8 + k]);
        weight.emplace_back(ctx, w);
    }
    return weight;
}

// The host reference in double: the same two passes, block by block.
std::vector<double> host_dct(const std::vector<float>& x, std::size_t rows, std::size_t cols, const coefficients& c) {
    std::vector<double> t(x.size()), f(x.size());
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            double s = 0;
            for (std::size_t k = 0; k < 8; ++k) s += c[(j % 8) * 8 + k] * x[i * cols + j / 8 * 8 + k];
            t[i * cols + j] = s;
        }
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            double s = 0;
            for (std::size_t k = 0; k < 8; ++k) s += c[(i % 8) * 8 + k] * t[(i / 8 * 8 + k) * cols + j];
            f[i * cols + j] = s;
        }
    return f;
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048;
    const std::size_t cols = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2048;
    if (rows == 0 || cols == 0 || rows % 8 != 0 || cols % 8 != 0) {
        std::fprintf(stderr, "dct8x8: the height and width must be positive multiples of 8 (got %zu x %zu)\n", rows,
                     cols);
        return 2;
    }
    // Pixels in [0, 255]: a smooth gradient with noise, so that both low and high frequencies occur.
    const double range = 255;
    std::vector<float> pixels(rows * cols);
    std::uint32_t state = 12345;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            state = state * 1664525u + 1013904223u;
            const double noise = double(state >> 8) / double(1u << 24) * 64.0;
            pixels[i * cols + j] =
                float(std::floor(96.0 * (i + j) / double(rows + cols) + noise + 32.0 * ((i / 8 + j / 8) % 2)));
        }

    const coefficients c = dct_matrix(), ct = transposed(c);
    loom::context ctx;
    loom::matrix<float> image(ctx, rows, cols, pixels), rowwise(ctx, rows, cols), dct(ctx, rows, cols),
        back(ctx, rows, cols);
    const std::vector<loom::vector<float>> forward_weight = column_weights(ctx, c, rows),
                                           inverse_weight = column_weights(ctx, ct, rows);
    loom::vector<float> image_flat = loom::flatten(image), rowwise_flat = loom::flatten(rowwise),
                        dct_flat = loom::flatten(dct);

    auto forward = [&] { // F = C X C^T per block
        row_pass(image_flat, rowwise_flat, c);
        column_pass(rowwise, dct, forward_weight);
    };
    auto inverse = [&] { // X = C^T F C per block
        row_pass(dct_flat, rowwise_flat, ct);
        column_pass(rowwise, back, inverse_weight);
    };

    forward();
    const std::vector<float> got = dct.to_host();
    inverse();
    const std::vector<float> round_trip = back.to_host();
    const std::vector<double> want = host_dct(pixels, rows, cols, c);
    double worst = 0, worst_back = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        worst = std::max(worst, std::fabs(got[k] - want[k]) / range);
        worst_back = std::max(worst_back, std::fabs(double(round_trip[k]) - pixels[k]) / range);
    }

    // Timed: every kernel compiled and every plan cached; each transform runs to completion.
    forward();
    ctx.finish();
    const int repeats = 20;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) {
        forward();
        ctx.finish();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;

    // Any float summation order stays near 1e-7 of the range here; a wrong weight or a misread
    // pixel is an error of order 1e-3 or more.
    const bool ok = worst < 1e-5 && worst_back < 1e-5;
    std::printf("dct8x8 %zu x %zu on %s (%s): forward DCT %.3f ms, %.3g pixels/s; max error against the host "
                "%.3g of the pixel range, inverse round trip %.3g\n%s\n",
                rows, cols, ctx.device_name().c_str(), ctx.backend_name().c_str(), seconds * 1e3,
                double(rows * cols) / seconds, worst, worst_back, ok ? "ok" : "error too large");
    return ok ? 0 : 1;
}
