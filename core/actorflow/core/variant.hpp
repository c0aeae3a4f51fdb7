#pragma once

#include <memory>
#include <string>

namespace actorflow::core {

/// A value of TensorFlow's `variant` dtype: an object that ops make and
/// read (a TensorList), opaque to everything else. Immutable once shared:
/// an op that changes one makes a new one, or changes it in place only
/// when nothing else holds it.
class variant_value {
public:
  virtual ~variant_value();

  /// What debug strings and errors print of it.
  virtual std::string debug_string() const = 0;
};

/// An element of a `variant` tensor; empty until an op sets it.
using variant = std::shared_ptr<const variant_value>;

} // namespace actorflow::core
