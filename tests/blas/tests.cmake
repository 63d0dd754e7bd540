# loom::matmul's suite (included by tests/CMakeLists.txt): test_blas on OpenCL (CLBlast), once
# more with CLBlast made missing, and on CUDA (cuBLAS), which ctest reports as skipped without
# a CUDA device.
loom_test_suite(blas)
if(NOT TARGET test_blas)
  return()
endif()

# LOOM_CLBLAST_LIBRARY names a file that does not exist: matmul must say what to install and
# leave every matrix as it was. --no-skip runs the test case the plain run skips.
add_test(NAME blas_without_clblast
         COMMAND test_blas "--test-case=matmul_without_clblast_says_what_to_install_and_changes_nothing" --no-skip)
set_tests_properties(blas_without_clblast PROPERTIES
                     ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR};LOOM_CLBLAST_LIBRARY=libclblast-missing.so.1"
                     LABELS blas)

if(LOOM_HAVE_CUDA)
  # tests/main.cpp exits 77 (skipped, with the reason) when LOOM_BACKEND=cuda finds no device.
  add_test(NAME blas_cuda COMMAND test_blas)
  set_tests_properties(blas_cuda PROPERTIES ENVIRONMENT "LOOM_BACKEND=cuda;LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}"
                                            LABELS gpu SKIP_RETURN_CODE 77)
endif()
