#include "rows.hpp"

namespace actorflow::ops::cpu {

core::status check_prefix(const core::shape& prefix, const core::shape& s,
                          const char* prefix_name, const char* data_name) {
  bool ok = prefix.rank() <= s.rank();
  for (int d = 0; ok && d < prefix.rank(); ++d)
    ok = prefix.dim(d) == s.dim(d);
  if (ok)
    return core::status::ok();
  return core::invalid_argument_error(
    prefix_name, " shape ", prefix.to_string(), " is not a prefix of ",
    data_name, " shape ", s.to_string());
}

core::shape rows_shape(int64_t rows, const core::shape& s, int skip) {
  std::vector<int64_t> dims{rows};
  dims.insert(dims.end(), s.dims().begin() + skip, s.dims().end());
  return core::shape{std::move(dims)};
}

int64_t row_size(const core::shape& data, int skip) {
  int64_t n = 1;
  for (int d = skip; d < data.rank(); ++d)
    n *= data.dim(d);
  return n;
}

} // namespace actorflow::ops::cpu
