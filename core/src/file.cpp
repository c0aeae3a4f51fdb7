#include "actorflow/core/file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace actorflow::core {

status read_file(const std::string& path, std::string* data,
                 const std::string& what) {
  std::ifstream in{path, std::ios::binary | std::ios::ate};
  if (!in)
    return not_found_error("cannot open ", what, " '", path,
                           "': ", std::strerror(errno));
  auto size = in.tellg();
  if (size < 0)
    return data_loss_error("cannot read ", what, " '", path, "'");
  data->resize(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(data->data(), size))
    return data_loss_error("cannot read ", what, " '", path, "'");
  return status::ok();
}

} // namespace actorflow::core
