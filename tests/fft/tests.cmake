# loom::fft's suite (included by tests/CMakeLists.txt): test_fft on OpenCL (clFFT), once more
# with clFFT made missing, and on CUDA (cuFFT), which ctest reports as skipped without a CUDA
# device.
loom_test_suite(fft)
if(NOT TARGET test_fft)
  return()
endif()

# LOOM_CLFFT_LIBRARY names a file that does not exist: loom::fft must say what to install and
# leave every vector as it was. --no-skip runs the test case the plain run skips.
add_test(NAME fft_without_clfft
         COMMAND test_fft "--test-case=fft_without_clfft_says_what_to_install_and_changes_nothing" --no-skip)
set_tests_properties(fft_without_clfft PROPERTIES
                     ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR};LOOM_CLFFT_LIBRARY=libclFFT-missing.so.2"
                     LABELS fft)

if(LOOM_HAVE_CUDA)
  # tests/main.cpp exits 77 (skipped, with the reason) when LOOM_BACKEND=cuda finds no device.
  add_test(NAME fft_cuda COMMAND test_fft)
  set_tests_properties(fft_cuda PROPERTIES ENVIRONMENT "LOOM_BACKEND=cuda;LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}"
                                           LABELS gpu SKIP_RETURN_CODE 77)
endif()
