// TensorBoard from Python: the event file a FileWriter writes.
#include <memory>
#include <string>

#include <nanobind/stl/string.h>

#include "actorflow/interop/summary_writer.hpp"
#include "bindings.hpp"
#include "errors.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

/// TensorBoard's event file in a log directory, as tf.summary.FileWriter
/// writes it.
class event_writer {
public:
  explicit event_writer(const std::string& logdir) {
    throw_if_error(interop::summary_writer::open(logdir, &writer_));
  }

  void add_summary(nb::bytes summary, int64_t step) {
    throw_if_error(
      writer_->add_summary(std::string{summary.c_str(), summary.size()}, step));
  }

  void add_scalar(const std::string& tag, double value, int64_t step) {
    throw_if_error(writer_->add_scalar(tag, value, step));
  }

  void add_graph(const graph::graph& g) {
    throw_if_error(writer_->add_graph(g));
  }

  void flush() {
    throw_if_error(writer_->flush());
  }

  const std::string& path() const {
    return writer_->path();
  }

private:
  std::unique_ptr<interop::summary_writer> writer_;
};

} // namespace

void bind_summaries(nb::module_& m) {
  nb::class_<event_writer>(m, "EventWriter",
                           "TensorBoard's event file in a log directory.")
    .def(nb::init<const std::string&>(), "logdir"_a)
    .def("add_summary", &event_writer::add_summary, "summary"_a, "step"_a,
         "A serialized Summary (a summary op's value) at `step`.")
    .def("add_scalar", &event_writer::add_scalar, "tag"_a, "value"_a, "step"_a)
    .def("add_graph", &event_writer::add_graph, "graph"_a)
    .def("flush", &event_writer::flush)
    .def_prop_ro("path", &event_writer::path);
}

} // namespace actorflow::python
