// Black-Scholes call and put prices for a batch of options, checked against the host.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

// The standard normal CDF through erfc, the same formula on device and host.
template <class X> auto normal_cdf(const X& x) { return 0.5f * loom::erfc(-x * 0.70710678f); }
float normal_cdf_host(float x) { return 0.5f * std::erfc(-x * 0.70710678f); }

} // namespace

int main() {
    loom::context ctx;
    const std::size_t n = 1 << 20;
    const float rate = 0.02f, volatility = 0.30f;
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> price(5.0f, 30.0f), strike(1.0f, 100.0f), years(0.25f, 10.0f);
    std::vector<float> hs(n), hx(n), ht(n);
    for (std::size_t i = 0; i < n; ++i) {
        hs[i] = price(gen);
        hx[i] = strike(gen);
        ht[i] = years(gen);
    }
    loom::vector<float> s(ctx, hs), x(ctx, hx), t(ctx, ht), call(ctx, n), put(ctx, n);
    {
        loom::vector<float> d1(ctx, n), d2(ctx, n), sqrt_t(ctx, n); // temporaries: kept in registers
        sqrt_t = loom::sqrt(t);
        d1 = (loom::log(s / x) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
        d2 = d1 - volatility * sqrt_t;
        call = s * normal_cdf(d1) - x * loom::exp(-rate * t) * normal_cdf(d2);
        put = x * loom::exp(-rate * t) * normal_cdf(-d2) - s * normal_cdf(-d1);
    }
    const std::vector<float> hcall = call.to_host(), hput = put.to_host();

    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float sq = std::sqrt(ht[i]);
        const float d1 =
            (std::log(hs[i] / hx[i]) + (rate + 0.5f * volatility * volatility) * ht[i]) / (volatility * sq);
        const float d2 = d1 - volatility * sq;
        const float disc = std::exp(-rate * ht[i]);
        const float c = hs[i] * normal_cdf_host(d1) - hx[i] * disc * normal_cdf_host(d2);
        const float p = hx[i] * disc * normal_cdf_host(-d2) - hs[i] * normal_cdf_host(-d1);
        // Absolute error relative to the option's scale (prices near zero make relative error meaningless).
        const double scale = std::fmax(1.0, double(hs[i]));
        worst = std::fmax(worst, std::fabs(double(hcall[i]) - c) / scale);
        worst = std::fmax(worst, std::fabs(double(hput[i]) - p) / scale);
    }
    const auto report = loom::last_flush(ctx);
    std::printf("Black-Scholes for %zu options on %s: %zu kernel(s) in the last flush\n", n, ctx.device_name().c_str(),
                report.kernels.size());
    std::printf("call[0] = %.5f, put[0] = %.5f; largest difference from the host: %.3g (scaled)\n", double(hcall[0]),
                double(hput[0]), worst);
    const bool ok = worst < 1e-4;
    std::printf("check: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
