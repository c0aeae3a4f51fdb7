// The models of `actorflow train`, and the commands that come with them.

#include "models/models.hpp"

#include "models/char_rnn/char_rnn_command.hpp"
#include "models/char_rnn/sample.hpp"
#include "models/energy/energy_command.hpp"
#include "models/fashion/fashion_command.hpp"
#include "models/moe/moe_command.hpp"

namespace actorflow::apps {

void add_train_models(CLI::App& train, command_list* out) {
  add_fashion_train(train, out);
  add_moe_train(train, out);
  add_char_rnn_train(train, out);
  add_energy_train(train, out);
}

void add_model_commands(CLI::App& app, command_list* out) {
  add_sample_command(app, out);
}

} // namespace actorflow::apps
