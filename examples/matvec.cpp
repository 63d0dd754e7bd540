// A matrix-vector product as one Loom expression: y = sum over the columns of A(i, j) * x[j].
// The product is computed inside the reduction's kernel (no rows x cols temporary), checked
// against a host product in double; then timed, as the bytes of A it reads per second.
//   matvec [rows] [cols]      (default 4096 x 4096)
#include <loom/loom.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4096;
    const std::size_t cols = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4096;
    loom::context ctx;
    std::vector<float> ha(rows * cols), hx(cols);
    for (std::size_t k = 0; k < ha.size(); ++k) ha[k] = float(k % 1013) * 0.002f - 1.0f;
    for (std::size_t j = 0; j < cols; ++j) hx[j] = 1.0f - float(j % 17) * 0.125f;
    loom::matrix<float> A(ctx, rows, cols, ha);
    loom::vector<float> x(ctx, hx);

    loom::vector<float> y = loom::sum(A * loom::as_row(x), loom::axis<1>); // y = A x
    const std::vector<float> got = y.to_host();
    double worst = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        double ref = 0, magnitude = 0;
        for (std::size_t j = 0; j < cols; ++j) {
            ref += double(ha[i * cols + j]) * hx[j];
            magnitude += std::fabs(double(ha[i * cols + j]) * hx[j]);
        }
        if (magnitude > 0) worst = std::max(worst, std::fabs(got[i] - ref) / magnitude);
    }

    // Timed: the kernel is compiled and the plan cached; each product is one launch (and the
    // new result vector's fill).
    const int repeats = 20;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) y = loom::sum(A * loom::as_row(x), loom::axis<1>);
    ctx.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
    const double gbytes = double(rows * cols + rows + cols) * sizeof(float) / seconds * 1e-9;

    // The error relative to sum |A(i, j) x[j]| of a float fold (docs/matrices.md).
    const bool ok = worst < 1e-5;
    std::printf("matvec %zu x %zu on %s (%s): %.3f ms, %.2f GB/s; max relative error %.3g\n%s\n", rows, cols,
                ctx.device_name().c_str(), ctx.backend_name().c_str(), seconds * 1e3, gbytes, worst,
                ok ? "ok" : "error too large");
    return ok ? 0 : 1;
}
