# loom::sparse_matrix's suite (included by tests/CMakeLists.txt): the products against host CSR
# loops, once more in the GPU kernel form (grid-stride maps) on this machine's CPU device,
# and on CUDA (sparse_cuda), which ctest reports as skipped without a CUDA device.
loom_test_suite(sparse)
if(NOT TARGET test_sparse)
  return()
endif()
# Every kernel the suite makes, compiled once more as CUDA with NVRTC (where it is built in).
target_sources(test_sparse PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/expr/nvrtc_all_kernels.cpp)
add_test(NAME sparse_grid_stride COMMAND test_sparse)
set_tests_properties(sparse_grid_stride PROPERTIES
                     ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR};LOOM_KERNEL_FORM=grid_stride"
                     LABELS grid_stride)

if(LOOM_HAVE_CUDA)
  # tests/main.cpp exits 77 (skipped, with the reason) when LOOM_BACKEND=cuda finds no device.
  add_test(NAME sparse_cuda COMMAND test_sparse)
  set_tests_properties(sparse_cuda PROPERTIES ENVIRONMENT "LOOM_BACKEND=cuda;LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}"
                                              LABELS gpu SKIP_RETURN_CODE 77)
endif()
