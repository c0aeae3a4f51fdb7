// TensorFlow 2 SavedModels from Python: loaded on an engine of their own,
// signatures run by key with the GIL released.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/saved_model_session.hpp"
#include "attr_conversion.hpp"
#include "bindings.hpp"
#include "engine_config.hpp"
#include "errors.hpp"
#include "tensor_conversion.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

/// A TensorFlow 2 SavedModel on an engine of its own, its variables
/// restored: signatures run by key.
class saved_model_handle {
public:
  saved_model_handle(const std::string& dir,
                     const std::vector<std::string>& tags, nb::dict config)
    : engine_(make_engine(config)) {
    core::status st;
    {
      nb::gil_scoped_release release;
      st = actors::saved_model_session::open(*engine_, dir, tags, &model_);
    }
    throw_if_error(st);
  }

  saved_model_handle(const saved_model_handle&) = delete;
  saved_model_handle& operator=(const saved_model_handle&) = delete;

  ~saved_model_handle() {
    {
      nb::gil_scoped_release release;
      model_.reset();
      engine_.reset();
    }
    releases_->drain();
  }

  /// Every signature: key -> {method, inputs, outputs}, each input and
  /// output a (key, dtype, shape) tuple.
  nb::dict signatures() const {
    nb::dict out;
    for (const auto& [key, sig] : model_->model().signatures) {
      auto tensors
        = [](const std::vector<interop::tensorflow::signature_tensor>& ts) {
            nb::list l;
            for (const auto& t : ts)
              l.append(
                nb::make_tuple(t.key, dtype_name(t.type), from_shape(t.shape)));
            return l;
          };
      nb::dict d;
      d["method"] = sig.method;
      d["inputs"] = tensors(sig.inputs);
      d["outputs"] = tensors(sig.outputs);
      out[key.c_str()] = d;
    }
    return out;
  }

  nb::dict run(const std::string& key,
               const std::map<std::string, nb::object>& fed) {
    std::map<std::string, core::tensor> inputs, outputs;
    for (const auto& [name, value] : fed)
      inputs.emplace(name, to_feed(value, releases_));
    core::status st;
    {
      nb::gil_scoped_release release;
      st = model_->run(key, inputs, &outputs);
    }
    releases_->drain();
    throw_if_error(st);
    nb::dict out;
    for (auto& [k, t] : outputs)
      out[k.c_str()] = to_numpy(std::move(t));
    return out;
  }

  void save(const std::string& dir) {
    core::status st;
    {
      nb::gil_scoped_release release;
      st = model_->save(dir);
    }
    throw_if_error(st);
  }

private:
  static std::unique_ptr<actors::engine> make_engine(nb::dict config) {
    actors::engine_options eo;
    apply_config(config, &eo, nullptr);
    auto e = std::make_unique<actors::engine>(std::move(eo));
    throw_if_error(e->init_status());
    return e;
  }

  std::unique_ptr<actors::engine> engine_;
  std::unique_ptr<actors::saved_model_session> model_;
  std::shared_ptr<release_queue> releases_ = std::make_shared<release_queue>();
};

} // namespace

void bind_saved_models(nb::module_& m) {
  nb::class_<saved_model_handle>(m, "SavedModel",
                                 "A TensorFlow 2 SavedModel, loaded.")
    .def(
      nb::init<const std::string&, const std::vector<std::string>&, nb::dict>(),
      "dir"_a, "tags"_a, "config"_a = nb::dict())
    .def_prop_ro("signatures", &saved_model_handle::signatures)
    .def("run", &saved_model_handle::run, "key"_a, "inputs"_a,
         "Runs signature `key`; returns its outputs by key.")
    .def("save", &saved_model_handle::save, "dir"_a,
         "Writes the model, its variables as they are now, to `dir`.");
}

} // namespace actorflow::python
