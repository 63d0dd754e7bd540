// Opt-in floating-point contraction (context_options::fp_contract): `a * b + c` inside one
// statement becomes fma(a, b, c), one rounding instead of two, as a C compiler may do
// within one expression. It is decided per statement, on the statement's own nodes and
// before fusion, so a value one statement stores (and a later statement reads, from memory
// or, after fusion, from a register) is never contracted into another statement's sum:
// fused and unfused results stay equal with contraction on, as they do with it off.
#pragma once

#include "ir/shape.hpp"

namespace loom::ir {

// Rewrites every contractible multiply-add of `s` into an fma node, keeping its slots and
// its root's meaning; returns false, leaving `s` as it was, when there is none. Run once
// per shape, when it is registered (shape::contracted).
bool contract(detail::shape& s);

} // namespace loom::ir
