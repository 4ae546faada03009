# Finds NCCL for cuprim::multi and defines the imported target cuprim_nccl (nccl.h and libnccl).
#
# Searched, in order: NCCL_ROOT (a CMake or environment variable: <root>/include/nccl.h, <root>/lib/libnccl*),
# the CUDA toolkit's own folders, the system's, and the nvidia-nccl wheel of the first python3 on the PATH (the
# wheel that PyTorch installs ships nccl.h and libnccl.so.2 under site-packages/nvidia/nccl). Sets NCCL_FOUND.
if(TARGET cuprim_nccl)
  set(NCCL_FOUND TRUE)
  return()
endif()

set(_cuprim_nccl_hints)
foreach(_root "${NCCL_ROOT}" "$ENV{NCCL_ROOT}")
  if(_root)
    list(APPEND _cuprim_nccl_hints "${_root}")
  endif()
endforeach()
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _cuprim_nccl_hints "${CUDAToolkit_LIBRARY_ROOT}")
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_inc ${CUDAToolkit_INCLUDE_DIRS})
    get_filename_component(_up "${_inc}" DIRECTORY)
    list(APPEND _cuprim_nccl_hints "${_up}")
  endforeach()
endif()
find_program(_cuprim_python3 python3)
if(_cuprim_python3)
  execute_process(
    COMMAND "${_cuprim_python3}" -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE _cuprim_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _cuprim_nccl_wheel)
    list(APPEND _cuprim_nccl_hints "${_cuprim_nccl_wheel}")
  endif()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_cuprim_nccl_hints} PATH_SUFFIXES include)
# The library of the same installation as the header first (a header and a library of two NCCL versions would
# build and then fail at run time); libnccl.so.2 by its full name as well: the wheel ships no unversioned link.
if(NCCL_INCLUDE_DIR)
  get_filename_component(_cuprim_nccl_root "${NCCL_INCLUDE_DIR}" DIRECTORY)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 PATHS "${_cuprim_nccl_root}"
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu NO_DEFAULT_PATH)
endif()
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_cuprim_nccl_hints} PATH_SUFFIXES lib lib64)

if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  set(NCCL_FOUND TRUE)
  add_library(cuprim_nccl UNKNOWN IMPORTED GLOBAL)
  set_target_properties(cuprim_nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  message(STATUS "cuprim: NCCL found: ${NCCL_LIBRARY} (headers in ${NCCL_INCLUDE_DIR})")
else()
  set(NCCL_FOUND FALSE)
endif()
