#include "actorflow/core/device_name.hpp"

#include <cctype>
#include <charconv>
#include <vector>

namespace actorflow::core {

namespace {

std::optional<int> parse_int(std::string_view x) {
  int result = 0;
  if (x.empty())
    return std::nullopt;
  auto [ptr, ec] = std::from_chars(x.data(), x.data() + x.size(), result);
  if (ec != std::errc{} || ptr != x.data() + x.size() || result < 0)
    return std::nullopt;
  return result;
}

std::string lower(std::string_view x) {
  std::string out{x};
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool valid_type(std::string_view x) {
  if (x.empty())
    return false;
  for (auto c : x)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

} // namespace

std::optional<device_name> device_name::parse(std::string_view text) {
  device_name result;
  if (text.empty())
    return result;
  // Split at '/', ignoring a leading slash.
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto next = text.find('/', pos);
    if (next == std::string_view::npos)
      next = text.size();
    if (next > pos)
      parts.push_back(text.substr(pos, next - pos));
    else if (pos != 0 && next != text.size())
      return std::nullopt; // "//"
    pos = next + 1;
  }
  if (parts.empty())
    return std::nullopt;
  auto set_device = [&](std::string_view type, std::string_view id) {
    if (!valid_type(type) || result.type)
      return false;
    result.type = lower(type);
    if (id == "*")
      return true;
    auto n = parse_int(id);
    if (!n)
      return false;
    result.id = *n;
    return true;
  };
  for (auto part : parts) {
    auto colon = part.find(':');
    if (colon == std::string_view::npos)
      return std::nullopt;
    auto key = part.substr(0, colon);
    auto rest = part.substr(colon + 1);
    if (key == "job") {
      if (rest.empty() || result.job)
        return std::nullopt;
      result.job = std::string{rest};
    } else if (key == "task" || key == "replica") {
      auto n = parse_int(rest);
      if (!n)
        return std::nullopt;
      if (key == "task")
        result.task = *n;
    } else if (key == "device") {
      auto c2 = rest.find(':');
      if (c2 == std::string_view::npos)
        return std::nullopt;
      if (!set_device(rest.substr(0, c2), rest.substr(c2 + 1)))
        return std::nullopt;
    } else {
      if (!set_device(key, rest))
        return std::nullopt;
    }
  }
  return result;
}

bool device_name::matches(const device_name& full) const noexcept {
  return (!job || job == full.job) && (!task || task == full.task)
         && (!type || type == full.type) && (!id || id == full.id);
}

std::string device_name::to_string() const {
  std::string out;
  if (job)
    out += "/job:" + *job;
  if (task)
    out += "/task:" + std::to_string(*task);
  if (type) {
    out += "/device:" + *type + ":";
    out += id ? std::to_string(*id) : std::string{"*"};
  }
  return out;
}

} // namespace actorflow::core
