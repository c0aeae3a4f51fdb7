#pragma once

// Loads op cases from golden files written by tests/golden/gen_case_golden.py:
// an op, its attrs, its inputs and either its expected outputs or the error
// it must report.
//
// Format, one item per line:
//   case <name> <op> <rtol>
//   attr <name> type|int|float|bool|string <value>
//   attr <name> ints <count> <values...>
//   in|out <dtype> <dims...>        followed by a line of values
//   error <code>                    e.g. invalid_argument
//   end

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "actorflow/core/attr_value.hpp"
#include "common/golden.hpp"

namespace actorflow::test {

struct op_case {
  std::string name;
  std::string op;
  double rtol = 0;
  core::attr_map attrs;
  std::vector<core::tensor> inputs;
  std::vector<core::tensor> outputs;
  std::string error; ///< The expected error code's name, or empty.
};

/// Parses `dtype dims...` and the line of values after it.
inline core::tensor read_case_tensor(std::istringstream& header,
                                     const std::string& values) {
  std::string type_name;
  header >> type_name;
  std::vector<int64_t> dims;
  int64_t d;
  while (header >> d)
    dims.push_back(d);
  std::ostringstream one;
  one << "t " << type_name;
  for (auto x : dims)
    one << ' ' << x;
  one << '\n' << values << '\n';
  std::istringstream in{one.str()};
  return parse_golden(in, "case tensor").at("t");
}

/// Returns every case of golden file `file`.
inline std::vector<op_case> load_cases(const std::string& file) {
  std::vector<op_case> cases;
  std::ifstream in{std::string{ACTORFLOW_GOLDEN_DIR} + "/" + file};
  EXPECT_TRUE(in.good()) << "cannot open golden file " << file;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l{line};
    std::string kind;
    l >> kind;
    if (kind == "case") {
      cases.emplace_back();
      l >> cases.back().name >> cases.back().op >> cases.back().rtol;
      continue;
    }
    if (cases.empty() || kind == "end") {
      continue;
    }
    auto& c = cases.back();
    if (kind == "attr") {
      std::string name, type;
      l >> name >> type;
      if (type == "type") {
        std::string v;
        l >> v;
        c.attrs[name] = core::parse_dtype(v).value_or(core::dtype::invalid);
      } else if (type == "int") {
        int64_t v = 0;
        l >> v;
        c.attrs[name] = v;
      } else if (type == "float") {
        double v = 0;
        l >> v;
        c.attrs[name] = v;
      } else if (type == "bool") {
        int v = 0;
        l >> v;
        c.attrs[name] = v != 0;
      } else if (type == "string") {
        std::string v;
        l >> v;
        c.attrs[name] = v;
      } else if (type == "ints") {
        size_t n = 0;
        l >> n;
        std::vector<int64_t> v(n);
        for (auto& x : v)
          l >> x;
        c.attrs[name] = v;
      } else if (type == "strings") {
        size_t n = 0;
        l >> n;
        std::vector<std::string> v(n);
        for (auto& x : v)
          l >> x;
        c.attrs[name] = v;
      } else {
        ADD_FAILURE() << "unknown attr kind " << type << " in " << file;
      }
    } else if (kind == "in" || kind == "out") {
      std::string values;
      std::getline(in, values);
      auto t = read_case_tensor(l, values);
      (kind == "in" ? c.inputs : c.outputs).push_back(t);
    } else if (kind == "error") {
      l >> c.error;
    } else {
      ADD_FAILURE() << "unknown line '" << line << "' in " << file;
    }
  }
  return cases;
}

} // namespace actorflow::test
