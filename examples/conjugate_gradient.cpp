// Conjugate gradients on the 2-D Poisson equation -Δu = 1 on the unit square (u = 0 on the
// boundary), discretised with the 5-point stencil on an m x m grid of interior points and held as
// a loom::sparse_matrix built from coordinate triples. The whole iteration stays on the device:
// Ap = A * p is an ordinary statement (the product is computed row by row in its kernel), the
// dot products are reductions into loom::scalars, and
// loom::loop_while stops on the residual's norm without a host read per iteration. The solution's
// residual is checked on the host at the end.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    const std::uint64_t m = 64, n = m * m;
    const double h = 1.0 / double(m + 1), tolerance = 1e-8;
    loom::context ctx;

    std::vector<std::uint64_t> i, j;
    std::vector<double> v;
    for (std::uint64_t a = 0; a < m; ++a)
        for (std::uint64_t b = 0; b < m; ++b) {
            const std::uint64_t r = a * m + b;
            auto add = [&](std::uint64_t c, double x) {
                i.push_back(r);
                j.push_back(c);
                v.push_back(x / (h * h));
            };
            add(r, 4.0);
            if (a > 0) add(r - m, -1.0);
            if (a + 1 < m) add(r + m, -1.0);
            if (b > 0) add(r - 1, -1.0);
            if (b + 1 < m) add(r + 1, -1.0);
        }
    const auto A = loom::sparse_matrix<double>::from_triplets(ctx, n, n, i, j, v);

    const std::vector<double> rhs(n, 1.0);
    const loom::vector<double> f(ctx, rhs);
    loom::vector<double> x(ctx, n, 0.0), r = f, p = f, Ap(ctx, n);
    loom::scalar<double> rr = loom::sum(r * r, loom::on_device), rr_next(ctx, 0.0), pap(ctx, 0.0), alpha(ctx, 0.0);
    const double stop = tolerance * tolerance * double(n); // ||r|| < tolerance * ||f||, ||f||² = n

    const auto syncs_before = ctx.statistics().host_syncs;
    const auto iterations = loom::loop_while(
        ctx, rr > stop,
        [&] {
            Ap = A * p; // kept: both the dot product and the residual's update read it
            pap = loom::sum(p * Ap, loom::on_device);
            alpha = rr / pap;
            x = x + alpha * p;
            r = r - alpha * Ap;
            rr_next = loom::sum(r * r, loom::on_device);
            p = r + (rr_next / rr) * p;
            rr = rr_next;
        },
        /*check_every=*/16, /*max_iterations=*/2000);
    const auto syncs = ctx.statistics().host_syncs - syncs_before;

    // The true residual ||f - A x|| / ||f||, on the host.
    const std::vector<double> u = x.to_host();
    std::vector<double> ax(n, 0.0);
    for (std::size_t k = 0; k < i.size(); ++k) ax[i[k]] += v[k] * u[j[k]];
    double squares = 0.0;
    const double centre = u[(m / 2) * m + m / 2];
    for (std::uint64_t k = 0; k < n; ++k) squares += (rhs[k] - ax[k]) * (rhs[k] - ax[k]);
    const double relative = std::sqrt(squares / double(n));
    std::printf("conjugate_gradient %llux%llu Poisson on %s: %llu iterations, %llu host syncs\n",
                static_cast<unsigned long long>(m), static_cast<unsigned long long>(m), ctx.device_name().c_str(),
                static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(syncs));
    std::printf("relative residual %.3g (tolerance %g); u at the centre %.6f (continuous problem: about 0.0737)\n",
                relative, tolerance, centre);
    return relative < 10 * tolerance && iterations < 2000 && std::fabs(centre - 0.0737) < 1e-3 ? 0 : 1;
}
