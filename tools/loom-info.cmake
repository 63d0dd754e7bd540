# loom-info: the devices Loom can run on and the one a default context opens (docs/backends.md).
find_package(CLI11 CONFIG REQUIRED)
add_executable(loom-info ${CMAKE_CURRENT_LIST_DIR}/loom-info.cpp)
target_link_libraries(loom-info PRIVATE loom::loom CLI11::CLI11 nlohmann_json::nlohmann_json)
loom_warnings(loom-info)
install(TARGETS loom-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
