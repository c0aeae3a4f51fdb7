// The extension module actorflow._core: the engine's C++ API, bound for the
// Python package around it (python/actorflow).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "tensor_conversion.hpp"

NB_MODULE(_core, m) {
  m.doc() = "actorflow's engine, bound with nanobind; use the `actorflow` "
            "package around it.";
  actorflow::python::bind_errors(m);
  actorflow::python::bind_tensors(m);
  actorflow::python::bind_graph(m);
  actorflow::python::bind_builders(m);
  actorflow::python::bind_sequences(m);
  actorflow::python::bind_session(m);
  actorflow::python::bind_saved_models(m);
  actorflow::python::bind_summaries(m);
}
