#include "actorflow/graph/collective_ops.hpp"

#include "actorflow/graph/array_ops.hpp"

namespace actorflow::graph {

output collective_all_reduce(const scope& s, const output& x,
                             const std::vector<std::string>& members,
                             int64_t instance_key, bool mean) {
  return s.add_node("CollectiveAllReduce", "CollectiveAllReduce", {x},
                    {{"T", x.dtype()},
                     {"members", members},
                     {"instance_key", instance_key},
                     {"reduction", std::string{mean ? "mean" : "sum"}}})[0];
}

namespace {

/// The number of elements of a fully known shape, or -1.
int64_t known_elements(const core::shape& sh) {
  if (!sh.known_rank())
    return -1;
  int64_t n = 1;
  for (auto d : sh.dims()) {
    if (d < 0)
      return -1;
    n *= d;
  }
  return n;
}

} // namespace

std::vector<output> all_reduce(const scope& s,
                               const std::vector<output>& values,
                               const all_reduce_options& o) {
  auto at = s.sub("all_reduce");
  std::vector<output> results(values.size());
  // Buckets in the values' order: a value joins the open bucket of its
  // dtype while that stays within bucket_bytes.
  struct bucket {
    core::dtype type;
    int64_t bytes = 0;
    std::vector<size_t> members;
  };
  std::vector<bucket> buckets;
  std::vector<int64_t> elements(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& x = values[i];
    elements[i] = known_elements(x.shape());
    auto bytes = elements[i] * static_cast<int64_t>(core::size_of(x.dtype()));
    bucket* open = nullptr;
    if (elements[i] >= 0 && o.bucket_bytes > 0)
      for (auto& b : buckets)
        if (b.type == x.dtype() && b.bytes >= 0
            && b.bytes + bytes <= o.bucket_bytes)
          open = &b;
    if (open == nullptr) {
      buckets.push_back(bucket{x.dtype(), elements[i] >= 0 ? 0 : -1, {}});
      open = &buckets.back();
    }
    if (elements[i] >= 0)
      open->bytes += bytes;
    open->members.push_back(i);
  }
  for (size_t b = 0; b < buckets.size(); ++b) {
    auto key = o.instance_key + static_cast<int64_t>(b);
    const auto& members = buckets[b].members;
    if (members.size() == 1) {
      auto i = members.front();
      results[i] = collective_all_reduce(at, values[i], o.members, key, o.mean);
      continue;
    }
    std::vector<output> flat;
    std::vector<int64_t> sizes;
    for (auto i : members) {
      flat.push_back(reshape(at, values[i], {-1}));
      sizes.push_back(elements[i]);
    }
    auto sum
      = collective_all_reduce(at, concat(at, flat, 0), o.members, key, o.mean);
    auto pieces = split_v(at, sum, sizes, 0);
    for (size_t k = 0; k < members.size(); ++k) {
      auto i = members[k];
      results[i] = reshape(at, pieces[k], values[i].shape().dims());
    }
  }
  return results;
}

} // namespace actorflow::graph
