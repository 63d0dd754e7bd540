#include "fuzz/differential_program.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <utility>

namespace loom_fuzz {

namespace {

using host_vectors = std::vector<std::vector<float>>;

// What one execution of a program produced besides its vectors: the host's element reads,
// max and count reductions (exact), and sums (compared within a bound).
struct observations {
    std::vector<double> exact;
    std::vector<float> sums;
};

std::size_t pick_length(std::mt19937& gen) {
    // Mostly short vectors (one work-item's chunk), some that span several chunks, a few
    // that span every work-item of the CPU device many times.
    const int band = std::uniform_int_distribution<int>(0, 9)(gen);
    if (band < 7) return std::uniform_int_distribution<std::size_t>(1, 300)(gen);
    if (band < 9) return std::uniform_int_distribution<std::size_t>(301, 5000)(gen);
    return std::uniform_int_distribution<std::size_t>(5001, 70000)(gen);
}

// The scalar table of one run: two values that change between runs, two fixed.
std::vector<float> scalars_of_run(std::mt19937& gen) {
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    return {value(gen), value(gen), 0.5f, -1.25f};
}

host_vectors initial_values(const program& p, std::mt19937& gen) {
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    host_vectors init;
    for (std::size_t n : p.lengths) {
        std::vector<float> v(n);
        for (float& x : v) x = value(gen);
        init.push_back(std::move(v));
    }
    return init;
}

// ---- the host interpreter -----------------------------------------------------------

void run_on_host(const program& p, host_vectors& v, const std::vector<float>& s, observations& seen,
                 std::vector<std::pair<double, double>>& sums) {
    for (const statement& st : p.body) {
        const std::size_t n = v[std::size_t(st.dst)].size();
        const std::vector<float>&a = v[std::size_t(st.a)], &b = v[std::size_t(st.b)];
        const float k = s[std::size_t(st.scalar)];
        if (st.k == kind::swap) {
            std::swap(v[std::size_t(st.dst)], v[std::size_t(st.a)]);
            continue;
        }
        if (st.k == kind::host_read) {
            seen.exact.push_back(a[std::size_t(st.b) * 7 % n]);
            continue;
        }
        if (st.k == kind::sum) {
            double sum = 0, magnitude = 0; // the sum, and the sum of its terms' magnitudes
            for (std::size_t i = 0; i < n; ++i) {
                sum += double(a[i] * b[i]);
                magnitude += std::fabs(double(a[i] * b[i]));
            }
            sums.emplace_back(sum, magnitude);
            continue;
        }
        if (st.k == kind::maximum) {
            float m = -std::numeric_limits<float>::infinity(); // NaN terms are skipped (docs/skeleton-reduce.md)
            for (std::size_t i = 0; i < n; ++i)
                if (!std::isnan(a[i] - b[i])) m = std::max(m, a[i] - b[i]);
            seen.exact.push_back(m);
            continue;
        }
        if (st.k == kind::count) {
            std::uint64_t c = 0;
            for (std::size_t i = 0; i < n; ++i) c += a[i] < b[i];
            seen.exact.push_back(double(c));
            continue;
        }
        std::vector<float> out(n), shared(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float ai = a[i], bi = b[i], c = v[std::size_t(st.c)][i], d = v[std::size_t(st.dst)][i];
            switch (st.k) {
            case kind::add: out[i] = ai + bi; break;
            case kind::scale_add: out[i] = k * ai + bi; break;
            case kind::mul_sub: out[i] = ai * bi - c; break;
            case kind::add_assign: out[i] = d + ai; break;
            case kind::mul_assign: out[i] = d * k; break;
            case kind::select: out[i] = ai < bi ? ai : c; break;
            case kind::temp_chain: {
                const float t = ai * bi;
                out[i] = t + c * t;
                break;
            }
            case kind::temp_shared:
                shared[i] = ai - bi;
                out[i] = shared[i] * k;
                break;
            case kind::min_max: out[i] = std::max(std::min(ai, bi), c * 0.5f); break;
            case kind::copy: out[i] = ai; break;
            case kind::stencil: {
                const long at = std::clamp(long(i) + long(st.scalar) - 2, 0L, long(n) - 1);
                out[i] = a[std::size_t(at)] * 0.5f + bi;
                break;
            }
            case kind::indexed: out[i] = float(i) * 0.25f + ai; break;
            case kind::truncate: out[i] = float(int(ai * 4.0f)); break;
            default: break; // the reading kinds and swap returned above
            }
        }
        v[std::size_t(st.dst)] = std::move(out);
        if (st.k == kind::temp_shared)
            for (std::size_t i = 0; i < n; ++i) v[std::size_t(st.c)][i] += shared[i];
    }
}

// ---- the same program through Loom ----------------------------------------------------

void run_on_device(const program& p, loom::context& ctx, const host_vectors& init, const std::vector<float>& s,
                   host_vectors& result, observations& seen) {
    std::vector<loom::vector<float>> v;
    for (const std::vector<float>& x : init) v.emplace_back(ctx, x);
    for (const statement& st : p.body) {
        loom::vector<float>&dst = v[std::size_t(st.dst)], &a = v[std::size_t(st.a)], &b = v[std::size_t(st.b)],
        &c = v[std::size_t(st.c)];
        const float k = s[std::size_t(st.scalar)];
        switch (st.k) {
        case kind::add: dst = a + b; break;
        case kind::scale_add: dst = k * a + b; break;
        case kind::mul_sub: dst = a * b - c; break;
        case kind::add_assign: dst += a; break;
        case kind::mul_assign: dst *= k; break;
        case kind::select: dst = loom::where(a < b, a, c); break;
        case kind::temp_chain: {
            loom::vector<float> t(ctx, a.size());
            t = a * b;
            dst = t + c * t;
            break;
        }
        case kind::temp_shared: {
            loom::vector<float> t(ctx, a.size());
            t = a - b;
            dst = t * k;
            c += t;
            break;
        }
        case kind::host_read: seen.exact.push_back(a[std::size_t(st.b) * 7 % a.size()]); break;
        case kind::min_max: dst = loom::max(loom::min(a, b), c * 0.5f); break;
        case kind::copy: dst = a; break;
        case kind::stencil: dst = loom::shift(a, st.scalar - 2) * 0.5f + b; break;
        case kind::indexed: dst = loom::cast<float>(loom::index()) * 0.25f + a; break;
        case kind::truncate: dst = loom::cast<float>(loom::cast<int>(a * 4.0f)); break;
        case kind::swap: loom::swap(dst, a); break;
        case kind::sum: seen.sums.push_back(loom::sum(a * b)); break;
        case kind::maximum: seen.exact.push_back(loom::max(a - b)); break;
        case kind::count: seen.exact.push_back(double(loom::count(a < b))); break;
        }
    }
    result.clear();
    for (auto& vec : v) result.push_back(vec.to_host());
}

bool same(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y)); }

// The first element where two results differ by the rule above, or "".
std::string difference(const std::vector<float>& x, const std::vector<float>& y, const char* what, std::size_t vec) {
    if (x.size() != y.size()) return std::string(what) + ": lengths differ";
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!same(x[i], y[i])) {
            std::ostringstream s;
            s.precision(9);
            s << what << ": v" << vec << "[" << i << "] is " << x[i] << " against " << y[i];
            return s.str();
        }
    return "";
}

const char* name_of(kind k) {
    switch (k) {
    case kind::add: return "add";
    case kind::scale_add: return "scale_add";
    case kind::mul_sub: return "mul_sub";
    case kind::add_assign: return "add_assign";
    case kind::mul_assign: return "mul_assign";
    case kind::select: return "select";
    case kind::temp_chain: return "temp_chain";
    case kind::temp_shared: return "temp_shared";
    case kind::host_read: return "host_read";
    case kind::min_max: return "min_max";
    case kind::copy: return "copy";
    case kind::stencil: return "stencil";
    case kind::indexed: return "indexed";
    case kind::truncate: return "truncate";
    case kind::swap: return "swap";
    case kind::sum: return "sum";
    case kind::maximum: return "maximum";
    case kind::count: return "count";
    }
    return "?";
}

} // namespace

program generate(std::uint32_t seed) {
    std::mt19937 gen(seed);
    program p;
    const int vectors = std::uniform_int_distribution<int>(2, 6)(gen);
    const bool two_lengths = vectors >= 4 && std::uniform_int_distribution<int>(0, 2)(gen) == 0;
    const std::size_t lengths[2] = {pick_length(gen), pick_length(gen)};
    for (int v = 0; v < vectors; ++v) p.lengths.push_back(lengths[two_lengths ? v % 2 : 0]);
    const int statements = std::uniform_int_distribution<int>(1, 16)(gen);
    std::uniform_int_distribution<int> any_vector(0, vectors - 1), any_kind(0, kinds - 1), any_scalar(0, 3);
    for (int s = 0; s < statements; ++s) {
        const int dst = any_vector(gen);
        // Operands of one statement have the target's length: another vector of the same class.
        auto operand = [&] {
            int v;
            do v = any_vector(gen);
            while (p.lengths[std::size_t(v)] != p.lengths[std::size_t(dst)]);
            return v;
        };
        const kind k = kind(any_kind(gen));
        const int a = operand(), b = operand(), c = operand();
        p.body.push_back({k, dst, a, b, c, any_scalar(gen)});
    }
    p.data_seed = std::uint32_t(gen());
    return p;
}

std::string to_cpp(const program& p) {
    std::ostringstream s;
    s << "// initial values: uniform in [-2, 2) from std::mt19937(" << p.data_seed << "), vector by vector\n";
    s << "// k0, k1: uniform in [-2, 2) from the same generator per run; k2 = 0.5f; k3 = -1.25f\n";
    for (std::size_t v = 0; v < p.lengths.size(); ++v)
        s << "loom::vector<float> v" << v << "(ctx, /* " << p.lengths[v] << " values */);\n";
    for (const statement& st : p.body) {
        const std::string d = "v" + std::to_string(st.dst), a = "v" + std::to_string(st.a),
                          b = "v" + std::to_string(st.b), c = "v" + std::to_string(st.c),
                          k = "k" + std::to_string(st.scalar);
        switch (st.k) {
        case kind::add: s << d << " = " << a << " + " << b << ";"; break;
        case kind::scale_add: s << d << " = " << k << " * " << a << " + " << b << ";"; break;
        case kind::mul_sub: s << d << " = " << a << " * " << b << " - " << c << ";"; break;
        case kind::add_assign: s << d << " += " << a << ";"; break;
        case kind::mul_assign: s << d << " *= " << k << ";"; break;
        case kind::select: s << d << " = loom::where(" << a << " < " << b << ", " << a << ", " << c << ");"; break;
        case kind::temp_chain:
            s << "{ loom::vector<float> t(ctx, " << a << ".size()); t = " << a << " * " << b << "; " << d << " = t + "
              << c << " * t; }";
            break;
        case kind::temp_shared:
            s << "{ loom::vector<float> t(ctx, " << a << ".size()); t = " << a << " - " << b << "; " << d << " = t * "
              << k << "; " << c << " += t; }";
            break;
        case kind::host_read: s << "read(" << a << "[" << st.b * 7 << " % " << a << ".size()]);"; break;
        case kind::min_max: s << d << " = loom::max(loom::min(" << a << ", " << b << "), " << c << " * 0.5f);"; break;
        case kind::copy: s << d << " = " << a << ";"; break;
        case kind::stencil:
            s << d << " = loom::shift(" << a << ", " << st.scalar - 2 << ") * 0.5f + " << b << ";";
            break;
        case kind::indexed: s << d << " = loom::cast<float>(loom::index()) * 0.25f + " << a << ";"; break;
        case kind::truncate: s << d << " = loom::cast<float>(loom::cast<int>(" << a << " * 4.0f));"; break;
        case kind::swap: s << "loom::swap(" << d << ", " << a << ");"; break;
        case kind::sum: s << "read(loom::sum(" << a << " * " << b << "));"; break;
        case kind::maximum: s << "read(loom::max(" << a << " - " << b << "));"; break;
        case kind::count: s << "read(loom::count(" << a << " < " << b << "));"; break;
        }
        s << "  // " << name_of(st.k) << "\n";
    }
    return s.str();
}

std::string check(const program& p, loom::context& fused, loom::context& unfused) {
    std::mt19937 gen(p.data_seed);
    const host_vectors init = initial_values(p, gen);
    for (int run = 0; run < 2; ++run) {
        const std::vector<float> scalars = scalars_of_run(gen);
        host_vectors expect = init, got_fused, got_unfused;
        observations host, f, u;
        std::vector<std::pair<double, double>> host_sums;
        run_on_host(p, expect, scalars, host, host_sums);
        run_on_device(p, fused, init, scalars, got_fused, f);
        run_on_device(p, unfused, init, scalars, got_unfused, u);
        const std::string at = " (run " + std::to_string(run) + ")";
        for (std::size_t v = 0; v < expect.size(); ++v) {
            std::string d = difference(got_fused[v], got_unfused[v], "fused against unfused", v);
            if (d.empty()) d = difference(got_fused[v], expect[v], "fused against the host", v);
            if (!d.empty()) return d + at;
        }
        if (f.exact.size() != host.exact.size() || u.exact.size() != host.exact.size())
            return "the number of host reads differs" + at;
        for (std::size_t r = 0; r < host.exact.size(); ++r)
            if (!(f.exact[r] == host.exact[r] && u.exact[r] == host.exact[r]) &&
                !(std::isnan(f.exact[r]) && std::isnan(u.exact[r]) && std::isnan(host.exact[r]))) {
                std::ostringstream s;
                s.precision(9);
                s << "host read " << r << ": fused " << f.exact[r] << ", unfused " << u.exact[r] << ", host "
                  << host.exact[r] << at;
                return s.str();
            }
        if (difference(f.sums, u.sums, "sums", 0) != "") return "fused and unfused sums differ" + at;
        for (std::size_t r = 0; r < host_sums.size(); ++r) {
            const double n = double(p.lengths[0] > 0 ? *std::max_element(p.lengths.begin(), p.lengths.end()) : 1);
            if (!(std::fabs(double(f.sums[r]) - host_sums[r].first) <= n * 1.2e-7 * host_sums[r].second + 1e-30) &&
                !(std::isnan(f.sums[r]) && std::isnan(host_sums[r].first))) {
                std::ostringstream s;
                s.precision(9);
                s << "sum " << r << ": device " << f.sums[r] << ", host " << host_sums[r].first << at;
                return s.str();
            }
        }
    }
    return "";
}

program minimise(program p, const std::function<bool(const program&)>& fails) {
    // Statements first, one at a time, from the end (later statements depend on earlier ones
    // less often), repeated until no single removal keeps the failure.
    for (bool shrunk = true; shrunk;) {
        shrunk = false;
        for (std::size_t s = p.body.size(); s-- > 0;) {
            program q = p;
            q.body.erase(q.body.begin() + std::ptrdiff_t(s));
            if (fails(q)) {
                p = std::move(q);
                shrunk = true;
            }
        }
    }
    // Then the lengths: halve every vector of one length at once (statements need equal lengths).
    for (bool shrunk = true; shrunk;) {
        shrunk = false;
        for (std::size_t v = 0; v < p.lengths.size(); ++v) {
            const std::size_t n = p.lengths[v];
            if (n <= 1) continue;
            program q = p;
            for (std::size_t& m : q.lengths)
                if (m == n) m = n / 2;
            if (fails(q)) {
                p = std::move(q);
                shrunk = true;
            }
        }
    }
    return p;
}

} // namespace loom_fuzz
