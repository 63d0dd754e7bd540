# `cpack -G DEB` in the build directory: a Debian package of the library, headers, CMake and
# pkg-config files, loom-cache, loom-info and the docs. Its dependencies are what a consumer's
# find_package(loom) or pkg-config needs on a clean Debian 12 (pkg-config too: loomConfig.cmake
# finds libxxhash through it for a static library's consumers).
set(CPACK_PACKAGE_NAME loom-dev)
set(CPACK_PACKAGE_VENDOR "Loom")
set(CPACK_PACKAGE_CONTACT "Loom developers <loom@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++ arithmetic on device vectors, fused and JIT-compiled for OpenCL and CUDA")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libboost-dev (>= 1.71), ocl-icd-opencl-dev, opencl-c-headers, libxxhash-dev, nlohmann-json3-dev, pkg-config, g++, cmake")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
include(CPack)
