# Builds for finding memory errors and undefined behaviour; both off by default
# and meant for their own build folder (scripts/test.sh uses build-asan/ and
# build-fuzz/).
#
#   IDEM_SANITIZE=ON       every target with AddressSanitizer + UndefinedBehaviorSanitizer
#                          (g++ or clang++); any UB report aborts, so the test fails
#   IDEM_BUILD_FUZZERS=ON  the libFuzzer targets in tests/fuzz (clang++ only); every
#                          library is instrumented for coverage and both sanitizers
option(IDEM_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(IDEM_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (needs clang++)" OFF)

set(IDEM_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

if(IDEM_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "IDEM_BUILD_FUZZERS needs clang++ (libFuzzer): configure a separate folder with "
                        "CC=clang CXX=clang++ cmake -S . -B build-fuzz -DIDEM_BUILD_FUZZERS=ON")
  endif()
  # fuzzer-no-link: coverage for the libraries; the fuzz targets link libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link ${IDEM_SANITIZER_FLAGS})
  add_link_options(${IDEM_SANITIZER_FLAGS})
elseif(IDEM_SANITIZE)
  add_compile_options(${IDEM_SANITIZER_FLAGS})
  add_link_options(${IDEM_SANITIZER_FLAGS})
endif()
