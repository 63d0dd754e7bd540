// The rest of the a + b type table (unsigned and floating left operands), in its own file so
// that the two halves compile in parallel.
#include "support.hpp"

using namespace loom_test;

TEST_CASE(
    "a + b with an unsigned or floating left operand has C++'s result type and value for every right operand type") {
    over_pairs(1024, unsigned_integers{}, all_types{}, [](batch& bt, const auto& in) {
        record(
            bt, "a + b", [](const auto& a, const auto& b) { return a + b; }, in);
    });
    over_pairs(1024, floats{}, all_types{}, [](batch& bt, const auto& in) {
        record(
            bt, "a + b", [](const auto& a, const auto& b) { return a + b; }, in);
    });
}
