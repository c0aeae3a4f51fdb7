#include "tensorflow/graph_def_import.hpp"

#include <deque>
#include <map>
#include <set>

#include "tensorflow/expand_functions.hpp"
#include "tensorflow/tf_proto.hpp"

namespace actorflow::interop::tensorflow::detail {

namespace {

/// An attr TensorFlow's op has and the engine's lacks, with TensorFlow's
/// default: a node giving it that value imports (the engine does what
/// TensorFlow does then), another value is refused. TensorFlow accepts
/// attrs it does not know at their defaults for the same reason: graphs
/// written by a newer version.
struct tf_default_attr {
  const char* op;
  const char* attr;
  const char* type;
  core::attr_value value;
};

const std::vector<tf_default_attr>& tf_default_attrs() {
  static const std::vector<tf_default_attr> table{
    {"Equal", "incompatible_shape_error", "bool", true},
    {"NotEqual", "incompatible_shape_error", "bool", true},
    {"TopKV2", "Tk", "type", core::dtype::int32},
    {"TopKV2", "index_type", "type", core::dtype::int32},
  };
  return table;
}

const tf_default_attr* find_tf_default(const std::string& op,
                                       const std::string& attr) {
  for (const auto& d : tf_default_attrs())
    if (op == d.op && attr == d.attr)
      return &d;
  return nullptr;
}

/// The engine's form of one NodeDef.
core::status import_node(const tfproto::NodeDef& n, const ops::op_registry& ops,
                         core::node_def* out) {
  auto fail = [&](auto&&... xs) {
    return core::invalid_argument_error(xs...).with_context(n.name(), n.op());
  };
  const auto* op = ops.find(n.op());
  if (op == nullptr) // from_graph_def checked first
    return core::internal_error("op '", n.op(), "' is not registered")
      .with_context(n.name(), n.op());
  out->name = n.name();
  out->op = n.op();
  out->inputs.assign(n.input().begin(), n.input().end());
  out->device = n.device();
  // In name order: a protobuf map has none, and errors should not depend
  // on it.
  std::map<std::string, const tfproto::AttrValue*> attrs;
  for (const auto& [name, value] : n.attr())
    attrs.emplace(name, &value);
  for (const auto& [name, value] : attrs) {
    if (!name.empty() && name[0] == '_')
      continue;
    const auto* spec = op->find_attr(name);
    if (spec == nullptr) {
      const auto* d = find_tf_default(n.op(), name);
      if (d == nullptr)
        return fail("attr '", name, "' is not one actorflow's ", n.op(),
                    " has");
      core::attr_value v;
      if (!from_proto(*value, d->type, &v).is_ok()
          || !core::attr_equal(v, d->value))
        return fail("attr '", name, "' of ", n.op(), " is ", core::to_string(v),
                    "; actorflow has only TensorFlow's "
                    "default, ",
                    core::to_string(d->value));
      continue;
    }
    core::attr_value v;
    auto st = from_proto(*value, spec->type, &v);
    if (!st.is_ok())
      return core::status{st.code(), "attr '" + name + "': " + st.message()}
        .with_context(n.name(), n.op());
    out->attrs.emplace(name, std::move(v));
  }
  return core::status::ok();
}

/// The node an input (`node:port`, `^node`, or in a function body
/// `node:output_arg:index` or an argument's name) reads.
std::string node_of(const std::string& input) {
  auto begin = core::is_control_input(input) ? 1 : 0;
  auto colon = input.find(':', begin);
  return input.substr(begin, colon == std::string::npos ? std::string::npos
                                                        : colon - begin);
}

bool is_functional_op(const std::string& op) {
  static const function_library none;
  return calls_function(op, none);
}

/// The names of the functions the attrs of `n` name.
std::vector<std::string> called_functions(const tfproto::NodeDef& n) {
  std::vector<std::string> result;
  for (const auto& [name, value] : n.attr()) {
    if (value.value_case() == tfproto::AttrValue::kFunc)
      result.push_back(value.func().name());
    else if (value.value_case() == tfproto::AttrValue::kList)
      for (const auto& f : value.list().func())
        result.push_back(f.name());
  }
  return result;
}

} // namespace

graph_def_importer::graph_def_importer(const tfproto::GraphDef& def,
                                       const ops::op_registry& ops,
                                       const tfproto::OpList* stripped)
  : def_(def), ops_(ops) {
  for (const auto& f : def.library().function())
    functions_.emplace(f.signature().name(), &f);
  if (stripped != nullptr)
    for (const auto& op : stripped->op())
      tf_ops_.emplace(op.name(), &op);
}

bool graph_def_importer::is_call(const std::string& op) const {
  return is_functional_op(op) || functions_.count(op) > 0;
}

void graph_def_importer::reach(
  const std::vector<std::string>& roots,
  std::vector<const tfproto::NodeDef*>* nodes,
  std::vector<const tfproto::FunctionDef*>* fns) const {
  std::map<std::string, const tfproto::NodeDef*> by_name;
  for (const auto& n : def_.node())
    by_name.emplace(n.name(), &n);
  std::set<std::string> seen;
  std::deque<std::string> todo(roots.begin(), roots.end());
  if (roots.empty())
    for (const auto& n : def_.node())
      todo.push_back(n.name());
  while (!todo.empty()) {
    auto name = std::move(todo.front());
    todo.pop_front();
    auto i = by_name.find(name);
    if (i == by_name.end() || !seen.insert(name).second)
      continue;
    for (const auto& in : i->second->input())
      todo.push_back(node_of(in));
  }
  std::set<std::string> called;
  std::deque<std::string> fn_todo;
  auto call = [&](const tfproto::NodeDef& n) {
    for (auto& f : called_functions(n))
      fn_todo.push_back(std::move(f));
    if (functions_.count(n.op()) > 0)
      fn_todo.push_back(n.op());
  };
  for (const auto& n : def_.node())
    if (seen.count(n.name()) > 0) {
      nodes->push_back(&n);
      call(n);
    }
  while (!fn_todo.empty()) {
    auto name = std::move(fn_todo.front());
    fn_todo.pop_front();
    auto i = functions_.find(name);
    if (i == functions_.end() || !called.insert(name).second)
      continue;
    fns->push_back(i->second);
    for (const auto& n : i->second->node_def())
      call(n);
  }
}

std::vector<missing_op>
graph_def_importer::missing_ops(const std::vector<std::string>& roots) const {
  std::vector<const tfproto::NodeDef*> nodes;
  std::vector<const tfproto::FunctionDef*> fns;
  reach(roots, &nodes, &fns);
  std::map<std::string, std::vector<std::string>> missing;
  auto check = [&](const tfproto::NodeDef& n, const std::string& where) {
    if (ops_.find(n.op()) == nullptr && !is_call(n.op()))
      missing[n.op()].push_back(where + n.name());
  };
  for (const auto* n : nodes)
    check(*n, "");
  for (const auto* f : fns)
    for (const auto& n : f->node_def())
      check(n, "function " + f->signature().name() + ": ");
  std::vector<missing_op> result;
  for (auto& [op, names] : missing)
    result.push_back(missing_op{op, std::move(names)});
  return result;
}

core::status graph_def_importer::import_call(const tfproto::NodeDef& n,
                                             core::node_def* out) const {
  out->name = n.name();
  out->op = n.op();
  out->inputs.assign(n.input().begin(), n.input().end());
  out->device = n.device();
  for (const auto& [name, value] : n.attr()) {
    auto fail = [&](auto&&... xs) {
      return core::unimplemented_error("attr '", name, "': ", xs...)
        .with_context(n.name(), n.op());
    };
    using V = tfproto::AttrValue;
    if (value.value_case() == V::kFunc) {
      if (value.func().attr_size() > 0)
        return fail("calls of polymorphic functions are not supported");
      out->attrs[name] = value.func().name();
    } else if (value.value_case() == V::kList && value.list().func_size() > 0) {
      std::vector<std::string> names;
      for (const auto& f : value.list().func())
        names.push_back(f.name());
      out->attrs[name] = std::move(names);
    } else if (name == "Tin" || name == "Tout" || name == "T") {
      core::attr_value v;
      auto st = from_proto(value, "list(type)", &v);
      if (!st.is_ok())
        return fail(st.message());
      out->attrs[name] = std::move(v);
    } else if (name == "parallel_iterations" && value.value_case() == V::kI) {
      out->attrs[name] = value.i();
    }
  }
  return core::status::ok();
}

core::status graph_def_importer::import_any(const tfproto::NodeDef& n,
                                            core::node_def* out) const {
  if (is_call(n.op()))
    return import_call(n, out);
  // The attrs TensorFlow stripped at their defaults, given back (those the
  // engine's op has: the others it takes at TensorFlow's defaults).
  auto op = tf_ops_.find(n.op());
  const auto* ours = ops_.find(n.op());
  if (op != tf_ops_.end() && ours != nullptr) {
    const tfproto::NodeDef* node = &n;
    tfproto::NodeDef filled;
    for (const auto& a : op->second->attr())
      if (a.has_default_value() && n.attr().count(a.name()) == 0
          && ours->find_attr(a.name()) != nullptr) {
        if (node == &n)
          node = &(filled = n);
        (*filled.mutable_attr())[a.name()] = a.default_value();
      }
    return import_node(*node, ops_, out);
  }
  return import_node(n, ops_, out);
}

core::status
graph_def_importer::output_layout(const core::node_def& n,
                                  std::vector<output_arg>* out) const {
  auto list_size = [&](const char* attr) {
    auto i = n.attrs.find(attr);
    auto* types = i == n.attrs.end()
                    ? nullptr
                    : std::get_if<std::vector<core::dtype>>(&i->second);
    return types == nullptr ? 0 : static_cast<int>(types->size());
  };
  if (is_functional_op(n.op)) {
    auto while_loop = n.op == "While" || n.op == "StatelessWhile";
    out->push_back({"output", 0, list_size(while_loop ? "T" : "Tout")});
    return core::status::ok();
  }
  if (auto f = functions_.find(n.op); f != functions_.end()) {
    int start = 0;
    for (const auto& arg : f->second->signature().output_arg())
      out->push_back({arg.name(), start++, 1});
    return core::status::ok();
  }
  const auto* op = ops_.find(n.op);
  auto attrs = n.attrs;
  ACTORFLOW_RETURN_IF_ERROR(op->check_attrs(attrs));
  int start = 0;
  for (const auto& arg : op->outputs) {
    int count = 1;
    if (!arg.number_attr.empty()) {
      count = static_cast<int>(std::get<int64_t>(attrs.at(arg.number_attr)));
    } else if (!arg.type_attr.empty()) {
      auto* types
        = std::get_if<std::vector<core::dtype>>(&attrs.at(arg.type_attr));
      if (types != nullptr)
        count = static_cast<int>(types->size());
    }
    out->push_back({arg.name, start, count});
    start += count;
  }
  return core::status::ok();
}

core::status graph_def_importer::import_function(const tfproto::FunctionDef& f,
                                                 function_def* out) const {
  const auto& sig = f.signature();
  auto fail = [&](auto&&... xs) {
    return core::unimplemented_error("function '", sig.name(), "': ", xs...);
  };
  if (sig.attr_size() > 0)
    return fail("polymorphic functions (attrs ", sig.attr(0).name(),
                ", ...) are not supported");
  out->name = sig.name();
  for (const auto& arg : sig.input_arg()) {
    auto type = from_proto(arg.type());
    if (type == core::dtype::invalid)
      return fail("argument '", arg.name(), "' is of a type actorflow lacks");
    out->arg_names.push_back(arg.name());
    out->arg_types.push_back(type);
  }
  std::map<std::string, std::vector<output_arg>> layouts;
  for (const auto& n : f.node_def()) {
    core::node_def node;
    ACTORFLOW_RETURN_IF_ERROR(import_any(n, &node));
    auto st = output_layout(node, &layouts[node.name]);
    if (!st.is_ok())
      return st.with_context(n.name(), n.op());
    out->nodes.push_back(std::move(node));
  }
  // `node:output_arg:index` -> `node:port`.
  auto flat = [&](const std::string& text, std::string* result) {
    auto first = text.find(':');
    if (first == std::string::npos || core::is_control_input(text)) {
      *result = text;
      return core::status::ok();
    }
    auto second = text.find(':', first + 1);
    auto node = text.substr(0, first);
    auto l = layouts.find(node);
    if (second == std::string::npos || l == layouts.end())
      return core::invalid_argument_error("function '", sig.name(),
                                          "': malformed input '", text, "'");
    auto arg = text.substr(first + 1, second - first - 1);
    int index = std::atoi(text.c_str() + second + 1);
    // An op of one output argument may name it otherwise than
    // TensorFlow's does.
    for (const auto& o : l->second)
      if ((o.name == arg || l->second.size() == 1) && index >= 0
          && index < o.count) {
        *result = node + ":" + std::to_string(o.start + index);
        return core::status::ok();
      }
    return core::invalid_argument_error("function '", sig.name(), "': '", text,
                                        "' names no output of ", node);
  };
  for (auto& node : out->nodes)
    for (auto& in : node.inputs)
      ACTORFLOW_RETURN_IF_ERROR(flat(in, &in));
  for (const auto& arg : sig.output_arg()) {
    auto ret = f.ret().find(arg.name());
    auto type = from_proto(arg.type());
    if (ret == f.ret().end() || type == core::dtype::invalid)
      return fail("result '", arg.name(),
                  ret == f.ret().end() ? "' has no value"
                                       : "' is of a type actorflow lacks");
    out->results.emplace_back();
    ACTORFLOW_RETURN_IF_ERROR(flat(ret->second, &out->results.back()));
    out->result_types.push_back(type);
  }
  for (const auto& name : sig.control_output()) {
    auto ret = f.control_ret().find(name);
    if (ret == f.control_ret().end())
      return fail("control result '", name, "' has no node");
    out->control_results.push_back(ret->second);
  }
  return core::status::ok();
}

core::status
graph_def_importer::import(const std::vector<std::string>& roots,
                           std::vector<core::node_def>* out) const {
  if (auto missing = missing_ops(roots); !missing.empty()) {
    auto st = core::unimplemented_error(
      "the graph uses ", missing.size(), missing.size() == 1 ? " op" : " ops",
      " actorflow lacks: ", describe_missing_ops(missing),
      " (`actorflow ops` lists the ops there are, `actorflow ops --missing "
      "FILE` what a GraphDef file needs)");
    const auto& first = missing.front();
    return st.with_context(first.nodes.front(), first.op);
  }
  std::vector<const tfproto::NodeDef*> nodes;
  std::vector<const tfproto::FunctionDef*> fns;
  reach(roots, &nodes, &fns);
  function_library lib;
  for (const auto* f : fns) {
    function_def fn;
    ACTORFLOW_RETURN_IF_ERROR(import_function(*f, &fn));
    ACTORFLOW_RETURN_IF_ERROR(lib.add(std::move(fn)));
  }
  std::vector<core::node_def> result;
  for (const auto* n : nodes) {
    result.emplace_back();
    ACTORFLOW_RETURN_IF_ERROR(import_any(*n, &result.back()));
  }
  if (!lib.empty())
    ACTORFLOW_RETURN_IF_ERROR(expand_functions(lib, &result));
  *out = std::move(result);
  return core::status::ok();
}

} // namespace actorflow::interop::tensorflow::detail
