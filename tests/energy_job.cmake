# `actorflow train rbm` and `actorflow train autoencoder` on Debian's
# Fashion-MNIST, shortened: one epoch of a 64-unit RBM (CD-1) must bring
# the test reconstruction error under 0.6 of the untrained one's, as must
# persistent CD-2; a 784-64-2 autoencoder, pretrained one epoch per RBM
# and fine-tuned one, must end below its error before fine-tuning; the
# .npy files are written and, where python3 has matplotlib,
# scripts/energy_to_png.py draws them. -DCLI=<actorflow>
# -DWORK_DIR=<scratch> -DPYTHON=<python3 or empty> -DSCRIPT=<energy_to_png.py>
file(REMOVE_RECURSE ${WORK_DIR})

function(run_json out)
  execute_process(COMMAND ${CLI} train ${ARGN} --threads 2 --quiet
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "actorflow train ${ARGN} failed (${rc}):\n${text}\n${err}")
  endif()
  string(REGEX MATCH "{[^\n]*}\n?$" line "${text}")
  if(NOT line)
    message(FATAL_ERROR "no JSON line from train ${ARGN}:\n${text}")
  endif()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

foreach(variant "cd1;--hidden;64" "pcd2;--hidden;64;--persistent;--cd-k;2")
  list(GET variant 0 name)
  list(REMOVE_AT variant 0)
  run_json(line rbm ${variant} --epochs 1 --out ${WORK_DIR}/${name})
  string(JSON before GET "${line}" initial_test_error)
  string(JSON after GET "${line}" test_error)
  if(after GREATER_EQUAL before)
    message(FATAL_ERROR "${name}: the test error did not fall: ${line}")
  endif()
  # after < 0.6 * before (CMake has no float math: on the first five
  # decimals, both errors being under 1).
  string(REGEX REPLACE "^0\\.([0-9]*)$" "\\1" a "${after}000000")
  string(REGEX REPLACE "^0\\.([0-9]*)$" "\\1" b "${before}000000")
  string(SUBSTRING "${a}" 0 5 a)
  string(SUBSTRING "${b}" 0 5 b)
  math(EXPR a10 "1${a} - 100000")
  math(EXPR b10 "1${b} - 100000")
  math(EXPR lhs "${a10} * 10")
  math(EXPR rhs "${b10} * 6")
  if(lhs GREATER_EQUAL rhs)
    message(FATAL_ERROR "${name}: test error ${after} is not under 0.6 x "
                        "${before}: ${line}")
  endif()
  foreach(file filters reconstructions)
    if(NOT EXISTS ${WORK_DIR}/${name}/${file}.npy)
      message(FATAL_ERROR "${name}: no ${file}.npy")
    endif()
  endforeach()
  message(STATUS "${name}: ${line}")
endforeach()

run_json(line autoencoder --hidden 64,2 --epochs 1 --finetune-epochs 1
         --out ${WORK_DIR}/ae)
string(JSON before GET "${line}" pretrained_test_error)
string(JSON after GET "${line}" test_error)
if(after GREATER_EQUAL before)
  message(FATAL_ERROR "fine-tuning did not lower the test error: ${line}")
endif()
foreach(file codes labels reconstructions)
  if(NOT EXISTS ${WORK_DIR}/ae/${file}.npy)
    message(FATAL_ERROR "autoencoder: no ${file}.npy")
  endif()
endforeach()
message(STATUS "autoencoder: ${line}")

if(PYTHON)
  execute_process(COMMAND ${PYTHON} -c "import matplotlib, numpy"
                  RESULT_VARIABLE has_matplotlib OUTPUT_QUIET ERROR_QUIET)
  if(has_matplotlib EQUAL 0)
    foreach(dir cd1 ae)
      execute_process(COMMAND ${PYTHON} ${SCRIPT} ${WORK_DIR}/${dir}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "energy_to_png.py ${dir} failed:\n${out}${err}")
      endif()
    endforeach()
    # Codes of one and of three dimensions (what --hidden 64,1 and
    # 64,3 write), from the 2-D ones.
    foreach(width 1 3)
      file(MAKE_DIRECTORY ${WORK_DIR}/codes${width})
      execute_process(COMMAND ${PYTHON} -c "import numpy as np, shutil
c = np.load('${WORK_DIR}/ae/codes.npy')
c = np.column_stack([c, c[:, :1] * c[:, 1:]])[:, :${width}]
np.save('${WORK_DIR}/codes${width}/codes.npy', c)
shutil.copy('${WORK_DIR}/ae/labels.npy', '${WORK_DIR}/codes${width}')"
                      RESULT_VARIABLE rc)
      execute_process(COMMAND ${PYTHON} ${SCRIPT} ${WORK_DIR}/codes${width}
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/codes${width}/codes.png)
        message(FATAL_ERROR "energy_to_png.py, ${width}-D codes:\n${out}${err}")
      endif()
    endforeach()
    foreach(png cd1/filters cd1/reconstructions ae/codes ae/reconstructions)
      if(NOT EXISTS ${WORK_DIR}/${png}.png)
        message(FATAL_ERROR "no ${png}.png")
      endif()
    endforeach()
  endif()
endif()
