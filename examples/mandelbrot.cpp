// The Mandelbrot set as a loop of masked element-wise updates, written to mandelbrot.pgm.
// Each pixel iterates z = z^2 + c while |z| <= 2; the loop skeleton runs the iterations
// back to back on the device with no host round trip, and the count is checked against
// the host for a sample of pixels.
#include <loom/loom.hpp>

#include <cstdio>
#include <fstream>
#include <vector>

int main(int argc, char** argv) {
    const std::size_t width = 768, height = 512, max_iterations = 200;
    const char* path = argc > 1 ? argv[1] : "mandelbrot.pgm";
    loom::context ctx;
    const std::size_t n = width * height;
    loom::vector<float> cr(ctx, n), ci(ctx, n), zr(ctx, n), zi(ctx, n), count(ctx, n);
    // Pixel (x, y) covers [-2.2, 1.0] x [-1.1, 1.1].
    const float scale = 3.2f / float(width);
    cr = loom::cast<float>(loom::index() % width) * scale - 2.2f;
    ci = loom::cast<float>(loom::index() / width) * scale - 1.1f;

    loom::loop(ctx, max_iterations, [&] {
        // Temporaries: kept in registers, never stored. (An expression kept in a C++
        // variable would be evaluated when assigned, after zi changed: hence vectors.)
        loom::vector<float> inside(ctx, n), next_r(ctx, n);
        inside = loom::cast<float>(zr * zr + zi * zi <= 4.0f);
        count += inside;
        next_r = zr * zr - zi * zi + cr;
        zi = loom::where(inside > 0.0f, 2.0f * zr * zi + ci, zi);
        zr = loom::where(inside > 0.0f, next_r, zr);
    });
    const std::vector<float> iterations = count.to_host();

    // The same iteration on the host for every 97th pixel.
    std::size_t wrong = 0, checked = 0;
    for (std::size_t p = 0; p < n; p += 97, ++checked) {
        const float r0 = float(p % width) * scale - 2.2f, i0 = float(p / width) * scale - 1.1f;
        float r = 0, i = 0, c = 0;
        for (std::size_t it = 0; it < max_iterations; ++it) {
            const float inside = r * r + i * i <= 4.0f ? 1.0f : 0.0f;
            c += inside;
            const float nr = r * r - i * i + r0;
            if (inside > 0.0f) {
                i = 2.0f * r * i + i0;
                r = nr;
            }
        }
        if (c != iterations[p]) ++wrong;
    }

    std::ofstream out(path, std::ios::binary);
    out << "P5\n" << width << " " << height << "\n255\n";
    for (float c : iterations)
        out.put(char(c >= float(max_iterations) ? 0 : 255 - int(c * 255.0f / float(max_iterations))));
    std::printf("mandelbrot %zux%zu, %zu iterations on %s: wrote %s; %zu of %zu sampled pixels differ from the host\n",
                width, height, max_iterations, ctx.device_name().c_str(), path, wrong, checked);
    return wrong == 0 ? 0 : 1;
}
