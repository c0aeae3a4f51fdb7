#include "actorflow/core/shape.hpp"

#include <ostream>

namespace actorflow::core {

std::ostream& operator<<(std::ostream& out, const shape& x) {
  return out << x.to_string();
}

bool shape::fully_defined() const noexcept {
  if (!known_rank_)
    return false;
  for (auto d : dims_)
    if (d < 0)
      return false;
  return true;
}

int64_t shape::num_elements() const noexcept {
  if (!fully_defined())
    return -1;
  int64_t n = 1;
  for (auto d : dims_)
    n *= d;
  return n;
}

bool shape::compatible_with(const shape& other) const noexcept {
  if (!known_rank_ || !other.known_rank_)
    return true;
  if (dims_.size() != other.dims_.size())
    return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i])
      return false;
  return true;
}

shape shape::merge(const shape& other) const {
  if (!known_rank_)
    return other;
  if (!other.known_rank_)
    return *this;
  shape result = *this;
  for (size_t i = 0; i < dims_.size() && i < other.dims_.size(); ++i)
    if (result.dims_[i] < 0)
      result.dims_[i] = other.dims_[i];
  return result;
}

std::string shape::to_string() const {
  if (!known_rank_)
    return "<unknown>";
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0)
      out += ',';
    // -1 is unknown; any other negative size is shown as it is, so an
    // error about it says what was given.
    out += dims_[i] == -1 ? std::string{"?"} : std::to_string(dims_[i]);
  }
  out += ']';
  return out;
}

} // namespace actorflow::core
