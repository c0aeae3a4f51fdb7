// Turns the engine's statuses into Python exceptions (actorflow.errors).
#include "errors.hpp"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace actorflow::python {

status_error::status_error(core::status st)
  : std::runtime_error(st.to_string()), status_(std::move(st)) {
  // nop
}

void throw_if_error(const core::status& st) {
  if (!st.is_ok())
    throw status_error{st};
}

void bind_errors(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const status_error& e) {
      // The classes live in Python (actorflow/errors.py); it is imported
      // before the module is, so this finds it in sys.modules.
      const auto& st = e.status();
      auto errors = nb::module_::import_("actorflow.errors");
      auto exc
        = errors.attr("_make")(static_cast<int>(st.code()), st.to_string(),
                               st.node(), st.op(), st.device());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())),
                      exc.ptr());
    }
  });
}

} // namespace actorflow::python
