#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/interop/tensorflow/saved_model.hpp"

namespace actorflow::actors {

/// A session over a TensorFlow 2 SavedModel: its graph extended, its
/// variables restored from the model's tensor bundle; runs its signatures
/// by key.
///
/// ~~~
/// std::unique_ptr<actors::saved_model_session> m;
/// ACTORFLOW_RETURN_IF_ERROR(
///   actors::saved_model_session::open(e, "model_dir", {"serve"}, &m));
/// std::map<std::string, core::tensor> out;
/// ACTORFLOW_RETURN_IF_ERROR(m->run("serving_default", {{"x", x}}, &out));
/// ~~~
///
/// Variables live in the engine's resource manager: a signature that
/// updates them (a training step) changes what later runs read.
class saved_model_session {
public:
  /// Reads the SavedModel in `dir` (`interop::tensorflow::load_saved_model`),
  /// extends a new session of `e` with its graph and restores its variables.
  static core::status open(engine& e, const std::string& dir,
                           const std::vector<std::string>& tags,
                           std::unique_ptr<saved_model_session>* out);

  const interop::tensorflow::saved_model& model() const noexcept {
    return model_;
  }

  /// Runs signature `key`: feeds `inputs` by the signature's input keys
  /// (each one, of its dtype and shape) and returns every output by key.
  /// An unknown signature or key, a missing input, a wrong dtype or shape
  /// is `invalid_argument` naming it.
  core::status run(const std::string& key,
                   const std::map<std::string, core::tensor>& inputs,
                   std::map<std::string, core::tensor>* outputs);

  /// As `run`, with run options (a trace, say) and what the run reports.
  core::status run(const run_options& options, const std::string& key,
                   const std::map<std::string, core::tensor>& inputs,
                   std::map<std::string, core::tensor>* outputs,
                   run_metadata* metadata);

  /// Writes the model to `dir` as a SavedModel TensorFlow loads: its
  /// saved_model.pb and assets copied, its variables as they are now
  /// (after training steps, say) saved by the model's own save function
  /// into `dir/variables`. `dir` must not be the model's own directory.
  core::status save(const std::string& dir);

  /// The signature `key`, or `not_found` naming the ones there are.
  core::status find_signature(const std::string& key,
                              const interop::tensorflow::signature** out) const;

private:
  explicit saved_model_session(engine& e) : session_(e) {
    // nop
  }

  interop::tensorflow::saved_model model_;
  session session_;
};

} // namespace actorflow::actors
