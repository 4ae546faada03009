# Configures, builds and runs the project in SOURCE_DIR, which builds cuprim from CUPRIM_SOURCE_DIR with
# add_subdirectory, in WORK_DIR. The consumer's exit code 77 (no CUDA device) counts as built and not run.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR}
                  -DCUPRIM_SOURCE_DIR=${CUPRIM_SOURCE_DIR} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS}
                  -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the add_subdirectory consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the add_subdirectory consumer failed (${rc})")
endif()
execute_process(COMMAND ${WORK_DIR}/consumer RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message(STATUS "the add_subdirectory consumer built; no CUDA device, so it did not run")
elseif(rc)
  message(FATAL_ERROR "the add_subdirectory consumer failed (${rc})")
endif()
