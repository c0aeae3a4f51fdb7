#include "flags.hpp"

#include <cmath>
#include <thread>

#include <unistd.h>

namespace actorflow::apps {

CLI::Validator int_range(int64_t lo, int64_t hi) {
  auto desc
    = "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]";
  return CLI::Validator{[lo, hi](std::string& text) -> std::string {
                          int64_t x = 0;
                          if (!CLI::detail::lexical_cast(text, x))
                            return "'" + text + "' is not an integer";
                          if (x < lo || x > hi)
                            return "value " + text + " is not in ["
                                   + std::to_string(lo) + ", "
                                   + std::to_string(hi) + "]";
                          return {};
                        },
                        desc};
}

CLI::Validator finite_positive() {
  return CLI::Validator{[](std::string& text) -> std::string {
                          double x = 0;
                          if (!CLI::detail::lexical_cast(text, x))
                            return "'" + text + "' is not a number";
                          if (!std::isfinite(x) || x <= 0)
                            return "value " + text
                                   + " is not a finite number > 0";
                          return {};
                        },
                        "POSITIVE"};
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
