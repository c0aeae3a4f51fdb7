// `actorflow train fashion-mnist`: an MLP or a CNN classifying
// Fashion-MNIST's images, through an input queue.

#include "models/fashion/fashion_command.hpp"

#include <memory>

#include "models/fashion/fashion_job.hpp"
#include "training/train_flags.hpp"

namespace actorflow::apps {

void add_fashion_train(CLI::App& train, command_list* out) {
  auto o = std::make_shared<train_options>();
  o->make_job = make_fashion_job;
  auto* cmd = train.add_subcommand(
    "fashion-mnist", "A classifier of Fashion-MNIST's images (an MLP or a "
                     "CNN) fed through an input queue; a checkpoint and the "
                     "test accuracy after each epoch");
  cmd->add_option("--model", o->model, "The model")
    ->capture_default_str()
    ->check(CLI::IsMember({"mlp", "cnn"}));
  add_image_flags(cmd, o.get(), "The MLP's hidden layer sizes, e.g. 512,256");
  add_schedule_flags(cmd, o.get());
  add_job_flags(cmd, o.get(), "Checkpoints go to <dir>/fashion-mnist-<model>");
  cmd->add_flag("--restore-what-fits", o->restore_what_fits,
                "With --resume: restore the variables the checkpoint has "
                "with the model's dtype and shape, initialise the others (as "
                "TensorFlow's init_from_checkpoint)");
  out->push_back({cmd, [cmd, o] { return run_job_model(*cmd, *o); }});
}

} // namespace actorflow::apps
