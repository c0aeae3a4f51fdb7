# `actorflow train moe` end to end on Debian's Fashion-MNIST, shortened:
# one epoch of four small experts (64, 64), two per image, must reach 0.80
# test accuracy, print each expert's share of the images (every expert
# used, none hogging the images) and checkpoint to fashion-mnist-moe;
# --dense trains the twin MLP (128, 64) instead. -DCLI=<path of
# actorflow> -DWORK_DIR=<scratch directory>
file(REMOVE_RECURSE ${WORK_DIR})
set(common train moe --experts 4 --k 2 --hidden 64,64 --threads 2 --epochs 1
    --checkpoint-dir ${WORK_DIR})

function(json_of text out)
  string(REGEX MATCH "{[^\n]*}\n?$" line "${text}")
  if(NOT line)
    message(FATAL_ERROR "no JSON line in:\n${text}")
  endif()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${CLI} ${common} --logdir ${WORK_DIR}/logs
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "actorflow train moe failed (${rc}):\n${out}\n${err}")
endif()
json_of("${out}" line)
string(JSON acc GET "${line}" test_accuracy)
if(acc LESS 0.80)
  message(FATAL_ERROR "test accuracy after one epoch is ${acc} < 0.80")
endif()
string(JSON experts LENGTH "${line}" expert_load)
if(NOT experts EQUAL 4)
  message(FATAL_ERROR "expected 4 expert loads in ${line}")
endif()
# Balanced by the load loss: no expert below 5 % or above 60 %.
foreach(i RANGE 3)
  string(JSON share GET "${line}" expert_load ${i})
  if(share LESS 0.05 OR share GREATER 0.6)
    message(FATAL_ERROR "expert ${i} got a share of ${share}: ${line}")
  endif()
endforeach()
if(NOT err MATCHES "images per expert: [0-9.]+% [0-9.]+% [0-9.]+% [0-9.]+%")
  message(FATAL_ERROR "no per-expert load printed:\n${err}")
endif()
if(NOT EXISTS ${WORK_DIR}/fashion-mnist-moe/model-468.index)
  message(FATAL_ERROR "no checkpoint fashion-mnist-moe/model-468")
endif()
file(GLOB events ${WORK_DIR}/logs/events.out.tfevents.*)
if(NOT events)
  message(FATAL_ERROR "no TensorBoard events in ${WORK_DIR}/logs")
endif()
file(READ ${events} bytes HEX)
# "expert_load/3" in hex: the last expert's scalar is there.
if(NOT bytes MATCHES "6578706572745f6c6f61642f33")
  message(FATAL_ERROR "no expert_load/3 scalar in ${events}")
endif()
message(STATUS "moe: accuracy ${acc}, loads ${line}")

execute_process(COMMAND ${CLI} ${common} --dense
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "actorflow train moe --dense failed (${rc}):\n${out}\n${err}")
endif()
json_of("${out}" line)
string(JSON acc GET "${line}" test_accuracy)
if(acc LESS 0.80 OR line MATCHES "expert_load")
  message(FATAL_ERROR "the dense twin: ${line}")
endif()
# Its own folder: the classifier's checkpoints would not fit it.
if(NOT EXISTS ${WORK_DIR}/moe-dense/model-468.index
   OR EXISTS ${WORK_DIR}/fashion-mnist-mlp)
  message(FATAL_ERROR "the dense twin did not checkpoint to moe-dense")
endif()
message(STATUS "dense twin: accuracy ${acc}")
