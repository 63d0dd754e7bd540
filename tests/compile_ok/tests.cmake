# Spellings that must compile (with the compiler's own standard flag where a case needs one): a
# test passes when the compiler accepts the file.
set(loom_compile_ok_cases "cxx20_unqualified_cast|-std=c++20")
foreach(case ${loom_compile_ok_cases})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 standard)
  add_test(NAME compile_ok_${name}
           COMMAND ${CMAKE_CXX_COMPILER} ${standard} -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
                   ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
  set_tests_properties(compile_ok_${name} PROPERTIES LABELS compile_ok)
endforeach()
