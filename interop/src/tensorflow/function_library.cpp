// The function library of an imported graph.

#include "tensorflow/function_library.hpp"

namespace actorflow::interop::tensorflow::detail {

core::status function_library::add(function_def f) {
  auto name = f.name;
  if (!functions_.emplace(name, std::move(f)).second)
    return core::invalid_argument_error("function '", name,
                                        "' is defined twice");
  return core::status::ok();
}

const function_def* function_library::find(const std::string& name) const {
  auto i = functions_.find(name);
  return i == functions_.end() ? nullptr : &i->second;
}

} // namespace actorflow::interop::tensorflow::detail
