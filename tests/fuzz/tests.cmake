# The differential fuzzer (included by tests/CMakeLists.txt). Its programs also drive the fusion
# suite's differential test; CI runs the fuzzer over a fixed range of seeds, and
# `loom_fuzz --seconds N` is the long mode.
find_package(CLI11 CONFIG REQUIRED)
add_library(loom_fuzz_programs STATIC ${CMAKE_CURRENT_LIST_DIR}/differential_program.cpp)
target_link_libraries(loom_fuzz_programs PUBLIC loom::loom)
target_include_directories(loom_fuzz_programs PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
loom_warnings(loom_fuzz_programs)

add_executable(loom_fuzz ${CMAKE_CURRENT_LIST_DIR}/loom_fuzz.cpp)
target_link_libraries(loom_fuzz PRIVATE loom_fuzz_programs CLI11::CLI11)
loom_warnings(loom_fuzz)
add_test(NAME differential_fuzz COMMAND loom_fuzz --programs 300)
set_tests_properties(differential_fuzz PROPERTIES ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}"
                     LABELS fuzz)

if(TARGET test_fusion)
  target_link_libraries(test_fusion PRIVATE loom_fuzz_programs)
endif()
