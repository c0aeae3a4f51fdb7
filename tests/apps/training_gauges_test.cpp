// The training gauges a task serves beside the engine's metrics: set by
// the progress line after every step, quiet or not, and rendered as
// Prometheus gauges.

#include <gtest/gtest.h>

#include "training/progress_line.hpp"
#include "training/training_gauges.hpp"

using namespace actorflow::apps;

TEST(training_gauges, nothing_before_the_first_step) {
  training_gauges g;
  EXPECT_EQ(g.render(), "");
}

TEST(training_gauges, a_quiet_progress_line_still_sets_them) {
  training_gauges g;
  progress_line quiet{false, false, "chars/s"};
  quiet.report_to(&g);
  // Step 2 of 5 of epoch 2: the seventh of the run.
  quiet.show(2, 3, 2, 5, 0.25, 1500, 1.0);
  auto text = g.render();
  for (const auto* line :
       {"# TYPE actorflow_training_epoch gauge\nactorflow_training_epoch 2\n",
        "actorflow_training_step 7\n", "actorflow_training_loss 0.25\n",
        "# TYPE actorflow_training_chars_per_second gauge\n"
        "actorflow_training_chars_per_second 1500\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  // Four gauges, each with its HELP and TYPE lines.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("# HELP actorflow_training_"), 4u) << text;
  EXPECT_EQ(count("# TYPE actorflow_training_"), 4u) << text;
  EXPECT_EQ(count("\nactorflow_training_"), 4u) << text;
}
