# One precompiled header for every GoogleTest program of the build (tests/ and apps/*/tests).
# Nearly every test file includes GoogleTest and the public umbrella header: ~1.8 s of parsing
# per file, compiled once here instead of ~200 times in each of the test command's two builds.
# EXADNN_PCH=OFF compiles every file with only its own includes (what the build checks that a
# test file names what it uses).
option(EXADNN_PCH "Precompile the headers every test program includes" ON)

# exadnn_test_pch(<target>...): these test programs compile with the shared precompiled header.
# It belongs to exadnn_test_pch, an object library of one empty file made on first use with the
# flags of a test program and nothing more: the usage requirements of exadnn and GoogleTest, and
# -fPIE as an executable gets it (GCC refuses a header precompiled with -fPIC in a -fPIE file, and
# one whose maker defined a macro that the user does not: EXADNN_CUDA_PLUGIN_BUILT in core's
# tests, say). The programs' own -D and -I come after it and do not touch it.
function(exadnn_test_pch)
  if(NOT EXADNN_PCH OR NOT ARGN)
    return()
  endif()
  if(NOT TARGET exadnn_test_pch)
    set(source ${PROJECT_BINARY_DIR}/exadnn_test_pch.cpp)
    file(CONFIGURE OUTPUT ${source} CONTENT "// The owner of the test programs' precompiled header.\n")
    add_library(exadnn_test_pch OBJECT ${source})
    target_link_libraries(exadnn_test_pch PRIVATE exadnn GTest::gtest)
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

# exadnn_test_pch_directory([<dir>]): every `*_tests` program that the CMakeLists.txt of <dir>
# (default: the calling one) defined.
function(exadnn_test_pch_directory)
  set(dir ${ARGN})
  if(NOT dir)
    set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  list(FILTER targets INCLUDE REGEX "_tests$")
  exadnn_test_pch(${targets})
endfunction()
