# actorflow_add_component(NAME <n> SOURCES <src...> DEPS <targets...>)
# Builds the static library actorflow_<n>, aliased actorflow::<n>, whose
# public headers live in <n>/actorflow/<n>/ and install to
# include/actorflow/<n>/.
add_library(actorflow_warnings INTERFACE)
# (C++ only: nvcc compiles the CUDA sources with flags of its own.)
target_compile_options(actorflow_warnings INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic;-Wno-unused-parameter>"
  # GCC 12 reports false positives inside its own AVX-512 intrinsics (Eigen).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${ACTORFLOW_WARNINGS_AS_ERRORS}>>:-Werror>)
install(TARGETS actorflow_warnings EXPORT actorflowTargets)

# Sanitizers (ACTORFLOW_SANITIZERS, e.g. address;undefined): compiled into
# every component and exported with it, so that whatever links the
# libraries, an installed package's consumers included, links the
# sanitizers' runtimes too. A report stops the program (no recovery).
set(_af_san_flags "")
if(ACTORFLOW_SANITIZERS)
  string(REPLACE ";" "," _af_san "${ACTORFLOW_SANITIZERS}")
  set(_af_san_flags -fsanitize=${_af_san} -fno-sanitize-recover=all)
endif()

function(actorflow_add_component)
  cmake_parse_arguments(C "" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(tgt actorflow_${C_NAME})
  add_library(${tgt} STATIC ${C_SOURCES})
  add_library(actorflow::${C_NAME} ALIAS ${tgt})
  set_target_properties(${tgt} PROPERTIES EXPORT_NAME ${C_NAME})
  target_include_directories(${tgt} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(${tgt} PUBLIC ${C_DEPS}
    PRIVATE ${C_PRIVATE_DEPS} $<BUILD_INTERFACE:actorflow_warnings>)
  if(_af_san_flags)
    target_compile_options(${tgt} PUBLIC
      "$<$<COMPILE_LANGUAGE:CXX>:${_af_san_flags};-fno-omit-frame-pointer>")
    target_link_options(${tgt} PUBLIC ${_af_san_flags})
  endif()
  if(ACTORFLOW_NATIVE)
    # Public: whoever includes the headers must see the same Eigen.
    target_compile_options(${tgt} PUBLIC
      $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
  endif()
  install(TARGETS ${tgt} EXPORT actorflowTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/actorflow/
    DESTINATION include/actorflow)
endfunction()
