// Loom's functions called unqualified with nothing else in scope: argument-dependent lookup
// finds them from every kind of operand (unqualified_calls.hpp).
#include "unqualified_calls.hpp"

TEST_CASE("every Loom function resolves unqualified on vectors, expressions, views, matrices and scalars") {
    unqualified::check_unqualified_calls();
}
