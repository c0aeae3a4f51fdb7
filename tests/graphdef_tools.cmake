# The command-line tools for a user's GraphDef: `actorflow ops --missing`
# lists what a graph needs that actorflow lacks (exit 1) or says nothing
# is missing (exit 0); `actorflow benchmark` runs a TensorFlow-written
# model, or a training step of one, and ends with a JSON line; bad flags
# are refused.
# -DCLI=<path of actorflow> -DGOLDEN=<tests/golden> -DWORK_DIR=<scratch>
file(MAKE_DIRECTORY ${WORK_DIR})
set(model ${GOLDEN}/graphdef/keras_cnn.pb)

execute_process(COMMAND ${CLI} ops --missing ${model} OUTPUT_VARIABLE out
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "every op of .* is one actorflow has")
  message(FATAL_ERROR "ops --missing on a graph it can run: ${rc}:\n${out}")
endif()

file(WRITE ${WORK_DIR}/missing.pbtxt [[
node { name: "a" op: "NoSuchOp" }
node { name: "b" op: "NoSuchOp" }
node { name: "c" op: "OtherOp" }
node { name: "d" op: "Relu" }
]])
execute_process(COMMAND ${CLI} ops --missing ${WORK_DIR}/missing.pbtxt
                OUTPUT_VARIABLE out RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 1 OR NOT out MATCHES "uses 2 ops actorflow lacks"
   OR NOT out MATCHES "NoSuchOp  \\(2 nodes: a, b\\)"
   OR NOT out MATCHES "OtherOp  \\(1 node: c\\)")
  message(FATAL_ERROR "ops --missing on a graph it cannot run: ${rc}:\n${out}")
endif()

execute_process(COMMAND ${CLI} benchmark --graph ${model}
                        --feed conv2d_input=2x6x6x3 --fetch dense/BiasAdd
                        --runs 3 --warmup 1 --profile
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 120)
string(REGEX MATCH "[^\n]+\n?$" last "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "time by op type"
   OR NOT out MATCHES "_FusedConvBatchNorm"
   OR NOT last MATCHES "^{\"graph\": .*\"first_run_ms\": [0-9.]+, \"ms_per_run\": [0-9.]+, .*\"peak_rss_mb\": [0-9.]+}")
  message(FATAL_ERROR "benchmark: ${rc}:\n${out}${err}")
endif()

# A training step: the initializer once (--init), the train op each run
# (--target), the loss fetched.
set(train ${GOLDEN}/graphdef/mlp_train.pb)
execute_process(COMMAND ${CLI} benchmark --graph ${train} --init init
                        --target train --fetch loss --feed x=4x3:float64
                        --feed y=4x2:float64 --runs 3 --warmup 0
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 120)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"ms_per_run\": [0-9.]+")
  message(FATAL_ERROR "benchmark of a train op: ${rc}:\n${out}${err}")
endif()
# Without the initializer the step reads uninitialised variables.
execute_process(COMMAND ${CLI} benchmark --graph ${train} --target train
                        --feed x=4x3:float64 --feed y=4x2:float64 --runs 1
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 120)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "uninitialized")
  message(FATAL_ERROR "benchmark without --init: ${rc}:\n${out}${err}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/expect_refused.cmake)

expect_refused("--feed 'x' is not name=file.npy or name=D1xD2"
               benchmark --graph ${model} --feed x --fetch dense/BiasAdd)
expect_refused("dtype 'float8' is not float32"
               benchmark --graph ${model} --feed conv2d_input=2x6x6x3:float8
               --fetch dense/BiasAdd)
expect_refused("feed 'conv2d_input' has shape \\[2,5,6,3\\]"
               benchmark --graph ${model} --feed conv2d_input=2x5x6x3
               --fetch dense/BiasAdd)
expect_refused("give at least one --fetch or --target"
               benchmark --graph ${model})
expect_refused("--missing: File does not exist" ops --missing /nonexistent.pb)
