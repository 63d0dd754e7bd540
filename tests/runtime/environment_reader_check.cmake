# The environment_reader test (tests/runtime/tests.cmake): src/support/environment.cpp is the one
# file in src/ and include/ that reads the environment, so that every variable Loom reads is parsed
# by one set of rules (src/support/environment.hpp lists them). `grep -rln getenv src include`
# names that file alone.
file(GLOB_RECURSE files ${SOURCE_DIR}/src/* ${SOURCE_DIR}/include/*)
set(readers "")
foreach(f ${files})
  file(STRINGS ${f} hits REGEX "getenv")
  if(hits AND NOT f STREQUAL "${SOURCE_DIR}/src/support/environment.cpp")
    list(APPEND readers ${f})
  endif()
endforeach()
if(readers)
  list(JOIN readers "\n  " readers)
  message(FATAL_ERROR "getenv outside src/support/environment.cpp; read the variable with "
                      "loom::environment (and list it there) instead:\n  ${readers}")
endif()
