# Configures, builds and runs the add_subdirectory consumer beside this script, which builds cuprim from the source
# tree two levels up, in WORK_DIR (with GENERATOR, CUDA_ARCHS and CUDA_COMPILER, as the calling build has them).
# The consumer's exit code 77 (no CUDA device) counts as built and not run.
get_filename_component(cuprim_source_dir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
                  "-DCUPRIM_SOURCE_DIR=${cuprim_source_dir}" "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS}"
                  "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the add_subdirectory consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the add_subdirectory consumer failed (${rc})")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer" RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message(STATUS "the add_subdirectory consumer built; no CUDA device, so it did not run")
elseif(rc)
  message(FATAL_ERROR "the add_subdirectory consumer failed (${rc})")
endif()
