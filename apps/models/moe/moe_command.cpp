// `actorflow train moe`: a Fashion-MNIST classifier through a sparsely
// gated mixture of experts, or its dense twin.

#include "models/moe/moe_command.hpp"

#include <memory>

#include "models/fashion/fashion_job.hpp"
#include "models/moe/moe_job.hpp"
#include "training/train_flags.hpp"

namespace actorflow::apps {

void add_moe_train(CLI::App& train, command_list* out) {
  auto o = std::make_shared<train_options>();
  auto m = std::make_shared<moe_options>();
  o->make_job
    = [m](const train_options& t, std::unique_ptr<training_job>* job) {
        return make_moe_job(t, *m, job);
      };
  o->hidden = {256, 256};
  auto dense = std::make_shared<bool>(false);
  auto* cmd = train.add_subcommand(
    "moe", "A Fashion-MNIST classifier through a mixture of experts: "
           "images -> experts of --hidden H1,H2, --k per image -> 10; the "
           "experts' loads and the test accuracy after each epoch");
  add_image_flags(cmd, o.get(), "Each expert's two layers, H1,H2");
  cmd->add_option("--experts", m->experts, "Experts")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  cmd->add_option("--k", m->k, "Experts per image")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  cmd->add_flag("--dense", *dense,
                "Train the dense twin instead: an MLP of the same per-image "
                "compute (hidden k*H1,H2)");
  add_schedule_flags(cmd, o.get());
  add_job_flags(cmd, o.get(),
                "Checkpoints go to <dir>/fashion-mnist-moe (--dense: "
                "<dir>/moe-dense)");
  cmd->add_flag("--restore-what-fits", o->restore_what_fits,
                "With --resume: restore the variables the checkpoint has "
                "with the model's dtype and shape, initialise the others");
  out->push_back({cmd, [cmd, o, m, dense] {
                    auto t = *o;
                    t.model = "moe";
                    if (*dense && t.hidden.size() == 2) {
                      t.model = "mlp";
                      t.make_job = make_fashion_job;
                      t.hidden[0] *= m->k;
                      // Not the classifier's: its checkpoints would not fit.
                      t.checkpoint_name = "moe-dense";
                    }
                    return run_job_model(*cmd, t);
                  }});
}

} // namespace actorflow::apps
