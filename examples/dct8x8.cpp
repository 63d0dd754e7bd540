// An 8x8 block DCT of an image in ordinary Loom code: the orthonormal 2-D DCT-II of every 8x8
// block (F = C X C^T per block, the transform of JPEG), each block transformed in registers by
// loom::map_blocks. Checked against a host DCT in double, and the inverse (X = C^T F C) against
// the image; then the forward transform is timed, as pixels per second.
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

// One 8 x 8 block's transform, F = M X M^T: along its rows, then down its columns, every value
// in registers. loom::map_blocks<8, 8>(f) traces f once, at its first call, and then runs it on
// every block of an image, one block a work-item, in one pass over the image (docs/blocks.md):
// the loops unroll into the kernel, and the weights are host numbers (kernel arguments).
auto block_transform(const coefficients& m) {
    return loom::map_blocks<8, 8>([m](const loom::block<float, 8, 8>& x) {
        loom::block<float, 8, 8> rows, f;
        for (int r = 0; r < 8; ++r) // rows(r, v) = sum_k m[v][k] x(r, k)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = x(r, 0) * float(m[v * 8]);
                for (int k = 1; k < 8; ++k) s += x(r, k) * float(m[v * 8 + k]);
                rows(r, v) = s;
            }
        for (int u = 0; u < 8; ++u) // f(u, v) = sum_r m[u][r] rows(r, v)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = float(m[u * 8]) * rows(0, v);
                for (int r = 1; r < 8; ++r) s += float(m[u * 8 + r]) * rows(r, v);
                f(u, v) = s;
            }
        return f;
    });
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
    loom::matrix<float> image(ctx, rows, cols, pixels), dct(ctx, rows, cols), back(ctx, rows, cols);

    const auto forward_dct = block_transform(c), inverse_dct = block_transform(ct);
    auto forward = [&] { forward_dct(image, dct); }; // F = C X C^T per block
    auto inverse = [&] { inverse_dct(dct, back); };  // X = C^T F C per block

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
