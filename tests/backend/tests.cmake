# CUDA suites beyond test_backend (included by tests/CMakeLists.txt). Both need a CUDA
# device; without one they exit 77 and ctest reports them as skipped, with the reason.
if(NOT LOOM_HAVE_CUDA)
  # The shared doctest main still skips a LOOM_BACKEND=cuda run, saying CUDA is not built.
  return()
endif()

# tests/main.cpp asks loom::backend::cuda_device_present() before a LOOM_BACKEND=cuda run.
target_compile_definitions(loom_test_main PRIVATE LOOM_HAVE_CUDA=1)

# The toolkit's link stub exports every driver function: cuda_nvrtc_test checks that each
# symbol name Loom looks up exists.
if(TARGET test_backend AND EXISTS "${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so")
  target_compile_definitions(test_backend PRIVATE LOOM_CUDA_STUB_DRIVER="${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so")
endif()

# Runtime tests on a real GPU, with their own main (it prints the skip reason).
add_executable(test_cuda_runtime ${CMAKE_CURRENT_LIST_DIR}/gpu/cuda_runtime_test.cpp)
target_link_libraries(test_cuda_runtime PRIVATE loom::loom doctest::doctest Threads::Threads)
target_include_directories(test_cuda_runtime PRIVATE ${PROJECT_SOURCE_DIR}/src ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(test_cuda_runtime PRIVATE LOOM_HAVE_CUDA=1)
loom_warnings(test_cuda_runtime)
add_test(NAME cuda_runtime COMMAND test_cuda_runtime)
set_tests_properties(cuda_runtime PROPERTIES ENVIRONMENT "LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}" LABELS gpu
                                             SKIP_RETURN_CODE 77)

# The whole expression suite a second time, on CUDA.
if(TARGET test_expr)
  add_test(NAME expr_cuda COMMAND test_expr)
  set_tests_properties(expr_cuda PROPERTIES ENVIRONMENT "LOOM_BACKEND=cuda;LOOM_CACHE_DIR=${LOOM_TEST_CACHE_DIR}"
                                            LABELS gpu SKIP_RETURN_CODE 77)
endif()
