// Calls Python functions from inside C++ builders (loop bodies, branches,
// mapped functions) without letting an exception cross them.
#pragma once

#include <exception>

#include "actorflow/graph/scope.hpp"
#include "errors.hpp"

namespace actorflow::python {

/// Calls Python functions from inside a C++ builder. No exception crosses
/// the builder: the first is kept, the scope records an error so that the
/// builder stops, and `finish` raises it once the builder has returned.
class python_calls {
public:
  explicit python_calls(const graph::scope& s) : scope_(s) {
    // nop
  }

  template <class F>
  auto operator()(F&& f) -> decltype(f()) {
    if (error_)
      return {};
    try {
      return f();
    } catch (...) {
      error_ = std::current_exception();
      scope_.record_error(
        core::cancelled_error("a Python function given to a builder raised"));
      return {};
    }
  }

  /// Raises what a Python function raised, else the builder's error.
  void finish() {
    auto st = scope_.take_error();
    if (error_)
      std::rethrow_exception(error_);
    throw_if_error(st);
  }

private:
  graph::scope scope_;
  std::exception_ptr error_;
};

} // namespace actorflow::python
