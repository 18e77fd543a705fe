# Workflow-engine tests: one program (tests/flow/*_test.cpp + the MPI main of tests/dist) run by
# mpirun on 2, 3 and 4 ranks, one CTest entry per (suite, rank count), label "flow".
file(GLOB flow_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/flow/*_test.cpp)
if(flow_sources)
  add_executable(exadnn_flow_tests ${flow_sources} ${CMAKE_CURRENT_SOURCE_DIR}/dist/mpi_main.cpp)
  target_link_libraries(exadnn_flow_tests PRIVATE exadnn_flow exadnn_test_support)
  target_include_directories(exadnn_flow_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # GoogleTest suites of tests/flow, each run at every rank count below.
  set(EXADNN_FLOW_SUITES)
  foreach(np 2 3 4)
    foreach(suite ${EXADNN_FLOW_SUITES})
      string(REPLACE "/" "_" suite_name ${suite})
      add_test(NAME flow.np${np}.${suite_name}
        COMMAND ${EXADNN_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:exadnn_flow_tests>
                --gtest_filter=${suite}.*)
      set_tests_properties(flow.np${np}.${suite_name} PROPERTIES
        LABELS "flow" TIMEOUT 300 ENVIRONMENT "EXADNN_DIST_TIMEOUT=60;OMP_NUM_THREADS=1")
    endforeach()
  endforeach()
endif()
