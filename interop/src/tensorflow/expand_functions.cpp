// Function inlining and functional control-flow lowering for imported
// graphs.

#include "tensorflow/expand_functions.hpp"

#include <functional>
#include <map>
#include <set>
#include <utility>

namespace actorflow::interop::tensorflow::detail {

namespace {

enum class call_kind { none, call, while_loop, conditional, switch_case };

call_kind kind_of(const std::string& op, const function_library& lib) {
  if (op == "PartitionedCall" || op == "StatefulPartitionedCall")
    return call_kind::call;
  if (op == "While" || op == "StatelessWhile")
    return call_kind::while_loop;
  if (op == "If" || op == "StatelessIf")
    return call_kind::conditional;
  if (op == "Case" || op == "StatelessCase")
    return call_kind::switch_case;
  return lib.find(op) != nullptr ? call_kind::call : call_kind::none;
}

/// How deep calls may nest before a function counts as calling itself.
constexpr int max_depth = 64;

template <class T>
T attr_or(const core::node_def& n, const std::string& name, T fallback) {
  auto i = n.attrs.find(name);
  if (i == n.attrs.end())
    return fallback;
  auto* v = std::get_if<T>(&i->second);
  return v != nullptr ? *v : fallback;
}

std::string port(const std::string& node, int i) {
  return i == 0 ? node : node + ":" + std::to_string(i);
}

/// The results of a body inlined into the graph.
struct inlined {
  std::vector<std::string> results;
  std::vector<std::string> control_results;
};

/// Builds one side of a conditional on the switched inputs, given the
/// side's pivot (a node that runs only when the side is taken).
using branch_fn
  = std::function<core::status(const std::vector<std::string>& inputs,
                               const std::string& pivot, inlined* out)>;

class expander {
public:
  expander(const function_library& lib, std::vector<core::node_def>* nodes)
    : lib_(lib), nodes_(nodes) {
    for (const auto& n : *nodes)
      names_.insert(n.name);
  }

  core::status run() {
    for (auto it = nodes_->rbegin(); it != nodes_->rend(); ++it)
      stack_.push_back({std::move(*it), 0});
    nodes_->clear();
    while (!stack_.empty()) {
      auto [node, depth] = std::move(stack_.back());
      stack_.pop_back();
      auto kind = kind_of(node.op, lib_);
      if (kind == call_kind::none) {
        out_.push_back(std::move(node));
        continue;
      }
      auto st = expand(kind, node, depth);
      if (!st.is_ok())
        return st.with_context(node.name, node.op);
    }
    *nodes_ = std::move(out_);
    return core::status::ok();
  }

private:
  core::status expand(call_kind kind, const core::node_def& node, int depth) {
    std::vector<std::string> data, control;
    for (const auto& in : node.inputs)
      (core::is_control_input(in) ? control : data).push_back(in);
    switch (kind) {
      case call_kind::call: {
        auto f
          = node.op == "PartitionedCall" || node.op == "StatefulPartitionedCall"
              ? attr_or(node, "f", std::string{})
              : node.op;
        return expand_call(node, f, data, control, depth);
      }
      case call_kind::while_loop:
        return expand_while(node, data, control, depth);
      case call_kind::conditional: return expand_if(node, data, control, depth);
      case call_kind::switch_case:
        return expand_case(node, data, control, depth);
      case call_kind::none: break;
    }
    return core::status::ok();
  }

  const function_def* function(const std::string& name, int depth,
                               core::status* st) {
    const auto* f = lib_.find(name);
    if (f == nullptr)
      *st = core::invalid_argument_error("function '", name,
                                         "' is not in the graph's library");
    else if (depth >= max_depth)
      *st = core::invalid_argument_error("function '", name,
                                         "' calls itself (calls nest over ",
                                         max_depth, " deep)");
    return f;
  }

  std::string unique(const std::string& name) {
    auto result = name;
    for (int i = 1; names_.count(result) > 0; ++i)
      result = name + "_" + std::to_string(i);
    names_.insert(result);
    return result;
  }

  /// A node of the expansion that calls nothing.
  std::string add(const std::string& name, const std::string& op,
                  std::vector<std::string> inputs, core::attr_map attrs,
                  const std::string& device) {
    core::node_def n;
    n.name = unique(name);
    n.op = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.device = device;
    out_.push_back(std::move(n));
    return out_.back().name;
  }

  /// Stands for the call `node` where it stood: an IdentityN of `results`
  /// (a NoOp if there are none) waiting for `control`, under its name.
  void replace(const core::node_def& node, std::vector<std::string> results,
               const std::vector<core::dtype>& types,
               const std::vector<std::string>& control) {
    core::node_def n;
    n.name = node.name;
    n.device = node.device;
    n.op = results.empty() ? "NoOp" : "IdentityN";
    if (!results.empty())
      n.attrs["T"] = types;
    n.inputs = std::move(results);
    for (const auto& c : control)
      n.inputs.push_back("^" + c);
    out_.push_back(std::move(n));
  }

  /// Copies the body of `f` into the graph under `prefix`, its arguments
  /// Identities of `inputs`; body nodes with no inputs wait for `pivots`.
  core::status inline_body(const function_def& f, const std::string& prefix,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& pivots,
                           const std::string& device, int depth, inlined* out) {
    if (inputs.size() != f.arg_names.size())
      return core::invalid_argument_error("function '", f.name, "' takes ",
                                          f.arg_names.size(), " inputs, not ",
                                          inputs.size());
    std::vector<std::string> waits;
    for (const auto& p : pivots)
      waits.push_back("^" + p);
    std::map<std::string, std::string> renamed;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto in = waits;
      in.insert(in.begin(), inputs[i]);
      renamed[f.arg_names[i]]
        = add(prefix + f.arg_names[i], "Identity", std::move(in),
              {{"T", f.arg_types[i]}}, device);
    }
    // Without pivots, the body's sources wait for the first argument: in
    // the caller's frame, dead when it is (a call inside a loop body or a
    // branch).
    if (waits.empty() && !inputs.empty())
      waits.push_back("^" + renamed[f.arg_names[0]]);
    for (const auto& n : f.nodes)
      renamed[n.name] = unique(prefix + n.name);
    auto rename = [&](const std::string& text, std::string* result) {
      core::input_ref ref;
      if (!core::input_ref::parse(text, &ref))
        return core::invalid_argument_error("function '", f.name,
                                            "': malformed input '", text, "'");
      auto i = renamed.find(ref.node);
      if (i == renamed.end())
        return core::invalid_argument_error(
          "function '", f.name, "' reads '", ref.node,
          "', which is neither a node nor an argument of it");
      ref.node = i->second;
      *result = ref.to_string();
      return core::status::ok();
    };
    for (const auto& body : f.nodes) {
      core::node_def n = body;
      n.name = renamed[body.name];
      for (auto& in : n.inputs)
        ACTORFLOW_RETURN_IF_ERROR(rename(in, &in));
      if (n.inputs.empty())
        n.inputs = waits;
      if (n.device.empty())
        n.device = device;
      stack_.push_back({std::move(n), depth + 1});
    }
    out->results.resize(f.results.size());
    for (size_t i = 0; i < f.results.size(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(rename(f.results[i], &out->results[i]));
    for (const auto& c : f.control_results) {
      auto i = renamed.find(c);
      if (i == renamed.end())
        return core::invalid_argument_error("function '", f.name,
                                            "' has no node '", c,
                                            "' for its control result");
      out->control_results.push_back(i->second);
    }
    return core::status::ok();
  }

  core::status expand_call(const core::node_def& node, const std::string& name,
                           const std::vector<std::string>& data,
                           const std::vector<std::string>& control, int depth) {
    core::status st;
    const auto* f = function(name, depth, &st);
    if (f == nullptr)
      return st;
    // The call's control inputs: the body's sources wait for them.
    std::vector<std::string> pivots;
    if (!control.empty())
      pivots.push_back(add(node.name + "/input_control_node", "NoOp", control,
                           {}, node.device));
    inlined body;
    ACTORFLOW_RETURN_IF_ERROR(inline_body(*f, node.name + "/", data, pivots,
                                          node.device, depth, &body));
    replace(node, body.results, f->result_types, body.control_results);
    return core::status::ok();
  }

  core::status expand_while(const core::node_def& node,
                            const std::vector<std::string>& data,
                            const std::vector<std::string>& control,
                            int depth) {
    core::status st;
    const auto* cond
      = function(attr_or(node, "cond", std::string{}), depth, &st);
    const auto* body
      = cond == nullptr
          ? nullptr
          : function(attr_or(node, "body", std::string{}), depth, &st);
    if (body == nullptr)
      return st;
    auto n = data.size();
    if (body->arg_types.size() != n || body->results.size() != n
        || cond->results.size() != 1)
      return core::invalid_argument_error(
        "a loop of ", n, " values needs a body of ", n, " inputs and ", n,
        " results and a condition of one result; body '", body->name, "' has ",
        body->arg_types.size(), " and ", body->results.size(), ", condition '",
        cond->name, "' ", cond->results.size(), " result(s)");
    const auto& types = body->arg_types;
    const auto& dev = node.device;
    auto p = node.name + "/";
    auto iterations = attr_or(node, "parallel_iterations", int64_t{10});
    std::vector<std::string> merges, nexts;
    for (size_t i = 0; i < n; ++i)
      nexts.push_back(unique(p + "NextIteration_" + std::to_string(i)));
    for (size_t i = 0; i < n; ++i) {
      auto in = control;
      in.insert(in.begin(), data[i]);
      auto enter = add(p + "Enter_" + std::to_string(i), "Enter", std::move(in),
                       {{"T", types[i]},
                        {"frame_name", node.name},
                        {"is_constant", false},
                        {"parallel_iterations", iterations}},
                       dev);
      merges.push_back(add(p + "Merge_" + std::to_string(i), "Merge",
                           {enter, nexts[i]},
                           {{"T", types[i]}, {"N", int64_t{2}}}, dev));
    }
    inlined c;
    ACTORFLOW_RETURN_IF_ERROR(
      inline_body(*cond, p + "cond/", merges, {merges[0]}, dev, depth, &c));
    auto loop_cond = add(p + "LoopCond", "LoopCond", {c.results[0]}, {}, dev);
    std::vector<std::string> exits, values;
    for (size_t i = 0; i < n; ++i) {
      auto sw = add(p + "Switch_" + std::to_string(i), "Switch",
                    {merges[i], loop_cond}, {{"T", types[i]}}, dev);
      exits.push_back(add(p + "Exit_" + std::to_string(i), "Exit", {sw},
                          {{"T", types[i]}}, dev));
      values.push_back(add(p + "Identity_" + std::to_string(i), "Identity",
                           {port(sw, 1)}, {{"T", types[i]}}, dev));
    }
    inlined b;
    ACTORFLOW_RETURN_IF_ERROR(
      inline_body(*body, p + "body/", values, {values[0]}, dev, depth, &b));
    for (size_t i = 0; i < n; ++i) {
      core::node_def next;
      next.name = nexts[i];
      next.op = "NextIteration";
      next.inputs.push_back(b.results[i]);
      // The next iteration starts once this one's side effects are done.
      for (const auto& c : b.control_results)
        next.inputs.push_back("^" + c);
      next.attrs["T"] = types[i];
      next.device = dev;
      out_.push_back(std::move(next));
    }
    replace(node, exits, types, {});
    return core::status::ok();
  }

  /// Lowers a conditional on `pred` over `inputs` (of `types`): each input
  /// switched on `pred`, each side built on its half, the results merged.
  core::status lower_conditional(const core::node_def& node,
                                 const std::string& pred,
                                 const std::vector<std::string>& inputs,
                                 const std::vector<core::dtype>& types,
                                 const std::vector<std::string>& control,
                                 const std::vector<core::dtype>& result_types,
                                 const branch_fn& then_side,
                                 const branch_fn& else_side) {
    const auto& dev = node.device;
    auto p = node.name + "/";
    auto in = control;
    in.insert(in.begin(), {pred, pred});
    auto switch_pred = add(p + "switch_pred", "Switch", std::move(in),
                           {{"T", core::dtype::bool_}}, dev);
    auto pivot_t = add(p + "pivot_t", "Identity", {port(switch_pred, 1)},
                       {{"T", core::dtype::bool_}}, dev);
    auto pivot_f = add(p + "pivot_f", "Identity", {switch_pred},
                       {{"T", core::dtype::bool_}}, dev);
    std::vector<std::string> ins_t, ins_f;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto data = control;
      data.insert(data.begin(), {inputs[i], pred});
      auto sw = add(p + "Switch_" + std::to_string(i), "Switch",
                    std::move(data), {{"T", types[i]}}, dev);
      ins_f.push_back(sw);
      ins_t.push_back(port(sw, 1));
    }
    inlined t, f;
    ACTORFLOW_RETURN_IF_ERROR(then_side(ins_t, pivot_t, &t));
    ACTORFLOW_RETURN_IF_ERROR(else_side(ins_f, pivot_f, &f));
    if (t.results.size() != result_types.size()
        || f.results.size() != result_types.size())
      return core::invalid_argument_error(
        "the branches yield ", t.results.size(), " and ", f.results.size(),
        " results; the node has ", result_types.size());
    std::vector<std::string> merged;
    for (size_t i = 0; i < result_types.size(); ++i)
      merged.push_back(add(p + "Merge_" + std::to_string(i), "Merge",
                           {f.results[i], t.results[i]},
                           {{"T", result_types[i]}, {"N", int64_t{2}}}, dev));
    // Control consumers wait for the side effects of the side taken.
    auto done
      = [&](const std::string& pivot, const inlined& side, const char* name) {
          std::vector<std::string> in{pivot};
          for (const auto& c : side.control_results)
            in.push_back("^" + c);
          return add(p + name, "Identity", std::move(in),
                     {{"T", core::dtype::bool_}}, dev);
        };
    auto then_done = done(pivot_t, t, "then_done");
    auto else_done = done(pivot_f, f, "else_done");
    auto branch_done = add(p + "branch_done", "Merge", {else_done, then_done},
                           {{"T", core::dtype::bool_}, {"N", int64_t{2}}}, dev);
    replace(node, merged, result_types, {branch_done});
    return core::status::ok();
  }

  branch_fn inline_side(const function_def& f, const core::node_def& node,
                        const std::string& prefix, int depth) {
    return
      [this, &f, &node, prefix, depth](const std::vector<std::string>& inputs,
                                       const std::string& pivot, inlined* out) {
        return inline_body(f, prefix, inputs, {pivot}, node.device, depth, out);
      };
  }

  core::status expand_if(const core::node_def& node,
                         const std::vector<std::string>& data,
                         const std::vector<std::string>& control, int depth) {
    if (data.empty())
      return core::invalid_argument_error("If needs a predicate input");
    core::status st;
    const auto* then_f
      = function(attr_or(node, "then_branch", std::string{}), depth, &st);
    const auto* else_f
      = then_f == nullptr
          ? nullptr
          : function(attr_or(node, "else_branch", std::string{}), depth, &st);
    if (else_f == nullptr)
      return st;
    std::vector<std::string> inputs(data.begin() + 1, data.end());
    return lower_conditional(
      node, data[0], inputs, then_f->arg_types, control, then_f->result_types,
      inline_side(*then_f, node, node.name + "/then/", depth),
      inline_side(*else_f, node, node.name + "/else/", depth));
  }

  core::status expand_case(const core::node_def& node,
                           const std::vector<std::string>& data,
                           const std::vector<std::string>& control, int depth) {
    auto branches = attr_or(node, "branches", std::vector<std::string>{});
    if (data.empty() || branches.empty())
      return core::invalid_argument_error(
        "Case needs a branch index input and at least one branch");
    core::status st;
    const auto* first = function(branches[0], depth, &st);
    if (first == nullptr)
      return st;
    std::vector<std::string> inputs(data.begin() + 1, data.end());
    core::input_ref index;
    if (!core::input_ref::parse(data[0], &index))
      return core::invalid_argument_error("malformed input '", data[0], "'");
    if (branches.size() == 1) {
      // The last branch runs whatever the index (TensorFlow's rule for an
      // index out of range), once the index is there.
      auto c = control;
      c.push_back("^" + index.node);
      return expand_call(node, branches[0], inputs, c, depth);
    }
    // index == 0 ? branches[0] : Case(index - 1, branches[1:])
    const auto& dev = node.device;
    auto p = node.name + "/";
    auto scalar = [](int32_t v) {
      return core::attr_map{{"value", core::tensor::scalar(v)},
                            {"dtype", core::dtype::int32}};
    };
    // index - index: a zero in the index's frame, dead when it is.
    auto zero = add(p + "zero", "Sub", {data[0], data[0]},
                    {{"T", core::dtype::int32}}, dev);
    auto is_first = add(p + "is_first", "Equal", {data[0], zero},
                        {{"T", core::dtype::int32}}, dev);
    inputs.insert(inputs.begin(), data[0]);
    auto types = first->arg_types;
    types.insert(types.begin(), core::dtype::int32);
    auto then_side = [&](const std::vector<std::string>& in,
                         const std::string& pivot, inlined* out) {
      std::vector<std::string> args(in.begin() + 1, in.end());
      return inline_body(*first, p + "branch_0/", args, {pivot}, dev, depth,
                         out);
    };
    auto else_side = [&](const std::vector<std::string>& in,
                         const std::string& pivot, inlined* out) {
      auto one = add(p + "one", "Const", {"^" + pivot}, scalar(1), dev);
      auto rest_index = add(p + "rest_index", "Sub", {in[0], one},
                            {{"T", core::dtype::int32}}, dev);
      core::node_def rest;
      rest.name = unique(p + "rest");
      rest.op = node.op;
      rest.device = dev;
      rest.inputs = in;
      rest.inputs[0] = rest_index;
      rest.attrs = node.attrs;
      rest.attrs["branches"]
        = std::vector<std::string>(branches.begin() + 1, branches.end());
      for (size_t i = 0; i < first->result_types.size(); ++i)
        out->results.push_back(port(rest.name, static_cast<int>(i)));
      out->control_results.push_back(rest.name);
      stack_.push_back({std::move(rest), depth});
      return core::status::ok();
    };
    return lower_conditional(node, is_first, inputs, types, control,
                             first->result_types, then_side, else_side);
  }

  const function_library& lib_;
  std::vector<core::node_def>* nodes_;
  std::set<std::string> names_;
  struct pending {
    core::node_def node;
    int depth;
  };
  std::vector<pending> stack_;
  std::vector<core::node_def> out_;
};

} // namespace

bool calls_function(const std::string& op, const function_library& lib) {
  return kind_of(op, lib) != call_kind::none;
}

core::status expand_functions(const function_library& lib,
                              std::vector<core::node_def>* nodes) {
  return expander{lib, nodes}.run();
}

} // namespace actorflow::interop::tensorflow::detail
