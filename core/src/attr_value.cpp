#include "actorflow/core/attr_value.hpp"

#include <sstream>

namespace actorflow::core {

namespace {

template <class... Fs>
struct overload : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overload(Fs...) -> overload<Fs...>;

template <class T>
struct is_vector : std::false_type {};

template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
void print(std::ostream& out, const T& x) {
  if constexpr (std::is_same_v<T, dtype>)
    out << to_string(x);
  else if constexpr (std::is_same_v<T, shape>)
    out << x.to_string();
  else if constexpr (std::is_same_v<T, tensor>)
    out << x.debug_string(4);
  else if constexpr (std::is_same_v<T, std::string>)
    out << '"' << x << '"';
  else if constexpr (std::is_same_v<T, bool>)
    out << (x ? "true" : "false");
  else
    out << x;
}

} // namespace

std::string attr_type_name(const attr_value& x) {
  static constexpr const char* names[] = {
    "int",          "float",      "bool",        "string",       "type",
    "shape",        "tensor",     "list(int)",   "list(float)",  "list(bool)",
    "list(string)", "list(type)", "list(shape)", "list(tensor)",
  };
  return names[x.index()];
}

std::string to_string(const attr_value& x) {
  std::ostringstream out;
  std::visit(
    [&](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::vector<bool>>) {
        out << '[';
        for (size_t i = 0; i < v.size(); ++i)
          out << (i ? "," : "") << (v[i] ? "true" : "false");
        out << ']';
      } else if constexpr (is_vector<T>::value) {
        out << '[';
        for (size_t i = 0; i < v.size(); ++i) {
          if (i > 0)
            out << ',';
          print(out, v[i]);
        }
        out << ']';
      } else {
        print(out, v);
      }
    },
    x);
  return out.str();
}

bool attr_equal(const attr_value& x, const attr_value& y) {
  if (x.index() != y.index())
    return false;
  if (auto* t = std::get_if<tensor>(&x))
    return t->equals(std::get<tensor>(y));
  if (auto* ts = std::get_if<std::vector<tensor>>(&x)) {
    const auto& us = std::get<std::vector<tensor>>(y);
    if (ts->size() != us.size())
      return false;
    for (size_t i = 0; i < ts->size(); ++i)
      if (!(*ts)[i].equals(us[i]))
        return false;
    return true;
  }
  return x == y;
}

} // namespace actorflow::core
