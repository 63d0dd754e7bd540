// The differential fuzzer's programs: random statement streams over Loom's public API, a host
// interpreter for them, a runner that executes one on a fused and an unfused context and
// compares all three, and a minimiser that shrinks a failing program.
//
// A program is data (statement kinds and vector numbers), so it can be generated from a seed,
// printed as the C++ a user would write, and cut down statement by statement. Every statement
// kind is a fixed C++ expression type (Loom lowers per type); the scalars' values vary per run.
//
// The comparison rule is docs/fusion.md's: fused and unfused results are equal in every bit,
// except that a NaN equals any NaN (OpenCL and CUDA leave a NaN's sign and payload
// unspecified); the host interpreter must agree by the same rule, and sums within the
// summation error bound (the device adds in another order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <loom/loom.hpp>

namespace loom_fuzz {

enum class kind {
    add,         // dst = a + b
    scale_add,   // dst = k * a + b
    mul_sub,     // dst = a * b - c
    add_assign,  // dst += a
    mul_assign,  // dst *= k
    select,      // dst = where(a < b, a, c)
    temp_chain,  // a temporary that dies before any flush: t = a * b; dst = t + c * t
    temp_shared, // a temporary read by two statements: t = a - b; dst = t * k; c += t
    host_read,   // the host reads one element of a mid-stream
    min_max,     // dst = max(min(a, b), c * 0.5)
    copy,        // dst = a
    stencil,     // dst = shift(a, k) * 0.5 + b, clamped, k in -2..2: maybe a neighbour read of a written vector
    indexed,     // dst = cast<float>(index()) * 0.25 + a
    truncate,    // dst = cast<float>(cast<int>(a * 4)): a conversion round trip
    swap,        // loom::swap(dst, a): the two vectors exchange buffers
    sum,         // the host reads sum(a * b) mid-stream (map-reduce fusion with pending statements)
    maximum,     // the host reads max(a - b) mid-stream
    count,       // the host reads count(a < b) mid-stream
};
inline constexpr int kinds = 18;

struct statement {
    kind k;
    int dst, a, b, c; // vector numbers, all of one length
    int scalar;       // an index into the run's scalar table (the offset + 2 for a stencil)
};

struct program {
    std::vector<std::size_t> lengths; // one per vector; a program has vectors of one or two lengths
    std::vector<statement> body;
    std::uint32_t data_seed = 0; // the vectors' initial values and the runs' scalars
};

program generate(std::uint32_t seed);

// The C++ a user would write for the program (what the fuzzer prints for a failure).
std::string to_cpp(const program& p);

// Runs the program twice (two sets of scalar values: the second run reuses the first's
// kernels) on both contexts and on the host. Returns "" when everything agrees, or what differed.
std::string check(const program& p, loom::context& fused, loom::context& unfused);

// Removes statements and shortens vectors while `fails` still holds; returns the smallest
// program found. Each candidate is tried once, so this ends after O(statements^2) checks.
program minimise(program p, const std::function<bool(const program&)>& fails);

} // namespace loom_fuzz
