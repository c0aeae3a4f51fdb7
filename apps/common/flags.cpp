// Validators and limits for the command line's flags.

#include "common/flags.hpp"

#include <charconv>
#include <cmath>
#include <system_error>
#include <thread>

#include <unistd.h>

namespace actorflow::apps {

namespace {

/// Parses all of `text` as a number: std::from_chars's syntax ("nan" and
/// "inf" for doubles) with an optional leading '+'.
template <class T>
bool parse(const std::string& text, T* out) {
  const auto* begin = text.data();
  const auto* end = begin + text.size();
  if (begin != end && *begin == '+')
    ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  return ec == std::errc{} && ptr == end;
}

} // namespace

CLI::Validator int_range(int64_t lo, int64_t hi) {
  auto desc
    = "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]";
  return CLI::Validator{[lo, hi](std::string& text) -> std::string {
                          int64_t x = 0;
                          if (!parse(text, &x))
                            return "'" + text + "' is not an integer";
                          if (x < lo || x > hi)
                            return "value " + text + " is not in ["
                                   + std::to_string(lo) + ", "
                                   + std::to_string(hi) + "]";
                          return {};
                        },
                        desc};
}

CLI::Option* add_threads_option(CLI::App* cmd, int* threads) {
  return cmd
    ->add_option("--threads", *threads,
                 "Threads for the actors and for kernels (default: one per "
                 "core)")
    ->check(int_range(0, max_threads()));
}

CLI::Option* add_graph_passes_option(CLI::App* cmd,
                                     graph::pass_selection* passes) {
  return cmd
    ->add_option_function<std::string>(
      "--graph-passes",
      [passes](const std::string& text) {
        auto st = graph::pass_selection::parse(text, passes);
        if (!st.is_ok())
          throw CLI::ValidationError{"--graph-passes", st.message()};
      },
      "Graph optimizations before placement: all (default), none, the ones "
      "to run ("
        + graph::pass_selection{}.to_string() + ") or all less some (-fusion)")
    ->type_name("LIST");
}

CLI::Validator finite_positive() {
  return CLI::Validator{[](std::string& text) -> std::string {
                          double x = 0;
                          if (!parse(text, &x))
                            return "'" + text + "' is not a number";
                          if (!std::isfinite(x) || x <= 0)
                            return "value " + text
                                   + " is not a finite number > 0";
                          return {};
                        },
                        "POSITIVE"};
}

void add_graph_or_saved_model_options(CLI::App* cmd, std::string* graph,
                                      std::string* saved_model,
                                      const std::string& saved_help,
                                      std::string* signature) {
  auto* g = cmd
              ->add_option("--graph", *graph,
                           "The graph: a TensorFlow GraphDef (.pb, .pbtxt) or "
                           "a graph file of actorflow's")
              ->check(CLI::ExistingFile);
  auto* s = cmd->add_option("--saved-model", *saved_model, saved_help)
              ->check(CLI::ExistingDirectory)
              ->excludes(g);
  g->excludes(s);
  cmd
    ->add_option("--signature", *signature,
                 "With --saved-model: the signature to run")
    ->capture_default_str();
}

actors::engine_options with_threads(actors::engine_options eo, int threads) {
  if (threads > 0) {
    eo.threads_per_device = threads;
    eo.scheduler_threads = threads;
  }
  return eo;
}

int max_threads() {
  auto cores = std::thread::hardware_concurrency();
  return 4 * static_cast<int>(cores > 0 ? cores : 1);
}

uint64_t physical_memory() {
  auto pages = sysconf(_SC_PHYS_PAGES);
  auto page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

std::string check_fits_in_memory(double bytes, const std::string& what) {
  auto have = physical_memory();
  if (have == 0 || bytes <= static_cast<double>(have))
    return {};
  return what + " needs " + std::to_string(std::llround(bytes / (1 << 20)))
         + " MiB, more than this machine's " + std::to_string(have / (1 << 20))
         + " MiB";
}

} // namespace actorflow::apps
