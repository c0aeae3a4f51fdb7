#pragma once

#include <string>

#include "actorflow/core/attr_value.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::ops {

/// Typed access to the attrs of a node, for kernels and shape functions.
class attr_reader {
public:
  explicit attr_reader(const core::attr_map& attrs) : attrs_(attrs) {
    // nop
  }

  /// Reads attr `name` into `out`; a missing attr or one of another type is
  /// `invalid_argument`.
  template <class T>
  core::status get_attr(const std::string& name, T* out) const {
    auto i = attrs_.find(name);
    if (i == attrs_.end())
      return core::invalid_argument_error("missing attr '", name, "'");
    if (auto* v = std::get_if<T>(&i->second)) {
      *out = *v;
      return core::status::ok();
    }
    return core::invalid_argument_error("attr '", name, "' has type ",
                                        core::attr_type_name(i->second));
  }

  /// Reads attr `name`, or returns `fallback` if it is absent.
  template <class T>
  T attr_or(const std::string& name, T fallback) const {
    auto i = attrs_.find(name);
    if (i != attrs_.end())
      if (auto* v = std::get_if<T>(&i->second))
        return *v;
    return fallback;
  }

  const core::attr_map& attrs() const noexcept {
    return attrs_;
  }

private:
  const core::attr_map& attrs_;
};

} // namespace actorflow::ops
