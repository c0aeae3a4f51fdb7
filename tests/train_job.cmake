# The main job end to end on Debian's Fashion-MNIST (scripts/setup.sh
# installs it), shortened: one epoch of a small MLP must reach 0.80 test
# accuracy (the default MLP's first epoch gives 0.85), then --resume with
# --epochs 2 must continue from the checkpoint at step 468 and end higher
# than 0.82. -DCLI=<path of actorflow> -DWORK_DIR=<scratch directory>
file(REMOVE_RECURSE ${WORK_DIR})
set(common train fashion-mnist --hidden 64 --threads 2
    --checkpoint-dir ${WORK_DIR})

# The test accuracy in the last line, a JSON object (read as JSON).
function(accuracy_of text out)
  string(REGEX MATCH "{[^\n]*}\n?$" line "${text}")
  string(JSON acc ERROR_VARIABLE err GET "${line}" test_accuracy)
  if(err)
    message(FATAL_ERROR "no JSON line with test_accuracy in:\n${text}")
  endif()
  set(${out} ${acc} PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${CLI} ${common} --epochs 1
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "actorflow train failed (${rc}):\n${out}\n${err}")
endif()
accuracy_of("${out}" first)
if(first LESS 0.80)
  message(FATAL_ERROR "test accuracy after one epoch is ${first} < 0.80")
endif()
if(NOT EXISTS ${WORK_DIR}/fashion-mnist-mlp/model-468.index)
  message(FATAL_ERROR "no checkpoint model-468 after the first epoch")
endif()

execute_process(COMMAND ${CLI} ${common} --epochs 2 --resume
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "actorflow train --resume failed (${rc}):\n${out}\n${err}")
endif()
if(NOT err MATCHES "resumed from [^\n]*model-468 at step 468")
  message(FATAL_ERROR "--resume did not start from step 468:\n${err}")
endif()
if(NOT err MATCHES "epoch 2/2" OR err MATCHES "epoch 1/2")
  message(FATAL_ERROR "--resume should run epoch 2 only:\n${err}")
endif()
accuracy_of("${out}" second)
if(second LESS 0.82)
  message(FATAL_ERROR "test accuracy after two epochs is ${second} < 0.82")
endif()
message(STATUS "accuracy ${first} after one epoch, ${second} after two")

# A checkpoint that does not fit (another optimizer's slots are missing)
# stops the job and deletes nothing; --restore-what-fits restores the
# weights and starts the slots afresh.
execute_process(COMMAND ${CLI} ${common} --epochs 2 --resume --optimizer adam
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "model-936' does not fit"
   OR NOT err MATCHES "--restore-what-fits")
  message(FATAL_ERROR "--resume with another optimizer did not stop with a "
                      "clear error (${rc}):\n${out}\n${err}")
endif()
foreach(step 468 936)
  if(NOT EXISTS ${WORK_DIR}/fashion-mnist-mlp/model-${step}.index)
    message(FATAL_ERROR "checkpoint model-${step} is gone")
  endif()
endforeach()
execute_process(COMMAND ${CLI} ${common} --epochs 2 --resume --optimizer adam
                        --restore-what-fits
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "resumed from [^\n]*model-936"
   OR NOT err MATCHES "initialised afresh")
  message(FATAL_ERROR "--restore-what-fits failed (${rc}):\n${out}\n${err}")
endif()
accuracy_of("${out}" third)
if(NOT third EQUAL second)
  message(FATAL_ERROR "the restored weights give ${third}, not ${second}")
endif()
