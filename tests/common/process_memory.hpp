#pragma once

// The memory this process holds, from /proc, for the tests and benchmarks
// that bound it.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <fstream>
#include <string>
#include <thread>

#include <malloc.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#  define ACTORFLOW_TEST_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define ACTORFLOW_TEST_ASAN 1
#  endif
#endif
#ifdef ACTORFLOW_TEST_ASAN
// The sanitizer runtime's (GCC ships no header declaring it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace actorflow::test {

/// Bytes the program has allocated and not freed: malloc's count of bytes
/// in use, or AddressSanitizer's (which leaves out the freed blocks it
/// holds in quarantine). Unlike the resident set, it sees a leak of a few
/// KiB per cycle through allocator caching and fragmentation, the same way
/// with and without the sanitizer.
inline size_t live_heap_bytes() {
#ifdef ACTORFLOW_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  auto info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

/// The highest heap in use (`live_heap_bytes`) above where it was when
/// made, sampled by a thread of its own every `period` until `stop`: the
/// peak of a run that keeps state as it goes, measured the same way with
/// and without AddressSanitizer (whose quarantine inflates the resident
/// set by up to 256 MB of freed blocks).
class heap_peak {
public:
  explicit heap_peak(std::chrono::microseconds period
                     = std::chrono::microseconds{500})
    : base_(live_heap_bytes()), peak_(base_), sampler_([this, period] {
        while (!done_.load()) {
          auto now = live_heap_bytes();
          if (now > peak_.load())
            peak_.store(now);
          std::this_thread::sleep_for(period);
        }
      }) {
    // nop
  }

  heap_peak(const heap_peak&) = delete;
  heap_peak& operator=(const heap_peak&) = delete;

  ~heap_peak() {
    stop();
  }

  /// Stops sampling (after one last sample) and returns the peak above
  /// the start, in MB.
  double stop() {
    if (!done_.exchange(true))
      sampler_.join();
    auto now = live_heap_bytes();
    if (now > peak_.load())
      peak_.store(now);
    return (static_cast<double>(peak_.load()) - static_cast<double>(base_))
           / (1 << 20);
  }

private:
  size_t base_;
  std::atomic<size_t> peak_;
  std::atomic<bool> done_{false};
  std::thread sampler_;
};

/// Resident set size of process `pid` (0: this one) in KiB; 0 if gone.
inline long rss_kib(pid_t pid) {
  std::ifstream statm{pid == 0 ? std::string{"/proc/self/statm"}
                               : "/proc/" + std::to_string(pid) + "/statm"};
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE) / 1024;
}

/// Resident set size of this process in KiB.
inline long rss_kib() {
  std::ifstream statm{"/proc/self/statm"};
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE) / 1024;
}

/// Resident set size of this process in MB.
inline double rss_mb() {
  return double(rss_kib()) / 1024.0;
}

/// Peak resident set size of this process in MB (VmHWM), -1 if unknown.
inline double peak_rss_mb() {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  return -1;
}

} // namespace actorflow::test
