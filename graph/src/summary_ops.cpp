#include "actorflow/graph/summary_ops.hpp"

#include "actorflow/graph/builder_ops.hpp"
#include "builder_util.hpp"

namespace actorflow::graph {

namespace {

output tag_constant(const scope& s, const std::string& tag) {
  core::tensor t{core::dtype::string, core::shape{}};
  t.mutable_data<std::string>()[0] = tag;
  return constant(s.sub("tag"), t);
}

} // namespace

output scalar_summary(const scope& s, const std::string& tag,
                      const output& value) {
  return detail::first(s.add_node("ScalarSummary", "ScalarSummary",
                                  {tag_constant(s, tag), value},
                                  {{"T", value.dtype()}}));
}

output histogram_summary(const scope& s, const std::string& tag,
                         const output& values) {
  return detail::first(s.add_node("HistogramSummary", "HistogramSummary",
                                  {tag_constant(s, tag), values},
                                  {{"T", values.dtype()}}));
}

output merge_summary(const scope& s, const std::vector<output>& summaries) {
  return detail::first(
    s.add_node("MergeSummary", "MergeSummary", summaries,
               {{"N", static_cast<int64_t>(summaries.size())}}));
}

} // namespace actorflow::graph
