#pragma once

#include <memory>
#include <string>

#include "actorflow/core/dtype.hpp"
#include "actorflow/core/shape.hpp"

namespace actorflow::graph {

namespace detail {
struct builder_state;
} // namespace detail

/// A handle to one node being built (for control dependencies and targets).
struct operation {
  std::string name;
};

/// A handle to one output of a node being built: what op functions take
/// and return. Carries the inferred dtype and (possibly partial) shape.
///
/// A failed build step returns an invalid handle; the error is in the
/// scope's `status()`, and ops given an invalid handle do nothing.
class output {
public:
  output() = default;

  output(std::shared_ptr<detail::builder_state> state, std::string node,
         int port, core::dtype type, core::shape s, bool is_ref);

  bool valid() const noexcept {
    return state_ != nullptr;
  }

  /// Returns `node:port` (or `node` for port 0), as fetches name it.
  std::string name() const;

  const std::string& node_name() const noexcept {
    return node_;
  }

  int port() const noexcept {
    return port_;
  }

  core::dtype dtype() const noexcept {
    return type_;
  }

  const core::shape& shape() const noexcept {
    return shape_;
  }

  bool is_ref() const noexcept {
    return is_ref_;
  }

  operation op() const {
    return operation{node_};
  }

  const std::shared_ptr<detail::builder_state>& state() const noexcept {
    return state_;
  }

private:
  std::shared_ptr<detail::builder_state> state_;
  std::string node_;
  int port_ = 0;
  core::dtype type_ = core::dtype::invalid;
  core::shape shape_;
  bool is_ref_ = false;
};

} // namespace actorflow::graph
