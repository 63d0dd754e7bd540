# loom-cache: list, show, verify, prune and clear the on-disk kernel cache (docs/cache.md).
find_package(CLI11 CONFIG REQUIRED)
add_executable(loom-cache ${CMAKE_CURRENT_LIST_DIR}/loom-cache.cpp)
target_link_libraries(loom-cache PRIVATE loom::loom CLI11::CLI11 nlohmann_json::nlohmann_json PkgConfig::XXHASH)
target_include_directories(loom-cache PRIVATE ${PROJECT_SOURCE_DIR}/src)
loom_warnings(loom-cache)
install(TARGETS loom-cache RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
