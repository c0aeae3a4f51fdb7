// `actorflow train`: the models' subcommands and the errors for flags given
// to the wrong model.

#include "cli/train.hpp"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "models/models.hpp"

namespace actorflow::apps {

namespace {

/// The flag a command-line token names ("--units=8" -> "units"); empty
/// if it names none.
std::string flag_name(const std::string& token) {
  if (token.size() < 3 || token.compare(0, 2, "--") != 0)
    return {};
  return token.substr(2, token.find('=') - 2);
}

/// Fails with `actorflow train: <what>`.
int refuse(const std::string& what) {
  std::fprintf(stderr, "actorflow train: %s\n", what.c_str());
  return EXIT_FAILURE;
}

} // namespace

void add_train_command(CLI::App& app, command_list* out) {
  auto* train = app.add_subcommand(
    "train", "Train a model -- a classifier, a mixture of experts, a "
             "language model or an energy model -- with progress, "
             "checkpoints and an evaluation after each epoch; the last line "
             "is JSON. `actorflow train MODEL --help` lists the model's "
             "flags and defaults");
  // Extras are ours to name: a model that is not one, a flag of another
  // model.
  train->allow_extras();
  command_list models;
  add_train_models(*train, &models);
  // The flags some model takes: given to another, they are "not for" it.
  std::set<std::string> taken;
  std::string names;
  for (const auto& m : models) {
    m.cli->allow_extras();
    names += (names.empty() ? "" : ", ") + m.cli->get_name();
    for (const auto* opt : m.cli->get_options())
      for (const auto& name : opt->get_lnames())
        taken.insert(name);
  }
  out->push_back({train, [train, names] {
                    auto rest = train->remaining();
                    if (rest.empty())
                      return refuse("name the model: " + names);
                    if (!flag_name(rest.front()).empty())
                      return refuse("flags go after the model: actorflow "
                                    "train MODEL "
                                    + rest.front());
                    return refuse("dataset: " + rest.front() + " not in {"
                                  + names + "}");
                  }});
  for (auto& m : models) {
    auto* cmd = m.cli;
    auto run = std::move(m.run);
    out->push_back(
      {cmd, [train, cmd, run, taken] {
         auto name = cmd->get_name();
         if (!train->remaining().empty())
           return refuse("flags go after the model: actorflow train " + name
                         + " " + train->remaining().front());
         // The first word left over is the one to name.
         auto rest = cmd->remaining();
         if (rest.empty())
           return run();
         auto flag = flag_name(rest.front());
         if (flag.empty())
           return refuse("unexpected '" + rest.front() + "' after " + name);
         if (taken.count(flag) > 0)
           return refuse("--" + flag + " is not for " + name);
         return refuse("unknown flag --" + flag + " (actorflow train " + name
                       + " --help lists them)");
       }});
  }
}

} // namespace actorflow::apps
