# The one reader of the environment (environment_reader_check.cmake): no build needed.
add_test(NAME environment_reader COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                                         -P ${CMAKE_CURRENT_LIST_DIR}/environment_reader_check.cmake)
set_tests_properties(environment_reader PROPERTIES LABELS source)

# loom-info, run by the runtime suite (tests/runtime/devices_test.cpp compares its output with
# loom::devices() and the default context) and on its own: both outputs name the device marked
# default, and the JSON carries the version.
if(NOT TARGET loom-info OR NOT TARGET test_runtime)
  return()
endif()
target_compile_definitions(test_runtime PRIVATE LOOM_INFO_TOOL="$<TARGET_FILE:loom-info>")
add_dependencies(test_runtime loom-info)
add_test(NAME loom_info COMMAND ${CMAKE_COMMAND} -DLOOM_INFO=$<TARGET_FILE:loom-info>
                                -DLOOM_VERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/loom_info_check.cmake)
set_tests_properties(loom_info PROPERTIES LABELS tools)
