// A main for the fuzz targets where libFuzzer is not at hand (GCC): runs
// the target on each file named on the command line (or each file in each
// directory named), then, with --mutations N, on N mutants of each: bytes
// flipped, overwritten, inserted, deleted or cut off, from a fixed seed.
// Without coverage guidance this is no fuzzer, but under the sanitizers it
// is a short, repeatable run of each target for ctest; scripts/fuzz.sh
// runs the real one.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
}

/// `x` with one to four random edits.
std::string mutate(std::string x, std::mt19937_64& gen) {
  auto below = [&](size_t n) {
    return n == 0 ? size_t{0}
                  : std::uniform_int_distribution<size_t>{0, n - 1}(gen);
  };
  auto edits = 1 + below(4);
  for (size_t i = 0; i < edits; ++i) {
    auto at = below(x.size() + 1);
    switch (below(5)) {
      case 0: // flip a bit
        if (at < x.size())
          x[at] = static_cast<char>(x[at] ^ (1 << below(8)));
        break;
      case 1: // overwrite a byte, often with an extreme value
        if (at < x.size()) {
          const char special[]
            = {0, 1, 0x7f, static_cast<char>(0x80), static_cast<char>(0xff)};
          x[at] = below(2) ? special[below(5)] : static_cast<char>(below(256));
        }
        break;
      case 2: // insert random bytes
        x.insert(at, std::string(1 + below(8), static_cast<char>(below(256))));
        break;
      case 3: // delete a run
        if (at < x.size())
          x.erase(at, 1 + below(16));
        break;
      default: // cut off the rest
        x.resize(at);
        break;
    }
  }
  return x;
}

} // namespace

int main(int argc, char** argv) {
  long mutations = 0;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutations") == 0 && i + 1 < argc) {
      mutations = std::strtol(argv[++i], nullptr, 10);
      continue;
    }
    fs::path p{argv[i]};
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator{p})
        files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end()); // the same mutants everywhere
  std::mt19937_64 gen{20261123};
  long inputs = 0;
  for (const auto& f : files) {
    std::ifstream in{f, std::ios::binary};
    std::string bytes{std::istreambuf_iterator<char>{in},
                      std::istreambuf_iterator<char>{}};
    run(bytes);
    ++inputs;
    for (long k = 0; k < mutations; ++k, ++inputs)
      run(mutate(bytes, gen));
  }
  std::printf("ran %ld inputs from %zu files\n", inputs, files.size());
  return files.empty() ? 1 : 0;
}
