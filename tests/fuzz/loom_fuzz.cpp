// loom_fuzz: the differential fuzzer. Generates random programs over Loom's public API, runs
// each fused, unfused and on a host interpreter (tests/fuzz/differential_program.hpp), and on
// the first disagreement prints the seed, what differed and a minimised program, and exits 1.
//
//   loom_fuzz --programs 300              # a fixed number of programs (what CI runs)
//   loom_fuzz --seconds 3600              # as many as fit in an hour (the long mode)
//   loom_fuzz --seed 1234 --programs 1    # reproduce one program
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>

#include "fuzz/differential_program.hpp"

int main(int argc, char** argv) {
    CLI::App app{"Loom's differential fuzzer: fused against unfused against a host interpreter"};
    std::uint32_t seed = 20261124;
    unsigned programs = 0;
    double seconds = 0;
    std::string backend = "opencl";
    app.add_option("--seed", seed, "the first program's seed (program i has seed + i)");
    app.add_option("--programs", programs, "how many programs to run (default: 300 unless --seconds is given)");
    app.add_option("--seconds", seconds, "run programs until this much time has passed (the long mode)");
    app.add_option("--backend", backend, "the backend to run on")->check(CLI::IsMember({"opencl", "cuda"}));
    CLI11_PARSE(app, argc, argv);
    if (programs == 0 && seconds <= 0) programs = 300;

    try {
        loom::context fused(loom::context_options{backend, "", 1});
        loom::context unfused(loom::context_options{backend, "", 0});
        const auto start = std::chrono::steady_clock::now();
        auto out_of_time = [&] {
            return seconds > 0 &&
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds;
        };
        // What differed, or what was thrown: both are failures to report and minimise.
        auto verdict = [&](const loom_fuzz::program& q) -> std::string {
            try {
                return loom_fuzz::check(q, fused, unfused);
            } catch (const std::exception& e) {
                return std::string("threw: ") + e.what();
            }
        };
        std::printf("loom_fuzz: seeds from %u (--seed %u reproduces)\n", seed, seed);
        std::fflush(stdout);
        unsigned ran = 0;
        for (std::uint32_t s = seed; (programs == 0 || ran < programs) && !out_of_time(); ++s, ++ran) {
            const loom_fuzz::program p = loom_fuzz::generate(s);
            const std::string failure = verdict(p);
            if (failure.empty()) continue;
            std::printf("loom_fuzz: seed %u fails: %s\nthe program:\n%s", s, failure.c_str(),
                        loom_fuzz::to_cpp(p).c_str());
            const loom_fuzz::program small =
                loom_fuzz::minimise(p, [&](const loom_fuzz::program& q) { return !verdict(q).empty(); });
            std::printf("minimised (%zu of %zu statements): %s\n%s", small.body.size(), p.body.size(),
                        verdict(small).c_str(), loom_fuzz::to_cpp(small).c_str());
            return 1;
        }
        const auto stats = fused.statistics();
        std::printf("loom_fuzz: %u programs agree (seeds %u..%u); the fused context ran %llu kernels for %llu "
                    "statements\n",
                    ran, seed, seed + ran - 1, static_cast<unsigned long long>(stats.kernels_launched),
                    static_cast<unsigned long long>(stats.statements));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "loom_fuzz: %s\n", e.what());
        return 1;
    }
}
