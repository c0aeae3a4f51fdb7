// The pipeline of graph passes: which ones run, in what order, and the
// standard list.

#include "actorflow/graph/graph_passes.hpp"

#include <sstream>

namespace actorflow::graph {

namespace {

const char* const standard_names[]
  = {"cse",        "constant_folding", "dead_branches",   "fusion",
     "arithmetic", "identities",       "loop_invariants", "dead_nodes"};

std::string standard_list() {
  std::string result;
  for (const char* name : standard_names)
    result += (result.empty() ? "" : ", ") + std::string{name};
  return result;
}

bool is_standard(const std::string& name) {
  for (const char* known : standard_names)
    if (name == known)
      return true;
  return false;
}

} // namespace

core::status pass_selection::parse(const std::string& text,
                                   pass_selection* out) {
  pass_selection result;
  if (text == "none") {
    for (const char* name : standard_names)
      result.disabled.insert(name);
    *out = std::move(result);
    return core::status::ok();
  }
  std::set<std::string> wanted, unwanted;
  std::istringstream in{text};
  for (std::string item; std::getline(in, item, ',');) {
    bool minus = !item.empty() && item[0] == '-';
    auto name = minus ? item.substr(1) : item;
    if (name == "all" && !minus)
      continue;
    if (!is_standard(name))
      return core::invalid_argument_error(
        "unknown graph pass '", name, "' in '", text, "'; the passes are ",
        standard_list(), " (or all, none, -NAME)");
    (minus ? unwanted : wanted).insert(name);
  }
  if (!wanted.empty() && text.rfind("all", 0) != 0)
    for (const char* name : standard_names)
      if (wanted.count(name) == 0)
        result.disabled.insert(name);
  result.disabled.insert(unwanted.begin(), unwanted.end());
  *out = std::move(result);
  return core::status::ok();
}

std::string pass_selection::to_string() const {
  std::string result;
  for (const char* name : standard_names)
    if (runs(name))
      result += (result.empty() ? "" : ",") + std::string{name};
  return result.empty() ? "none" : result;
}

pass_pipeline pass_pipeline::standard() {
  pass_pipeline p;
  p.add({"cse", passes::common_subexpressions});
  p.add({"constant_folding", passes::constant_folding});
  p.add({"dead_branches", passes::dead_branches});
  p.add({"fusion", passes::fusion});
  p.add({"arithmetic", passes::arithmetic});
  p.add({"identities", passes::identities});
  p.add({"loop_invariants", passes::loop_invariants});
  p.add({"dead_nodes", passes::dead_nodes});
  return p;
}

void pass_pipeline::add(graph_pass pass) {
  passes_.push_back(std::move(pass));
}

core::status pass_pipeline::run(graph& g, const pass_context& ctx,
                                const pass_selection& selection,
                                std::vector<pass_rewrite>* log) const {
  std::vector<std::string> lines;
  for (const auto& pass : passes_) {
    if (!selection.runs(pass.name))
      continue;
    lines.clear();
    auto st = pass.run(g, ctx, &lines);
    if (log != nullptr)
      for (auto& line : lines)
        log->push_back({pass.name, std::move(line)});
    if (!st.is_ok())
      return st.prefixed("graph pass " + pass.name);
  }
  return core::status::ok();
}

} // namespace actorflow::graph
