# Build provenance: the git revision is re-read on every build (a custom target that rewrites
# generated/git_revision.h only when it changed), so a log never carries a stale revision.
set(TRAINBENCH_GENERATED_DIR "${CMAKE_BINARY_DIR}/generated")
file(MAKE_DIRECTORY "${TRAINBENCH_GENERATED_DIR}")
add_custom_target(trainbench_git_revision
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${TRAINBENCH_GENERATED_DIR}/git_revision.h
          -P ${CMAKE_SOURCE_DIR}/cmake/WriteRevision.cmake
  BYPRODUCTS ${TRAINBENCH_GENERATED_DIR}/git_revision.h
  COMMENT "Reading git revision")
