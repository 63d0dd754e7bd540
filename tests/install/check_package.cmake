# Builds the Debian package with cpack, unpacks it (no root needed), and builds and runs the
# outside consumer against the unpacked tree with find_package(loom).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${CMAKE_CPACK_COMMAND} -G DEB -B ${WORK_DIR} --config ${BUILD_DIR}/CPackConfig.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "cpack -G DEB failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB deb ${WORK_DIR}/*.deb)
if(NOT deb)
  message(FATAL_ERROR "cpack made no .deb in ${WORK_DIR}")
endif()
execute_process(COMMAND dpkg-deb --info ${deb} OUTPUT_VARIABLE info RESULT_VARIABLE rc)
# pkg-config is a dependency: loomConfig.cmake finds libxxhash through it (a static library).
if(rc OR NOT info MATCHES "Package: loom-dev" OR NOT info MATCHES "Depends: libboost-dev[^\n]*pkg-config")
  message(FATAL_ERROR "the package's control data is not what it should be:\n${info}")
endif()
execute_process(COMMAND dpkg-deb -x ${deb} ${WORK_DIR}/root RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "dpkg-deb -x failed (${rc})")
endif()
foreach(expected usr/include/loom/loom.hpp usr/include/loom/version.hpp usr/bin/loom-cache usr/bin/loom-info
                 usr/share/doc/loom/LICENSE)
  if(NOT EXISTS ${WORK_DIR}/root/${expected})
    message(FATAL_ERROR "the package lacks /${expected}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/consumer
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/root/usr -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "find_package(loom) from the unpacked package failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "building the consumer against the package failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LOOM_CACHE_DIR=${CACHE_DIR} ${WORK_DIR}/consumer/consumer
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "${deb}: ${out}")
if(rc)
  message(FATAL_ERROR "the consumer built against the package failed (${rc})")
endif()
