# libFuzzer targets (-DTRAINBENCH_FUZZ=ON; docs/fuzzing.md). With the option on, every library
# is compiled with ASan + UBSan and libFuzzer's coverage instrumentation, so a finding in any of
# them stops the fuzzer; the unit tests of such a build run under the sanitizers too.
if(NOT TRAINBENCH_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "TRAINBENCH_FUZZ=ON needs clang (libFuzzer ships with it), but the C++ compiler is "
    "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}). Configure a fresh build folder with "
    "-DCMAKE_CXX_COMPILER=clang++.")
endif()
if(TRAINBENCH_WITH_TORCH)
  message(FATAL_ERROR "TRAINBENCH_FUZZ=ON needs -DTRAINBENCH_WITH_TORCH=OFF (LibTorch is not "
                      "built with the sanitizers, and nothing it links parses untrusted bytes).")
endif()

# Undefined behaviour aborts (not just a message), so libFuzzer counts it as a crash.
set(TRAINBENCH_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -g)
add_compile_options(${TRAINBENCH_SANITIZE_FLAGS} -fsanitize=fuzzer-no-link)
add_link_options(-fsanitize=address,undefined)

# ctest -L fuzz needs a CTest file even when the unit tests are not built.
enable_testing()
add_custom_target(fuzzers)

set(TRAINBENCH_FUZZ_SECONDS 20 CACHE STRING "How long each `fuzz`-labelled CTest runs its fuzzer")

# trainbench_add_fuzzer(name SOURCES src... LIBS lib... SEEDS dir... [ARGS libfuzzer-flag...])
# Builds fuzzer `name` (target `fuzzers` builds them all) and registers the CTest `name` (label
# fuzz) that runs it for TRAINBENCH_FUZZ_SECONDS over SEEDS (folders in the source tree, read
# only; what it finds goes to <build>/fuzz/<name>/corpus and crashes to .../artifacts).
function(trainbench_add_fuzzer name)
  cmake_parse_arguments(F "" "" "SOURCES;LIBS;SEEDS;ARGS" ${ARGN})
  add_executable(${name} ${F_SOURCES})
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE TRAINBENCH_FUZZ_SRCDIR="${CMAKE_SOURCE_DIR}")
  add_dependencies(fuzzers ${name})
  set(work ${CMAKE_BINARY_DIR}/fuzz/${name})
  add_test(NAME ${name}
    COMMAND bash ${CMAKE_SOURCE_DIR}/fuzz/run_fuzzer.sh $<TARGET_FILE:${name}> ${work}
            -max_total_time=${TRAINBENCH_FUZZ_SECONDS} ${F_ARGS} -- ${F_SEEDS})
  set_tests_properties(${name} PROPERTIES LABELS fuzz
    TIMEOUT 600
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endfunction()
