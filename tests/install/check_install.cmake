# Installs the build into a scratch prefix, runs the installed `exadnn info` from it (and from a
# copy of the prefix moved elsewhere: the install finds its libraries relative to itself), then
# builds and runs a consumer twice: once through find_package(exadnn) and once through pkg-config.
# Every installed or consumer program runs without LD_LIBRARY_PATH. Run by CTest
# (tests/CMakeLists.txt).
set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

# 0. The command line, as installed and after the prefix moved (its libraries are found through
#    the install RPATH, never the build tree).
if(EXISTS "${prefix}/bin/exadnn")
  run("${prefix}/bin/exadnn" info)
  file(COPY "${prefix}/" DESTINATION "${WORK_DIR}/moved")
  file(REMOVE_RECURSE "${prefix}.hidden")
  file(RENAME "${prefix}" "${prefix}.hidden")  # nothing may reach into the original prefix
  run("${WORK_DIR}/moved/bin/exadnn" info)
  file(RENAME "${prefix}.hidden" "${prefix}")
endif()

# 1. CMake package
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${WORK_DIR}/cmake-consumer"
    -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/cmake-consumer")
run("${WORK_DIR}/cmake-consumer/consumer")
# With MPI: a consumer of the workflow engine, which loads exadnn_flow -> exadnn_dist -> exadnn.
if(EXISTS "${WORK_DIR}/cmake-consumer/flow_consumer")
  run("${WORK_DIR}/cmake-consumer/flow_consumer")
endif()

# 2. pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dirs "${prefix}/lib*/pkgconfig" "${prefix}/lib/*/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs exadnn OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know exadnn (PKG_CONFIG_PATH=${pc_dirs})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(c++ "${SOURCE_DIR}/tests/install/consumer/main.cpp" -o "${WORK_DIR}/pc-consumer" ${flags})
run("${WORK_DIR}/pc-consumer")
