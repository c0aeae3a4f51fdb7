# The umbrella header (actorflow/actorflow.hpp) includes every public
# header of the graph, net and actors layers but those of the compile path,
# which applications do not call. -DSOURCE_DIR=<the tree>
file(READ ${SOURCE_DIR}/actors/actorflow/actorflow.hpp umbrella)
# The compile path's steps: installed today, called by the runtime only.
set(compile_path graph/compile_run.hpp graph/control_flow_info.hpp
    graph/expand_functions.hpp graph/function_library.hpp
    graph/graph_index.hpp graph/layout.hpp graph/passes.hpp
    graph/validate.hpp)
set(missing "")
foreach(layer graph net actors)
  file(GLOB headers RELATIVE ${SOURCE_DIR}/${layer}/actorflow
       ${SOURCE_DIR}/${layer}/actorflow/${layer}/*.hpp)
  foreach(h ${headers})
    list(FIND compile_path ${h} internal)
    if(internal EQUAL -1 AND NOT umbrella MATCHES "#include \"actorflow/${h}\"")
      list(APPEND missing ${h})
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "actorflow.hpp leaves out: ${missing}")
endif()
