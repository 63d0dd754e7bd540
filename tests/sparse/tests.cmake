# loom::sparse_matrix's suite (included by tests/CMakeLists.txt): the products against host CSR
# loops, once more in the GPU kernel form (one row per work-item) on this machine's CPU device.
loom_test_suite(sparse)
if(NOT TARGET test_sparse)
  return()
endif()
add_test(NAME sparse_grid_stride COMMAND test_sparse)
set_tests_properties(sparse_grid_stride PROPERTIES
                     ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR};LOOM_KERNEL_FORM=grid_stride"
                     LABELS grid_stride)
