# The umbrella header (actorflow/actorflow.hpp) includes every public
# header of the graph, net and actors layers. -DSOURCE_DIR=<the tree>
file(READ ${SOURCE_DIR}/actors/actorflow/actorflow.hpp umbrella)
set(missing "")
foreach(layer graph net actors)
  file(GLOB headers RELATIVE ${SOURCE_DIR}/${layer}/actorflow
       ${SOURCE_DIR}/${layer}/actorflow/${layer}/*.hpp)
  foreach(h ${headers})
    if(NOT umbrella MATCHES "#include \"actorflow/${h}\"")
      list(APPEND missing ${h})
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "actorflow.hpp leaves out: ${missing}")
endif()
