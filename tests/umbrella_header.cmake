# The umbrella header (actorflow/actorflow.hpp) includes every public
# header of the graph, net, interop and actors layers but the deprecated
# forwarding headers (those that open with "/// Deprecated:").
# -DSOURCE_DIR=<the tree>
file(READ ${SOURCE_DIR}/actors/actorflow/actorflow.hpp umbrella)
set(missing "")
foreach(layer graph net interop actors)
  file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/${layer}/actorflow
       ${SOURCE_DIR}/${layer}/actorflow/${layer}/*.hpp)
  foreach(h ${headers})
    file(STRINGS ${SOURCE_DIR}/${layer}/actorflow/${h} opening LIMIT_COUNT 3)
    if(opening MATCHES "/// Deprecated:")
      continue()
    endif()
    if(NOT umbrella MATCHES "#include \"actorflow/${h}\"")
      list(APPEND missing ${h})
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "actorflow.hpp leaves out: ${missing}")
endif()
