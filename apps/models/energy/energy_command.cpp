// `actorflow train rbm` and `actorflow train autoencoder`: the energy
// models' flags, with each model's defaults.

#include "models/energy/energy_command.hpp"

#include <cstdio>
#include <memory>

#include "common/flags.hpp"
#include "models/energy/energy.hpp"
#include "training/train_flags.hpp"

namespace actorflow::apps {

namespace {

/// Adds `name` (rbm or autoencoder) to `train`.
void add_energy_model(CLI::App& train, const std::string& name,
                      const std::string& description, command_list* out) {
  bool rbm = name == "rbm";
  auto o = std::make_shared<train_options>();
  o->hidden
    = rbm ? std::vector<int64_t>{500} : std::vector<int64_t>{1000, 500, 250, 2};
  o->epochs = rbm ? 3 : 2;
  o->batch = 100;
  auto energy = std::make_shared<energy_options>();
  energy->out = name + "-out";
  auto* cmd = train.add_subcommand(name, description);
  add_image_flags(cmd, o.get(),
                  rbm ? "Hidden units"
                      : "The encoder's layers, the last the code's units");
  add_schedule_flags(cmd, o.get());
  if (!rbm)
    cmd->get_option("--epochs")->description("Epochs of pretraining per RBM");
  cmd->add_option("--cd-k", energy->cd_k, "Gibbs steps of CD-k")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  cmd->add_flag("--persistent", energy->persistent,
                "Persistent contrastive divergence");
  if (!rbm)
    cmd
      ->add_option("--finetune-epochs", energy->finetune_epochs,
                   "Epochs of fine-tuning by backpropagation")
      ->capture_default_str()
      ->check(int_range(0, 100'000));
  cmd
    ->add_option("--out", energy->out,
                 "Where the .npy files for scripts/energy_to_png.py go")
    ->capture_default_str();
  out->push_back({cmd, [o, energy, rbm] {
                    auto e = *energy;
                    e.data_dir = o->data_dir;
                    e.hidden = o->hidden;
                    e.epochs = o->epochs;
                    e.batch = o->batch;
                    e.learning_rate = o->learning_rate;
                    e.seed = o->seed;
                    e.threads = o->threads;
                    e.quiet = o->quiet;
                    if (rbm && e.hidden.size() != 1) {
                      std::fprintf(stderr, "actorflow train: an rbm takes "
                                           "one --hidden size\n");
                      return 1;
                    }
                    return rbm ? run_train_rbm(e) : run_train_autoencoder(e);
                  }});
}

} // namespace

void add_energy_train(CLI::App& train, command_list* out) {
  add_energy_model(train, "rbm",
                   "An RBM on Fashion-MNIST by contrastive divergence; the "
                   "reconstruction error per epoch, then its filters",
                   out);
  add_energy_model(train, "autoencoder",
                   "A deep autoencoder on Fashion-MNIST, pretrained as a "
                   "stack of RBMs, then fine-tuned; the test reconstruction "
                   "error, then the test set's codes",
                   out);
}

} // namespace actorflow::apps
