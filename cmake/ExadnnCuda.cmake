# The optional CUDA backend: decides whether exadnn_cuda is built (EXADNN_CUDA=AUTO|ON|OFF) and
# enables the CUDA language. Sets EXADNN_WITH_CUDA. The target itself is src/backend/cuda.
set(EXADNN_CUDA AUTO CACHE STRING
    "Build the CUDA backend exadnn_cuda: AUTO (when nvcc is found), ON (required) or OFF")
set_property(CACHE EXADNN_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${EXADNN_CUDA}" _exadnn_cuda_mode)
if(NOT _exadnn_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "EXADNN_CUDA must be AUTO, ON or OFF, not '${EXADNN_CUDA}'")
endif()

set(EXADNN_WITH_CUDA OFF)
if(_exadnn_cuda_mode STREQUAL "OFF")
  message(STATUS "exadnn: CUDA backend OFF (EXADNN_CUDA=OFF)")
else()
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(EXADNN_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATHS /usr/local/cuda/bin
                 PATH_SUFFIXES bin)
    if(EXADNN_NVCC)
      set(CMAKE_CUDA_COMPILER "${EXADNN_NVCC}" CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  if(CMAKE_CUDA_COMPILER)
    # sm_90 (H100/H200) machine code plus its PTX, which newer GPUs compile at load time.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING "CUDA architectures")
    endif()
    if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
      set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "nvcc's host compiler")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(EXADNN_WITH_CUDA ON)
    message(STATUS "exadnn: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(_exadnn_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "EXADNN_CUDA is ON but no nvcc was found in PATH, $CUDA_HOME/bin or "
                        "/usr/local/cuda/bin: install the CUDA toolkit, pass "
                        "-DCMAKE_CUDA_COMPILER=/path/to/nvcc, or configure with -DEXADNN_CUDA=OFF")
  else()
    message(STATUS "exadnn: CUDA backend OFF (no nvcc found; EXADNN_CUDA=AUTO)")
  endif()
endif()
