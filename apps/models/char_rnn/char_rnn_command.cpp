// `actorflow train char-rnn`: a character-level language model on text,
// with its own defaults (Adam, a smaller batch, one epoch).

#include "models/char_rnn/char_rnn_command.hpp"

#include <memory>

#include "common/flags.hpp"
#include "models/char_rnn/char_rnn_job.hpp"
#include "training/train_flags.hpp"

namespace actorflow::apps {

void add_char_rnn_train(CLI::App& train, command_list* out) {
  auto o = std::make_shared<train_options>();
  o->dataset = "char-rnn";
  o->optimizer = "adam";
  o->learning_rate = 0.002;
  o->batch = 32;
  o->epochs = 1;
  auto text_options = std::make_shared<char_rnn_options>();
  auto& text = *text_options;
  o->make_job = [text_options](const train_options& t,
                               std::unique_ptr<training_job>* job) {
    return make_char_rnn_job(t, *text_options, job);
  };
  auto* cmd = train.add_subcommand(
    "char-rnn", "A character-level language model (an LSTM or GRU) on "
                "text; a checkpoint and the held-out perplexity after each "
                "epoch (`actorflow sample` generates from it)");
  cmd->add_option("--data", text.data,
                  "A text file or folder: one sequence per fortune "
                  "(between % lines) or paragraph (default: Debian's "
                  "fortunes, /usr/share/games/fortunes)");
  cmd->add_option("--cell", text.model.cell, "The recurrent cell")
    ->capture_default_str()
    ->check(CLI::IsMember({"lstm", "gru"}));
  cmd->add_option("--layers", text.model.layers, "Recurrent layers")
    ->capture_default_str()
    ->check(int_range(1, 16));
  cmd->add_option("--units", text.model.units, "Units of each layer")
    ->capture_default_str()
    ->check(int_range(1, 1 << 16));
  cmd
    ->add_option("--embed", text.model.embed,
                 "Width of a character's embedding")
    ->capture_default_str()
    ->check(int_range(1, 1 << 16));
  cmd
    ->add_option("--max-len", text.max_len,
                 "Longer sequences are cut into windows of this many "
                 "characters")
    ->capture_default_str()
    ->check(int_range(1, 1 << 20));
  cmd
    ->add_option("--held-out-every", text.held_out_every,
                 "Every n-th sequence is held out for the perplexity")
    ->capture_default_str()
    ->check(int_range(2, 1'000'000));
  cmd
    ->add_option("--clip-norm", text.clip_norm,
                 "Clip the gradients to this global norm (0: do not)")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  add_schedule_flags(cmd, o.get());
  add_job_flags(cmd, o.get(), "Checkpoints go to <dir>/char-rnn");
  out->push_back({cmd, [cmd, o] { return run_job_model(*cmd, *o); }});
}

} // namespace actorflow::apps
