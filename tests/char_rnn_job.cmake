# `actorflow train char-rnn` and `actorflow sample` end to end, shortened:
# a small LSTM on one of Debian's fortune files (scripts/setup.sh installs
# the fortunes package) must, after three epochs, predict the held-out
# fortunes' characters clearly better than their frequencies do; the
# first two epochs, then --resume for the third from the checkpoint;
# sampling prints the prime and as many characters as asked, the same for
# the same seed; a resume with another model and a prime with an unknown
# character stop with errors that say what to do.
# -DCLI=<path of actorflow> -DWORK_DIR=<scratch directory>
file(REMOVE_RECURSE ${WORK_DIR})
set(data /usr/share/games/fortunes/science)
if(NOT EXISTS ${data})
  message(FATAL_ERROR "${data} is missing: scripts/setup.sh installs the "
                      "fortunes package")
endif()
set(common train char-rnn --data ${data} --embed 32 --threads 2
    --checkpoint-dir ${WORK_DIR} --lr 0.005)

function(run_cli)
  execute_process(COMMAND ${CLI} ${ARGN} OUTPUT_VARIABLE out
                  ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
  set(rc "${rc}" PARENT_SCOPE)
endfunction()

# A field of the last line, a JSON object.
function(json_field text field out)
  string(REGEX MATCH "{[^\n]*}\n?$" line "${text}")
  string(JSON value ERROR_VARIABLE e GET "${line}" ${field})
  if(e)
    message(FATAL_ERROR "no JSON line with ${field} in:\n${text}")
  endif()
  set(${out} ${value} PARENT_SCOPE)
endfunction()

run_cli(${common} --units 64 --epochs 2)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "train char-rnn failed (${rc}):\n${out}\n${err}")
endif()
json_field("${out}" steps steps)
if(NOT EXISTS ${WORK_DIR}/char-rnn/model-${steps}.index
   OR NOT EXISTS ${WORK_DIR}/char-rnn/char-rnn.json)
  message(FATAL_ERROR "no checkpoint model-${steps} or char-rnn.json:\n${err}")
endif()

run_cli(${common} --units 64 --epochs 3 --resume)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "train char-rnn --resume failed (${rc}):\n${out}\n${err}")
endif()
if(NOT err MATCHES "resumed from [^\n]*model-${steps} at step ${steps}"
   OR err MATCHES "epoch 2/3" OR NOT err MATCHES "epoch 3/3")
  message(FATAL_ERROR "--resume should run epoch 3 only:\n${err}")
endif()
json_field("${out}" held_out_perplexity model)
json_field("${out}" unigram_perplexity unigram)
# Clearly below: under 0.8 of the baseline (math() has integers only).
string(REGEX REPLACE "\\..*" "" model_int "${model}")
string(REGEX REPLACE "\\..*" "" unigram_int "${unigram}")
math(EXPR limit "${unigram_int} * 8 / 10")
if(model_int GREATER_EQUAL limit)
  message(FATAL_ERROR "held-out perplexity ${model} is not below 0.8 of the "
                      "character frequencies' ${unigram}")
endif()
message(STATUS "held-out perplexity ${model}, character frequencies ${unigram}")

run_cli(sample --checkpoint-dir ${WORK_DIR} --prime "The " --length 40
        --seed 7)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sample failed (${rc}):\n${out}\n${err}")
endif()
string(LENGTH "${out}" length)
if(NOT out MATCHES "^The " OR NOT length EQUAL 45)
  message(FATAL_ERROR "sample should print the prime and 40 characters "
                      "and a newline, got ${length} bytes:\n${out}")
endif()
set(first "${out}")
run_cli(sample --checkpoint-dir ${WORK_DIR}/char-rnn --prime "The " --length 40
        --seed 7)
if(NOT out STREQUAL first)
  message(FATAL_ERROR "the same seed sampled differently:\n${first}\n${out}")
endif()

run_cli(${common} --epochs 4 --resume --units 32)
if(rc EQUAL 0 OR NOT err MATCHES "lstm of 64 units"
   OR NOT err MATCHES "--checkpoint-dir")
  message(FATAL_ERROR "--resume with another model did not stop with a "
                      "clear error (${rc}):\n${err}")
endif()
run_cli(sample --checkpoint-dir ${WORK_DIR} --prime "café")
if(rc EQUAL 0 OR NOT err MATCHES "never occurs in the training text")
  message(FATAL_ERROR "a prime with an unknown character did not stop with "
                      "a clear error (${rc}):\n${err}")
endif()
run_cli(sample --checkpoint-dir ${WORK_DIR}/nothing)
# It names where train char-rnn writes the model: <dir>/char-rnn/.
if(rc EQUAL 0 OR NOT err MATCHES "not a char-rnn checkpoint directory"
   OR NOT err MATCHES "nothing/char-rnn/char-rnn.json")
  message(FATAL_ERROR "sample without checkpoints did not stop with a clear "
                      "error (${rc}):\n${err}")
endif()
