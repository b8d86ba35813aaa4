# cmake -DSRC=<source dir> -DOUT=<header> -P WriteRevision.cmake
set(rev "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE r OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND r)
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      set(r "${r}-dirty")
    endif()
    set(rev "${r}")
  endif()
endif()
set(content "#pragma once\n#define TRAINBENCH_GIT_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE "${OUT}" "${content}")
endif()
