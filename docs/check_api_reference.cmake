# ctest api_reference: runs Doxygen on the generated Doxyfile and checks that the reference has
# the pages a user looks for first, each with its description from the header.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (${rc})")
endif()
# page: text it must hold (from the header's comment)
set(expected
    "classloom_1_1vector.html|to_host"
    "classloom_1_1vector.html|std::out_of_range"
    "classloom_1_1matrix.html|row-major"
    "structloom_1_1context__options.html|LOOM_BACKEND"
    "classloom_1_1error.html|loom::error"
    "index.html|API reference")
foreach(entry ${expected})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 page)
  list(GET parts 1 text)
  if(NOT EXISTS ${OUT}/html/${page})
    message(FATAL_ERROR "the reference has no ${page}")
  endif()
  file(READ ${OUT}/html/${page} content)
  string(FIND "${content}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${page} does not mention \"${text}\"")
  endif()
endforeach()
message(STATUS "API reference: ${OUT}/html/index.html")
