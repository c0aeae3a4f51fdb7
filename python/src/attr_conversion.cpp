// Converts op attributes between Python values and the engine's attr_value.
#include "attr_conversion.hpp"

#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.hpp"
#include "tensor_conversion.hpp"

namespace nb = nanobind;

namespace actorflow::python {

namespace {

core::dtype to_dtype(nb::handle x) {
  auto name = nb::cast<std::string>(nb::str(x));
  auto t = core::parse_dtype(name);
  if (!t)
    throw status_error{
      core::invalid_argument_error("unknown dtype '", name, "'")};
  return *t;
}

core::shape to_shape(nb::handle x) {
  if (x.is_none())
    return core::shape::unknown();
  std::vector<int64_t> dims;
  for (auto d : x)
    dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
  return core::shape{std::move(dims)};
}

core::tensor to_attr_tensor(nb::handle x) {
  if (nb::isinstance<core::tensor>(x))
    return nb::cast<core::tensor>(x);
  bool copied = false;
  auto t = to_tensor(nb::cast<host_array>(x), core::dtype::invalid, &copied);
  if (copied)
    return t;
  // A graph's constant owns its elements: the array may change later.
  core::tensor own;
  throw_if_error(t.deep_copy(&own));
  return own;
}

std::string to_string(nb::handle x) {
  if (nb::isinstance<nb::bytes>(x)) {
    auto b = nb::borrow<nb::bytes>(x);
    return std::string{b.c_str(), b.size()};
  }
  return nb::cast<std::string>(x);
}

template <class T, class F>
std::vector<T> to_list(nb::handle x, F each) {
  std::vector<T> out;
  for (auto item : x)
    out.push_back(each(item));
  return out;
}

core::attr_value to_attr(const std::string& type, nb::handle x) {
  if (type == "int")
    return nb::cast<int64_t>(x);
  if (type == "float")
    return nb::cast<double>(x);
  if (type == "bool")
    return nb::cast<bool>(x);
  if (type == "string")
    return to_string(x);
  if (type == "type")
    return to_dtype(x);
  if (type == "shape")
    return to_shape(x);
  if (type == "tensor")
    return to_attr_tensor(x);
  if (type == "list(int)")
    return to_list<int64_t>(x,
                            [](nb::handle v) { return nb::cast<int64_t>(v); });
  if (type == "list(float)")
    return to_list<double>(x, [](nb::handle v) { return nb::cast<double>(v); });
  if (type == "list(bool)")
    return to_list<bool>(x, [](nb::handle v) { return nb::cast<bool>(v); });
  if (type == "list(string)")
    return to_list<std::string>(x, to_string);
  if (type == "list(type)")
    return to_list<core::dtype>(x, to_dtype);
  if (type == "list(shape)")
    return to_list<core::shape>(x, to_shape);
  if (type == "list(tensor)")
    return to_list<core::tensor>(x, to_attr_tensor);
  throw status_error{core::unimplemented_error("attrs of type ", type,
                                               " cannot be set from Python")};
}

template <class T, class F>
nb::object from_list(const std::vector<T>& xs, F each) {
  nb::list out;
  for (const auto& x : xs)
    out.append(each(x));
  return std::move(out);
}

} // namespace

nb::object from_shape(const core::shape& s) {
  if (!s.known_rank())
    return nb::none();
  nb::list dims;
  for (auto d : s.dims())
    dims.append(d < 0 ? nb::none() : nb::int_(d));
  return std::move(dims);
}

core::attr_map to_attrs(const ops::op_def& op, nb::dict attrs) {
  core::attr_map out;
  for (auto [key, value] : attrs) {
    auto name = nb::cast<std::string>(key);
    const auto* def = op.find_attr(name);
    if (def == nullptr) {
      if (!name.empty() && name[0] == '_' && nb::isinstance<nb::str>(value)) {
        out[name] = nb::cast<std::string>(value);
        continue;
      }
      throw status_error{
        core::invalid_argument_error(op.name, " has no attr '", name, "'")};
    }
    try {
      out[name] = to_attr(def->type, value);
    } catch (const nb::cast_error&) {
      throw status_error{core::invalid_argument_error(
        "attr '", name, "' of ", op.name, " is a ", def->type, ", got ",
        nb::cast<std::string>(nb::repr(value)))};
    }
  }
  return out;
}

nb::object from_attr(const core::attr_value& value) {
  return std::visit(
    [](const auto& x) -> nb::object {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, core::dtype>)
        return nb::str(dtype_name(x).c_str());
      else if constexpr (std::is_same_v<T, core::shape>)
        return from_shape(x);
      else if constexpr (std::is_same_v<T, core::tensor>)
        return to_numpy(x);
      else if constexpr (std::is_same_v<T, std::vector<core::dtype>>)
        return from_list(
          x, [](core::dtype t) { return nb::str(dtype_name(t).c_str()); });
      else if constexpr (std::is_same_v<T, std::vector<core::shape>>)
        return from_list(x, from_shape);
      else if constexpr (std::is_same_v<T, std::vector<core::tensor>>)
        return from_list(x, [](const core::tensor& t) { return to_numpy(t); });
      else if constexpr (std::is_same_v<T, std::vector<bool>>)
        return from_list(x, [](bool b) { return nb::bool_(b); });
      else
        return nb::cast(x);
    },
    value);
}

} // namespace actorflow::python
