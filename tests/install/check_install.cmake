# Installs the built Loom into a scratch prefix and builds tests/install/consumer against it.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
# Configures and builds the outside project tests/install/<name> against the install.
function(build_consumer name)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/${name} -B ${WORK_DIR}/${name}
                          -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "configuring the ${name} project with find_package(loom) failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/${name} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building the ${name} project failed (${rc})")
  endif()
endfunction()
build_consumer(consumer)
# Nothing of CUDA may be a hard dependency of a consumer, even linked with --no-as-needed:
# NVRTC and the driver are opened at run time, so the program starts where neither exists.
execute_process(COMMAND readelf -d ${WORK_DIR}/consumer/consumer OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc AND dynamic MATCHES "(libcuda|libnvrtc)[^]]*")
  message(FATAL_ERROR "the consumer needs ${CMAKE_MATCH_0}: CUDA must not be on a consumer's link line\n${dynamic}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LOOM_CACHE_DIR=${CACHE_DIR} ${WORK_DIR}/consumer/consumer
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "the consumer program failed (${rc})")
endif()

# Where Loom was built with loom::mpi: find_package(loom COMPONENTS mpi) from an outside project,
# run as one rank under mpirun.
file(GLOB_RECURSE mpi_targets ${WORK_DIR}/prefix/loomMpiTargets.cmake)
if(mpi_targets)
  build_consumer(mpi_consumer)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LOOM_CACHE_DIR=${CACHE_DIR} OMPI_ALLOW_RUN_AS_ROOT=1
                          OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
                          mpirun --oversubscribe --bind-to none -np 1 ${WORK_DIR}/mpi_consumer/mpi_consumer
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "loom::mpi: ${out}")
  if(rc)
    message(FATAL_ERROR "the MPI consumer failed (${rc})")
  endif()
endif()

# The same program built with pkg-config alone, without --static (a static library's own
# dependencies are in Libs).
file(GLOB pc_file ${WORK_DIR}/prefix/lib*/pkgconfig/loom.pc ${WORK_DIR}/prefix/lib/*/pkgconfig/loom.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no loom.pc installed under ${WORK_DIR}/prefix")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} pkg-config --cflags --libs loom
                OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "pkg-config --cflags --libs loom failed (${rc})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND c++ ${SOURCE_DIR}/tests/install/consumer/main.cpp -o ${WORK_DIR}/consumer_pc ${flags}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building the consumer with pkg-config failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LOOM_CACHE_DIR=${CACHE_DIR} ${WORK_DIR}/consumer_pc
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "pkg-config: ${out}")
if(rc)
  message(FATAL_ERROR "the consumer built with pkg-config failed (${rc})")
endif()
