// A chain of statements with temporaries, and the fusion log that shows it run as one
// kernel. Run with LOOM_LOG=fusion to see the log on stderr (this program turns it on).
#include <loom/loom.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    setenv("LOOM_LOG", "fusion", 0); // keep the user's setting if there is one
    loom::context ctx;
    const std::size_t n = 1 << 16;
    std::vector<float> hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = 0.001f * float(i % 1000);
        hy[i] = 1.0f + 0.5f * float(i % 3);
    }
    loom::vector<float> x(ctx, hx), y(ctx, hy), z(ctx, n);
    const float a = 3.0f;
    {
        loom::vector<float> t1(ctx, n), t2(ctx, n), t3(ctx, n); // die before the flush
        t1 = a * x;
        t2 = t1 + y;
        t3 = t2 * t2;
        z = t3 - x;
    }
    const std::vector<float> out = z.to_host(); // the flush: one kernel, loads x and y, stores z

    const loom::flush_report report = loom::last_flush(ctx);
    std::printf("%u statements ran as %zu kernel(s)\n", report.statements, report.kernels.size());
    for (const loom::kernel_report& k : report.kernels)
        std::printf("  statements %u-%u: %u loads, %u stores, %u elided, ends %s\n", k.first_statement,
                    k.last_statement, k.loads, k.stores, k.elided, k.ends.c_str());
    const float t2 = a * hx[7] + hy[7];
    std::printf("z[7] = %g (host: %g)\n", double(out[7]), double(t2 * t2 - hx[7]));
    return out[7] == t2 * t2 - hx[7] ? 0 : 1;
}
