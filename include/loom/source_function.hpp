// loom::function<R(A...)>: a device function from source text, for what operators and traced
// lambdas cannot say (a loop, an early return, a local array). It is called in expressions like
// loom::sin and fused with them. See docs/custom-kernels.md.
//
//   loom::function<float(float, float)> mix("mix", "return a * b + sin(a);"); // parameters a, b, ...
//   loom::function<float(float, int)> power("power", {"x", "k"},
//       "float r = 1.0f; for (int j = 0; j < k; ++j) r *= x; return r;");
//   y = mix(x, z) * 2.0f + power(x, 3);
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/expr/domain.hpp"
#include "loom/map.hpp" // the primary template (traced lambdas)

namespace loom {

template <class R, class... A> class function<R(A...)> {
    // Real types: a complex value is a float2/double2 in kernels, without operators in CUDA.
    template <class T> static constexpr bool device_type = std::is_arithmetic_v<T> && !std::is_same_v<T, long double>;
    static_assert(sizeof...(A) >= 1 && sizeof...(A) <= detail::max_source_function_arguments,
                  "loom::function<R(A...)>: a source function takes 1 to 6 parameters");
    static_assert(device_type<R> && (device_type<A> && ...),
                  "loom::function<R(A...)>: the result and parameters must be real arithmetic types (float, "
                  "double, integers) or bool");

public:
    static constexpr std::size_t arity = sizeof...(A);

    // Parameters named a, b, c, ... in order; the body is the function's statements in the
    // common subset of OpenCL C and CUDA C++ (or branch on __OPENCL_VERSION__ / __CUDACC__).
    function(const std::string& name, const std::string& body) : function(name, default_names(), body) {}
    function(const std::string& name, const std::array<std::string, arity>& parameters, const std::string& body)
        : id_(register_function(name, parameters, body)), name_(name) {}

    // An expression calling the function; each argument (a vector, an expression or a host
    // scalar) is converted to its parameter's type, as in a C++ call.
    template <class... X> auto operator()(const X&... args) const {
        static_assert(sizeof...(X) == arity, "loom::function: called with another number of arguments than its "
                                             "signature declares");
        static_assert(((expr::is_operand_v<X> || std::is_arithmetic_v<X>)&&...),
                      "loom::function: arguments must be loom::vector, Loom expressions or arithmetic host scalars");
        return expr::make_node<expr::proto::tag::function>(expr::source_call<R, A...>{id_}, args...);
    }

    const std::string& name() const { return name_; }

private:
    static std::array<std::string, arity> default_names() {
        std::array<std::string, arity> names;
        for (std::size_t p = 0; p < arity; ++p) names[p] = std::string(1, char('a' + p));
        return names;
    }
    static std::uint32_t register_function(const std::string& name, const std::array<std::string, arity>& parameters,
                                           const std::string& body) {
        const dtype types[] = {dtype_v<A>...};
        return detail::source_function_id(name, dtype_v<R>, types, parameters.data(), unsigned(arity), body);
    }

    std::uint32_t id_;
    std::string name_;
};

} // namespace loom
