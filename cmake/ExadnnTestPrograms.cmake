# How every GoogleTest program of the build compiles (tests/ and apps/*/tests): its own code
# without optimisation, and one shared precompiled header.
#
# EXADNN_TEST_CODE_FLAGS (default -O0) applies to the test programs' own files only: assertions,
# fixtures and small reference loops, a few milliseconds of a test's run. The library, the apps'
# libraries and the tools they test keep the build type's flags (-O3 in Release), so the tests
# still check the code that users run; so do the ops tests' naive layer loops, which run millions
# of multiply-adds (a library of their own: tests/ops/reference). Measured on pool_test.cpp
# (2-core Zen 5): 8.4 s at -O3, 3.5 s at -O0 in the Release build; 10.1 s at -O1, 6.0 s at -O0
# with ASan + UBSan. The test command compiles ~190 of these files twice: 697 -> 452 CPU-seconds
# in the Release build, 1 196 -> 754 in the sanitizer build (2026-12-07).
#
# Nearly every test file includes GoogleTest and the public umbrella header: ~1.8 s of parsing
# per file, compiled once into the precompiled header instead of in every file. EXADNN_PCH=OFF
# compiles every file with only its own includes (what the build checks that a test file names
# what it uses).
option(EXADNN_PCH "Precompile the headers every test program includes" ON)
set(EXADNN_TEST_CODE_FLAGS "-O0" CACHE STRING
  "Compiler flags of the test programs' own files, after the build type's (empty: the build type's)")
separate_arguments(exadnn_test_code_flags UNIX_COMMAND "${EXADNN_TEST_CODE_FLAGS}")

# exadnn_test_programs(<target>...): these test programs compile with EXADNN_TEST_CODE_FLAGS and
# the shared precompiled header. The header belongs to exadnn_test_pch, an object library of one
# empty file made on first use with the flags of a test program and nothing more: the usage
# requirements of exadnn and GoogleTest, EXADNN_TEST_CODE_FLAGS, and -fPIE as an executable gets
# it (GCC refuses a header precompiled with -fPIC in a -fPIE file, with another -O level, or one
# whose maker defined a macro that the user does not: EXADNN_CUDA_PLUGIN_BUILT in core's tests,
# say). The programs' own -D and -I come after it and do not touch it.
function(exadnn_test_programs)
  foreach(target ${ARGN})
    target_compile_options(${target} PRIVATE ${exadnn_test_code_flags})
  endforeach()
  if(NOT EXADNN_PCH OR NOT ARGN)
    return()
  endif()
  if(NOT TARGET exadnn_test_pch)
    set(source ${PROJECT_BINARY_DIR}/exadnn_test_pch.cpp)
    file(CONFIGURE OUTPUT ${source} CONTENT "// The owner of the test programs' precompiled header.\n")
    add_library(exadnn_test_pch OBJECT ${source})
    target_link_libraries(exadnn_test_pch PRIVATE exadnn GTest::gtest)
    target_compile_options(exadnn_test_pch PRIVATE ${exadnn_test_code_flags})
    set_target_properties(exadnn_test_pch PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    if(CMAKE_POSITION_INDEPENDENT_CODE)
      target_compile_options(exadnn_test_pch PRIVATE ${CMAKE_CXX_COMPILE_OPTIONS_PIE})
    endif()
    target_precompile_headers(exadnn_test_pch PRIVATE
      <gtest/gtest.h> <algorithm> <cmath> <functional> <string> <vector> <exadnn/exadnn.h>)
  endif()
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM exadnn_test_pch)
  endforeach()
endfunction()

# exadnn_test_programs_in_directory([<dir>]): every `*_tests` program that the CMakeLists.txt of
# <dir> (default: the calling one) defined.
function(exadnn_test_programs_in_directory)
  set(dir ${ARGN})
  if(NOT dir)
    set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  list(FILTER targets INCLUDE REGEX "_tests$")
  exadnn_test_programs(${targets})
endfunction()
