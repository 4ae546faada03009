# The check behind every compile-fail test (cmake -P): builds one target of a configured build tree and judges the
# outcome.
#
#   cmake -DBUILD_DIR=<build tree> -DTARGET=<target> [-DCONFIG=<config>] [-DEXPECT=<message>] -P check_build.cmake
#
# With EXPECT: passes only if the build fails and a line of its output reports a failed static assertion carrying
# EXPECT. Without EXPECT (the control): passes only if the build succeeds.
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} ${config_args}
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)

if(NOT DEFINED EXPECT OR EXPECT STREQUAL "")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} must compile, but its build failed (${rc}):\n${out}")
  endif()
  message(STATUS "${TARGET} compiles, as it must")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but its misuse must be rejected with \"${EXPECT}\":\n${out}")
endif()
# The line that carries the message must be the static assertion's (nvcc: 'static assertion failed with "..."',
# GCC: 'static assertion failed: ...'), not some other error that happens to quote it.
string(FIND "${out}" "${EXPECT}" at)
if(at GREATER_EQUAL 0)
  string(SUBSTRING "${out}" 0 ${at} before)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  string(SUBSTRING "${before}" ${line_start} -1 line_head)
  string(FIND "${line_head}" "static assertion failed" assertion)
endif()
if(at LESS 0 OR assertion LESS 0)
  message(FATAL_ERROR "${TARGET} failed to build, but not with a static assertion \"${EXPECT}\":\n${out}")
endif()
message(STATUS "${TARGET} is rejected, as it must be, with \"${EXPECT}\"")
