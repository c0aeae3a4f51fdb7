// The progress of an epoch on standard error.

#include "training/progress_line.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace actorflow::apps {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
    .count();
}

std::string clock_text(double seconds) {
  auto s = static_cast<long>(std::lround(std::max(0.0, seconds)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

progress_line::progress_line(bool enabled, bool terminal, std::string unit)
  : enabled_(enabled), terminal_(terminal), unit_(std::move(unit)) {
  // nop
}

void progress_line::show(int epoch, int epochs, int64_t step, int64_t steps,
                         double loss, double rate, double eta_s) {
  if (gauges_ != nullptr)
    gauges_->update(epoch, (epoch - 1) * steps + step, loss, rate, unit_);
  if (!enabled_)
    return;
  if (terminal_) {
    if (step != steps && seconds_since(last_) < 0.1)
      return;
  } else if ((step * 10) / steps == ((step - 1) * 10) / steps) {
    return; // not a new tenth
  }
  last_ = clock_type::now();
  constexpr int width = 30;
  auto filled = static_cast<int>(width * step / std::max<int64_t>(steps, 1));
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < width)
    bar += '>' + std::string(static_cast<size_t>(width - filled - 1), ' ');
  std::fprintf(
    stderr, "%sepoch %d/%d [%s] %lld/%lld loss %.4f  %.0f %s  ETA %s%s",
    terminal_ ? "\r" : "", epoch, epochs, bar.c_str(),
    static_cast<long long>(step), static_cast<long long>(steps), loss, rate,
    unit_.c_str(), clock_text(eta_s).c_str(), terminal_ ? " " : "\n");
  std::fflush(stderr);
}

void progress_line::end_line() {
  if (enabled_ && terminal_)
    std::fputc('\n', stderr);
}

} // namespace actorflow::apps
