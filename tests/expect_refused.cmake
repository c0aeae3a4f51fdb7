# expect_refused(MESSAGE ARGS...): runs `${CLI} ARGS...` and fails the
# test unless it exits with a failing status (not a crash) and prints
# something matching MESSAGE. For the command-line tests' scripts.
function(expect_refused message)
  execute_process(COMMAND ${CLI} ${ARGN} OUTPUT_VARIABLE out
                  ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc MATCHES "^[0-9]+$" OR rc EQUAL 0 OR rc GREATER 127
     OR NOT "${out}${err}" MATCHES "${message}")
    message(FATAL_ERROR "actorflow ${ARGN}: expected a failure and "
                        "'${message}', got ${rc}:\n${out}${err}")
  endif()
endfunction()
