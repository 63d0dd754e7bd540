# Programs whose behaviour at exit is the test (included by tests/CMakeLists.txt).
add_executable(static_context_at_exit ${CMAKE_CURRENT_LIST_DIR}/static_context_at_exit.cpp)
target_link_libraries(static_context_at_exit PRIVATE loom::loom)
loom_warnings(static_context_at_exit)
add_test(NAME static_context_at_exit COMMAND static_context_at_exit)
set_tests_properties(static_context_at_exit PROPERTIES ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}" LABELS exit)
