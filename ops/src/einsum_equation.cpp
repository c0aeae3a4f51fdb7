#include "einsum_equation.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace actorflow::ops::detail {

namespace {

/// Splits `s` at every `sep`.
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts{""};
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

/// The labels of one operand or the output: its letters, with the
/// ellipsis (if any) standing for `dims` dimensions. Sets `has_ellipsis`.
core::status expand(const std::string& term, int dims, std::string* out,
                    bool* has_ellipsis) {
  auto at = term.find("...");
  *has_ellipsis = at != std::string::npos;
  auto letters = term;
  if (*has_ellipsis)
    letters.erase(at, 3);
  for (char c : letters)
    if (!std::isalpha(static_cast<unsigned char>(c)))
      return core::invalid_argument_error(
        "Einsum term '", term, "' has '", std::string{c},
        "'; labels are letters, with at most one '...'");
  std::string ellipsis;
  for (int i = 0; i < dims; ++i)
    ellipsis += static_cast<char>('0' + i);
  *out = *has_ellipsis ? letters.substr(0, at) + ellipsis + letters.substr(at)
                       : letters;
  return core::status::ok();
}

} // namespace

core::status einsum_equation::parse(const std::string& equation,
                                    const std::vector<int>& ranks,
                                    einsum_equation* out) {
  std::string text;
  for (char c : equation)
    if (c != ' ')
      text += c;
  auto arrow = text.find("->");
  auto lhs = text.substr(0, arrow);
  auto terms = split(lhs, ',');
  if (terms.size() != ranks.size())
    return core::invalid_argument_error("Einsum equation '", equation, "' has ",
                                        terms.size(), " operands, the node ",
                                        ranks.size());
  // The dimensions the ellipsis stands for: the most any operand leaves.
  int ellipsis_dims = 0;
  einsum_equation eq;
  for (size_t i = 0; i < terms.size(); ++i) {
    auto letters = terms[i].size();
    bool dots = terms[i].find("...") != std::string::npos;
    auto named = static_cast<int>(dots ? letters - 3 : letters);
    if (dots ? ranks[i] < named : ranks[i] != named)
      return core::invalid_argument_error("Einsum term '", terms[i],
                                          "' does not fit operand ", i,
                                          " of rank ", ranks[i]);
    if (dots)
      ellipsis_dims = std::max(ellipsis_dims, ranks[i] - named);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    bool dots = false;
    auto named = static_cast<int>(terms[i].size())
                 - (terms[i].find("...") != std::string::npos ? 3 : 0);
    std::string labels;
    ACTORFLOW_RETURN_IF_ERROR(
      expand(terms[i], ranks[i] - named, &labels, &dots));
    // An ellipsis of fewer dimensions is right-aligned: its labels are
    // the last ones.
    if (dots && ranks[i] - named < ellipsis_dims)
      for (auto& c : labels)
        if (is_ellipsis_label(c))
          c = static_cast<char>(c + (ellipsis_dims - (ranks[i] - named)));
    eq.inputs.push_back(std::move(labels));
  }
  if (arrow != std::string::npos) {
    bool dots = false;
    ACTORFLOW_RETURN_IF_ERROR(
      expand(text.substr(arrow + 2), ellipsis_dims, &eq.output, &dots));
  } else {
    std::map<char, int> count;
    for (const auto& labels : eq.inputs)
      for (char c : labels)
        ++count[c];
    for (int i = 0; i < ellipsis_dims; ++i)
      eq.output += static_cast<char>('0' + i);
    for (const auto& [c, n] : count)
      if (n == 1 && !is_ellipsis_label(c))
        eq.output += c;
  }
  for (size_t i = 0; i < eq.output.size(); ++i)
    if (eq.output.find(eq.output[i], i + 1) != std::string::npos)
      return core::invalid_argument_error("Einsum equation '", equation,
                                          "' repeats a label in its output");
  for (const auto& labels : eq.inputs)
    for (size_t i = 0; i < labels.size(); ++i)
      if (labels.find(labels[i], i + 1) != std::string::npos)
        return core::unimplemented_error(
          "Einsum equation '", equation, "' repeats label '",
          std::string{labels[i]},
          "' in one operand (a diagonal); actorflow does not take those");
  for (char c : eq.output)
    if (std::none_of(eq.inputs.begin(), eq.inputs.end(),
                     [c](const std::string& in) {
                       return in.find(c) != std::string::npos;
                     }))
      return core::invalid_argument_error("Einsum equation '", equation,
                                          "' has output label '",
                                          std::string{c}, "' in no operand");
  *out = std::move(eq);
  return core::status::ok();
}

core::status
einsum_equation::output_shape(const std::vector<core::shape>& shapes,
                              core::shape* out) const {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t d = 0; d < inputs[i].size(); ++d) {
      char c = inputs[i][d];
      auto n = shapes[i].dim(static_cast<int>(d));
      auto [it, fresh] = size.try_emplace(c, n);
      auto& known = it->second;
      if (fresh || n == known || n < 0)
        continue;
      if (known < 0 || (is_ellipsis_label(c) && known == 1)) {
        known = n;
      } else if (!(is_ellipsis_label(c) && n == 1)) {
        return core::invalid_argument_error(
          "Einsum operands disagree on the size of ",
          is_ellipsis_label(c) ? std::string{"a broadcast dimension"}
                               : "label '" + std::string{c} + "'",
          ": ", known, " and ", n);
      }
    }
  std::vector<int64_t> dims;
  for (char c : output)
    dims.push_back(size.at(c));
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

} // namespace actorflow::ops::detail
