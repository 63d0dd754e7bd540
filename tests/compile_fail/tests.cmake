# Mistakes Loom rejects at compile time: each file must fail to compile with the message named
# here (a test passes when the compiler prints it).
set(loom_compile_fail_cases
    "float_remainder|need integer operands"
    "float_bitwise|need integer operands"
    "foreign_operand|an expression operand must be a loom::vector"
    "std_math|call loom::sin\\(x\\)"
    "complex_ordering|complex numbers are not ordered"
    "complex_min|this function is not defined for complex operands"
    "complex_to_real_cast|a complex value does not convert to a real type"
    "float_bit_count|count the bits of an integer of 8 to 64 bits"
    "float_ldexp_exponent|the exponent e must be an integer"
    "vector_comparison|short vectors are not compared as a whole"
    "vector_widths|short vectors of different widths do not combine"
    "vector_classification|would give one answer per component"
    "random_integer_uniform|T is float or double"
    "integer_fft|clFFT and cuFFT have no integer transform"
    "real_ifft|inverted by loom::ifft_real"
    "block_size|a block has 1 to 256 elements"
    "block_lambda_result|the lambda returns a loom::block<T, R, C>"
    "block_host_if|choose with loom::where"
    "expression_subscript|a Loom expression has no subscript")
foreach(case ${loom_compile_fail_cases})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 message)
  add_test(NAME compile_fail_${name}
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
                   ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
  set_tests_properties(compile_fail_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${message}" LABELS compile_fail)
endforeach()
