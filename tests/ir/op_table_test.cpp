// The opcode table: one row per opcode, in opcode order, with arity, class and spelling
// agreeing with each other and with the C names both dialects call.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "ir/op_table.hpp"

namespace {

using loom::opcode;
using loom::ir::info;
using loom::ir::op_class;

constexpr int opcode_count = int(opcode::count_);

} // namespace

TEST_CASE("every opcode has a row with a unique name") {
    std::set<std::string> names;
    for (int o = 0; o < opcode_count; ++o) {
        const auto& row = info(opcode(o));
        REQUIRE(row.name != nullptr);
        CHECK(std::strlen(row.name) > 0);
        CHECK_MESSAGE(names.insert(row.name).second, "duplicate name ", row.name);
    }
    CHECK(names.size() == std::size_t(opcode_count));
}

TEST_CASE("rows are in opcode order: each opcode's row carries its own name") {
    const std::map<opcode, std::string> expected = {
        {opcode::load, "load"},
        {opcode::scalar, "scalar"},
        {opcode::index, "index"},
        {opcode::cast, "cast"},
        {opcode::negate, "negate"},
        {opcode::bit_not, "bit_not"},
        {opcode::add, "add"},
        {opcode::mod, "mod"},
        {opcode::shift_right, "shift_right"},
        {opcode::less, "less"},
        {opcode::not_equal, "not_equal"},
        {opcode::logical_or, "logical_or"},
        {opcode::bit_xor, "bit_xor"},
        {opcode::select, "where"},
        {opcode::sin, "sin"},
        {opcode::lgamma, "lgamma"},
        {opcode::atan2, "atan2"},
        {opcode::max, "max"},
        {opcode::clamp, "clamp"},
        {opcode::fma, "fma"},
        {opcode::rsqrt, "rsqrt"},
        {opcode::abs, "abs"},
        {opcode::round, "round"},
        {opcode::exp2, "exp2"},
    };
    for (const auto& [op, name] : expected) CHECK(std::string(info(op).name) == name);
}

TEST_CASE("arity agrees with the op class") {
    for (int o = 0; o < opcode_count; ++o) {
        const opcode op = opcode(o);
        const auto& row = info(op);
        INFO(row.name);
        switch (row.cls) {
        case op_class::unary_arith:
        case op_class::unary_integral:
        case op_class::abs:
        case op_class::complex_part:
        case op_class::complex_map:
        case op_class::classify:
        case op_class::bit_count:
        case op_class::bit_pattern: CHECK(row.arity == 1); break;
        case op_class::complex_build:
        case op_class::scale: CHECK(row.arity == 2); break;
        case op_class::arithmetic:
        case op_class::integral:
        case op_class::shift:
        case op_class::comparison: CHECK(row.arity == 2); break;
        case op_class::logical: CHECK((op == opcode::logical_not ? row.arity == 1 : row.arity == 2)); break;
        case op_class::select: CHECK(row.arity == 3); break;
        case op_class::float_math: CHECK((row.arity >= 1 && row.arity <= 3)); break;
        case op_class::min_max: CHECK((op == opcode::clamp ? row.arity == 3 : row.arity == 2)); break;
        case op_class::leaf: CHECK(row.arity <= 1); break;
        case op_class::vector_component:
        case op_class::vector_length: CHECK(row.arity == 1); break;
        case op_class::vector_dot: CHECK(row.arity == 2); break;
        case op_class::vector_build: CHECK(row.arity == 4); break; // the widest vector's; a float2 takes 2
        }
    }
}

TEST_CASE("operators have a C infix spelling and functions have none") {
    const std::map<opcode, std::string> infix = {
        {opcode::negate, "-"},      {opcode::unary_plus, "+"},   {opcode::logical_not, "!"},
        {opcode::bit_not, "~"},     {opcode::add, "+"},          {opcode::sub, "-"},
        {opcode::mul, "*"},         {opcode::div, "/"},          {opcode::mod, "%"},
        {opcode::shift_left, "<<"}, {opcode::shift_right, ">>"}, {opcode::less, "<"},
        {opcode::greater, ">"},     {opcode::less_equal, "<="},  {opcode::greater_equal, ">="},
        {opcode::equal, "=="},      {opcode::not_equal, "!="},   {opcode::logical_and, "&&"},
        {opcode::logical_or, "||"}, {opcode::bit_and, "&"},      {opcode::bit_or, "|"},
        {opcode::bit_xor, "^"},
    };
    for (int o = 0; o < opcode_count; ++o) {
        const opcode op = opcode(o);
        const auto& row = info(op);
        INFO(row.name);
        const auto it = infix.find(op);
        if (it == infix.end()) {
            CHECK(row.infix == nullptr);
        } else {
            REQUIRE(row.infix != nullptr);
            CHECK(std::string(row.infix) == it->second);
        }
    }
}

TEST_CASE("math functions are float_math rows named as C's <math.h> spells them, with their arity") {
    const std::map<std::string, unsigned> math = {
        {"sin", 1},      {"cos", 1},   {"tan", 1},   {"asin", 1},      {"acos", 1}, {"atan", 1},   {"sinh", 1},
        {"cosh", 1},     {"tanh", 1},  {"exp", 1},   {"exp2", 1},      {"log", 1},  {"log2", 1},   {"log10", 1},
        {"log1p", 1},    {"expm1", 1}, {"sqrt", 1},  {"rsqrt", 1},     {"cbrt", 1}, {"fabs", 1},   {"floor", 1},
        {"ceil", 1},     {"round", 1}, {"trunc", 1}, {"erf", 1},       {"erfc", 1}, {"tgamma", 1}, {"lgamma", 1},
        {"atan2", 2},    {"pow", 2},   {"hypot", 2}, {"fmod", 2},      {"fmin", 2}, {"fmax", 2},   {"fma", 3},
        {"copysign", 2}, {"fdim", 2},  {"rint", 1},  {"nextafter", 2},
    };
    std::size_t found = 0;
    for (int o = 0; o < opcode_count; ++o) {
        const auto& row = info(opcode(o));
        if (row.cls != op_class::float_math) continue;
        INFO(row.name);
        const auto it = math.find(row.name);
        REQUIRE(it != math.end());
        CHECK(row.arity == it->second);
        ++found;
    }
    CHECK(found == math.size());
    CHECK(info(opcode::abs).cls == op_class::abs);
    CHECK(info(opcode::min).cls == op_class::min_max);
    CHECK(info(opcode::max).cls == op_class::min_max);
    CHECK(info(opcode::clamp).cls == op_class::min_max);
    CHECK(info(opcode::ldexp).cls == op_class::scale);
}

TEST_CASE("the classification and bit-count built-ins are rows of their own classes, named as C spells them") {
    for (opcode op : {opcode::isnan, opcode::isinf, opcode::isfinite, opcode::isnormal, opcode::signbit}) {
        INFO(info(op).name);
        CHECK(info(op).cls == op_class::classify);
    }
    for (opcode op : {opcode::popcount, opcode::clz, opcode::ctz}) {
        INFO(info(op).name);
        CHECK(info(op).cls == op_class::bit_count);
    }
    CHECK(std::string(info(opcode::isnormal).name) == "isnormal");
    CHECK(std::string(info(opcode::popcount).name) == "popcount");
    CHECK(std::string(info(opcode::ldexp).name) == "ldexp");
}
