#include "actorflow/ops/op_def_builder.hpp"

#include <cctype>
#include <charconv>

namespace actorflow::ops {

namespace {

std::string_view trim(std::string_view x) {
  while (!x.empty() && std::isspace(static_cast<unsigned char>(x.front())))
    x.remove_prefix(1);
  while (!x.empty() && std::isspace(static_cast<unsigned char>(x.back())))
    x.remove_suffix(1);
  return x;
}

bool split(std::string_view spec, std::string_view* lhs,
           std::string_view* rhs) {
  auto colon = spec.find(':');
  if (colon == std::string_view::npos)
    return false;
  *lhs = trim(spec.substr(0, colon));
  *rhs = trim(spec.substr(colon + 1));
  return !lhs->empty() && !rhs->empty();
}

bool parse_int(std::string_view x, int64_t* out) {
  auto [ptr, ec] = std::from_chars(x.data(), x.data() + x.size(), *out);
  return ec == std::errc{} && ptr == x.data() + x.size();
}

/// Parses `[a, b, ...]`; with `unknown`, `?` stands for -1.
bool parse_int_list(std::string_view text, bool unknown,
                    std::vector<int64_t>* out) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return false;
  auto body = text.substr(1, text.size() - 2);
  while (!trim(body).empty()) {
    auto comma = body.find(',');
    auto item = trim(body.substr(0, comma));
    int64_t d = 0;
    if (unknown && item == "?")
      d = -1;
    else if (!parse_int(item, &d))
      return false;
    out->push_back(d);
    if (comma == std::string_view::npos)
      break;
    body = body.substr(comma + 1);
  }
  return true;
}

/// Parses a default value written after `=` for an attr of type `type`.
bool parse_default(std::string_view type, std::string_view text,
                   core::attr_value* out) {
  if (type == "int") {
    int64_t v = 0;
    if (!parse_int(text, &v))
      return false;
    *out = v;
  } else if (type == "float") {
    try {
      *out = std::stod(std::string{text});
    } catch (...) {
      return false;
    }
  } else if (type == "bool") {
    if (text != "true" && text != "false")
      return false;
    *out = text == "true";
  } else if (type == "string") {
    if (text.size() < 2 || text.front() != '\'' || text.back() != '\'')
      return false;
    *out = std::string{text.substr(1, text.size() - 2)};
  } else if (type == "type") {
    auto t = core::parse_dtype(text);
    if (!t)
      return false;
    *out = *t;
  } else if (type == "shape") {
    if (text == "?") {
      *out = core::shape::unknown();
      return true;
    }
    std::vector<int64_t> dims;
    if (!parse_int_list(text, true, &dims))
      return false;
    *out = core::shape{std::move(dims)};
  } else if (type == "list(int)") {
    std::vector<int64_t> values;
    if (!parse_int_list(text, false, &values))
      return false;
    *out = std::move(values);
  } else if (type.substr(0, 5) == "list(" && text == "[]") {
    // An empty list of another element type.
    if (type == "list(shape)")
      *out = std::vector<core::shape>{};
    else if (type == "list(type)")
      *out = std::vector<core::dtype>{};
    else if (type == "list(string)")
      *out = std::vector<std::string>{};
    else if (type == "list(float)")
      *out = std::vector<double>{};
    else
      return false;
  } else {
    return false;
  }
  return true;
}

} // namespace

op_def_builder::op_def_builder(std::string name) {
  def_.name = std::move(name);
}

op_def_builder& op_def_builder::input(std::string_view spec) {
  std::string_view lhs, rhs;
  arg_def arg;
  if (!split(spec, &lhs, &rhs)) {
    error_ = core::invalid_argument_error("bad input spec '", spec, "'");
    return *this;
  }
  arg.name = std::string{lhs};
  if (auto star = rhs.find('*'); star != std::string_view::npos) {
    arg.number_attr = std::string{trim(rhs.substr(0, star))};
    rhs = trim(rhs.substr(star + 1));
  }
  if (rhs.substr(0, 4) == "Ref(" && rhs.back() == ')') {
    arg.is_ref = true;
    rhs = trim(rhs.substr(4, rhs.size() - 5));
  }
  if (auto t = core::parse_dtype(rhs))
    arg.type = *t;
  else
    arg.type_attr = std::string{rhs};
  def_.inputs.push_back(std::move(arg));
  return *this;
}

op_def_builder& op_def_builder::output(std::string_view spec) {
  input(spec);
  if (error_.is_ok()) {
    def_.outputs.push_back(std::move(def_.inputs.back()));
    def_.inputs.pop_back();
  }
  return *this;
}

op_def_builder& op_def_builder::attr(std::string_view spec) {
  std::string_view lhs, rhs;
  if (!split(spec, &lhs, &rhs)) {
    error_ = core::invalid_argument_error("bad attr spec '", spec, "'");
    return *this;
  }
  attr_def a;
  a.name = std::string{lhs};
  std::string_view default_text;
  auto eq = rhs.find('=');
  if (eq != std::string_view::npos) {
    default_text = trim(rhs.substr(eq + 1));
    rhs = trim(rhs.substr(0, eq));
  }
  if (!rhs.empty() && rhs.front() == '{') {
    if (rhs.back() != '}') {
      error_ = core::invalid_argument_error("bad attr spec '", spec, "'");
      return *this;
    }
    a.type = "type";
    auto body = rhs.substr(1, rhs.size() - 2);
    while (!trim(body).empty()) {
      auto comma = body.find(',');
      auto item = trim(body.substr(0, comma));
      auto t = core::parse_dtype(item);
      if (!t) {
        error_ = core::invalid_argument_error("unknown dtype '", item,
                                              "' in attr spec '", spec, "'");
        return *this;
      }
      a.allowed.push_back(*t);
      if (comma == std::string_view::npos)
        break;
      body = body.substr(comma + 1);
    }
  } else {
    a.type = std::string{rhs};
  }
  if (!default_text.empty()) {
    core::attr_value v;
    if (!parse_default(a.type, default_text, &v)) {
      error_
        = core::invalid_argument_error("bad default in attr spec '", spec, "'");
      return *this;
    }
    a.default_value = std::move(v);
  }
  def_.attrs.push_back(std::move(a));
  return *this;
}

op_def_builder& op_def_builder::shape_fn(op_def::shape_fn f) {
  def_.shape_function = std::move(f);
  return *this;
}

op_def_builder& op_def_builder::stateful() {
  def_.is_stateful = true;
  return *this;
}

core::status op_def_builder::finish(op_def* out) const {
  if (!error_.is_ok())
    return error_.with_context("", def_.name);
  for (const auto* args : {&def_.inputs, &def_.outputs})
    for (const auto& arg : *args) {
      const auto* type = def_.find_attr(arg.type_attr);
      if (!arg.type_attr.empty()
          && (type == nullptr
              || (type->type != "type" && type->type != "list(type)")))
        return core::invalid_argument_error(
          "op ", def_.name, ": argument '", arg.name,
          "' names unknown type attr '", arg.type_attr, "'");
      if (type != nullptr && type->type == "list(type)"
          && !arg.number_attr.empty())
        return core::invalid_argument_error(
          "op ", def_.name, ": argument '", arg.name,
          "' takes its length from its list(type) attr '", arg.type_attr,
          "', not from '", arg.number_attr, "'");
      const auto* number = def_.find_attr(arg.number_attr);
      if (!arg.number_attr.empty()
          && (number == nullptr || number->type != "int"))
        return core::invalid_argument_error(
          "op ", def_.name, ": argument '", arg.name,
          "' names unknown int attr '", arg.number_attr, "'");
    }
  *out = def_;
  return core::status::ok();
}

} // namespace actorflow::ops
