#include "actorflow/core/node_def.hpp"

#include <charconv>

namespace actorflow::core {

bool input_ref::parse(std::string_view text, input_ref* out) {
  input_ref result;
  if (is_control_input(text)) {
    result.control = true;
    text.remove_prefix(1);
  }
  if (text.empty())
    return false;
  auto colon = text.rfind(':');
  if (colon != std::string_view::npos && !result.control) {
    auto port = text.substr(colon + 1);
    int value = 0;
    auto [ptr, ec]
      = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc{} || ptr != port.data() + port.size()
        || value < 0)
      return false;
    result.port = value;
    text = text.substr(0, colon);
    if (text.empty())
      return false;
  } else if (colon != std::string_view::npos) {
    return false;
  }
  result.node = std::string{text};
  *out = std::move(result);
  return true;
}

std::vector<input_ref> data_inputs(const node_def& node) {
  std::vector<input_ref> result;
  for (const auto& text : node.inputs) {
    input_ref r;
    if (!is_control_input(text) && input_ref::parse(text, &r))
      result.push_back(std::move(r));
  }
  return result;
}

std::vector<std::string> control_inputs(const node_def& node) {
  std::vector<std::string> result;
  for (const auto& text : node.inputs)
    if (is_control_input(text))
      result.push_back(text.substr(1));
  return result;
}

std::string input_ref::to_string() const {
  if (control)
    return "^" + node;
  if (port == 0)
    return node;
  return node + ":" + std::to_string(port);
}

} // namespace actorflow::core
