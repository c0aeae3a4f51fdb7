#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/io_ops.hpp"

namespace actorflow::actors {

/// Numbered checkpoints of a session's variables in one directory:
/// `<prefix>-<step>` tensor bundles (`.index` and `.data-00000-of-00001`,
/// TensorFlow's format) written by a `graph::saver`, the last `keep` of
/// them kept (TensorFlow's `tf.train.Saver(max_to_keep=...)`). A
/// `<prefix>-<step>` file of actorflow's old format (AFCKPT2) is still
/// restored, for this release.
///
/// Nothing is deleted that a newer good checkpoint has not superseded: a
/// `save` that succeeded deletes only checkpoints outside the newest `keep`
/// of this manager's line (the one `restore_latest` restored and those
/// before it, then those it saved). Checkpoints another run left in the
/// directory are superseded by the first save of a run that did not
/// restore them.
class checkpoint_manager {
public:
  /// What `restore_latest` does with a checkpoint that loads but does not
  /// fit the graph (a variable missing, of another dtype or shape).
  enum class fit {
    all,       ///< It is an error: failed_precondition.
    what_fits, ///< Restore the variables that fit, leave the others.
  };

  /// `dir` is created if missing; `keep` >= 1.
  checkpoint_manager(session& sess, graph::saver ops, std::string dir,
                     std::string prefix = "ckpt", int keep = 5);

  /// Writes the checkpoint of `step`, then deletes what it supersedes.
  core::status save(int64_t step);

  /// The directory it keeps checkpoints in.
  const std::string& directory() const noexcept {
    return dir_;
  }

  /// The steps with a checkpoint in the directory, oldest first.
  std::vector<int64_t> steps() const;

  /// The path of the checkpoint of `step`: the bundle's prefix.
  std::string path(int64_t step) const;

  /// Restores every variable from the checkpoint of `step`: data_loss when
  /// the file is damaged or not a file, not_found or invalid_argument when
  /// a variable is missing or differs (the variables before it may have
  /// been assigned).
  core::status restore(int64_t step);

  /// Restores the variables the checkpoint of `step` has with the dtype and
  /// shape the graph has (TensorFlow's `init_from_checkpoint`), appending
  /// the names of the others to `skipped`. data_loss when it is damaged.
  core::status restore_what_fits(int64_t step,
                                 std::vector<std::string>* skipped);

  /// Restores the newest checkpoint that loads, setting `*step` to its step:
  /// a damaged one is logged and skipped for the one before. not_found when
  /// the directory has none; data_loss when none loads; failed_precondition
  /// when the newest that loads does not fit and `mode` is `fit::all`.
  core::status restore_latest(int64_t* step, fit mode = fit::all,
                              std::vector<std::string>* skipped = nullptr);

private:
  /// Whether the checkpoint of `step` is a file of the old format.
  bool legacy(int64_t step) const;

  /// Deletes the files of the checkpoint of `step`.
  void remove(int64_t step) const;

  session& sess_;
  graph::saver ops_;
  std::string dir_;
  std::string prefix_;
  int keep_;
  /// This manager's line of checkpoints, oldest first (see the class).
  std::vector<int64_t> line_;
};

} // namespace actorflow::actors
