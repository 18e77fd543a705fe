# Workflow-engine tests: one program (tests/flow/*_test.cpp + the MPI main of tests/dist) run by
# mpirun on 2, 3 and 4 ranks, one CTest entry per (suite, rank count), label "flow".
file(GLOB flow_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/flow/*_test.cpp)
if(flow_sources)
  add_executable(exadnn_flow_tests ${flow_sources} ${CMAKE_CURRENT_SOURCE_DIR}/dist/mpi_main.cpp)
  target_link_libraries(exadnn_flow_tests PRIVATE exadnn_flow exadnn_test_support)
  target_include_directories(exadnn_flow_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # A module in a shared library (`run: lib.so:symbol`), and the control files of the parser tests.
  add_library(exadnn_flow_test_library SHARED ${CMAKE_CURRENT_SOURCE_DIR}/flow/flow_test_library.cpp)
  target_link_libraries(exadnn_flow_test_library PRIVATE exadnn_flow)
  add_dependencies(exadnn_flow_tests exadnn_flow_test_library)
  target_compile_definitions(exadnn_flow_tests PRIVATE
    EXADNN_FLOW_TEST_LIBRARY="$<TARGET_FILE:exadnn_flow_test_library>"
    EXADNN_FLOW_CONTROL_FILES="${CMAKE_CURRENT_SOURCE_DIR}/flow/control_files")
  # GoogleTest suites of tests/flow, each run at every rank count below.
  set(EXADNN_FLOW_SUITES)
  list(APPEND EXADNN_FLOW_SUITES ChannelTest TupleSpaceTest)  # COMMLIB
  list(APPEND EXADNN_FLOW_SUITES Executive)  # the Executive
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
  # run_program (the exec module's engine): one process is enough.
  add_test(NAME flow.np1.Program COMMAND ${EXADNN_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 1
                                         $<TARGET_FILE:exadnn_flow_tests> --gtest_filter=Program.*)
  set_tests_properties(flow.np1.Program PROPERTIES LABELS "flow" TIMEOUT 120)
  # Failures that used to hang the workflow (a receiver or a tuple-space wait whose producer
  # failed): a short timeout, so a regression is a failure rather than a stuck CI job.
  foreach(np 3 4)
    add_test(NAME flow.np${np}.ExecutiveFailures
      COMMAND ${EXADNN_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:exadnn_flow_tests>
              --gtest_filter=ExecutiveFailures.*)
    set_tests_properties(flow.np${np}.ExecutiveFailures PROPERTIES
      LABELS "flow" TIMEOUT 120 ENVIRONMENT "EXADNN_DIST_TIMEOUT=60;OMP_NUM_THREADS=1")
  endforeach()
  # One of the Executive's own MPI calls fails (flow/mpi_failure_main.cpp, through MPI's profiling
  # interface): that rank's error names the call and MPI's message and ends the job (before, the
  # code was ignored: a hang, or a run on garbage). Case: function|rank|what the message says.
  add_executable(exadnn_flow_mpi_failure ${CMAKE_CURRENT_SOURCE_DIR}/flow/mpi_failure_main.cpp)
  target_link_libraries(exadnn_flow_mpi_failure PRIVATE exadnn_flow)
  # The MPI_* functions it defines must replace MPI's for the libraries too.
  set_target_properties(exadnn_flow_mpi_failure PROPERTIES ENABLE_EXPORTS ON)
  foreach(case "MPI_Send|1|MPI_Send of the report of task [0-9]+"
               "MPI_Send|0|MPI_Send of task [0-9]+ to rank 1"
               "MPI_Bcast|1|MPI_Bcast of the start time"
               "MPI_Irecv|0|MPI_Irecv of a task report"
               "MPI_Comm_dup|2|MPI_Comm_dup .control.")
    string(REPLACE "|" ";" case "${case}")
    list(GET case 0 function)
    list(GET case 1 rank)
    list(GET case 2 call)
    set(name flow.np3.mpi_failure.${function}.rank${rank})
    # The verdict is the message; bounded_run.sh ends mpirun at 40 s should Open MPI 4.1's teardown
    # of the aborted job hang (as for dist.np*.rank_exits_early).
    add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/dist/bounded_run.sh 40
             ${EXADNN_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 3
             $<TARGET_FILE:exadnn_flow_mpi_failure> ${function} ${rank})
    set_tests_properties(${name} PROPERTIES LABELS "flow" TIMEOUT 60
      ENVIRONMENT "EXADNN_DIST_TIMEOUT=30;OMP_NUM_THREADS=1"
      PASS_REGULAR_EXPRESSION
        "exadnn \\(rank ${rank} of 3\\): exadnn: flow Executive: ${call} failed: MPI_ERR_OTHER"
      # No rank returns from the workflow: when the scheduler fails the workers fail with it, so no
      # rank finalises while another aborts (Open MPI's mpirun can hang on that).
      FAIL_REGULAR_EXPRESSION "ended without an error")
  endforeach()
  # The control-file parser needs no peers: one rank.
  add_test(NAME flow.np1.ControlFile
    COMMAND ${EXADNN_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:exadnn_flow_tests> --gtest_filter=ControlFile.*)
  set_tests_properties(flow.np1.ControlFile PROPERTIES LABELS "flow" TIMEOUT 120)
  # `exadnn flow` itself: check/graph, a throwing module (stop and continue), and the examples.
  if(TARGET exadnn_cli)
    string(REPLACE ";" " " flow_mpiexec "${EXADNN_MPIEXEC}")
    set(np_of_commands 1)  # (no mpirun: check and graph)
    set(np_of_errors 3)
    set(np_of_sweep 4)
    set(np_of_in_situ 3)
    set(np_of_failed_producers 3)
    set(np_of_exec 3)
    set(timeout_of_failed_producers 240)  # (each run in it is also cut at 100 s by the script)
    foreach(mode commands errors sweep in_situ exec failed_producers)
      add_test(NAME flow.np${np_of_${mode}}.cli_${mode}
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/flow/cli_flow.sh ${mode} $<TARGET_FILE:exadnn_cli>
                "${flow_mpiexec}" $<TARGET_FILE:exadnn_flow_test_library>)
      if(NOT DEFINED timeout_of_${mode})
        set(timeout_of_${mode} 600)
      endif()
      set_tests_properties(flow.np${np_of_${mode}}.cli_${mode} PROPERTIES LABELS "flow"
        TIMEOUT ${timeout_of_${mode}})
    endforeach()
  endif()
endif()
