# The check behind every compile-fail test (cmake -P): builds one target of a configured build tree and judges the
# outcome.
#
#   cmake -DBUILD_DIR=<build tree> -DTARGET=<target> [-DCONFIG=<config>] [-DEXPECT=<messages>] -P check_build.cmake
#
# With EXPECT (a list of messages): passes only if the build fails and, for each message, a line of its output
# reports a failed static assertion carrying it. Without EXPECT (the control): passes only if the build succeeds.
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
# The line that carries each message must be a static assertion's (nvcc: 'static assertion failed with "..."',
# GCC: 'static assertion failed: ...'), not some other error that happens to quote it.
foreach(message IN LISTS EXPECT)
  set(assertion -1)
  string(FIND "${out}" "${message}" at)
  if(at GREATER_EQUAL 0)
    string(SUBSTRING "${out}" 0 ${at} before)
    string(FIND "${before}" "\n" line_start REVERSE)
    math(EXPR line_start "${line_start} + 1")
    string(SUBSTRING "${before}" ${line_start} -1 line_head)
    string(FIND "${line_head}" "static assertion failed" assertion)
  endif()
  if(assertion LESS 0)
    message(FATAL_ERROR "${TARGET} failed to build, but not with a static assertion \"${message}\":\n${out}")
  endif()
  message(STATUS "${TARGET} is rejected, as it must be, with \"${message}\"")
endforeach()
