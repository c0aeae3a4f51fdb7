# Installs the build into a fresh prefix, then configures, builds and runs a
# separate project that finds it with find_package(actorflow).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR}
                        --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
# Runtime internals and the compile path's steps are not installed
# (the consumer below, which includes every public header through
# actorflow.hpp, fails to build if a public header includes one).
foreach(internal actors/frame_instance.hpp actors/frame_ref.hpp
                 actors/master.hpp actors/master_state.hpp
                 actors/node_actor_impl.hpp actors/node_actor_detail.hpp
                 actors/partition_plan.hpp actors/queue_state.hpp
                 actors/runtime_messages.hpp actors/step_tracker.hpp
                 actors/worker_protocol.hpp actors/master/state.hpp
                 actors/node/node_state.hpp actors/transport/worker_protocol.hpp
                 interop/layout.hpp interop/imported_graph.hpp
                 interop/tensorflow/graph_def_import.hpp
                 interop/tensorflow/tf_proto.hpp
                 graph/builder_state.hpp graph/graph_index.hpp
                 graph/control_flow_info.hpp graph/passes.hpp
                 graph/optimizer.hpp graph/expand_functions.hpp
                 graph/function_library.hpp graph/layout.hpp
                 graph/compile/graph_index.hpp)
  if(EXISTS ${WORK_DIR}/prefix/include/actorflow/${internal})
    message(FATAL_ERROR "internal header ${internal} was installed")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install_consumer
                        -B ${WORK_DIR}/build -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                        -DCMAKE_BUILD_TYPE=Release
                        -DEXPECT_NATIVE=${EXPECT_NATIVE}
                        "-DEXPECT_SANITIZERS=${EXPECT_SANITIZERS}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer said: ${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "relu = 3 0, gradient = 1 0")
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
