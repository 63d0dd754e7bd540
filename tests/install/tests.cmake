# cmake --install, then find_package(loom) from an outside project that builds and runs.
add_test(NAME install_find_package
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test -DCACHE_DIR=${LOOM_TEST_CACHE_DIR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/check_install.cmake)
set_tests_properties(install_find_package PROPERTIES LABELS install TIMEOUT 600)

# cpack -G DEB, unpacked, and the consumer built against it.
add_test(NAME package_deb
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/package-test -DCACHE_DIR=${LOOM_TEST_CACHE_DIR}
                 -DCMAKE_CPACK_COMMAND=${CMAKE_CPACK_COMMAND} -P ${CMAKE_CURRENT_LIST_DIR}/check_package.cmake)
set_tests_properties(package_deb PROPERTIES LABELS install TIMEOUT 600)
