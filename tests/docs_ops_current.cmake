# Fails unless docs/ops.md holds what `actorflow ops --markdown` prints now.
# -DCLI=<path of actorflow> -DDOC=<path of docs/ops.md>
execute_process(COMMAND ${CLI} ops --markdown OUTPUT_VARIABLE table
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "actorflow ops --markdown failed (${rc})")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "docs/ops.md is out of date: regenerate its table with "
                      "`build/bin/actorflow ops --markdown`")
endif()
