# Bad flags get a clear message and a failing exit status (1, or CLI11's
# own code for a flag it refuses), never a crash or a silent success.
# -DCLI=<path of actorflow>
include(${CMAKE_CURRENT_LIST_DIR}/expect_refused.cmake)

expect_refused("--lr: value nan is not a finite number > 0"
               train fashion-mnist --lr nan)
expect_refused("--lr: value inf is not a finite number > 0"
               train fashion-mnist --lr inf)
expect_refused("--threads: value 100000 is not in \\[0, [0-9]+\\]"
               train fashion-mnist --threads 100000)
expect_refused("--epochs: value 0 is not in \\[1, 100000\\]"
               train fashion-mnist --epochs 0)
expect_refused("--batch: 'x' is not an integer" train fashion-mnist --batch x)
expect_refused("--restore-what-fits goes with --resume"
               train fashion-mnist --restore-what-fits --data-dir /nonexistent)
expect_refused("--batch 100000000 needs [0-9]+ MiB|--batch: value"
               demo --batch 100000000)
expect_refused("no op named 'Nope'" ops Nope)
expect_refused("--model: rnn not in" train fashion-mnist --model rnn)
expect_refused("--hidden: Value x not in range" train fashion-mnist --hidden 64,x)
expect_refused("--optimizer: sdg not in" train fashion-mnist --optimizer sdg)
expect_refused("--summary-every: value 0 is not in"
               train fashion-mnist --logdir /tmp --summary-every 0)
expect_refused("--trace-steps FIRST:END needs END > FIRST"
               train fashion-mnist --trace /tmp/t.json --trace-steps 5:5)
expect_refused("--trace-steps: 2 required"
               train fashion-mnist --trace /tmp/t.json --trace-steps 5)
expect_refused("dataset: imagenet not in" train imagenet)
expect_refused("--cell: rnn not in" train char-rnn --cell rnn)
expect_refused("--layers: value 0 is not in" train char-rnn --layers 0)
expect_refused("--units is not for fashion-mnist" train fashion-mnist --units 8)
expect_refused("--hidden is not for char-rnn" train char-rnn --hidden 8)
expect_refused("--k is not for fashion-mnist" train fashion-mnist --k 2)
expect_refused("--experts is not for char-rnn" train char-rnn --experts 2)
expect_refused("--model is not for moe" train moe --model mlp)
expect_refused("--k 3 is more than --experts 2" train moe --experts 2 --k 3)
expect_refused("takes --hidden H1,H2" train moe --hidden 64)
expect_refused("--experts: Value 0 not in range" train moe --experts 0)
expect_refused("--k is not for rbm" train rbm --k 2)
expect_refused("--finetune-epochs is not for rbm" train rbm --finetune-epochs 1)
expect_refused("an rbm takes one --hidden size" train rbm --hidden 10,20)
expect_refused("--cd-k is not for fashion-mnist" train fashion-mnist --cd-k 2)
expect_refused("--persistent is not for moe" train moe --persistent)
expect_refused("--cd-k: Value 0 not in range" train autoencoder --cd-k 0)
expect_refused("no text file or folder at '/nonexistent'"
               train char-rnn --data /nonexistent)
expect_refused("--temperature: value 0 is not a finite number > 0"
               sample --temperature 0)
expect_refused("--prime: 1 required"
               sample --prime "")
expect_refused("--graph-passes: unknown graph pass 'fuse'"
               train fashion-mnist --graph-passes cse,fuse)
# Not a graph: this script (the binary itself would do, but a sanitized
# build's outgrows the graph size limit and is refused for that).
expect_refused("graph show: .*not a valid Cap.n Proto"
               graph show ${CMAKE_CURRENT_LIST_FILE})
expect_refused("give --graph or --saved-model" run --fetch y)
expect_refused("--graph: File does not exist" run --graph /nonexistent.afg)
expect_refused("--cpus: value 0 is not in \\[1, 1024\\]"
               run --graph ${CLI} --cpus 0)
expect_refused("--export requires --saved-model"
               run --graph ${CLI} --export ${CMAKE_CURRENT_BINARY_DIR}/x)

execute_process(COMMAND ${CLI} ops _Send OUTPUT_VARIABLE out
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^_Send\\(")
  message(FATAL_ERROR "actorflow ops _Send: ${rc}:\n${out}")
endif()

execute_process(COMMAND ${CLI} --version OUTPUT_VARIABLE out
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^actorflow [0-9]+\\.[0-9]+\\.[0-9]+ \\(CAF 0\\.17")
  message(FATAL_ERROR "actorflow --version: ${rc}:\n${out}")
endif()

# Global flags after the subcommand, where users put them.
execute_process(COMMAND ${CLI} ops _Send --log-level debug OUTPUT_VARIABLE out
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^_Send\\(")
  message(FATAL_ERROR "actorflow ops _Send --log-level debug: ${rc}:\n${out}")
endif()
expect_refused("unknown log level 'loud'" train rbm --log-level loud)

# Each model's help: its own flags and defaults.
foreach(check "char-rnn;--optimizer TEXT[^\n]*=adam" "rbm;--hidden INT[^\n]*=.500"
              "moe;--experts")
  list(GET check 0 model)
  list(GET check 1 want)
  execute_process(COMMAND ${CLI} train ${model} --help OUTPUT_VARIABLE out
                  RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${want}" OR out MATCHES "--units"
     AND NOT model STREQUAL "char-rnn")
    message(FATAL_ERROR "actorflow train ${model} --help: ${rc}:\n${out}")
  endif()
endforeach()
expect_refused("flags go after the model" train --epochs 2 fashion-mnist)
expect_refused("unknown flag --bogus" train fashion-mnist --bogus 1)
expect_refused("--keep is not for rbm" train rbm --keep 2)

# run and graph show take TensorFlow's GraphDefs: --help says so.
execute_process(COMMAND ${CLI} run --help OUTPUT_VARIABLE out
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT out MATCHES "GraphDef \\(\\.pb, \\.pbtxt\\)")
  message(FATAL_ERROR "actorflow run --help: ${rc}:\n${out}")
endif()
